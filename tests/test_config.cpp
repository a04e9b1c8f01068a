// Config parsing: defaults, every key, round trip through config_to_toml, --set overrides.
// Errors: test_config_errors.cpp.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/config_support.hpp"

TEST(ConfigError, FormatsSourceLineKeyMessage) {
  EXPECT_STREQ(ConfigError("time.dt", "must be > 0 (got -0.001)", "run.toml", 12).what(),
               "run.toml:12: time.dt: must be > 0 (got -0.001)");
  EXPECT_STREQ(ConfigError("time", "required section is missing", "run.toml", 0).what(),
               "run.toml: time: required section is missing");
  EXPECT_STREQ(ConfigError("grid.nx", "bad", "", 0).what(), "grid.nx: bad");
  EXPECT_STREQ(ConfigError("", "cannot read", "", 0).what(), "cannot read");
  const ConfigError e("k", "m", "s", 3);
  EXPECT_EQ(e.key(), "k");
  EXPECT_EQ(e.source(), "s");
  EXPECT_EQ(e.line(), 3);
}

TEST_F(Config, MinimalGetsDefaults) {
  const RunConfig c = parse(kMinimal);
  EXPECT_EQ(c.source_path, src());
  EXPECT_EQ(c.grid.nx, 10);
  EXPECT_EQ(c.grid.ny, 12);
  EXPECT_EQ(c.grid.nz, 14);
  EXPECT_EQ(c.grid.dx, 5.0);
  EXPECT_EQ(c.grid.dy, 5.0);
  EXPECT_EQ(c.grid.dz, 5.0);
  EXPECT_EQ(c.grid.origin, (Vec3{0, 0, 0}));
  EXPECT_EQ(c.model.type, ModelType::kConstant);
  EXPECT_EQ(c.model.vp, 2000.0);
  EXPECT_EQ(c.physics.equation, Physics::kAcoustic);
  EXPECT_EQ(c.physics.order, 8);
  EXPECT_EQ(c.time.duration, 0.5);
  EXPECT_FALSE(c.time.dt.has_value());
  EXPECT_EQ(c.time.courant, 0.9);
  EXPECT_EQ(c.source.position, (Vec3{20, 25, 30}));
  EXPECT_EQ(c.source.wavelet, WaveletType::kRicker);
  EXPECT_EQ(c.source.frequency, 15.0);
  EXPECT_FALSE(c.source.delay.has_value());
  EXPECT_EQ(c.source.amplitude, 1.0);
  EXPECT_EQ(c.source.injection, PointInterp::kSinc);
  EXPECT_EQ(c.receivers.count, (std::array<int, 2>{0, 0}));  // no [receivers]: none
  EXPECT_EQ(c.boundary.type, BoundaryType::kSponge);
  EXPECT_EQ(c.boundary.width, 20);
  EXPECT_EQ(c.boundary.reflection, 1e-3);
  EXPECT_FALSE(c.boundary.free_surface);
  EXPECT_EQ(c.output.directory, "seisfd_out");
  EXPECT_FALSE(c.output.gathers);  // no receivers, so no gathers file
  EXPECT_FALSE(c.output.sample_interval.has_value());
  EXPECT_FALSE(c.output.snapshots.enabled);
  EXPECT_EQ(c.output.snapshots.decimation, (std::array<int, 3>{1, 1, 1}));
  EXPECT_FALSE(c.output.snapshots.box.has_value());
  EXPECT_FALSE(c.output.model);
  EXPECT_EQ(c.kernel.backend, Backend::kAuto);
  EXPECT_EQ(c.kernel.variant, "auto");
  EXPECT_EQ(c.kernel.precision, Precision::kFp32);
  EXPECT_EQ(c.kernel.diagnostics_interval, 10);
  EXPECT_EQ(c.kernel.compressible, Compressible::kAuto);
  EXPECT_EQ(c.kernel.model_precision, ModelPrecision::kFp32);
}

