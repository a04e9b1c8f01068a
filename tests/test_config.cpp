// Config parsing: defaults, every key, round trip through config_to_toml, errors with the exact
// key and line, and --set overrides.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "solver/config.hpp"

namespace fs = std::filesystem;
using namespace seisfd;

namespace {

// Line numbers matter: the error tests edit lines of this text by number.
const std::string kMinimal =
    "[grid]\n"                   // 1
    "nx = 10\n"                  // 2
    "ny = 12\n"                  // 3
    "nz = 14\n"                  // 4
    "spacing = 5.0\n"            // 5
    "[model]\n"                  // 6
    "type = \"constant\"\n"      // 7
    "vp = 2000\n"                // 8
    "[time]\n"                   // 9
    "duration = 0.5\n"           // 10
    "[source]\n"                 // 11
    "position = [20, 25, 30]\n"  // 12
    "frequency = 15\n";          // 13

const std::string kFull = R"([grid]
nx = 101
ny = 81
nz = 61
dx = 10.0
dy = 12.5
dz = 5
origin = [100.0, -50.0, 0.0]
[model]
type = "file"
path = "model.h5"
dataset = "velocity"
[physics]
equation = "acoustic"
order = 4
[time]
duration = 1.5
dt = 0.0005
courant = 0.5
[source]
position = [500.0, 400.0, 10.0]
wavelet = "file"
file = "wavelet.txt"
file_dt = 0.001
amplitude = -2.5
injection = "trilinear"
[receivers]
layout = "grid"
start = [100.0, 0.0, 5.0]
end = [1100.0, 900.0, 5.0]
count = [11, 10]
interpolation = "trilinear"
[boundary]
type = "sponge"
width = 30
reflection = 1e-4
free_surface = true
[output]
directory = "out/run1"
gathers = true
sample_interval = 0.002
[output.snapshots]
enabled = true
interval = 0.05
decimation = [2, 3, 4]
box = { min = [100, -50, 0], max = [600, 400.5, 200] }
[kernel]
backend = "cuda"
variant = "acoustic/o4/smem_regqueue"
precision = "fp64"
diagnostics_interval = 25
compressible = "off"
)";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}
std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}
// Replaces line n (1-based).
std::string replace_line(const std::string& text, int n, const std::string& with) {
  auto lines = split_lines(text);
  lines.at(n - 1) = with;
  return join_lines(lines);
}
// Inserts after line n, so the new text is line n + 1.
std::string insert_line(const std::string& text, int n, const std::string& line) {
  auto lines = split_lines(text);
  lines.insert(lines.begin() + n, line);
  return join_lines(lines);
}
std::string remove_line(const std::string& text, int n) {
  auto lines = split_lines(text);
  lines.erase(lines.begin() + (n - 1));
  return join_lines(lines);
}

