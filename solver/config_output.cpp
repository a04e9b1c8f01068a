// The optional sections: receivers, boundary, output (with output.snapshots), kernel.
#include "solver/config_reader.hpp"
#include "solver/config_text.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace seisfd::config_detail {
namespace {

std::string not_used(const char* key, const char* value) {
  return std::string("not used by ") + key + " = \"" + value + "\"";
}

SnapshotConfig read_snapshots(const Section& s) {
  s.check_known({"enabled", "interval", "decimation", "box"});
  SnapshotConfig snap;
  const auto interval = s.get_positive("interval");
  // A snapshots table that gives an interval asks for snapshots.
  snap.enabled = s.get_bool("enabled").value_or(interval.has_value());
  if (snap.enabled) s.need("interval", interval, "snapshots are enabled");
  snap.interval = interval.value_or(0.0);
  if (const toml::node* d = s.find("decimation")) {
    if (d->is_integer()) {
      const int n = *s.get_int("decimation", 1);
      snap.decimation = {n, n, n};
    } else if (d->is_array()) {
      const auto v = *s.get_ints("decimation", 3, 1);
      snap.decimation = {v[0], v[1], v[2]};
    } else {
      s.fail("decimation",
             "expected an integer or an array of 3 integers [x, y, z], got " + describe(*d));
    }
  }
  if (const auto box = s.get_table("box")) {
    box->check_known({"min", "max"});
    const Vec3 lo = box->need("min", box->get_vec3("min"));
    const Vec3 hi = box->need("max", box->get_vec3("max"));
    for (int i = 0; i < 3; ++i)
      if (!(lo[i] < hi[i]))
        s.fail("box", std::string("min must be < max in every component (") + "xyz"[i] + ": " +
                          format_number(lo[i]) + " >= " + format_number(hi[i]) + ")");
    snap.box = std::array<Vec3, 2>{lo, hi};
  }
  return snap;
}

}  // namespace

ReceiverConfig read_receivers(const Section& s) {
  s.check_known({"layout", "start", "end", "count", "file", "interpolation"});
  ReceiverConfig r;
  r.layout = s.need("layout", s.get_enum("layout", {ReceiverLayout::kLine, ReceiverLayout::kGrid,
                                                    ReceiverLayout::kFile}));
  const std::string why = not_used("receivers.layout", to_string(r.layout));
  if (r.layout == ReceiverLayout::kFile) {
    for (const char* k : {"start", "end", "count"}) s.reject(k, why);
    r.file = s.need("file", s.get_path("file"));
  } else {
    s.reject("file", why);
    r.start = s.need("start", s.get_vec3("start"));
    r.end = s.need("end", s.get_vec3("end"));
    if (r.layout == ReceiverLayout::kLine) {
      r.count = {s.need("count", s.get_int("count", 1)), 1};
    } else {
      if (r.start[2] != r.end[2])
        s.fail("end", "must be at the depth of receivers.start for layout = \"grid\" (start z = " +
                          format_number(r.start[2]) + ", end z = " + format_number(r.end[2]) + ")");
      const auto n = s.need("count", s.get_ints("count", 2, 1), "[along x, along y]");
      r.count = {n[0], n[1]};
    }
  }
  r.interpolation = s.get_enum("interpolation", {PointInterp::kSinc, PointInterp::kTrilinear})
                        .value_or(r.interpolation);
  return r;
}

BoundaryConfig read_boundary(const Section& s) {
  s.check_known({"type", "width", "reflection", "cfs_frequency", "power", "free_surface"});
  BoundaryConfig b;
  b.type = s.get_enum("type", {BoundaryType::kSponge, BoundaryType::kCpml, BoundaryType::kNone})
               .value_or(b.type);
  if (b.type != BoundaryType::kCpml) {
    const char* t = to_string(b.type);
    s.reject("cfs_frequency", not_used("boundary.type", t));
    s.reject("power", not_used("boundary.type", t));
  }
  if (b.type == BoundaryType::kNone) {
    s.reject("reflection", not_used("boundary.type", "none"));
    b.width = s.get_int("width", 0).value_or(0);
    if (b.width != 0)
      s.fail("width",
             "must be 0 for boundary.type = \"none\" (got " + std::to_string(b.width) + ")");
  } else {
    b.width = s.get_int("width", 0).value_or(b.width);
    if (b.width == 0)
      s.fail("width", std::string("must be at least 1 for boundary.type = \"") + to_string(b.type) +
                          "\" (use type = \"none\" for no layers)");
    const double def = b.type == BoundaryType::kCpml ? BoundaryConfig::kCpmlReflection
                                                     : BoundaryConfig::kSpongeReflection;
    b.reflection = s.get_double("reflection").value_or(def);
    if (!(b.reflection > 0 && b.reflection < 1))
      s.fail("reflection", "must be in (0, 1) (got " + format_number(b.reflection) + ")");
    if (b.type == BoundaryType::kCpml) {
      b.cfs_frequency = s.get_double("cfs_frequency").value_or(b.cfs_frequency);
      if (!(b.cfs_frequency >= 0))
        s.fail("cfs_frequency", "must be >= 0 Hz (0: the source's peak frequency; got " +
                                    format_number(b.cfs_frequency) + ")");
      b.power = s.get_double("power").value_or(b.power);
      if (!(b.power >= 1 && b.power <= 4))
        s.fail("power", "must be in [1, 4] (got " + format_number(b.power) + ")");
    }
  }
  b.free_surface = s.get_bool("free_surface").value_or(b.free_surface);
  return b;
}

