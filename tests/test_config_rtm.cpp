// The survey and imaging sections (docs/migration.md §1-§3): [shots], [migration], [born] read
// with their defaults and with every key, each error naming key and line, and the round trip
// through config_to_toml and config_to_json (the survey built from them: test_config_survey.cpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/config_rtm_support.hpp"

// ---- Reading ------------------------------------------------------------------------------

TEST_F(ConfigRtm, AbsentSectionsAreNotPresent) {
  const RunConfig c = parse(kMinimal);
  EXPECT_FALSE(c.shots.present);
  EXPECT_FALSE(c.migration.present);
  EXPECT_FALSE(c.born.present);
}

TEST_F(ConfigRtm, ShotsListWithDefaults) {
  const RunConfig c =
      parse(with_shots("layout = \"list\"\npositions = [[5, 5, 5], [10.5, 20, 30]]\n"));
  EXPECT_TRUE(c.shots.present);
  EXPECT_EQ(c.shots.layout, ShotLayout::kList);
  EXPECT_EQ(c.shots.positions, (std::vector<Vec3>{{5, 5, 5}, {10.5, 20, 30}}));
  EXPECT_EQ(c.shots.receivers, ReceiverMode::kFixed);
  EXPECT_EQ(c.source.frequency, 15.0);  // the rest of [source] is read as before
}

TEST_F(ConfigRtm, ShotsGridEveryKey) {
  const RunConfig c = parse(with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, "
                                       "12.5]\ncount = [3, 2]\nreceivers = \"moving\"\n") +
                            kReceiverLine);
  EXPECT_EQ(c.shots.layout, ShotLayout::kGrid);
  EXPECT_EQ(c.shots.start, (Vec3{5, 10, 15}));
  EXPECT_EQ(c.shots.spacing, (std::array<double, 2>{20, 12.5}));
  EXPECT_EQ(c.shots.count, (std::array<int, 2>{3, 2}));
  EXPECT_EQ(c.shots.receivers, ReceiverMode::kMoving);
  // One row of shots: no spacing needed along y beyond 0.
  const RunConfig row = parse(
      with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, 0]\ncount = [3, 1]\n"));
  EXPECT_EQ(row.shots.spacing, (std::array<double, 2>{20, 0}));
}

TEST_F(ConfigRtm, ShotsFileResolvesAgainstTheConfig) {
  write_file("shots.txt", "5 5 5\n");
  const RunConfig c = parse(with_shots("layout = \"file\"\nfile = \"shots.txt\"\n"));
  EXPECT_EQ(c.shots.layout, ShotLayout::kFile);
  EXPECT_EQ(c.shots.file, in_dir("shots.txt"));
}

TEST_F(ConfigRtm, MigrationDefaults) {
  const MigrationConfig m = parse(kMinimal + "[migration]\n").migration;
  EXPECT_TRUE(m.present);
  EXPECT_EQ(m.data, "");
  EXPECT_EQ(m.smoothing, 0.0);
  EXPECT_EQ(m.direct_arrival, DirectArrival::kKeep);
  EXPECT_EQ(m.mute_velocity, 0.0);
  EXPECT_EQ(m.mute_time, 0.0);
  EXPECT_EQ(m.mute_taper, 0.02);
  EXPECT_EQ(m.conditions, (std::vector<ImagingCondition>{ImagingCondition::kCrossCorrelation,
                                                         ImagingCondition::kNormalized,
                                                         ImagingCondition::kInverseScattering}));
  EXPECT_FALSE(m.laplacian);
  EXPECT_EQ(m.storage, StorageKind::kAuto);
  EXPECT_EQ(m.store_precision, StorePrecision::kFp32);
  EXPECT_EQ(m.imaging_interval, 0);
  EXPECT_EQ(m.memory_budget, 0.0);
  EXPECT_FALSE(m.shot_images);
}