void expect_same(const RunConfig& a, const RunConfig& b) {
  EXPECT_EQ(a.grid.nx, b.grid.nx);
  EXPECT_EQ(a.grid.ny, b.grid.ny);
  EXPECT_EQ(a.grid.nz, b.grid.nz);
  EXPECT_EQ(a.grid.dx, b.grid.dx);
  EXPECT_EQ(a.grid.dy, b.grid.dy);
  EXPECT_EQ(a.grid.dz, b.grid.dz);
  EXPECT_EQ(a.grid.origin, b.grid.origin);
  EXPECT_EQ(a.model.type, b.model.type);
  EXPECT_EQ(a.model.vp, b.model.vp);
  EXPECT_EQ(a.model.interfaces, b.model.interfaces);
  EXPECT_EQ(a.model.velocities, b.model.velocities);
  EXPECT_EQ(a.model.path, b.model.path);
  EXPECT_EQ(a.model.dataset, b.model.dataset);
  EXPECT_EQ(a.physics.equation, b.physics.equation);
  EXPECT_EQ(a.physics.order, b.physics.order);
  EXPECT_EQ(a.time.duration, b.time.duration);
  EXPECT_EQ(a.time.dt, b.time.dt);
  EXPECT_EQ(a.time.courant, b.time.courant);
  EXPECT_EQ(a.source.position, b.source.position);
  EXPECT_EQ(a.source.wavelet, b.source.wavelet);
  EXPECT_EQ(a.source.frequency, b.source.frequency);
  EXPECT_EQ(a.source.delay, b.source.delay);
  EXPECT_EQ(a.source.amplitude, b.source.amplitude);
  EXPECT_EQ(a.source.file, b.source.file);
  EXPECT_EQ(a.source.file_dt, b.source.file_dt);
  EXPECT_EQ(a.source.injection, b.source.injection);
  EXPECT_EQ(a.receivers.layout, b.receivers.layout);
  EXPECT_EQ(a.receivers.start, b.receivers.start);
  EXPECT_EQ(a.receivers.end, b.receivers.end);
  EXPECT_EQ(a.receivers.count, b.receivers.count);
  EXPECT_EQ(a.receivers.file, b.receivers.file);
  EXPECT_EQ(a.receivers.interpolation, b.receivers.interpolation);
  EXPECT_EQ(a.boundary.type, b.boundary.type);
  EXPECT_EQ(a.boundary.width, b.boundary.width);
  EXPECT_EQ(a.boundary.reflection, b.boundary.reflection);
  EXPECT_EQ(a.boundary.free_surface, b.boundary.free_surface);
  EXPECT_EQ(a.output.directory, b.output.directory);
  EXPECT_EQ(a.output.gathers, b.output.gathers);
  EXPECT_EQ(a.output.sample_interval, b.output.sample_interval);
  EXPECT_EQ(a.output.snapshots.enabled, b.output.snapshots.enabled);
  EXPECT_EQ(a.output.snapshots.interval, b.output.snapshots.interval);
  EXPECT_EQ(a.output.snapshots.decimation, b.output.snapshots.decimation);
  EXPECT_EQ(a.output.snapshots.box, b.output.snapshots.box);
  EXPECT_EQ(a.kernel.backend, b.kernel.backend);
  EXPECT_EQ(a.kernel.variant, b.kernel.variant);
  EXPECT_EQ(a.kernel.precision, b.kernel.precision);
  EXPECT_EQ(a.kernel.diagnostics_interval, b.kernel.diagnostics_interval);
  EXPECT_EQ(a.kernel.compressible, b.kernel.compressible);
}

// Configs live in a temporary directory that also holds the data files they name.
class Config : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("seisfd_test_config_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    for (const char* name : {"model.h5", "wavelet.txt", "receivers.txt"})
      std::ofstream(dir_ / name) << "0 0 0\n";
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string src() { return (dir_ / "run.toml").string(); }
  static std::string in_dir(const char* name) { return (dir_ / name).string(); }
  static RunConfig parse(const std::string& text, const std::vector<std::string>& ov = {}) {
    return parse_config(text, src(), ov);
  }
  static ConfigError error_of(const std::string& text, const std::vector<std::string>& ov = {}) {
    try {
      parse(text, ov);
    } catch (const ConfigError& e) {
      return e;
    }
    ADD_FAILURE() << "no ConfigError for:\n" << text;
    return ConfigError("", "no error");
  }
  // The error names key at exactly this line of the file: "SOURCE:LINE: KEY: ...".
  static std::string expect_error(const std::string& text, const std::string& key, int line) {
    const ConfigError e = error_of(text);
    const std::string what = e.what();
    EXPECT_EQ(e.key(), key) << what;
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_EQ(e.source(), src()) << what;
    const std::string at = line > 0 ? ":" + std::to_string(line) : "";
    EXPECT_EQ(what.rfind(src() + at + ": " + key + ": ", 0), 0u) << what;
    return what;
  }
  // The error of a --set override: "--set: KEY: ..."
  static std::string expect_override_error(const std::vector<std::string>& ov,
                                           const std::string& key) {
    const ConfigError e = error_of(kMinimal, ov);
    const std::string what = e.what();
    EXPECT_EQ(e.source(), "--set") << what;
    EXPECT_EQ(e.line(), 0) << what;
    EXPECT_EQ(e.key(), key) << what;
    EXPECT_EQ(what.rfind("--set: " + key + ": ", 0), 0u) << what;
    return what;
  }
  static bool has(const std::string& what, const std::string& part) {
    return what.find(part) != std::string::npos;
  }

  static inline fs::path dir_;
};

}  // namespace

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
  EXPECT_EQ(c.physics.equation, Equation::kAcoustic);
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
  EXPECT_EQ(c.kernel.backend, Backend::kAuto);
  EXPECT_EQ(c.kernel.variant, "auto");
  EXPECT_EQ(c.kernel.precision, Precision::kFp32);
  EXPECT_EQ(c.kernel.diagnostics_interval, 10);
  EXPECT_EQ(c.kernel.compressible, Compressible::kAuto);
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

