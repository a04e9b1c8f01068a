// The resolved config written back: as TOML (`seisfd check`, a run's config.toml; it parses back
// to the same config) and as JSON (report.json's "config").
#include <nlohmann/json.hpp>

#include <sstream>
#include <type_traits>

#include "solver/config.hpp"
#include "solver/config_text.hpp"

namespace seisfd {
namespace {

using config_detail::toml_float;
using config_detail::toml_string;

std::string toml_vec(const Vec3& v) {
  return "[" + toml_float(v[0]) + ", " + toml_float(v[1]) + ", " + toml_float(v[2]) + "]";
}

template <class T>
std::string toml_list(const T& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    if constexpr (std::is_floating_point_v<typename T::value_type>) {
      out += toml_float(values[i]);
    } else {
      out += std::to_string(values[i]);
    }
  }
  return out + "]";
}

const char* toml_bool(bool b) {
  return b ? "true" : "false";
}

std::string toml_names(const std::vector<ImagingCondition>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + toml_string(to_string(values[i]));
  return out + "]";
}

void write_shots(std::ostream& o, const ShotsConfig& s) {
  o << "\n[shots]\nlayout = " << toml_string(to_string(s.layout)) << "\n";
  switch (s.layout) {
    case ShotLayout::kList: {
      o << "positions = [";
      for (size_t i = 0; i < s.positions.size(); ++i)
        o << (i ? ", " : "") << toml_vec(s.positions[i]);
      o << "]\n";
      break;
    }
    case ShotLayout::kGrid:
      o << "start = " << toml_vec(s.start) << "\nspacing = " << toml_list(s.spacing)
        << "\ncount = " << toml_list(s.count) << "\n";
      break;
    case ShotLayout::kFile:
      o << "file = " << toml_string(s.file) << "\n";
      break;
  }
  o << "receivers = " << toml_string(to_string(s.receivers)) << "\n";
}

void write_migration(std::ostream& o, const MigrationConfig& m) {
  o << "\n[migration]\n";
  if (m.data.empty()) {
    o << "# data: not set; seisfd migrate needs it\n";
  } else {
    o << "data = " << toml_string(m.data) << "\n";
  }
  o << "smoothing = " << toml_float(m.smoothing)
    << "\ndirect_arrival = " << toml_string(to_string(m.direct_arrival)) << "\n";
  if (m.direct_arrival == DirectArrival::kMute)
    o << "mute_velocity = " << toml_float(m.mute_velocity)
      << "\nmute_time = " << toml_float(m.mute_time)
      << "\nmute_taper = " << toml_float(m.mute_taper) << "\n";
  o << "conditions = " << toml_names(m.conditions) << "\nlaplacian = " << toml_bool(m.laplacian)
    << "\nstorage = " << toml_string(to_string(m.storage))
    << "\nstore_precision = " << toml_string(to_string(m.store_precision))
    << "\nimaging_interval = " << m.imaging_interval
    << "\nmemory_budget = " << toml_float(m.memory_budget)
    << "\nshot_images = " << toml_bool(m.shot_images) << "\n";
}

void write_born(std::ostream& o, const BornConfig& b) {
  o << "\n[born]\nperturbation = " << toml_string(to_string(b.perturbation)) << "\n";
  if (b.perturbation == PerturbationType::kReflectors) {
    o << "contrast = " << toml_float(b.contrast) << "\n";
  } else {
    o << "path = " << toml_string(b.path) << "\ndataset = " << toml_string(b.dataset) << "\n";
  }
  o << "background = " << toml_string(to_string(b.background)) << "\n";
}

}  // namespace