TEST_F(ConfigRtm, MigrationEveryKey) {
  const MigrationConfig m = parse(kMinimal + R"([migration]
data = "model.h5"
smoothing = 150
direct_arrival = "mute"
mute_velocity = 1500.0
mute_time = 0.1
mute_taper = 0.05
conditions = ["inverse_scattering", "crosscorrelation"]
laplacian = true
storage = "checkpoint"
store_precision = "fp16"
imaging_interval = 3
memory_budget = 2.5
shot_images = true
)")
                                .migration;
  EXPECT_EQ(m.data, in_dir("model.h5"));
  EXPECT_EQ(m.smoothing, 150.0);
  EXPECT_EQ(m.direct_arrival, DirectArrival::kMute);
  EXPECT_EQ(m.mute_velocity, 1500.0);
  EXPECT_EQ(m.mute_time, 0.1);
  EXPECT_EQ(m.mute_taper, 0.05);
  EXPECT_EQ(m.conditions, (std::vector<ImagingCondition>{ImagingCondition::kInverseScattering,
                                                         ImagingCondition::kCrossCorrelation}));
  EXPECT_TRUE(m.laplacian);
  EXPECT_EQ(m.storage, StorageKind::kCheckpoint);
  EXPECT_EQ(m.store_precision, StorePrecision::kFp16);
  EXPECT_EQ(m.imaging_interval, 3);
  EXPECT_EQ(m.memory_budget, 2.5);
  EXPECT_TRUE(m.shot_images);
  for (const char* s : {"auto", "store", "boundary", "checkpoint", "host"})
    EXPECT_STREQ(
        to_string(parse(kMinimal + "[migration]\nstorage = \"" + s + "\"\n").migration.storage), s);
  EXPECT_EQ(parse(kMinimal + "[migration]\ndirect_arrival = \"model\"\n").migration.direct_arrival,
            DirectArrival::kModel);
}

TEST_F(ConfigRtm, BornDefaultsAndEveryKey) {
  BornConfig b = parse(kMinimal + "[born]\n").born;
  EXPECT_TRUE(b.present);
  EXPECT_EQ(b.perturbation, PerturbationType::kReflectors);
  EXPECT_EQ(b.contrast, 0.1);
  EXPECT_EQ(b.dataset, "dm");
  EXPECT_EQ(b.background, BackgroundType::kModel);
  b = parse(kMinimal +
            "[born]\ncontrast = -0.25\nbackground = \"smooth\"\n[migration]\n"
            "smoothing = 40\n")
          .born;
  EXPECT_EQ(b.contrast, -0.25);
  EXPECT_EQ(b.background, BackgroundType::kSmooth);
  EXPECT_EQ(parse(kMinimal + "[born]\ncontrast = 1\n").born.contrast, 1.0);
  b = parse(kMinimal + "[born]\nperturbation = \"file\"\npath = \"model.h5\"\ndataset = \"dv\"\n")
          .born;
  EXPECT_EQ(b.perturbation, PerturbationType::kFile);
  EXPECT_EQ(b.path, in_dir("model.h5"));
  EXPECT_EQ(b.dataset, "dv");
  EXPECT_EQ(parse(kMinimal + "[born]\nperturbation = \"file\"\npath = \"model.h5\"\n").born.dataset,
            "dm");
}

