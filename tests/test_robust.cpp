// Runs that survive bad input, from the outside: counts that would overflow, memory and disk
// predicted before allocation, write errors (file-size limit), --overwrite and the output
// directory's lock, non-finite data, and the small things (exit codes, one-line messages, line
// numbers). Signals, checkpoints and restart: tests/test_preempt.cpp. Each test spawns the real
// binary (SEISFD_BINARY) in its own temporary directory (tests/shell_support.hpp); runs are small
// (24^3 or 48^3 cells) to stay cheap on 2 cores.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

#include "io/files.hpp"
#include "solver/grid.hpp"
#include "solver/report.hpp"
#include "tests/shell_support.hpp"
#include "tests/gpu_skip.hpp"

namespace {

using namespace seisfd::test::shell;

// ---------------------------------------------------------------------------------------
// Counts: computed in floating point and range-checked, with honest messages.

TEST_F(ShellTest, HugeCountsAreRefusedWithHonestMessages) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  std::string no_dt = kBaseConfig;
  no_dt = replace_line(no_dt, "dt = 0.001", "");
  const fs::path cfg_no_dt = write_config("nodt.toml", no_dt);
  struct Case {
    fs::path config;
    std::string set;
    std::vector<std::string> must_have;
  };
  const std::vector<Case> cases{
      {cfg, "time.duration=3e6", {"time.duration", "3e+09 time steps", "at most"}},
      {cfg, "output.sample_interval=1e10", {"output.sample_interval", "longer than time.duration"}},
      {cfg, "model.vp=1e30", {"time.dt", "exceeds the stability limit", "v_max 1e+30"}},
      {cfg_no_dt, "model.vp=1e30", {"time.duration", "time steps of 4.5e-30 s", "at most"}},
      {cfg_no_dt, "grid.spacing=1e-300", {"time.duration", "spacing 1e-300 m", "at most"}},
      {cfg,
       "output.snapshots.interval=1e-9",
       {"output.snapshots.interval", "shorter than the time step"}},
      {cfg, "grid.nx=2000000000", {"grid.nx", "at most"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.set);
    expect_one_error_line(run({"check", c.config.string(), "--set", c.set}), 2, c.must_have);
  }
  // An interval longer than the run takes no snapshot (it took one every step), and says so.
  for (const std::string interval : {"1e30", "1e7"}) {
    const Result r =
        run({"run", cfg.string(), "--backend", "cpu", "-q", "--set",
             "output.snapshots.interval=" + interval, "--set", "output.directory=out" + interval});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_TRUE(contains(r.err, "no snapshot is taken")) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / ("out" + interval) / "snapshots.h5"));
    EXPECT_TRUE(fs::exists(dir_ / ("out" + interval) / "gathers.h5"));
  }
}

// A dt copied from the stability limit `check` prints is accepted; one above it is refused with
// enough digits to see by how much.
TEST_F(ShellTest, DtAtThePrintedStabilityLimitIsAccepted) {
  std::string text = replace_line(kBaseConfig, "dt = 0.001", "");
  text = replace_line(text, "vp = 2000.0", "vp = 2345.6");
  text = replace_line(text, "sample_interval = 0.002", "");
  const fs::path cfg = write_config("c.toml", text);
  const Result c = run({"check", cfg.string()});
  ASSERT_EQ(c.rc, 0) << describe(c);
  const auto at = c.out.find("stability limit ");
  ASSERT_NE(at, std::string::npos) << c.out;
  const std::string limit = c.out.substr(at + 16, c.out.find(' ', at + 16) - at - 16);
  const Result ok = run({"check", cfg.string(), "--set", "time.dt=" + limit});
  EXPECT_EQ(ok.rc, 0) << limit << "\n" << describe(ok);
  const double above = std::stod(limit) * (1 + 2e-6);
  char text_above[64];
  std::snprintf(text_above, sizeof text_above, "%.9g", above);
  const Result bad = run({"check", cfg.string(), "--set", std::string("time.dt=") + text_above});
  expect_one_error_line(bad, 2, {"time.dt", text_above, "at most " + limit});
}

// ---------------------------------------------------------------------------------------
// Memory: predicted before anything large is allocated, in `check` as in `run`.