TEST_F(Config, FullConfigReadsEveryKey) {
  const RunConfig c = parse(kFull);
  EXPECT_EQ(c.grid.nx, 101);
  EXPECT_EQ(c.grid.ny, 81);
  EXPECT_EQ(c.grid.nz, 61);
  EXPECT_EQ(c.grid.dx, 10.0);
  EXPECT_EQ(c.grid.dy, 12.5);
  EXPECT_EQ(c.grid.dz, 5.0);
  EXPECT_EQ(c.grid.origin, (Vec3{100, -50, 0}));
  EXPECT_EQ(c.model.type, ModelType::kFile);
  EXPECT_EQ(c.model.path, in_dir("model.h5"));  // resolved against the config's directory
  EXPECT_EQ(c.model.dataset, "velocity");
  EXPECT_EQ(c.physics.order, 4);
  EXPECT_EQ(c.time.duration, 1.5);
  EXPECT_EQ(c.time.dt, 0.0005);
  EXPECT_EQ(c.time.courant, 0.5);
  EXPECT_EQ(c.source.position, (Vec3{500, 400, 10}));
  EXPECT_EQ(c.source.wavelet, WaveletType::kFile);
  EXPECT_EQ(c.source.file, in_dir("wavelet.txt"));
  EXPECT_EQ(c.source.file_dt, 0.001);
  EXPECT_EQ(c.source.amplitude, -2.5);
  EXPECT_EQ(c.source.injection, PointInterp::kTrilinear);
  EXPECT_EQ(c.receivers.layout, ReceiverLayout::kGrid);
  EXPECT_EQ(c.receivers.start, (Vec3{100, 0, 5}));
  EXPECT_EQ(c.receivers.end, (Vec3{1100, 900, 5}));
  EXPECT_EQ(c.receivers.count, (std::array<int, 2>{11, 10}));
  EXPECT_EQ(c.receivers.interpolation, PointInterp::kTrilinear);
  EXPECT_EQ(c.boundary.type, BoundaryType::kSponge);
  EXPECT_EQ(c.boundary.width, 30);
  EXPECT_EQ(c.boundary.reflection, 1e-4);
  EXPECT_TRUE(c.boundary.free_surface);
  EXPECT_EQ(c.output.directory, "out/run1");  // relative to the working directory: kept
  EXPECT_TRUE(c.output.gathers);
  EXPECT_EQ(c.output.sample_interval, 0.002);
  EXPECT_TRUE(c.output.snapshots.enabled);
  EXPECT_EQ(c.output.snapshots.interval, 0.05);
  EXPECT_EQ(c.output.snapshots.decimation, (std::array<int, 3>{2, 3, 4}));
  ASSERT_TRUE(c.output.snapshots.box.has_value());
  EXPECT_EQ((*c.output.snapshots.box)[0], (Vec3{100, -50, 0}));
  EXPECT_EQ((*c.output.snapshots.box)[1], (Vec3{600, 400.5, 200}));
  EXPECT_EQ(c.kernel.backend, Backend::kCuda);
  EXPECT_EQ(c.kernel.variant, "acoustic/o4/smem_regqueue");
  EXPECT_EQ(c.kernel.precision, Precision::kFp64);
  EXPECT_EQ(c.kernel.diagnostics_interval, 25);
  EXPECT_EQ(c.kernel.compressible, Compressible::kOff);
}

// The other branches of the schema, each a small edit of kMinimal.
std::vector<std::string> variants() {
  const std::string layered =
      replace_line(replace_line(kMinimal, 7, "type = \"layered\""), 8,
                   "interfaces = [-10, 100, 250.5]\nvelocities = [1500, 2000.25, 3500]");
  return {
      kMinimal,
      kFull,
      layered,
      replace_line(remove_line(kMinimal, 8), 7, "type = \"salt\""),
      replace_line(kMinimal, 5, "dx = 5\ndy = 0.1\ndz = 3.3333333333333335"),
      kMinimal + "delay = 0.1\namplitude = 3e-7\n",
      kMinimal +
          "[receivers]\nlayout = \"line\"\nstart = [0, 0, 0]\nend = [45, 0, 0]\ncount = 10\n",
      kMinimal + "[receivers]\nlayout = \"file\"\nfile = \"receivers.txt\"\n" +
          "[output]\ngathers = false\n",
      kMinimal + "[boundary]\ntype = \"none\"\nfree_surface = true\n",
      kMinimal + "[output.snapshots]\ninterval = 0.01\ndecimation = 2\n",
      kMinimal + "[output.snapshots]\nenabled = false\ninterval = 0.01\n",
  };
}