TEST_F(ConfigRtm, EnumNames) {
  EXPECT_STREQ(to_string(ShotLayout::kList), "list");
  EXPECT_STREQ(to_string(ShotLayout::kGrid), "grid");
  EXPECT_STREQ(to_string(ShotLayout::kFile), "file");
  EXPECT_STREQ(to_string(ReceiverMode::kFixed), "fixed");
  EXPECT_STREQ(to_string(ReceiverMode::kMoving), "moving");
  EXPECT_STREQ(to_string(DirectArrival::kKeep), "keep");
  EXPECT_STREQ(to_string(DirectArrival::kModel), "model");
  EXPECT_STREQ(to_string(DirectArrival::kMute), "mute");
  EXPECT_STREQ(to_string(ImagingCondition::kCrossCorrelation), "crosscorrelation");
  EXPECT_STREQ(to_string(ImagingCondition::kNormalized), "normalized");
  EXPECT_STREQ(to_string(ImagingCondition::kInverseScattering), "inverse_scattering");
  EXPECT_STREQ(to_string(StorageKind::kAuto), "auto");
  EXPECT_STREQ(to_string(StorageKind::kStore), "store");
  EXPECT_STREQ(to_string(StorageKind::kBoundary), "boundary");
  EXPECT_STREQ(to_string(StorageKind::kCheckpoint), "checkpoint");
  EXPECT_STREQ(to_string(StorageKind::kHost), "host");
  EXPECT_STREQ(to_string(StorePrecision::kFp32), "fp32");
  EXPECT_STREQ(to_string(StorePrecision::kFp16), "fp16");
  EXPECT_STREQ(to_string(PerturbationType::kReflectors), "reflectors");
  EXPECT_STREQ(to_string(PerturbationType::kFile), "file");
  EXPECT_STREQ(to_string(BackgroundType::kModel), "model");
  EXPECT_STREQ(to_string(BackgroundType::kSmooth), "smooth");
}

// ---- Errors: key and line -------------------------------------------------------------------

TEST_F(ConfigRtm, SourcePositionWithAndWithoutShots) {
  std::string what = expect_error(
      kMinimal + "[shots]\nlayout = \"list\"\npositions = [[5, 5, 5]]\n", "source.position", 12);
  EXPECT_TRUE(has(what, "not used with [shots] (the shots give the positions)")) << what;
  what = expect_error(kNoPosition, "source.position", 11);
  EXPECT_TRUE(has(what, "required key is missing")) << what;
}

