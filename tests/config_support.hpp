// Shared by the config tests (test_config.cpp, test_config_errors.cpp): the minimal and full
// config texts, line editing, and the fixture whose temporary directory holds the data files the
// configs name.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "solver/config.hpp"

namespace fs = std::filesystem;
using namespace seisfd;

// Line numbers matter: the error tests edit lines of this text by number.
inline const std::string kMinimal =
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

inline const std::string kFull = R"([grid]
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

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}
inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}
// Replaces line n (1-based).
inline std::string replace_line(const std::string& text, int n, const std::string& with) {
  auto lines = split_lines(text);
  lines.at(n - 1) = with;
  return join_lines(lines);
}
// Inserts after line n, so the new text is line n + 1.
inline std::string insert_line(const std::string& text, int n, const std::string& line) {
  auto lines = split_lines(text);
  lines.insert(lines.begin() + n, line);
  return join_lines(lines);
}
inline std::string remove_line(const std::string& text, int n) {
  auto lines = split_lines(text);
  lines.erase(lines.begin() + (n - 1));
  return join_lines(lines);
}

inline void expect_same(const RunConfig& a, const RunConfig& b) {
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