std::string config_to_toml(const RunConfig& c) {
  std::ostringstream o;
  const auto str = [](const std::string& s) { return toml_string(s); };
  const auto name = [](auto e) { return toml_string(to_string(e)); };
  o << "# seisfd resolved config" << (c.source_path.empty() ? "" : " (from " + c.source_path + ")")
    << "\n\n[grid]\n"
    << "nx = " << c.grid.nx << "\nny = " << c.grid.ny << "\nnz = " << c.grid.nz << "\n"
    << "dx = " << toml_float(c.grid.dx) << "\ndy = " << toml_float(c.grid.dy)
    << "\ndz = " << toml_float(c.grid.dz) << "\norigin = " << toml_vec(c.grid.origin) << "\n";

  const ModelConfig& m = c.model;
  o << "\n[model]\ntype = " << name(m.type) << "\n";
  if (m.type == ModelType::kConstant) o << "vp = " << toml_float(m.vp) << "\n";
  if (m.type == ModelType::kLayered)
    o << "interfaces = " << toml_list(m.interfaces) << "\nvelocities = " << toml_list(m.velocities)
      << "\n";
  if (m.type == ModelType::kFile)
    o << "path = " << str(m.path) << "\ndataset = " << str(m.dataset) << "\n";
  const std::pair<const char*, const AnisoParam*> aniso[] = {
      {"epsilon", &m.epsilon}, {"delta", &m.delta}, {"theta", &m.theta}, {"phi", &m.phi}};
  for (const auto& [key, a] : aniso) {
    if (a->kind == AnisoParam::Kind::kConstant) o << key << " = " << toml_float(a->value) << "\n";
    if (a->kind == AnisoParam::Kind::kLayers) o << key << " = " << toml_list(a->layers) << "\n";
    if (a->kind == AnisoParam::Kind::kFile)
      o << key << " = { path = " << str(a->path) << ", dataset = " << str(a->dataset) << " }\n";
  }

  o << "\n[physics]\nequation = " << name(c.physics.equation) << "\norder = " << c.physics.order
    << "\n";
  if (c.physics.equation == Physics::kTti)
    o << "tti_operator = " << name(c.physics.tti_operator) << "\n";

  o << "\n[time]\nduration = " << toml_float(c.time.duration) << "\n";
  if (c.time.dt) {
    o << "dt = " << toml_float(*c.time.dt) << "\n";
  } else {
    o << "# dt: not set; courant x the stability bound\n";
  }
  o << "courant = " << toml_float(c.time.courant) << "\n";

  const SourceConfig& s = c.source;
  o << "\n[source]\n";
  if (!c.shots.present) o << "position = " << toml_vec(s.position) << "\n";
  o << "wavelet = " << name(s.wavelet) << "\n";
  if (s.wavelet == WaveletType::kRicker) {
    o << "frequency = " << toml_float(s.frequency) << "\n";
    if (s.delay) {
      o << "delay = " << toml_float(*s.delay) << "\n";
    } else {
      o << "# delay: not set; 1.5 / frequency\n";
    }
  } else {
    o << "file = " << str(s.file) << "\nfile_dt = " << toml_float(s.file_dt) << "\n";
  }
  o << "amplitude = " << toml_float(s.amplitude) << "\ninjection = " << name(s.injection) << "\n";

  if (c.shots.present) write_shots(o, c.shots);

  const ReceiverConfig& r = c.receivers;
  const bool have_receivers = r.count[0] > 0 && r.count[1] > 0;
  if (!have_receivers) {
    o << "\n# [receivers]: none\n";
  } else {
    o << "\n[receivers]\nlayout = " << name(r.layout) << "\n";
    if (r.layout == ReceiverLayout::kFile) {
      o << "file = " << str(r.file) << "\n";
    } else {
      o << "start = " << toml_vec(r.start) << "\nend = " << toml_vec(r.end) << "\ncount = ";
      if (r.layout == ReceiverLayout::kLine) {
        o << r.count[0] << "\n";
      } else {
        o << toml_list(r.count) << "\n";
      }
    }
    o << "interpolation = " << name(r.interpolation) << "\n";
  }

  const BoundaryConfig& b = c.boundary;
  o << "\n[boundary]\ntype = " << name(b.type) << "\nwidth = " << b.width << "\n";
  if (b.type != BoundaryType::kNone) o << "reflection = " << toml_float(b.reflection) << "\n";
  if (b.type == BoundaryType::kCpml)
    o << "cfs_frequency = " << toml_float(b.cfs_frequency) << "\npower = " << toml_float(b.power)
      << "\n";
  o << "free_surface = " << toml_bool(b.free_surface) << "\n";

  const OutputConfig& out = c.output;
  o << "\n[output]\ndirectory = " << str(out.directory)
    << "\ngathers = " << toml_bool(out.gathers && have_receivers) << "\nformats = [";
  for (size_t i = 0; i < out.formats.size(); ++i) o << (i ? ", " : "") << name(out.formats[i]);
  o << "]\n";
  if (out.sample_interval) {
    o << "sample_interval = " << toml_float(*out.sample_interval) << "\n";
  } else {
    o << "# sample_interval: not set; dt\n";
  }
  o << "model = " << toml_bool(out.model) << "\n";
  const SnapshotConfig& snap = out.snapshots;
  o << "\n[output.snapshots]\nenabled = " << toml_bool(snap.enabled) << "\n";
  if (snap.interval > 0) o << "interval = " << toml_float(snap.interval) << "\n";
  o << "decimation = " << toml_list(snap.decimation) << "\n";
  if (snap.box) {
    o << "box = { min = " << toml_vec((*snap.box)[0]) << ", max = " << toml_vec((*snap.box)[1])
      << " }\n";
  } else {
    o << "# box: not set; the whole physical domain\n";
  }

  const KernelConfig& k = c.kernel;
  o << "\n[kernel]\nbackend = " << name(k.backend) << "\nvariant = " << str(k.variant)
    << "\nprecision = " << name(k.precision)
    << "\ndiagnostics_interval = " << k.diagnostics_interval
    << "\ncompressible = " << name(k.compressible)
    << "\nmodel_precision = " << name(k.model_precision) << "\n";
  if (c.run.checkpoint_steps > 0)
    o << "\n[run]\ncheckpoint_interval = " << c.run.checkpoint_steps << "\n";
  else if (c.run.checkpoint_seconds > 0)
    o << "\n[run]\ncheckpoint_interval = \"" << toml_float(c.run.checkpoint_seconds) << " s\"\n";
  const ParallelConfig& par = c.parallel;
  o << "\n[parallel]\ndecomposition = ";
  if (par.auto_decomposition())
    o << "\"auto\"";
  else
    o << "[" << par.decomposition[0] << ", " << par.decomposition[1] << ", " << par.decomposition[2]
      << "]";
  o << "\nshot_groups = " << par.shot_groups << "\nexchange = " << name(par.exchange)
    << "\noverlap = " << (par.overlap ? "true" : "false") << "\n";
  if (c.migration.present) write_migration(o, c.migration);
  if (c.born.present) write_born(o, c.born);
  return o.str();
}