TEST_F(ConfigRtm, ShotsErrors) {
  expect_error(kMinimal + "[shot]\n", "shot", 14);  // unknown section
  std::string what = expect_error(with_shots("positions = [[5, 5, 5]]\n"), "shots.layout", 13);
  EXPECT_TRUE(has(what, "required key is missing")) << what;
  what = expect_error(with_shots("layout = \"line\"\n"), "shots.layout", 14);
  EXPECT_TRUE(has(what, "must be one of \"list\", \"grid\", \"file\"")) << what;
  what = expect_error(with_shots("layout = \"list\"\npositions = [[5, 5, 5]]\nspacnig = 3\n"),
                      "shots.spacnig", 16);
  EXPECT_TRUE(has(what, "did you mean 'spacing'?")) << what;
  // Keys of another layout.
  what = expect_error(with_shots("layout = \"grid\"\nstart = [5, 5, 5]\ncount = [1, 1]\nspacing = "
                                 "[0, 0]\npositions = [[5, 5, 5]]\n"),
                      "shots.positions", 18);
  EXPECT_TRUE(has(what, "not used by shots.layout = \"grid\"")) << what;
  what = expect_error(with_shots("layout = \"list\"\npositions = [[5, 5, 5]]\ncount = [2, 1]\n"),
                      "shots.count", 16);
  EXPECT_TRUE(has(what, "not used by shots.layout = \"list\"")) << what;
  expect_error(with_shots("layout = \"file\"\nfile = \"model.h5\"\nstart = [0, 0, 0]\n"),
               "shots.start", 16);
  // list
  expect_error(with_shots("layout = \"list\"\n"), "shots.positions", 13);
  what = expect_error(with_shots("layout = \"list\"\npositions = []\n"), "shots.positions", 15);
  EXPECT_TRUE(has(what, "must not be empty")) << what;
  what = expect_error(with_shots("layout = \"list\"\npositions = [[5, 5, 5], [1, 2]]\n"),
                      "shots.positions", 15);
  EXPECT_TRUE(has(what, "shot 1: expected an array of 3 numbers [x, y, z], got array [1, 2]"))
      << what;
  what =
      expect_error(with_shots("layout = \"list\"\npositions = [5, 5, 5]\n"), "shots.positions", 15);
  EXPECT_TRUE(has(what, "shot 0: expected an array of 3 numbers")) << what;
  expect_error(with_shots("layout = \"list\"\npositions = [[5, \"a\", 5]]\n"), "shots.positions",
               15);
  expect_error(with_shots("layout = \"list\"\npositions = [[5, nan, 5]]\n"), "shots.positions", 15);
  expect_error(with_shots("layout = \"list\"\npositions = \"here\"\n"), "shots.positions", 15);
  // grid
  const std::string grid = "layout = \"grid\"\nstart = [5, 5, 5]\n";  // lines 14, 15
  what = expect_error(with_shots(grid + "spacing = [10, 0]\n"), "shots.count", 13);
  EXPECT_TRUE(has(what, "required key is missing ([along x, along y])")) << what;
  expect_error(with_shots(grid + "count = [2, 1]\n"), "shots.spacing", 13);
  expect_error(with_shots("layout = \"grid\"\nspacing = [10, 0]\ncount = [2, 1]\n"), "shots.start",
               13);
  what =
      expect_error(with_shots(grid + "spacing = [10, -1]\ncount = [2, 1]\n"), "shots.spacing", 16);
  EXPECT_TRUE(has(what, "every value must be >= 0 (got -1)")) << what;
  what = expect_error(with_shots(grid + "spacing = [10]\ncount = [2, 1]\n"), "shots.spacing", 16);
  EXPECT_TRUE(has(what, "expected an array of 2 numbers [along x, along y]")) << what;
  what = expect_error(with_shots(grid + "spacing = [10, 0]\ncount = [2, 0]\n"), "shots.count", 17);
  EXPECT_TRUE(has(what, "every value must be an integer >= 1 (got 0)")) << what;
  expect_error(with_shots(grid + "spacing = [10, 0]\ncount = [2]\n"), "shots.count", 17);
  what =
      expect_error(with_shots(grid + "spacing = [10, 0]\ncount = [2, 3]\n"), "shots.spacing", 16);
  EXPECT_TRUE(has(what, "is 0 along y but shots.count gives 3 shots along y")) << what;
  // file
  what = expect_error(with_shots("layout = \"file\"\nfile = \"nope.txt\"\n"), "shots.file", 15);
  EXPECT_TRUE(has(what, "file 'nope.txt' not found")) << what;
  expect_error(with_shots("layout = \"file\"\n"), "shots.file", 13);
  // receivers
  const std::string list = "layout = \"list\"\npositions = [[5, 5, 5]]\n";  // lines 14, 15
  what = expect_error(with_shots(list + "receivers = \"fixd\"\n"), "shots.receivers", 16);
  EXPECT_TRUE(has(what, "did you mean \"fixed\"?")) << what;
  what = expect_error(with_shots(list + "receivers = \"moving\"\n"), "shots.receivers", 16);
  EXPECT_TRUE(has(what, "\"moving\" needs a [receivers] section")) << what;
}