// output.formats: a non-empty array of distinct format names; "segy" needs a build with segyio.
std::vector<OutputFormat> read_formats(const Section& s) {
  const char* k = "formats";
  const std::vector<std::string> names{"hdf5", "segy"};
  const toml::node* node = s.find(k);
  const toml::array* a = node->as_array();
  if (a && a->empty()) s.fail(k, "must not be empty (known: \"hdf5\", \"segy\")");
  if (!a || !a->is_homogeneous(toml::node_type::string))
    s.fail(k, "expected an array of strings among \"hdf5\", \"segy\", got " + describe(*node));
  std::vector<OutputFormat> out;
  for (const auto& e : *a) {
    const std::string& v = e.as_string()->get();
    const auto it = std::find(names.begin(), names.end(), v);
    if (it == names.end()) {
      std::string message = "unknown format " + toml_string(v) + " (known: \"hdf5\", \"segy\")";
      const std::string guess = closest(v, names);
      if (!guess.empty()) message += "; did you mean \"" + guess + "\"?";
      s.fail(k, message);
    }
    const OutputFormat f = it == names.begin() ? OutputFormat::kHdf5 : OutputFormat::kSegy;
    if (std::find(out.begin(), out.end(), f) != out.end())
      s.fail(k, "lists " + toml_string(v) + " twice");
#if !SEISFD_HAVE_SEGY
    if (f == OutputFormat::kSegy)
      s.fail(k,
             "\"segy\" needs SEG-Y support, which this seisfd was built without (libsegyio, "
             "CMake SEISFD_SEGY; see `seisfd info`)");
#endif
    out.push_back(f);
  }
  return out;
}

OutputConfig read_output(const Section& s, bool have_receivers) {
  s.check_known({"directory", "gathers", "formats", "sample_interval", "snapshots", "model"});
  OutputConfig o;
  o.directory = s.get_string("directory").value_or(o.directory);
  const auto gathers = s.get_bool("gathers");
  if (!have_receivers && gathers.value_or(false))
    s.fail("gathers", "is true but the config has no [receivers] section");
  o.gathers = have_receivers && gathers.value_or(true);
  if (s.has("formats")) o.formats = read_formats(s);
  o.sample_interval = s.get_positive("sample_interval");
  if (const auto snapshots = s.get_table("snapshots")) o.snapshots = read_snapshots(*snapshots);
  o.model = s.get_bool("model").value_or(o.model);
  return o;
}

RunSection read_run(const Section& s) {
  s.check_known({"checkpoint_interval"});
  RunSection r;
  const toml::node* n = s.find("checkpoint_interval");
  if (!n) return r;
  if (n->is_integer()) {
    r.checkpoint_steps = *s.get_int("checkpoint_interval", 1);
    return r;
  }
  // "600 s", "10 min", "1.5 h": wall-clock time between checkpoints.
  const auto text = s.get_string("checkpoint_interval");
  if (!text) s.fail("checkpoint_interval", "expected an integer (steps) or a string \"T s\"");
  std::istringstream in(*text);
  double value = 0;
  std::string unit, rest;
  if (!(in >> value) || !(in >> unit) || (in >> rest) || !(value > 0) || !std::isfinite(value))
    s.fail("checkpoint_interval",
           "expected steps (an integer) or a time such as \"600 s\", \"10 min\" or \"2 h\", got " +
               describe(*n));
  const double scale = unit == "s" ? 1 : unit == "min" ? 60 : unit == "h" ? 3600 : 0;
  if (scale == 0) s.fail("checkpoint_interval", "unit '" + unit + "': use s, min or h");
  r.checkpoint_seconds = value * scale;
  return r;
}

ParallelConfig read_parallel(const Section& s) {
  s.check_known({"decomposition", "shot_groups", "exchange", "overlap"});
  ParallelConfig p;
  if (const toml::node* n = s.find("decomposition")) {
    if (n->is_string()) {
      if (*s.get_string("decomposition") != "auto")
        s.fail("decomposition", "expected \"auto\" or [pz, py, px], got " + describe(*n));
    } else {
      const auto d = s.get_ints("decomposition", 3, 1);
      if (!d) s.fail("decomposition", "expected \"auto\" or [pz, py, px]");
      for (int a = 0; a < 3; ++a) p.decomposition[a] = (*d)[a];
    }
  }
  p.shot_groups = s.get_int("shot_groups", 1).value_or(p.shot_groups);
  p.exchange = s.get_enum("exchange", {Exchange::kAuto, Exchange::kMpi, Exchange::kPeer,
                                       Exchange::kNccl, Exchange::kHost})
                   .value_or(p.exchange);
  p.overlap = s.get_bool("overlap").value_or(p.overlap);
  return p;
}

KernelConfig read_kernel(const Section& s) {
  s.check_known({"backend", "variant", "precision", "diagnostics_interval", "compressible",
                 "model_precision"});
  KernelConfig k;
  k.backend =
      s.get_enum("backend", {Backend::kAuto, Backend::kCpu, Backend::kCuda}).value_or(k.backend);
  k.variant = s.get_string("variant").value_or(k.variant);
  k.precision = s.get_enum("precision", {Precision::kFp32, Precision::kFp64}).value_or(k.precision);
  k.diagnostics_interval = s.get_int("diagnostics_interval", 1).value_or(k.diagnostics_interval);
  k.compressible =
      s.get_enum("compressible", {Compressible::kAuto, Compressible::kOn, Compressible::kOff})
          .value_or(k.compressible);
  k.model_precision =
      s.get_enum("model_precision", {ModelPrecision::kFp32, ModelPrecision::kFp16,
                                     ModelPrecision::kBf16, ModelPrecision::kFixed16})
          .value_or(k.model_precision);
  return k;
}

}  // namespace seisfd::config_detail