std::string config_to_json(const RunConfig& c) {
  using Json = nlohmann::ordered_json;
  const auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  const ModelConfig& m = c.model;
  const SourceConfig& s = c.source;
  const ReceiverConfig& r = c.receivers;
  const SnapshotConfig& snap = c.output.snapshots;
  Json j;
  j["source_path"] = c.source_path;
  j["grid"] = {{"nx", c.grid.nx}, {"ny", c.grid.ny}, {"nz", c.grid.nz},        {"dx", c.grid.dx},
               {"dy", c.grid.dy}, {"dz", c.grid.dz}, {"origin", c.grid.origin}};
  j["model"] = {{"type", to_string(m.type)}};
  if (m.type == ModelType::kConstant) j["model"]["vp"] = m.vp;
  if (m.type == ModelType::kLayered) {
    j["model"]["interfaces"] = m.interfaces;
    j["model"]["velocities"] = m.velocities;
  }
  if (m.type == ModelType::kFile) {
    j["model"]["path"] = m.path;
    j["model"]["dataset"] = m.dataset;
  }
  const std::pair<const char*, const AnisoParam*> aniso[] = {
      {"epsilon", &m.epsilon}, {"delta", &m.delta}, {"theta", &m.theta}, {"phi", &m.phi}};
  for (const auto& [key, a] : aniso) {
    if (a->kind == AnisoParam::Kind::kConstant) j["model"][key] = a->value;
    if (a->kind == AnisoParam::Kind::kLayers) j["model"][key] = a->layers;
    if (a->kind == AnisoParam::Kind::kFile)
      j["model"][key] = {{"path", a->path}, {"dataset", a->dataset}};
  }
  j["physics"] = {{"equation", to_string(c.physics.equation)}, {"order", c.physics.order}};
  if (c.physics.equation == Physics::kTti)
    j["physics"]["tti_operator"] = to_string(c.physics.tti_operator);
  j["time"] = {{"duration", c.time.duration}, {"dt", opt(c.time.dt)}, {"courant", c.time.courant}};
  j["source"] = Json::object();
  if (!c.shots.present) j["source"]["position"] = s.position;
  j["source"]["wavelet"] = to_string(s.wavelet);
  if (s.wavelet == WaveletType::kRicker) {
    j["source"]["frequency"] = s.frequency;
    j["source"]["delay"] = opt(s.delay);
  } else {
    j["source"]["file"] = s.file;
    j["source"]["file_dt"] = s.file_dt;
  }
  j["source"]["amplitude"] = s.amplitude;
  j["source"]["injection"] = to_string(s.injection);
  j["shots"] = nullptr;
  if (const ShotsConfig& sh = c.shots; sh.present) {
    j["shots"] = {{"layout", to_string(sh.layout)}};
    if (sh.layout == ShotLayout::kList) j["shots"]["positions"] = sh.positions;
    if (sh.layout == ShotLayout::kGrid) {
      j["shots"]["start"] = sh.start;
      j["shots"]["spacing"] = sh.spacing;
      j["shots"]["count"] = sh.count;
    }
    if (sh.layout == ShotLayout::kFile) j["shots"]["file"] = sh.file;
    j["shots"]["receivers"] = to_string(sh.receivers);
  }
  const bool have_receivers = r.count[0] > 0 && r.count[1] > 0;
  if (!have_receivers) {
    j["receivers"] = nullptr;
  } else {
    j["receivers"] = {{"layout", to_string(r.layout)}};
    if (r.layout == ReceiverLayout::kFile) {
      j["receivers"]["file"] = r.file;
    } else {
      j["receivers"]["start"] = r.start;
      j["receivers"]["end"] = r.end;
      if (r.layout == ReceiverLayout::kLine) {
        j["receivers"]["count"] = r.count[0];
      } else {
        j["receivers"]["count"] = r.count;
      }
    }
    j["receivers"]["interpolation"] = to_string(r.interpolation);
  }
  j["boundary"] = {{"type", to_string(c.boundary.type)}, {"width", c.boundary.width}};
  if (c.boundary.type != BoundaryType::kNone) j["boundary"]["reflection"] = c.boundary.reflection;
  if (c.boundary.type == BoundaryType::kCpml) {
    j["boundary"]["cfs_frequency"] = c.boundary.cfs_frequency;
    j["boundary"]["power"] = c.boundary.power;
  }
  j["boundary"]["free_surface"] = c.boundary.free_surface;
  Json formats = Json::array();
  for (OutputFormat f : c.output.formats) formats.push_back(to_string(f));
  Json box = nullptr;
  if (snap.box) box = {{"min", (*snap.box)[0]}, {"max", (*snap.box)[1]}};
  j["output"] = {{"directory", c.output.directory},
                 {"gathers", c.output.gathers && have_receivers},
                 {"formats", formats},
                 {"sample_interval", opt(c.output.sample_interval)},
                 {"model", c.output.model},
                 {"snapshots",
                  {{"enabled", snap.enabled},
                   {"interval", snap.interval > 0 ? Json(snap.interval) : Json(nullptr)},
                   {"decimation", snap.decimation},
                   {"box", box}}}};
  j["kernel"] = {{"backend", to_string(c.kernel.backend)},
                 {"variant", c.kernel.variant},
                 {"compressible", to_string(c.kernel.compressible)},
                 {"precision", to_string(c.kernel.precision)},
                 {"model_precision", to_string(c.kernel.model_precision)},
                 {"diagnostics_interval", c.kernel.diagnostics_interval}};
  j["run"] = {{"checkpoint_steps", c.run.checkpoint_steps},
              {"checkpoint_seconds", c.run.checkpoint_seconds}};
  j["parallel"] = {
      {"decomposition",
       c.parallel.auto_decomposition() ? Json("auto") : Json(c.parallel.decomposition)},
      {"shot_groups", c.parallel.shot_groups},
      {"exchange", to_string(c.parallel.exchange)},
      {"overlap", c.parallel.overlap}};
  j["migration"] = nullptr;
  if (const MigrationConfig& m = c.migration; m.present) {
    Json conditions = Json::array();
    for (ImagingCondition ic : m.conditions) conditions.push_back(to_string(ic));
    j["migration"] = {{"data", m.data.empty() ? Json(nullptr) : Json(m.data)},
                      {"smoothing", m.smoothing},
                      {"direct_arrival", to_string(m.direct_arrival)}};
    if (m.direct_arrival == DirectArrival::kMute) {
      j["migration"]["mute_velocity"] = m.mute_velocity;
      j["migration"]["mute_time"] = m.mute_time;
      j["migration"]["mute_taper"] = m.mute_taper;
    }
    j["migration"]["conditions"] = conditions;
    j["migration"]["laplacian"] = m.laplacian;
    j["migration"]["storage"] = to_string(m.storage);
    j["migration"]["store_precision"] = to_string(m.store_precision);
    j["migration"]["imaging_interval"] = m.imaging_interval;
    j["migration"]["memory_budget"] = m.memory_budget;
    j["migration"]["shot_images"] = m.shot_images;
  }
  j["born"] = nullptr;
  if (const BornConfig& b = c.born; b.present) {
    j["born"] = {{"perturbation", to_string(b.perturbation)}};
    if (b.perturbation == PerturbationType::kReflectors) {
      j["born"]["contrast"] = b.contrast;
    } else {
      j["born"]["path"] = b.path;
      j["born"]["dataset"] = b.dataset;
    }
    j["born"]["background"] = to_string(b.background);
  }
  return j.dump(2);
}

}  // namespace seisfd