TEST_F(Config, UnknownKeySuggestsTheClosest) {
  std::string what = expect_error(insert_line(kMinimal, 2, "nxx = 3"), "grid.nxx", 3);
  EXPECT_TRUE(has(what, "unknown key (known: nx, ny, nz, spacing, dx, dy, dz, origin)")) << what;
  EXPECT_TRUE(has(what, "did you mean 'nx'?")) << what;
  what = expect_error(kMinimal + "[kernel]\nbakcend = \"cpu\"\n", "kernel.bakcend", 15);
  EXPECT_TRUE(has(what, "did you mean 'backend'?")) << what;
  what = expect_error(insert_line(kMinimal, 10, "wavelength = 3"), "time.wavelength", 11);
  EXPECT_FALSE(has(what, "did you mean")) << what;
}

TEST_F(Config, UnknownSection) {
  const std::string what = expect_error(kMinimal + "[grdi]\nnx = 1\n", "grdi", 14);
  EXPECT_TRUE(has(what, "unknown section")) << what;
  EXPECT_TRUE(has(what, "did you mean 'grid'?")) << what;
  expect_error(kMinimal + "[output.snapshot]\ninterval = 1\n", "output.snapshot", 14);
}

TEST_F(Config, WrongType) {
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
}

TEST_F(Config, OutOfRange) {
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

TEST_F(Config, MissingRequiredSectionOrKey) {
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

TEST_F(Config, SpacingConflictsWithDx) {
  const std::string what = expect_error(insert_line(kMinimal, 5, "dx = 5.0"), "grid.dx", 6);
  EXPECT_TRUE(has(what, "grid.spacing")) << what;
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

TEST_F(Config, MissingFiles) {
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

TEST_F(Config, GridReceiversAtDifferentDepths) {
  const std::string what = expect_error(kMinimal +
                                            "[receivers]\nlayout = \"grid\"\nstart = [0, 0, "
                                            "10]\nend = [40, 50, 20]\ncount = [3, 4]\n",
                                        "receivers.end", 17);
  EXPECT_TRUE(has(what, "start z = 10, end z = 20")) << what;
}

TEST_F(Config, SnapshotBoxMinNotBelowMax) {
  expect_error(kMinimal + "[output.snapshots]\ninterval = 0.01\n" +
                   "box = { min = [0, 0, 50], max = [40, 50, 50] }\n",
               "output.snapshots.box", 16);
}

TEST_F(Config, OtherCrossChecks) {
  std::string what = expect_error(kMinimal + "[output]\ngathers = true\n", "output.gathers", 15);
  EXPECT_TRUE(has(what, "[receivers]")) << what;
  expect_error(kMinimal + "[boundary]\ntype = \"none\"\nwidth = 5\n", "boundary.width", 16);
  expect_error(kMinimal + "[boundary]\ntype = \"none\"\nreflection = 0.1\n", "boundary.reflection",
               16);
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

TEST_F(Config, TomlSyntaxError) {
  ConfigError e = error_of(replace_line(kMinimal, 4, "nz = "));
  EXPECT_EQ(e.line(), 4) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind(src() + ":4: ", 0), 0u) << e.what();
  e = error_of(insert_line(kMinimal, 3, "nx = 11"));  // a key given twice
  EXPECT_EQ(e.line(), 4) << e.what();
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

TEST_F(Config, OverrideErrorsSayWhereTheyCameFrom) {
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

TEST_F(Config, MalformedOverride) {
  for (const std::string bad : {"time.duration", "=5", " = 5", "time..dt=1", "time.=1"}) {
    SCOPED_TRACE(bad);
    const ConfigError e = error_of(kMinimal, {bad});
    EXPECT_EQ(e.source(), "--set");
    EXPECT_TRUE(has(e.what(), "malformed override '" + bad + "'")) << e.what();
  }
  EXPECT_EQ(error_of(kMinimal, {"time.duration"}).key(), "time.duration");
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
