// The survey and imaging sections: [shots] (docs/migration.md §1), [born] (§2) and
// [migration] (§3).
#include <algorithm>
#include <cmath>

#include "solver/config_reader.hpp"
#include "solver/config_text.hpp"

namespace seisfd::config_detail {
namespace {

std::string not_used(const char* key, const char* value) {
  return std::string("not used by ") + key + " = \"" + value + "\"";
}

// Keys of one type (layout, perturbation) given with another type are errors.
void reject_others(const Section& s, const std::vector<std::string>& specific,
                   const std::vector<std::string>& allowed, const std::string& why) {
  for (const auto& k : specific)
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) s.reject(k, why);
}

std::optional<double> get_non_negative(const Section& s, std::string_view k) {
  const auto v = s.get_double(k);
  if (v && !(*v >= 0)) s.fail(k, "must be >= 0 (got " + format_number(*v) + ")");
  return v;
}

// shots.positions: a non-empty array of [x, y, z].
std::vector<Vec3> read_positions(const Section& s) {
  const char* k = "positions";
  const toml::node* node = s.find(k);
  if (!node) s.fail(k, "required key is missing (an array of [x, y, z], one per shot)");
  const toml::array* a = node->as_array();
  if (!a) s.fail(k, "expected an array of [x, y, z] arrays, got " + describe(*node));
  if (a->empty()) s.fail(k, "must not be empty (one [x, y, z] per shot)");
  std::vector<Vec3> out;
  for (size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const toml::array* p = e.as_array();
    bool ok = p && p->size() == 3;
    for (size_t d = 0; ok && d < 3; ++d) ok = p->get(d)->is_number();
    const std::string which = "shot " + std::to_string(i) + ": ";
    if (!ok) s.fail(k, which + "expected an array of 3 numbers [x, y, z], got " + describe(e));
    Vec3 v{};
    for (size_t d = 0; d < 3; ++d) {
      const toml::node& x = *p->get(d);
      v[d] = x.is_integer() ? static_cast<double>(x.as_integer()->get())
                            : x.as_floating_point()->get();
      if (!std::isfinite(v[d])) s.fail(k, which + "must be finite numbers, got " + describe(e));
    }
    out.push_back(v);
  }
  return out;
}

// migration.conditions: a non-empty array of distinct condition names.
std::vector<ImagingCondition> read_conditions(const Section& s) {
  const char* k = "conditions";
  const auto all = {ImagingCondition::kCrossCorrelation, ImagingCondition::kNormalized,
                    ImagingCondition::kInverseScattering};
  std::vector<std::string> names;
  for (ImagingCondition c : all) names.emplace_back(to_string(c));
  const toml::node* node = s.find(k);
  const toml::array* a = node->as_array();
  if (a && a->empty()) s.fail(k, "must not be empty (known: " + join(names) + ")");
  if (!a || !a->is_homogeneous(toml::node_type::string))
    s.fail(k, "expected an array of strings among " + join(names) + ", got " + describe(*node));
  std::vector<ImagingCondition> out;
  for (const auto& e : *a) {
    const std::string& v = e.as_string()->get();
    const auto it = std::find(names.begin(), names.end(), v);
    if (it == names.end()) {
      std::string message =
          "unknown imaging condition " + toml_string(v) + " (known: " + join(names) + ")";
      const std::string guess = closest(v, names);
      if (!guess.empty()) message += "; did you mean \"" + guess + "\"?";
      s.fail(k, message);
    }
    const ImagingCondition c = *(all.begin() + (it - names.begin()));
    if (std::find(out.begin(), out.end(), c) != out.end())
      s.fail(k, "lists " + toml_string(v) + " twice");
    out.push_back(c);
  }
  return out;
}

}  // namespace

ShotsConfig read_shots(const Section& s, bool have_receivers) {
  s.check_known({"layout", "positions", "start", "spacing", "count", "file", "receivers"});
  ShotsConfig sh;
  sh.present = true;
  sh.layout = s.need(
      "layout", s.get_enum("layout", {ShotLayout::kList, ShotLayout::kGrid, ShotLayout::kFile}));
  const std::vector<std::string> specific{"positions", "start", "spacing", "count", "file"};
  const std::string why = not_used("shots.layout", to_string(sh.layout));
  switch (sh.layout) {
    case ShotLayout::kList:
      reject_others(s, specific, {"positions"}, why);
      sh.positions = read_positions(s);
      break;
    case ShotLayout::kGrid: {
      reject_others(s, specific, {"start", "spacing", "count"}, why);
      sh.start = s.need("start", s.get_vec3("start"), "the first shot [x, y, z]");
      const auto n = s.need("count", s.get_ints("count", 2, 1), "[along x, along y]");
      sh.count = {n[0], n[1]};
      const auto d = s.need("spacing", s.get_doubles("spacing"), "[along x, along y], m");
      if (d.size() != 2)
        s.fail("spacing", "expected an array of 2 numbers [along x, along y], got " +
                              std::to_string(d.size()) + " numbers");
      for (int a = 0; a < 2; ++a) {
        if (!(d[a] >= 0))
          s.fail("spacing", "every value must be >= 0 (got " + format_number(d[a]) + ")");
        // Shots at one position would model the same data twice.
        if (d[a] == 0 && sh.count[a] > 1)
          s.fail("spacing", std::string("is 0 along ") + "xy"[a] + " but shots.count gives " +
                                std::to_string(sh.count[a]) + " shots along " + "xy"[a] +
                                " (they would coincide)");
        sh.spacing[a] = d[a];
      }
      break;
    }
    case ShotLayout::kFile:
      reject_others(s, specific, {"file"}, why);
      sh.file = s.need("file", s.get_path("file"), "one \"x y z\" per line");
      break;
  }
  sh.receivers =
      s.get_enum("receivers", {ReceiverMode::kFixed, ReceiverMode::kMoving}).value_or(sh.receivers);
  if (sh.receivers == ReceiverMode::kMoving && !have_receivers)
    s.fail("receivers",
           "\"moving\" needs a [receivers] section (its positions are the offsets from each "
           "shot's source)");
  return sh;
}