TEST_F(ConfigRtm, MigrationErrors) {
  const std::string m = kMinimal + "[migration]\n";  // [migration] at line 14, keys from 15
  std::string what = expect_error(m + "smoothnig = 3\n", "migration.smoothnig", 15);
  EXPECT_TRUE(has(what, "did you mean 'smoothing'?")) << what;
  what = expect_error(m + "data = \"gathers.h5\"\n", "migration.data", 15);
  EXPECT_TRUE(has(what, "file 'gathers.h5' not found")) << what;
  what = expect_error(m + "smoothing = -1\n", "migration.smoothing", 15);
  EXPECT_TRUE(has(what, "must be >= 0 (got -1)")) << what;
  what = expect_error(m + "direct_arrival = \"remove\"\n", "migration.direct_arrival", 15);
  EXPECT_TRUE(has(what, "must be one of \"keep\", \"model\", \"mute\"")) << what;
  // mute_* belong to direct_arrival = "mute".
  what = expect_error(m + "mute_time = 0.1\n", "migration.mute_time", 15);
  EXPECT_TRUE(has(what, "not used by migration.direct_arrival = \"keep\"")) << what;
  what = expect_error(m + "direct_arrival = \"model\"\nmute_velocity = 1500\n",
                      "migration.mute_velocity", 16);
  EXPECT_TRUE(has(what, "not used by migration.direct_arrival = \"model\"")) << what;
  expect_error(m + "mute_taper = 0.1\n", "migration.mute_taper", 15);
  const std::string mute = m + "direct_arrival = \"mute\"\n";  // keys from 16
  expect_error(mute + "mute_velocity = -1500\n", "migration.mute_velocity", 16);
  expect_error(mute + "mute_time = -0.1\n", "migration.mute_time", 16);
  expect_error(mute + "mute_taper = -0.1\n", "migration.mute_taper", 16);
  // conditions
  what = expect_error(m + "conditions = []\n", "migration.conditions", 15);
  EXPECT_TRUE(has(what, "must not be empty")) << what;
  what = expect_error(m + "conditions = [\"crosscorrelation\", \"normalised\"]\n",
                      "migration.conditions", 15);
  EXPECT_TRUE(has(what,
                  "unknown imaging condition \"normalised\" (known: crosscorrelation, normalized, "
                  "inverse_scattering); did you mean \"normalized\"?"))
      << what;
  what = expect_error(m + "conditions = [\"normalized\", \"normalized\"]\n", "migration.conditions",
                      15);
  EXPECT_TRUE(has(what, "lists \"normalized\" twice")) << what;
  what = expect_error(m + "conditions = \"normalized\"\n", "migration.conditions", 15);
  EXPECT_TRUE(has(what, "expected an array of strings among crosscorrelation")) << what;
  expect_error(m + "conditions = [1]\n", "migration.conditions", 15);
  // the rest
  expect_error(m + "laplacian = 1\n", "migration.laplacian", 15);
  what = expect_error(m + "storage = \"disk\"\n", "migration.storage", 15);
  EXPECT_TRUE(has(what, "\"auto\", \"store\", \"boundary\", \"checkpoint\", \"host\"")) << what;
  expect_error(m + "store_precision = \"fp64\"\n", "migration.store_precision", 15);
  what = expect_error(m + "imaging_interval = -1\n", "migration.imaging_interval", 15);
  EXPECT_TRUE(has(what, "must be >= 0 (got -1)")) << what;
  expect_error(m + "imaging_interval = 1.5\n", "migration.imaging_interval", 15);
  expect_error(m + "memory_budget = -2\n", "migration.memory_budget", 15);
  expect_error(m + "shot_images = \"yes\"\n", "migration.shot_images", 15);
}

TEST_F(ConfigRtm, BornErrors) {
  const std::string b = kMinimal + "[born]\n";  // [born] at line 14, keys from 15
  std::string what = expect_error(b + "contrats = 0.1\n", "born.contrats", 15);
  EXPECT_TRUE(has(what, "did you mean 'contrast'?")) << what;
  expect_error(b + "perturbation = \"random\"\n", "born.perturbation", 15);
  for (const char* bad : {"0", "1.5", "-1.01", "nan"}) {
    what = expect_error(b + "contrast = " + bad + "\n", "born.contrast", 15);
    if (std::string(bad) != "nan") {
      EXPECT_TRUE(has(what, "0 < |contrast| <= 1")) << what;
    }
  }
  what = expect_error(b + "path = \"model.h5\"\n", "born.path", 15);
  EXPECT_TRUE(has(what, "not used by born.perturbation = \"reflectors\"")) << what;
  expect_error(b + "dataset = \"dm\"\n", "born.dataset", 15);
  const std::string file = b + "perturbation = \"file\"\n";  // keys from 16
  what = expect_error(file + "contrast = 0.1\npath = \"model.h5\"\n", "born.contrast", 16);
  EXPECT_TRUE(has(what, "not used by born.perturbation = \"file\"")) << what;
  what = expect_error(file, "born.path", 14);
  EXPECT_TRUE(has(what, "required key is missing")) << what;
  what = expect_error(file + "path = \"dm.h5\"\n", "born.path", 16);
  EXPECT_TRUE(has(what, "file 'dm.h5' not found")) << what;
  // A smooth background needs the migration smoothing.
  what = expect_error(b + "background = \"smooth\"\n", "born.background", 15);
  EXPECT_TRUE(has(what, "\"smooth\" needs migration.smoothing > 0")) << what;
  EXPECT_TRUE(has(what, "the config has no [migration] section")) << what;
  what = expect_error(b + "background = \"smooth\"\n[migration]\nsmoothing = 0\n",
                      "born.background", 15);
  EXPECT_TRUE(has(what, "migration.smoothing > 0 (the smoothing of [model]; got 0)")) << what;
  expect_error(b + "background = \"rough\"\n", "born.background", 15);
}