TEST_F(Config, Variants) {
  const auto v = variants();
  RunConfig c = parse(v[2]);
  EXPECT_EQ(c.model.interfaces, (std::vector<double>{-10, 100, 250.5}));
  EXPECT_EQ(c.model.velocities, (std::vector<double>{1500, 2000.25, 3500}));
  EXPECT_EQ(parse(v[3]).model.type, ModelType::kSalt);
  c = parse(v[4]);
  EXPECT_EQ(c.grid.dx, 5.0);
  EXPECT_EQ(c.grid.dy, 0.1);
  EXPECT_EQ(c.grid.dz, 3.3333333333333335);
  c = parse(v[5]);
  EXPECT_EQ(c.source.delay, 0.1);
  EXPECT_EQ(c.source.amplitude, 3e-7);
  c = parse(v[6]);
  EXPECT_EQ(c.receivers.layout, ReceiverLayout::kLine);
  EXPECT_EQ(c.receivers.end, (Vec3{45, 0, 0}));
  EXPECT_EQ(c.receivers.count, (std::array<int, 2>{10, 1}));
  EXPECT_TRUE(c.output.gathers);
  c = parse(v[7]);
  EXPECT_EQ(c.receivers.layout, ReceiverLayout::kFile);
  EXPECT_EQ(c.receivers.file, in_dir("receivers.txt"));
  EXPECT_FALSE(c.output.gathers);
  c = parse(v[8]);
  EXPECT_EQ(c.boundary.type, BoundaryType::kNone);
  EXPECT_EQ(c.boundary.width, 0);
  EXPECT_TRUE(c.boundary.free_surface);
  c = parse(v[9]);
  EXPECT_TRUE(c.output.snapshots.enabled);  // given with an interval
  EXPECT_EQ(c.output.snapshots.decimation, (std::array<int, 3>{2, 2, 2}));
  c = parse(v[10]);
  EXPECT_FALSE(c.output.snapshots.enabled);
  EXPECT_EQ(c.output.snapshots.interval, 0.01);
}

TEST_F(Config, RoundTripThroughToml) {
  for (const auto& text : variants()) {
    const RunConfig a = parse(text);
    const std::string toml = config_to_toml(a);
    SCOPED_TRACE(toml);
    // Another directory: the paths written are resolved, so they do not move.
    const RunConfig b = parse_config(toml, "/nonexistent/elsewhere/resolved.toml");
    expect_same(a, b);
    EXPECT_EQ(b.source_path, "/nonexistent/elsewhere/resolved.toml");
  }
}

TEST_F(Config, JsonHasTheResolvedValues) {
  const auto j = nlohmann::json::parse(config_to_json(parse(kFull)));
  EXPECT_EQ(j["source_path"], src());
  EXPECT_EQ(j["grid"]["ny"], 81);
  EXPECT_EQ(j["grid"]["dy"], 12.5);
  EXPECT_EQ(j["model"]["path"], in_dir("model.h5"));
  EXPECT_EQ(j["time"]["dt"], 0.0005);
  EXPECT_EQ(j["receivers"]["count"], nlohmann::json::array({11, 10}));
  EXPECT_EQ(j["output"]["snapshots"]["box"]["max"], nlohmann::json::array({600, 400.5, 200}));
  EXPECT_EQ(j["kernel"]["precision"], "fp64");
  const auto m = nlohmann::json::parse(config_to_json(parse(kMinimal)));
  EXPECT_TRUE(m["time"]["dt"].is_null());
  EXPECT_TRUE(m["receivers"].is_null());
  EXPECT_EQ(m["model"]["vp"], 2000.0);
}

TEST_F(Config, FloatKeysTakeIntegers) {
  RunConfig c = parse(replace_line(kMinimal, 10, "duration = 2"));
  EXPECT_EQ(c.time.duration, 2.0);
  c = parse(kMinimal + "amplitude = 9007199254740993\n");  // 2^53 + 1: the nearest double
  EXPECT_EQ(c.source.amplitude, 9007199254740992.0);
}

TEST_F(Config, LayeredModel) {
  const std::string layered =
      replace_line(replace_line(kMinimal, 7, "type = \"layered\""), 8,
                   "interfaces = [0, 100]\nvelocities = [1500]");  // lines 8 and 9
  std::string what = expect_error(layered, "model.velocities", 9);
  EXPECT_TRUE(has(what, "has 1 values but model.interfaces has 2")) << what;
  what = expect_error(replace_line(replace_line(layered, 8, "interfaces = [0, 100, 100]"), 9,
                                   "velocities = [1, 2, 3]"),
                      "model.interfaces", 8);
  EXPECT_TRUE(has(what, "strictly increasing")) << what;
  expect_error(replace_line(layered, 8, "interfaces = [50]"), "model.interfaces", 8);  // below top
  what = expect_error(replace_line(kMinimal, 7, "type = \"salt\""), "model.vp", 8);
  EXPECT_TRUE(has(what, "not used by model.type = \"salt\"")) << what;
}

