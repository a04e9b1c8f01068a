// Config errors: one line naming the key and the exact line of the file (or --set), for unknown
// keys and sections, wrong types, values out of range, missing and conflicting keys, missing
// files, TOML syntax and malformed overrides.
#include <gtest/gtest.h>

#include "tests/config_support.hpp"

namespace {
class ConfigErrors : public Config {};
}  // namespace

TEST_F(ConfigErrors, UnknownKeySuggestsTheClosest) {
  std::string what = expect_error(insert_line(kMinimal, 2, "nxx = 3"), "grid.nxx", 3);
  EXPECT_TRUE(has(what, "unknown key (known: nx, ny, nz, spacing, dx, dy, dz, origin, from_model)"))
      << what;
  EXPECT_TRUE(has(what, "did you mean 'nx'?")) << what;
  what = expect_error(kMinimal + "[kernel]\nbakcend = \"cpu\"\n", "kernel.bakcend", 15);
  EXPECT_TRUE(has(what, "did you mean 'backend'?")) << what;
  what = expect_error(insert_line(kMinimal, 10, "wavelength = 3"), "time.wavelength", 11);
  EXPECT_FALSE(has(what, "did you mean")) << what;
}

TEST_F(ConfigErrors, UnknownSection) {
  const std::string what = expect_error(kMinimal + "[grdi]\nnx = 1\n", "grdi", 14);
  EXPECT_TRUE(has(what, "unknown section")) << what;
  EXPECT_TRUE(has(what, "did you mean 'grid'?")) << what;
  expect_error(kMinimal + "[output.snapshot]\ninterval = 1\n", "output.snapshot", 14);
}

TEST_F(ConfigErrors, WrongType) {
  std::string what = expect_error(replace_line(kMinimal, 2, "nx = \"100\""), "grid.nx", 2);
  EXPECT_TRUE(has(what, "expected an integer, got string \"100\"")) << what;
  what = expect_error(replace_line(kMinimal, 3, "ny = 12.0"), "grid.ny", 3);
  EXPECT_TRUE(has(what, "expected an integer, got float 12.0")) << what;
  what = expect_error(replace_line(kMinimal, 10, "duration = true"), "time.duration", 10);
  EXPECT_TRUE(has(what, "expected a number, got boolean true")) << what;
  what = expect_error(replace_line(kMinimal, 12, "position = [1, 2]"), "source.position", 12);
  EXPECT_TRUE(has(what, "got array [1, 2]")) << what;
  expect_error(replace_line(kMinimal, 2, "nx = 99999999999"), "grid.nx", 2);
  expect_error(insert_line(kMinimal, 13, "[physics]\norder = [8]"), "physics.order", 15);
  expect_error(kMinimal + "[boundary]\nfree_surface = 1\n", "boundary.free_surface", 15);
  what = expect_error(kMinimal + "[kernel]\nbackend = \"cdua\"\n", "kernel.backend", 15);
  EXPECT_TRUE(has(what, "did you mean \"cuda\"?")) << what;
  what = expect_error(kMinimal + "[kernel]\ncompressible = \"yes\"\n", "kernel.compressible", 15);
  EXPECT_TRUE(has(what, "must be one of \"auto\", \"on\", \"off\" (got \"yes\")")) << what;
  what = expect_error(kMinimal + "[kernel]\nmodel_precision = \"fp8\"\n", "kernel.model_precision",
                      15);
  EXPECT_TRUE(has(what, "must be one of \"fp32\", \"fp16\", \"bf16\", \"fixed16\" (got \"fp8\")"))
      << what;
}

TEST_F(ConfigErrors, OutOfRange) {
  std::string what = expect_error(kMinimal + "[physics]\norder = 7\n", "physics.order", 15);
  EXPECT_TRUE(has(what, "even integer from 2 to 16 (got 7)")) << what;
  expect_error(kMinimal + "[physics]\n\norder = 18\n", "physics.order", 16);
  what = expect_error(insert_line(kMinimal, 10, "courant = 1.5"), "time.courant", 11);
  EXPECT_TRUE(has(what, "(0, 1] (got 1.5)")) << what;
  what = expect_error(replace_line(kMinimal, 10, "duration = -0.001"), "time.duration", 10);
  EXPECT_TRUE(has(what, "must be > 0 (got -0.001)")) << what;
  expect_error(replace_line(kMinimal, 4, "nz = 0"), "grid.nz", 4);
  expect_error(replace_line(kMinimal, 5, "spacing = nan"), "grid.spacing", 5);
  expect_error(kMinimal + "delay = -1\n", "source.delay", 14);
  expect_error(kMinimal + "[boundary]\nreflection = 1.0\n", "boundary.reflection", 15);
  expect_error(kMinimal + "[kernel]\ndiagnostics_interval = 0\n", "kernel.diagnostics_interval",
               15);
  expect_error(kMinimal + "[output.snapshots]\ninterval = 1\ndecimation = [1, 0, 1]\n",
               "output.snapshots.decimation", 16);
}