TEST_F(ShellTest, RunsThatCannotFitStopBeforeAllocating) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  for (const std::string cmd : {"check", "run"}) {
    SCOPED_TRACE(cmd);
    expect_one_error_line(run({cmd, cfg.string(), "--backend", "cpu", "--set", "grid.nx=5000",
                               "--set", "grid.ny=5000", "--set", "grid.nz=5000"}),
                          5, {"host memory", "needs", "TiB", "model", "fields", "available"});
    expect_one_error_line(
        run({cmd, cfg.string(), "--backend", "cpu", "--set", "receivers.count=1000000000"}), 5,
        {"host memory", "traces", "fewer receivers"});
  }
  // Under an address-space limit (as a batch system's memory limit) a 320^3 run (about 760 MB)
  // is refused by both commands with the limit named, not killed and not bad_alloc.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory does not start under ulimit -v";
#endif
  for (const std::string cmd : {"check", "run"}) {
    SCOPED_TRACE(cmd);
    const Result r = shell("ulimit -v 400000; " + bin() + " " + cmd + " " + cfg.string() +
                           " --backend cpu --set grid.nx=320 --set grid.ny=320 --set grid.nz=320"
                           " --set output.directory=limited");
    expect_one_error_line(r, 5, {"host memory", "address-space limit"});
    EXPECT_FALSE(fs::exists(dir_ / "limited"));
  }
}

// `check` reads the model a slab at a time: its memory does not grow with the model. A 256^3
// TTI model is five arrays of 64 MiB (epsilon, delta, theta, phi besides vp): held whole, the
// check would peak above 320 MiB.
TEST_F(ShellTest, CheckDoesNotHoldTheModel) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory counts in the resident size";
#endif
  std::string text = replace_line(kBaseConfig, "type = \"constant\"", "type = \"salt\"");
  text = replace_line(text, "vp = 2000.0", "");
  text = replace_line(text, "dt = 0.001", "dt = 0.0005");
  text = replace_line(text, "order = 4", "order = 4\nequation = \"tti\"");
  const fs::path cfg = write_config("c.toml", text);
  const Result r = run({"check", cfg.string(), "--backend", "cpu", "--set", "grid.nx=256", "--set",
                        "grid.ny=256", "--set", "grid.nz=256"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "anisotropy  epsilon 0 .. 0.")) << r.out;
  rusage children{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  EXPECT_LT(children.ru_maxrss, 200 * 1024) << "peak resident KiB of the check";
}

// The outputs' size is estimated and checked against the free space before anything is
// written: snapshots of a 200^3 domain every step for 1000 s (29 TiB) do not fit.
TEST_F(ShellTest, OutputsThatCannotFitOnDiskStopBeforeWriting) {
  std::string text = replace_line(kBaseConfig, "decimation = [2, 1, 3]", "decimation = 1");
  text = replace_line(text, "box = { min = [40.0, 40.0, 40.0], max = [200.0, 160.0, 120.0] }", "");
  const fs::path cfg = write_config("c.toml", text);
  const std::vector<std::string> big{"--set", "grid.nx=200",
                                     "--set", "grid.ny=200",
                                     "--set", "grid.nz=200",
                                     "--set", "time.duration=1000",
                                     "--set", "output.snapshots.interval=0.001"};
  for (const std::string cmd : {"check", "run"}) {
    SCOPED_TRACE(cmd);
    // Under a file-size limit, so that a run that failed to stop writes 100 MB, not the disk full.
    std::string line =
        "ulimit -f 100000; " + bin() + " " + cmd + " " + cfg.string() + " --backend cpu";
    for (const auto& a : big) line += " " + a;
    const Result r = shell(line);
    EXPECT_EQ(r.rc, 5) << describe(r);
    EXPECT_TRUE(contains(r.err, "disk: the outputs need")) << r.err;
    EXPECT_TRUE(contains(r.err, "snapshots 29.1 TiB")) << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
  const Result ok = run({"check", cfg.string()});
  ASSERT_EQ(ok.rc, 0) << describe(ok);
  EXPECT_TRUE(contains(ok.out, "disk ")) << ok.out;
  EXPECT_TRUE(contains(ok.out, "free in")) << ok.out;
}

// ---------------------------------------------------------------------------------------
// Write errors: a file-size limit surfaces as one line naming the file, exit 3, no crash in
// HDF5's exit handler, and nothing left that looks complete.

TEST_F(ShellTest, FileSizeLimitStopsWithOneLineAndNoCompleteFiles) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  // Snapshots of the whole 48^3 domain (442 KB each) pass the 40 KiB limit at the first one.
  const Result r =
      shell("ulimit -f 40; " + bin() + " run " + cfg.string() +
            " --backend cpu -q --set grid.nx=48 --set grid.ny=48 --set grid.nz=48"
            " --set output.snapshots.decimation=1"
            " --set 'output.snapshots.box={min=[0.0,0.0,0.0],max=[470.0,470.0,470.0]}'");
  expect_one_error_line(r, 3, {"snapshots", "snapshots.h5.partial", "File too large", "removed"});
  EXPECT_EQ(r.err.find("../"), std::string::npos) << r.err;   // no build paths
  EXPECT_EQ(r.err.find("H5FD"), std::string::npos) << r.err;  // no internal call stack
  EXPECT_LT(r.err.size(), 400u) << r.err;
  const fs::path out = dir_ / "out";
  EXPECT_FALSE(fs::exists(out / "snapshots.h5.partial"));
  EXPECT_FALSE(fs::exists(out / "snapshots.h5"));
  EXPECT_FALSE(fs::exists(out / "gathers.h5"));
  EXPECT_FALSE(fs::exists(out / "report.json"));
  EXPECT_FALSE(fs::exists(out / seisfd::io::DirectoryLock::kName));
  ASSERT_TRUE(fs::exists(out / "gathers.h5.partial"));
  EXPECT_EQ(complete_flag(out / "gathers.h5.partial"), 0);

  // The gathers themselves too large (2000 receivers x 101 samples, 808 KB).
  const Result g = shell("ulimit -f 100; " + bin() + " run " + cfg.string() +
                         " --backend cpu -q --set receivers.count=2000"
                         " --set output.snapshots.enabled=false --set output.directory=out2");
  expect_one_error_line(g, 3, {"gathers", "gathers.h5.partial", "File too large"});
  EXPECT_FALSE(fs::exists(dir_ / "out2/gathers.h5"));
  EXPECT_FALSE(fs::exists(dir_ / "out2/report.json"));
}