// ---- Writing back -----------------------------------------------------------------------------

namespace {

void expect_same_rtm(const RunConfig& a, const RunConfig& b) {
  expect_same(a, b);
  EXPECT_EQ(a.shots.present, b.shots.present);
  EXPECT_EQ(a.shots.layout, b.shots.layout);
  EXPECT_EQ(a.shots.positions, b.shots.positions);
  EXPECT_EQ(a.shots.start, b.shots.start);
  EXPECT_EQ(a.shots.spacing, b.shots.spacing);
  EXPECT_EQ(a.shots.count, b.shots.count);
  EXPECT_EQ(a.shots.file, b.shots.file);
  EXPECT_EQ(a.shots.receivers, b.shots.receivers);
  EXPECT_EQ(a.migration.present, b.migration.present);
  EXPECT_EQ(a.migration.data, b.migration.data);
  EXPECT_EQ(a.migration.smoothing, b.migration.smoothing);
  EXPECT_EQ(a.migration.direct_arrival, b.migration.direct_arrival);
  EXPECT_EQ(a.migration.mute_velocity, b.migration.mute_velocity);
  EXPECT_EQ(a.migration.mute_time, b.migration.mute_time);
  EXPECT_EQ(a.migration.mute_taper, b.migration.mute_taper);
  EXPECT_EQ(a.migration.conditions, b.migration.conditions);
  EXPECT_EQ(a.migration.laplacian, b.migration.laplacian);
  EXPECT_EQ(a.migration.storage, b.migration.storage);
  EXPECT_EQ(a.migration.store_precision, b.migration.store_precision);
  EXPECT_EQ(a.migration.imaging_interval, b.migration.imaging_interval);
  EXPECT_EQ(a.migration.memory_budget, b.migration.memory_budget);
  EXPECT_EQ(a.migration.shot_images, b.migration.shot_images);
  EXPECT_EQ(a.born.present, b.born.present);
  EXPECT_EQ(a.born.perturbation, b.born.perturbation);
  EXPECT_EQ(a.born.contrast, b.born.contrast);
  EXPECT_EQ(a.born.path, b.born.path);
  EXPECT_EQ(a.born.dataset, b.born.dataset);
  EXPECT_EQ(a.born.background, b.born.background);
}

const char* kMigrationFull = R"([migration]
data = "model.h5"
smoothing = 150.5
direct_arrival = "mute"
mute_velocity = 1500
mute_time = 0.1
mute_taper = 0.03
conditions = ["normalized"]
laplacian = true
storage = "host"
store_precision = "fp16"
imaging_interval = 4
memory_budget = 1.25
shot_images = true
)";

}  // namespace

