// End-to-end tests of the seisfd command line: each test spawns the real binary
// (SEISFD_BINARY) in its own temporary directory, captures stdout, stderr and the exit code,
// and reads the output files back with the HDF5 C API and nlohmann_json (docs/outputs.md).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/h5.hpp"
#include "io/model_file.hpp"

#include "tests/cli_support.hpp"

namespace {

using namespace seisfd::test::cli;

// ---------------------------------------------------------------------------------------
// 1. Shipped configs and `check`.

TEST_F(CliTest, EveryShippedConfigPassesCheck) {
  const fs::path configs = fs::path(SEISFD_SOURCE_DIR) / "configs";
  ASSERT_TRUE(fs::is_directory(configs)) << configs;
  int n = 0;
  for (const auto& e : fs::directory_iterator(configs)) {
    if (e.path().extension() != ".toml") continue;
    ++n;
    const Result r = run({"check", e.path().string(), "--backend", "cpu"});
    EXPECT_EQ(r.rc, 0) << e.path() << "\n" << describe(r);
    EXPECT_TRUE(contains(r.out, "config OK")) << e.path() << "\n" << describe(r);
    EXPECT_EQ(r.err.find("error"), std::string::npos) << e.path() << "\n" << describe(r);
  }
  EXPECT_GE(n, 3) << "expected the shipped configs (quickstart, salt_demo, ...) in " << configs;
  // check writes nothing: no output directory appears in the working directory.
  EXPECT_EQ(list_dir(dir_), std::vector<std::string>{});
}

TEST_F(CliTest, CheckPrintsTimeStepStabilityWavelengthAndMemory) {
  const fs::path cfg = write_config(
      "c.toml",
      replace_line(replace_line(kBaseConfig, "dt = 0.001", ""), "sample_interval = 0.002", ""));
  const Result r = run({"check", cfg.string(), "--backend", "cpu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "config OK")) << r.out;
  // "time        dt 0.00225 s (stability limit 0.0025 s, ratio 0.9), ..."
  std::string time_line;
  for (const auto& l : lines_of(r.out))
    if (l.rfind("time ", 0) == 0) time_line = l;
  ASSERT_FALSE(time_line.empty()) << r.out;
  double dt = 0, limit = 0, ratio = 0;
  ASSERT_EQ(std::sscanf(time_line.c_str(), "time dt %lf s (stability limit %lf s, ratio %lf", &dt,
                        &limit, &ratio),
            3)
      << time_line;
  // Order 4, v 2000 m/s, h 10 m: limit = 2 / (v sqrt(3 * 16/3 / h^2)) = 2.5 ms.
  EXPECT_NEAR(limit, 0.0025, 1e-6) << time_line;
  EXPECT_NEAR(dt, 0.9 * limit, 1e-6) << time_line;  // default courant 0.9
  EXPECT_NEAR(ratio, 0.9, 1e-3) << time_line;
  EXPECT_TRUE(contains(r.out, "points per minimum wavelength")) << r.out;
  std::string memory_line;
  for (const auto& l : lines_of(r.out))
    if (l.rfind("memory ", 0) == 0) memory_line = l;
  EXPECT_TRUE(contains(memory_line, "MiB")) << r.out;
  // The resolved config comes first, with every section.
  EXPECT_TRUE(contains(r.out, "# resolved config")) << r.out;
  EXPECT_TRUE(contains(r.out, "[output.snapshots]")) << r.out;
}

// ---------------------------------------------------------------------------------------
// 2. Bad input: one clear line, a non-zero exit, nothing on disk touched.

struct BadCase {
  std::string name;
  std::string config;                  // full config text
  std::vector<std::string> must_have;  // substrings of the error line
  int exit_code = 2;
};

class CliBadConfigTest : public CliTest {
 protected:
  // Runs `run --overwrite` (the most permissive mode) on a config whose output directory
  // already holds files, and checks they survive byte for byte and nothing is added.
  void expect_rejected(const BadCase& c) {
    SCOPED_TRACE(c.name);
    const fs::path out = dir_ / ("out_" + c.name);
    fs::create_directories(out);
    write_file(out / "sentinel.txt", "keep me " + c.name + "\n");
    write_file(out / "gathers.h5", "not really hdf5 " + c.name);
    const auto before = list_dir(out);
    const fs::path cfg = write_config(c.name + ".toml", c.config);
    const Result r = run({"run", cfg.string(), "--backend", "cpu", "--quiet", "--overwrite",
                          "--set", "output.directory=\"" + out.string() + "\""});
    EXPECT_EQ(r.rc, c.exit_code) << describe(r);
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << "expected exactly one line on stderr\n" << describe(r);
    EXPECT_EQ(lines[0].rfind("seisfd: error: ", 0), 0u) << lines[0];
    for (const auto& s : c.must_have)
      EXPECT_TRUE(contains(lines[0], s)) << "'" << s << "' not in: " << lines[0];
    EXPECT_EQ(list_dir(out), before);
    EXPECT_EQ(read_file(out / "sentinel.txt"), "keep me " + c.name + "\n");
    EXPECT_EQ(read_file(out / "gathers.h5"), "not really hdf5 " + c.name);
  }
};

TEST_F(CliBadConfigTest, UnknownKey) {
  expect_rejected({"unknown_key",
                   replace_line(kBaseConfig, "ny = 24", "ny = 24\nnq = 24"),
                   {"grid.nq", "unknown key", "unknown_key.toml:4"}});
}

TEST_F(CliBadConfigTest, WrongType) {
  expect_rejected({"wrong_type",
                   replace_line(kBaseConfig, "nx = 24", "nx = \"twenty\""),
                   {"grid.nx", "expected an integer", "wrong_type.toml:2"}});
}

TEST_F(CliBadConfigTest, DtAboveStabilityLimit) {
  expect_rejected({"dt_too_large",
                   replace_line(kBaseConfig, "dt = 0.001", "dt = 0.003"),
                   {"time.dt", "stability limit", "0.003", "0.0025"}});
}

TEST_F(CliBadConfigTest, MissingModelFile) {
  std::string text = replace_line(kBaseConfig, "type = \"constant\"",
                                  "type = \"file\"\npath = \"no_such_model.h5\"");
  text = replace_line(text, "vp = 2000.0", "");
  // A missing input file is a file error (exit 3), located at its key like a config error.
  expect_rejected(
      {"missing_model", text, {"model.path", "no_such_model.h5", "missing_model.toml:"}, 3});
}

TEST_F(CliBadConfigTest, WrongModelShape) {
  // Grid is [nz][ny][nx] = [24][24][24]; the file holds [20][24][22].
  const std::vector<float> v(20 * 24 * 22, 2000.0f);
  seisfd::io::write_volume((dir_ / "small_model.h5").string(), "vp", {20, 24, 22}, v.data());
  std::string text = replace_line(kBaseConfig, "type = \"constant\"",
                                  "type = \"file\"\npath = \"small_model.h5\"");
  text = replace_line(text, "vp = 2000.0", "");
  expect_rejected({"wrong_shape", text, {"model.path", "[20][24][22]", "[24][24][24]"}, 3});
  // The key is named once, not repeated.
  const Result r = run({"check", (dir_ / "wrong_shape.toml").string()});
  EXPECT_EQ(r.err.find("model.path"), r.err.rfind("model.path")) << r.err;
}

TEST_F(CliBadConfigTest, ReceiverOutsideGrid) {
  expect_rejected(
      {"receiver_outside",
       replace_line(kBaseConfig, "end = [220.0, 140.0, 50.0]", "end = [220.0, 140.0, 300.0]"),
       {"receivers", "receiver 3", "232.5", "outside the physical domain"}});
}

TEST_F(CliBadConfigTest, SourceOutsideGrid) {
  expect_rejected({"source_outside",
                   replace_line(kBaseConfig, "position = [120.0, 110.0, 60.0]",
                                "position = [120.0, -30.0, 60.0]"),
                   {"source.position", "outside the physical domain", "-30"}});
}

TEST_F(CliTest, ExistingOutputDirectoryNeedsOverwrite) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  const std::string sentinel = "results of an earlier run\n";
  write_file(out / "sentinel.txt", sentinel);

  const Result r = run({"run", cfg.string(), "--backend", "cpu", "--quiet"});
  EXPECT_EQ(r.rc, 3) << describe(r);
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << describe(r);
  EXPECT_EQ(lines[0].rfind("seisfd: error: ", 0), 0u) << lines[0];
  EXPECT_TRUE(contains(lines[0], "--overwrite")) << lines[0];
  EXPECT_TRUE(contains(lines[0], out.filename().string())) << lines[0];
  EXPECT_EQ(list_dir(out), std::vector<std::string>{"sentinel.txt"});
  EXPECT_EQ(read_file(out / "sentinel.txt"), sentinel);

  const Result ok = run({"run", cfg.string(), "--backend", "cpu", "--quiet", "--overwrite"});
  EXPECT_EQ(ok.rc, 0) << describe(ok);
  EXPECT_EQ(ok.err, "");
  EXPECT_TRUE(fs::exists(out / "gathers.h5"));
  EXPECT_TRUE(fs::exists(out / "snapshots.h5"));
  EXPECT_TRUE(fs::exists(out / "report.json"));
  EXPECT_EQ(read_file(out / "sentinel.txt"), sentinel);
  EXPECT_EQ(complete_flag(out / "gathers.h5"), 1);

  // An empty existing directory needs no flag.
  const fs::path empty = dir_ / "empty";
  fs::create_directories(empty);
  const Result r2 = run({"run", cfg.string(), "--backend", "cpu", "--quiet", "--set",
                         "output.directory=\"" + empty.string() + "\""});
  EXPECT_EQ(r2.rc, 0) << describe(r2);
  EXPECT_TRUE(fs::exists(empty / "gathers.h5"));
}

// ---------------------------------------------------------------------------------------
// 3. A good run and its files.

TEST_F(CliTest, GoodRunWritesCompleteOutputs) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result r = run({"run", cfg.string(), "--backend", "cpu", "--quiet"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(r.err, "") << "--quiet prints nothing on success";
  const fs::path out = dir_ / "out";  // relative output.directory: from the working directory

  // Configured: dt 1 ms, 0.2 s -> nt 201; gathers every 2 ms -> 101 samples; 5 receivers on
  // the line (20,100,30) .. (220,140,50).
  const int nrec = 5, nt_out = 101;
  {
    const h5::File f = open_h5(out / "gathers.h5");
    EXPECT_EQ(read_attr<int>(f.get(), "complete", H5T_NATIVE_INT).at(0), 1);
    const h5::Group g{H5_CHECK(H5Gopen2(f.get(), "shot_0000", H5P_DEFAULT))};
    EXPECT_EQ(dataset_shape(g.get(), "p"), (std::vector<hsize_t>{nrec, nt_out}));
    EXPECT_TRUE(dataset_is_float(g.get(), "p", 4));
    EXPECT_EQ(dataset_shape(g.get(), "receivers"), (std::vector<hsize_t>{nrec, 3}));
    EXPECT_TRUE(dataset_is_float(g.get(), "receivers", 8));
    const auto xyz = read_dataset<double>(g.get(), "receivers", H5T_NATIVE_DOUBLE);
    for (int i = 0; i < nrec; ++i) {
      const double t = i / double(nrec - 1);
      EXPECT_NEAR(xyz[3 * i + 0], 20.0 + 200.0 * t, 1e-9) << "receiver " << i;
      EXPECT_NEAR(xyz[3 * i + 1], 100.0 + 40.0 * t, 1e-9) << "receiver " << i;
      EXPECT_NEAR(xyz[3 * i + 2], 30.0 + 20.0 * t, 1e-9) << "receiver " << i;
    }
    EXPECT_EQ(read_attr<double>(g.get(), "source", H5T_NATIVE_DOUBLE),
              (std::vector<double>{120.0, 110.0, 60.0}));
    EXPECT_NEAR(read_attr<double>(g.get(), "dt", H5T_NATIVE_DOUBLE).at(0), 0.002, 1e-12);
    EXPECT_EQ(read_attr<double>(g.get(), "t0", H5T_NATIVE_DOUBLE).at(0), 0.0);
    EXPECT_EQ(read_string_attr(g.get(), "units"), "Pa");
    const auto p = read_dataset<float>(g.get(), "p", H5T_NATIVE_FLOAT);
    ASSERT_EQ(p.size(), size_t(nrec) * nt_out);
    double peak = 0;
    for (float v : p) {
      ASSERT_TRUE(std::isfinite(v));
      peak = std::max(peak, double(std::fabs(v)));
    }
    EXPECT_GT(peak, 0.0) << "traces are all zero";
    // Every receiver sees the wave.
    for (int i = 0; i < nrec; ++i) {
      double m = 0;
      for (int k = 0; k < nt_out; ++k)
        m = std::max(m, double(std::fabs(p[size_t(i) * nt_out + k])));
      EXPECT_GT(m, 1e-3 * peak) << "receiver " << i;
    }
  }
  {
    // Box x [40,200] y [40,160] z [40,120] m -> cells x 4..20, y 4..16, z 4..12; decimation
    // (x,y,z) = (2,1,3) -> nx 9, ny 13, nz 3. Every 40 ms of 200 ms -> 5 snapshots.
    const h5::File f = open_h5(out / "snapshots.h5");
    EXPECT_EQ(read_attr<int>(f.get(), "complete", H5T_NATIVE_INT).at(0), 1);
    EXPECT_EQ(dataset_shape(f.get(), "p"), (std::vector<hsize_t>{5, 3, 13, 9}));
    EXPECT_TRUE(dataset_is_float(f.get(), "p", 4));
    EXPECT_EQ(dataset_shape(f.get(), "time"), (std::vector<hsize_t>{5}));
    const auto time = read_dataset<double>(f.get(), "time", H5T_NATIVE_DOUBLE);
    for (size_t i = 0; i < time.size(); ++i) {
      const double k = std::round(time[i] / 0.04);
      EXPECT_NEAR(time[i], k * 0.04, 0.001) << "snapshot " << i;
      EXPECT_NEAR(time[i], (i + 1) * 0.04, 0.001) << "snapshot " << i;
    }
    const auto spacing = read_attr<double>(f.get(), "spacing", H5T_NATIVE_DOUBLE);
    const auto origin = read_attr<double>(f.get(), "origin", H5T_NATIVE_DOUBLE);
    const auto dec = read_attr<int>(f.get(), "decimation", H5T_NATIVE_INT);
    ASSERT_EQ(spacing.size(), 3u);
    ASSERT_EQ(origin.size(), 3u);
    EXPECT_EQ(dec, (std::vector<int>{3, 1, 2}));  // (z, y, x)
    EXPECT_NEAR(spacing[0], 30.0, 1e-9);
    EXPECT_NEAR(spacing[1], 10.0, 1e-9);
    EXPECT_NEAR(spacing[2], 20.0, 1e-9);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(origin[a], 40.0, 1e-9) << "axis " << a;
    const auto p = read_dataset<float>(f.get(), "p", H5T_NATIVE_FLOAT);
    double peak = 0;
    for (float v : p) {
      ASSERT_TRUE(std::isfinite(v));
      peak = std::max(peak, double(std::fabs(v)));
    }
    EXPECT_GT(peak, 0.0);
  }
  EXPECT_TRUE(fs::is_regular_file(out / "snapshots.xmf"));
  EXPECT_TRUE(contains(read_file(out / "snapshots.xmf"), "snapshots.h5"));

  const std::string report_text = read_file(out / "report.json");
  nlohmann::json rep;
  ASSERT_NO_THROW(rep = nlohmann::json::parse(report_text)) << report_text;
  EXPECT_GT(rep.at("performance").at("gcells_per_s").get<double>(), 0.0);
  EXPECT_EQ(rep.at("performance").at("steps").get<int>(), 200);
  EXPECT_EQ(rep.at("backend").at("name").get<std::string>(), "cpu");
  const auto& c = rep.at("config");
  EXPECT_EQ(c.at("grid").at("nx").get<int>(), 24);
  EXPECT_EQ(c.at("physics").at("order").get<int>(), 4);
  EXPECT_EQ(c.at("time").at("dt").get<double>(), 0.001);
  EXPECT_EQ(c.at("receivers").at("count").get<int>(), 5);
  EXPECT_EQ(c.at("output").at("snapshots").at("decimation"), (nlohmann::json{2, 1, 3}));

  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_NE(e.path().extension(), ".partial") << e.path();
  EXPECT_EQ(list_dir(out), (std::vector<std::string>{"gathers.h5", "report.json", "snapshots.h5",
                                                     "snapshots.xmf"}));
}

// ---------------------------------------------------------------------------------------
// 4. Ctrl-C in the time loop.

TEST_F(CliTest, SigintLeavesOnlyPartialIncompleteFiles) {
  std::string text = kBaseConfig;
  for (const char* ax : {"nx", "ny", "nz"})
    text = replace_line(text, std::string(ax) + " = 24", std::string(ax) + " = 96");
  text = replace_line(text, "duration = 0.2", "duration = 2.0");
  const fs::path cfg = write_config("big.toml", text);
  const fs::path out = dir_ / "out";

  // Interrupted once the first progress line is out: the time loop is running.
  Process p({"run", cfg.string(), "--backend", "cpu"}, dir_);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!contains(p.err(), "Mcells/s") && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    ASSERT_EQ(waitpid(p.pid(), &status, WNOHANG), 0) << "seisfd ended before its progress line";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(contains(p.err(), "Mcells/s")) << p.err();
  ASSERT_EQ(kill(p.pid(), SIGINT), 0);
  const int rc = p.wait();
  const std::string err = p.err();
  p.remove_logs();
  EXPECT_EQ(rc, 130) << err;
  EXPECT_TRUE(contains(err, "interrupted at step")) << err;

  EXPECT_FALSE(fs::exists(out / "gathers.h5"));
  EXPECT_FALSE(fs::exists(out / "snapshots.h5"));
  EXPECT_FALSE(fs::exists(out / "snapshots.xmf"));
  EXPECT_FALSE(fs::exists(out / "report.json"));
  int h5_files = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    const bool is_h5 =
        name.size() > 3 && (name.substr(name.size() - 3) == ".h5" || contains(name, ".h5.partial"));
    if (!is_h5) continue;
    ++h5_files;
    EXPECT_TRUE(contains(name, ".partial")) << name;
    EXPECT_NE(complete_flag(e.path()), 1) << name << " says it is complete";
    EXPECT_EQ(complete_flag(e.path()), 0) << name;
  }
  EXPECT_EQ(h5_files, 2) << "the gathers and snapshots files remain as .partial";
}

// ---------------------------------------------------------------------------------------
// 5. Overrides and the other subcommands.

TEST_F(CliTest, SetOverridesConfigKeys) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const fs::path out = dir_ / "elsewhere";
  const Result r =
      run({"run", cfg.string(), "--backend", "cpu", "--quiet", "--set", "time.duration=0.02",
           "--set", "output.directory=\"" + out.string() + "\"", "--set", "receivers.count=3"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "output.directory override ignored";
  ASSERT_TRUE(fs::exists(out / "gathers.h5"));
  const h5::File f = open_h5(out / "gathers.h5");
  // 0.02 s at dt 1 ms -> nt 21, every 2 ms -> 11 samples; 3 receivers.
  EXPECT_EQ(dataset_shape(f.get(), "shot_0000/p"), (std::vector<hsize_t>{3, 11}));
  const auto rep = nlohmann::json::parse(read_file(out / "report.json"));
  EXPECT_EQ(rep.at("config").at("time").at("duration").get<double>(), 0.02);

  // check reflects overrides too, and a bad override names --set and the key.
  const Result c = run({"check", cfg.string(), "--set", "physics.order=8"});
  EXPECT_EQ(c.rc, 0) << describe(c);
  EXPECT_TRUE(contains(c.out, "order = 8")) << c.out;
  const Result bad = run({"check", cfg.string(), "--set", "time.duration=\"long\""});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
  ASSERT_EQ(lines_of(bad.err).size(), 1u) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "--set")) << bad.err;
  EXPECT_TRUE(contains(bad.err, "time.duration")) << bad.err;
}

TEST_F(CliTest, InfoKernelsAndHelp) {
  const Result info = run({"info"});
  EXPECT_EQ(info.rc, 0) << describe(info);
  EXPECT_TRUE(contains(info.out, "seisfd")) << info.out;
  EXPECT_TRUE(contains(info.out, "OpenMP threads")) << info.out;

  const Result kernels = run({"kernels"});
  EXPECT_EQ(kernels.rc, 0) << describe(kernels);
  EXPECT_FALSE(kernels.out.empty());

  const Result help = run({"--help"});
  EXPECT_EQ(help.rc, 0) << describe(help);
  for (const char* sub : {"run", "check", "info", "kernels"})
    EXPECT_TRUE(contains(help.out, sub)) << help.out;

  const Result run_help = run({"run", "--help"});
  EXPECT_EQ(run_help.rc, 0) << describe(run_help);
  EXPECT_TRUE(contains(run_help.out, "--overwrite")) << run_help.out;
  EXPECT_TRUE(contains(run_help.out, "--set")) << run_help.out;

  const Result none = run({});
  EXPECT_NE(none.rc, 0) << "a subcommand is required";
  const Result missing = run({"run", (dir_ / "no_such.toml").string()});
  EXPECT_NE(missing.rc, 0) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "no_such.toml")) << missing.err;
}

// ---------------------------------------------------------------------------------------
// 6. Progress on a non-terminal stderr.

TEST_F(CliTest, ProgressAndSummaryWithoutQuiet) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result r = run({"run", cfg.string(), "--backend", "cpu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const auto lines = lines_of(r.err);
  int progress = 0;
  for (const auto& l : lines) {
    EXPECT_EQ(l.find('\r'), std::string::npos) << "no carriage returns when not a terminal";
    if (contains(l, "step") && contains(l, "Mcells/s")) ++progress;
  }
  EXPECT_GE(progress, 1) << r.err;
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(contains(lines.back(), "Gcells/s")) << r.err;
  EXPECT_TRUE(contains(lines.back(), "200 steps")) << r.err;
  EXPECT_TRUE(contains(r.err, "step 200/200")) << r.err;
}

}  // namespace