// ---------------------------------------------------------------------------------------
// --overwrite removes the outputs a run owns before it writes; other files stay.

TEST_F(ShellTest, OverwriteLeavesNoStaleResults) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  ASSERT_EQ(run({"run", cfg.string(), "--backend", "cpu", "-q"}).rc, 0);
  const fs::path out = dir_ / "out";
  write_file(out / "notes.txt", "mine");
  write_file(out / "image.h5.partial", "stale");
  ASSERT_TRUE(fs::exists(out / "snapshots.h5"));
  const Result r = run({"run", cfg.string(), "--backend", "cpu", "-q", "--overwrite", "--set",
                        "output.gathers=false", "--set", "output.snapshots.enabled=false"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(list_dir(out), (std::vector<std::string>{"notes.txt", "report.json"}));
  EXPECT_EQ(read_file(out / "notes.txt"), "mine");
}

// ---------------------------------------------------------------------------------------
// Non-finite values in fp64 and in what is written.

TEST_F(ShellTest, Fp64OverflowIsCaughtInWhatIsWritten) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result r =
      run({"run", cfg.string(), "--backend", "cpu", "-q", "--set", "source.amplitude=1e300",
           "--set", "kernel.precision=\"fp64\"", "--set", "output.snapshots.enabled=false"});
  expect_one_error_line(r, 4, {"shot 0's traces", "not finite", "float32"});
  EXPECT_FALSE(fs::exists(dir_ / "out/gathers.h5"));
  EXPECT_FALSE(fs::exists(dir_ / "out/report.json"));
  EXPECT_EQ(complete_flag(dir_ / "out/gathers.h5.partial"), 0);
}

TEST(CellText, NamesWhereTheCellIs) {
  seisfd::GridConfig gc;
  gc.nx = 10;
  gc.ny = 12;
  gc.nz = 14;
  gc.dx = gc.dy = gc.dz = 10;
  seisfd::BoundaryConfig b;
  b.width = 5;
  const seisfd::SimGrid g(gc, b, 4);  // halo 2
  const auto& l = g.layout();
  auto at = [&](int z, int y, int x) {
    return seisfd::cell_text(g, l.idx(z + g.offset(0), y + g.offset(1), x + g.offset(2)));
  };
  EXPECT_EQ(at(0, 0, 0), "physical cell (x=0, y=0, z=0)");
  EXPECT_EQ(at(13, 11, 9), "physical cell (x=9, y=11, z=13)");
  EXPECT_EQ(at(-4, 3, 3), "absorbing-layer cell (x=3, y=3, z=-4 from the physical corner)");
  EXPECT_EQ(at(3, 3, 14), "absorbing-layer cell (x=14, y=3, z=3 from the physical corner)");
  EXPECT_EQ(at(-6, 3, 3), "halo cell (x=3, y=3, z=-6 from the physical corner)");
  EXPECT_EQ(at(3, 17, 3), "halo cell (x=3, y=17, z=3 from the physical corner)");
}

// ---------------------------------------------------------------------------------------
// The small ones.