TEST_F(ConfigRtm, RoundTripThroughToml) {
  write_file("shots.txt", "5 5 5\n");
  const std::vector<std::string> texts{
      with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, 0.25]\ncount = [3, "
                 "2]\nreceivers = \"moving\"\n") +
          kReceiverLine + kMigrationFull + "[born]\ncontrast = -0.3\nbackground = \"smooth\"\n",
      with_shots("layout = \"list\"\npositions = [[5, 5, 5], [0.1, 2, 3]]\n") +
          "[migration]\n[born]\nperturbation = \"file\"\npath = \"model.h5\"\n",
      with_shots("layout = \"file\"\nfile = \"shots.txt\"\n") +
          "[migration]\ndirect_arrival = \"model\"\n",
      kMinimal + "[born]\n",
  };
  for (const auto& text : texts) {
    const RunConfig a = parse(text);
    const std::string toml = config_to_toml(a);
    SCOPED_TRACE(toml);
    if (a.shots.present) {
      EXPECT_FALSE(has(toml, "\nposition =")) << "[source] has no position with [shots]";
      EXPECT_TRUE(has(toml, "\n[shots]\n"));
    }
    const RunConfig b = parse_config(toml, "/nonexistent/elsewhere/resolved.toml");
    expect_same_rtm(a, b);
  }
  // Without the sections, none is written.
  const std::string plain = config_to_toml(parse(kMinimal));
  EXPECT_FALSE(has(plain, "[shots]"));
  EXPECT_FALSE(has(plain, "[migration]"));
  EXPECT_FALSE(has(plain, "[born]"));
  EXPECT_TRUE(has(plain, "position = [20.0, 25.0, 30.0]")) << plain;
}

TEST_F(ConfigRtm, JsonHasTheNewSections) {
  auto j = nlohmann::json::parse(config_to_json(
      parse(with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, 0]\ncount = [3, 1]\n"
                       "receivers = \"moving\"\n") +
            kReceiverLine + kMigrationFull + "[born]\ncontrast = 0.2\n")));
  EXPECT_FALSE(j["source"].contains("position"));
  EXPECT_EQ(j["shots"]["layout"], "grid");
  EXPECT_EQ(j["shots"]["start"], nlohmann::json::array({5, 10, 15}));
  EXPECT_EQ(j["shots"]["spacing"], nlohmann::json::array({20, 0}));
  EXPECT_EQ(j["shots"]["count"], nlohmann::json::array({3, 1}));
  EXPECT_EQ(j["shots"]["receivers"], "moving");
  EXPECT_EQ(j["migration"]["data"], in_dir("model.h5"));
  EXPECT_EQ(j["migration"]["smoothing"], 150.5);
  EXPECT_EQ(j["migration"]["direct_arrival"], "mute");
  EXPECT_EQ(j["migration"]["mute_velocity"], 1500.0);
  EXPECT_EQ(j["migration"]["mute_taper"], 0.03);
  EXPECT_EQ(j["migration"]["conditions"], nlohmann::json::array({"normalized"}));
  EXPECT_EQ(j["migration"]["storage"], "host");
  EXPECT_EQ(j["migration"]["store_precision"], "fp16");
  EXPECT_EQ(j["migration"]["imaging_interval"], 4);
  EXPECT_EQ(j["migration"]["memory_budget"], 1.25);
  EXPECT_EQ(j["migration"]["shot_images"], true);
  EXPECT_EQ(j["migration"]["laplacian"], true);
  EXPECT_EQ(j["born"]["perturbation"], "reflectors");
  EXPECT_EQ(j["born"]["contrast"], 0.2);
  EXPECT_EQ(j["born"]["background"], "model");

  j = nlohmann::json::parse(
      config_to_json(parse(with_shots("layout = \"list\"\npositions = [[5, 5, 5]]\n") +
                           "[migration]\n[born]\nperturbation = \"file\"\npath = \"model.h5\"\n")));
  EXPECT_EQ(j["shots"]["positions"], nlohmann::json::parse("[[5.0, 5.0, 5.0]]"));
  EXPECT_TRUE(j["migration"]["data"].is_null());
  EXPECT_FALSE(j["migration"].contains("mute_time"));
  EXPECT_EQ(j["migration"]["conditions"],
            nlohmann::json::array({"crosscorrelation", "normalized", "inverse_scattering"}));
  EXPECT_EQ(j["born"]["path"], in_dir("model.h5"));
  EXPECT_EQ(j["born"]["dataset"], "dm");

  j = nlohmann::json::parse(config_to_json(parse(kMinimal)));
  EXPECT_TRUE(j["shots"].is_null());
  EXPECT_TRUE(j["migration"].is_null());
  EXPECT_TRUE(j["born"].is_null());
  EXPECT_EQ(j["source"]["position"], nlohmann::json::array({20, 25, 30}));
}