TEST_F(ConfigErrors, MissingRequiredSectionOrKey) {
  const ConfigError e = error_of(remove_line(remove_line(kMinimal, 10), 9));
  EXPECT_STREQ(e.what(), (src() + ": time: required section is missing").c_str());
  EXPECT_EQ(e.key(), "time");
  EXPECT_EQ(e.line(), 0);
  // A missing key points at its table.
  std::string what = expect_error(remove_line(kMinimal, 10), "time.duration", 9);
  EXPECT_TRUE(has(what, "required key is missing")) << what;
  expect_error(remove_line(kMinimal, 13), "source.frequency", 11);
  expect_error(remove_line(kMinimal, 5), "grid.spacing", 1);
  expect_error(replace_line(kMinimal, 5, "dx = 5.0"), "grid.dy", 1);
  expect_error(kMinimal + "[receivers]\nstart = [0, 0, 0]\n", "receivers.layout", 14);
  expect_error(kMinimal + "[output.snapshots]\nenabled = true\n", "output.snapshots.interval", 14);
}

TEST_F(ConfigErrors, SpacingConflictsWithDx) {
  const std::string what = expect_error(insert_line(kMinimal, 5, "dx = 5.0"), "grid.dx", 6);
  EXPECT_TRUE(has(what, "grid.spacing")) << what;
}

TEST_F(ConfigErrors, MissingFiles) {
  const std::string model =
      replace_line(replace_line(kMinimal, 7, "type = \"file\""), 8, "path = \"nope.h5\"");
  std::string what = expect_error(model, "model.path", 8);
  EXPECT_TRUE(has(what, "file 'nope.h5' not found")) << what;
  const std::string wavelet =
      replace_line(kMinimal, 13, "wavelet = \"file\"\nfile = \"w.txt\"\nfile_dt = 0.001");
  what = expect_error(wavelet, "source.file", 14);
  EXPECT_TRUE(has(what, "file 'w.txt' not found")) << what;
  expect_error(kMinimal + "[receivers]\nlayout = \"file\"\nfile = \"r.txt\"\n", "receivers.file",
               16);
  expect_error(replace_line(wavelet, 14, "file = \"wavelet.txt\"") + "frequency = 10\n",
               "source.frequency", 16);
}

TEST_F(ConfigErrors, GridReceiversAtDifferentDepths) {
  const std::string what = expect_error(kMinimal +
                                            "[receivers]\nlayout = \"grid\"\nstart = [0, 0, "
                                            "10]\nend = [40, 50, 20]\ncount = [3, 4]\n",
                                        "receivers.end", 17);
  EXPECT_TRUE(has(what, "start z = 10, end z = 20")) << what;
}

TEST_F(ConfigErrors, SnapshotBoxMinNotBelowMax) {
  expect_error(kMinimal + "[output.snapshots]\ninterval = 0.01\n" +
                   "box = { min = [0, 0, 50], max = [40, 50, 50] }\n",
               "output.snapshots.box", 16);
}

TEST_F(ConfigErrors, OtherCrossChecks) {
  std::string what = expect_error(kMinimal + "[output]\ngathers = true\n", "output.gathers", 15);
  EXPECT_TRUE(has(what, "[receivers]")) << what;
  expect_error(kMinimal + "[boundary]\ntype = \"none\"\nwidth = 5\n", "boundary.width", 16);
  expect_error(kMinimal + "[boundary]\ntype = \"none\"\nreflection = 0.1\n", "boundary.reflection",
               16);
  what = expect_error(kMinimal + "[kernel]\nmodel_precision = \"fixed16\"\n",
                      "kernel.model_precision", 15);
  EXPECT_TRUE(has(what, "physics.equation = \"vti\" and \"tti\" (got \"acoustic\")")) << what;
}

TEST_F(ConfigErrors, TomlSyntaxError) {
  ConfigError e = error_of(replace_line(kMinimal, 4, "nz = "));
  EXPECT_EQ(e.line(), 4) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind(src() + ":4: ", 0), 0u) << e.what();
  e = error_of(insert_line(kMinimal, 3, "nx = 11"));  // a key given twice
  EXPECT_EQ(e.line(), 4) << e.what();
}

TEST_F(ConfigErrors, OverrideErrorsSayWhereTheyCameFrom) {
  std::string what = expect_override_error({"time.duration=-1"}, "time.duration");
  EXPECT_EQ(what, "--set: time.duration: must be > 0 (got -1)");
  what = expect_override_error({"grid.nxx=3"}, "grid.nxx");
  EXPECT_TRUE(has(what, "did you mean 'nx'?")) << what;
  what = expect_override_error({"grid.nx=ten"}, "grid.nx");
  EXPECT_TRUE(has(what, "expected an integer, got string \"ten\"")) << what;
  expect_override_error({"receivers.start=[0,0,0]"}, "receivers.layout");  // table made by --set
  expect_override_error({"time.duration.x=1"}, "time.duration");
  // An override that makes a line of the file wrong: the error points at that line.
  const ConfigError e = error_of(kMinimal, {"model.type=\"salt\""});
  EXPECT_EQ(e.key(), "model.vp");
  EXPECT_EQ(e.line(), 8);
}

TEST_F(ConfigErrors, MalformedOverride) {
  for (const std::string bad : {"time.duration", "=5", " = 5", "time..dt=1", "time.=1"}) {
    SCOPED_TRACE(bad);
    const ConfigError e = error_of(kMinimal, {bad});
    EXPECT_EQ(e.source(), "--set");
    EXPECT_TRUE(has(e.what(), "malformed override '" + bad + "'")) << e.what();
  }
  EXPECT_EQ(error_of(kMinimal, {"time.duration"}).key(), "time.duration");
}