TEST_F(ShellTest, UnknownVariantIsRefusedOnTheCpu) {
  const fs::path cfg =
      write_config("c.toml", kBaseConfig + std::string("\n[kernel]\nvariant = \"nonsense\"\n"));
  for (const std::string cmd : {"check", "run"})
    expect_one_error_line(run({cmd, cfg.string(), "--backend", "cpu"}), 2,
                          {"kernel.variant", "'nonsense'", "c.toml:"});
  // check refuses what run refuses (a GPU variant on the cpu backend), and takes the CPU's own.
  expect_one_error_line(
      run({"check", cfg.string(), "--backend", "cpu", "--set", "kernel.variant=acoustic/o4/naive"}),
      2, {"kernel.variant", "acoustic/o4/naive"});
  for (const std::string v : {"blocked", "reference", "regqueue", "acoustic/o4/blocked"}) {
    const Result ok =
        run({"check", cfg.string(), "--backend", "cpu", "--set", "kernel.variant=" + v});
    EXPECT_EQ(ok.rc, 0) << v << "\n" << describe(ok);
  }
}

TEST_F(ShellTest, CheckRefusesCudaWithoutADeviceAsRunDoes) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result run_r = run({"run", cfg.string(), "--backend", "cuda", "-q"});
  if (run_r.rc == 0) GTEST_SKIP() << "a CUDA device is present";
  const Result check_r = run({"check", cfg.string(), "--backend", "cuda"});
  expect_one_error_line(run_r, 2, {"cuda"});
  expect_one_error_line(check_r, 2, {"cuda"});
  EXPECT_EQ(lines_of(run_r.err), lines_of(check_r.err));
}

// Errors found after parsing (by the plan) carry the key's line, or "--set" for an override.
TEST_F(ShellTest, PlanErrorsCarryTheKeysLine) {
  const std::string text = replace_line(kBaseConfig, "position = [120.0, 110.0, 60.0]",
                                        "position = [120.0, 110.0, 9000.0]");
  const fs::path cfg = write_config("c.toml", text);
  int line = 0;
  for (const auto& l : lines_of(text)) {
    ++line;
    if (l.rfind("position = ", 0) == 0) break;
  }
  expect_one_error_line(run({"check", cfg.string()}), 2,
                        {"c.toml:" + std::to_string(line) + ": source.position", "outside"});
  expect_one_error_line(
      run({"check", write_config("d.toml", kBaseConfig).string(), "--set", "time.dt=0.01"}), 2,
      {"--set: time.dt"});
}

TEST_F(ShellTest, UsageErrorsAreOneLineWithTheConfigExitCode) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"run"},
                                               {"frobnicate"},
                                               {"run", "x.toml", "--backend", "gpu"},
                                               {"check", "x.toml", "--bogus"}}) {
    SCOPED_TRACE(args[0]);
    expect_one_error_line(run(args), 2, {"seisfd --help"});
  }
}

// Control characters in what an error quotes are escaped: the error stays one line (found by
// the fuzzer: the TOML parser quoted the newline after a bad boolean).
TEST_F(ShellTest, ErrorsQuotingNewlinesStayOneLine) {
  const fs::path cfg = write_config("c.toml", replace_line(kBaseConfig, "order = 4", "order = t"));
  expect_one_error_line(run({"check", cfg.string()}), 2, {"TOML syntax error", "\\n"});
  expect_one_error_line(
      run({"check", write_config("d.toml", kBaseConfig).string(), "--set", "grid.n\nx=1"}), 2,
      {"\\n"});
}

TEST_F(ShellTest, LongValuesAreCutInMessages) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const std::string huge(100000, 'a');  // (an argument may not exceed 128 KiB)
  const Result r = run({"check", cfg.string(), "--set", "grid." + huge + "=1"});
  expect_one_error_line(r, 2, {"more characters"});
  EXPECT_LT(r.err.size(), 1000u);
}

TEST_F(ShellTest, InputFileErrorsExitWithTheFileCode) {
  const std::string text = replace_line(kBaseConfig, "frequency = 15.0",
                                        "wavelet = \"file\"\nfile = \"nope.txt\"\nfile_dt = 0.001");
  expect_one_error_line(run({"check", write_config("c.toml", text).string()}), 3,
                        {"source.file", "nope.txt"});
  write_file(dir_ / "bad.txt", "0.0\n1.0\nnot a number\n");
  const std::string bad = replace_line(kBaseConfig, "frequency = 15.0",
                                       "wavelet = \"file\"\nfile = \"bad.txt\"\nfile_dt = 0.001");
  expect_one_error_line(run({"check", write_config("d.toml", bad).string()}), 3,
                        {"source.file", "bad.txt:3"});
}

}  // namespace