MigrationConfig read_migration(const Section& s) {
  s.check_known({"data", "smoothing", "direct_arrival", "mute_velocity", "mute_time", "mute_taper",
                 "conditions", "laplacian", "storage", "store_precision", "imaging_interval",
                 "memory_budget", "shot_images"});
  MigrationConfig m;
  m.present = true;
  m.data = s.get_path("data").value_or(m.data);
  m.smoothing = get_non_negative(s, "smoothing").value_or(m.smoothing);
  m.direct_arrival = s.get_enum("direct_arrival",
                                {DirectArrival::kKeep, DirectArrival::kModel, DirectArrival::kMute})
                         .value_or(m.direct_arrival);
  if (m.direct_arrival == DirectArrival::kMute) {
    m.mute_velocity = get_non_negative(s, "mute_velocity").value_or(m.mute_velocity);
    m.mute_time = get_non_negative(s, "mute_time").value_or(m.mute_time);
    m.mute_taper = get_non_negative(s, "mute_taper").value_or(m.mute_taper);
  } else {
    const std::string why = not_used("migration.direct_arrival", to_string(m.direct_arrival));
    for (const char* k : {"mute_velocity", "mute_time", "mute_taper"}) s.reject(k, why);
  }
  if (s.has("conditions")) m.conditions = read_conditions(s);
  m.laplacian = s.get_bool("laplacian").value_or(m.laplacian);
  m.storage =
      s.get_enum("storage", {StorageKind::kAuto, StorageKind::kStore, StorageKind::kBoundary,
                             StorageKind::kCheckpoint, StorageKind::kHost})
          .value_or(m.storage);
  m.store_precision = s.get_enum("store_precision", {StorePrecision::kFp32, StorePrecision::kFp16})
                          .value_or(m.store_precision);
  m.imaging_interval = s.get_int("imaging_interval", 0).value_or(m.imaging_interval);
  m.memory_budget = get_non_negative(s, "memory_budget").value_or(m.memory_budget);
  m.shot_images = s.get_bool("shot_images").value_or(m.shot_images);
  return m;
}

BornConfig read_born(const Section& s, const MigrationConfig& migration) {
  s.check_known({"perturbation", "contrast", "path", "dataset", "background"});
  BornConfig b;
  b.present = true;
  b.perturbation =
      s.get_enum("perturbation", {PerturbationType::kReflectors, PerturbationType::kFile})
          .value_or(b.perturbation);
  const std::string why = not_used("born.perturbation", to_string(b.perturbation));
  if (b.perturbation == PerturbationType::kReflectors) {
    reject_others(s, {"contrast", "path", "dataset"}, {"contrast"}, why);
    b.contrast = s.get_double("contrast").value_or(b.contrast);
    if (!(b.contrast != 0 && std::abs(b.contrast) <= 1))
      s.fail("contrast", "must satisfy 0 < |contrast| <= 1 (dm / m of each reflector; got " +
                             format_number(b.contrast) + ")");
  } else {
    reject_others(s, {"contrast", "path", "dataset"}, {"path", "dataset"}, why);
    b.path = s.need("path", s.get_path("path"), "an HDF5 file of dm, shape [nz][ny][nx]");
    b.dataset = s.get_string("dataset").value_or(b.dataset);
  }
  b.background = s.get_enum("background", {BackgroundType::kModel, BackgroundType::kSmooth})
                     .value_or(b.background);
  if (b.background == BackgroundType::kSmooth && !(migration.smoothing > 0))
    s.fail("background", std::string("\"smooth\" needs migration.smoothing > 0 (the smoothing of "
                                     "[model]; ") +
                             (migration.present ? "got " + format_number(migration.smoothing)
                                                : "the config has no [migration] section") +
                             ")");
  return b;
}

}  // namespace seisfd::config_detail