TEST_F(Config, CpmlBoundary) {
  RunConfig c = parse(kMinimal + "[boundary]\ntype = \"cpml\"\nwidth = 12\n");
  EXPECT_EQ(c.boundary.type, BoundaryType::kCpml);
  EXPECT_EQ(c.boundary.width, 12);
  EXPECT_EQ(c.boundary.reflection, BoundaryConfig::kCpmlReflection);
  EXPECT_EQ(c.boundary.power, BoundaryConfig::kCpmlPower);
  EXPECT_EQ(c.boundary.cfs_frequency, 0.0);
  c = parse(kMinimal +
            "[boundary]\ntype = \"cpml\"\ncfs_frequency = 8\npower = 2\n"
            "reflection = 1e-4\nfree_surface = true\n");
  EXPECT_EQ(c.boundary.cfs_frequency, 8.0);
  EXPECT_EQ(c.boundary.power, 2.0);
  EXPECT_EQ(c.boundary.reflection, 1e-4);
  EXPECT_TRUE(c.boundary.free_surface);
  const RunConfig back = parse(config_to_toml(c));
  EXPECT_EQ(back.boundary.type, BoundaryType::kCpml);
  EXPECT_EQ(back.boundary.cfs_frequency, 8.0);
  EXPECT_EQ(back.boundary.power, 2.0);
  expect_error(kMinimal + "[boundary]\ntype = \"cpml\"\npower = 7\n", "boundary.power", 16);
  expect_error(kMinimal + "[boundary]\ntype = \"cpml\"\ncfs_frequency = -1\n",
               "boundary.cfs_frequency", 16);
  expect_error(kMinimal + "[boundary]\ntype = \"cpml\"\nwidth = 0\n", "boundary.width", 16);
  expect_error(kMinimal + "[boundary]\ntype = \"sponge\"\npower = 2\n", "boundary.power", 16);
}

TEST_F(Config, Overrides) {
  RunConfig c = parse(kMinimal, {"time.duration=0.25", "grid.nx = 20"});
  EXPECT_EQ(c.time.duration, 0.25);
  EXPECT_EQ(c.grid.nx, 20);
  c = parse(kMinimal, {"kernel.backend=\"cpu\"", "kernel.variant=acoustic/o8/naive"});
  EXPECT_EQ(c.kernel.backend, Backend::kCpu);
  EXPECT_EQ(c.kernel.variant, "acoustic/o8/naive");  // bare word: a string
  c = parse(kMinimal, {"source.position=[1,2,3]", "output.directory=out2"});
  EXPECT_EQ(c.source.position, (Vec3{1, 2, 3}));
  EXPECT_EQ(c.output.directory, "out2");
  c = parse(kMinimal, {"output.snapshots.interval=0.1", "output.snapshots.decimation=[1, 2, 3]"});
  EXPECT_TRUE(c.output.snapshots.enabled);
  EXPECT_EQ(c.output.snapshots.interval, 0.1);
  EXPECT_EQ(c.output.snapshots.decimation, (std::array<int, 3>{1, 2, 3}));
  c = parse(kMinimal, {"output.directory=my run 2", "model.vp=3e3"});
  EXPECT_EQ(c.output.directory, "my run 2");
  EXPECT_EQ(c.model.vp, 3000.0);
}

TEST_F(Config, OverridePathsResolveAgainstTheWorkingDirectory) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  RunConfig c;
  try {
    c = parse_config(kMinimal, "/nonexistent/run.toml",
                     {"receivers.layout=\"file\"", "receivers.file=receivers.txt"});
  } catch (...) {
    fs::current_path(cwd);
    throw;
  }
  fs::current_path(cwd);
  EXPECT_EQ(c.receivers.file, in_dir("receivers.txt"));
}

TEST_F(Config, LoadConfig) {
  const fs::path sub = dir_ / "sub";
  fs::create_directories(sub);
  fs::copy_file(dir_ / "model.h5", sub / "m.h5", fs::copy_options::overwrite_existing);
  const std::string path = (sub / "run.toml").string();
  std::ofstream(path) << replace_line(replace_line(kMinimal, 7, "type = \"file\""), 8,
                                      "path = \"m.h5\"");
  const RunConfig c = load_config(path, {"time.dt=1e-4"});
  EXPECT_EQ(c.source_path, path);
  EXPECT_EQ(c.model.path, (sub / "m.h5").string());
  EXPECT_EQ(c.time.dt, 1e-4);
  try {
    load_config(in_dir("missing.toml"));
    FAIL() << "no error for a missing file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "");
    EXPECT_TRUE(has(e.what(), in_dir("missing.toml"))) << e.what();
  }
}
