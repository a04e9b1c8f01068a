// Runs that survive bad input and the batch system, from the outside: counts that would overflow,
// memory predicted before allocation, write errors (file-size limit), signals, --overwrite and
// the output directory's lock, non-finite data, and the small things (exit codes, one-line
// messages, line numbers). Each test spawns the real binary (SEISFD_BINARY) in its own
// temporary directory; runs are small (24^3 or 48^3 cells) to stay cheap on 2 cores. Nothing
// here waits for a fixed time: a signal is sent once the run has printed its first progress
// line (the time loop is running).
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
#include "tests/cli_support.hpp"
#include "tests/gpu_skip.hpp"

namespace {

using namespace seisfd::test::cli;

// A bash script in the test's directory (for ulimit and pipes), stdout and stderr captured.
class ShellTest : public CliTest {
 protected:
  Result shell(const std::string& script) {
    const fs::path out = dir_ / ".sh_out", err = dir_ / ".sh_err";
    const std::string full = "cd '" + dir_.string() + "' && " + script;
    const pid_t pid = fork();
    if (pid == 0) {
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
      execl("/bin/bash", "bash", "-c", full.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }
  static std::string bin() { return SEISFD_BINARY; }
  void preempt_and_resume(const std::string& backend, const std::string& duration,
                          const std::string& tti_duration, const std::string& snapshot_interval);

  // Expects exactly one line on stderr, an error naming every piece of must_have.
  static void expect_one_error_line(const Result& r, int rc,
                                    const std::vector<std::string>& must_have) {
    EXPECT_EQ(r.rc, rc) << describe(r);
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << describe(r);
    EXPECT_EQ(lines[0].rfind("seisfd: error: ", 0), 0u) << lines[0];
    for (const auto& s : must_have)
      EXPECT_TRUE(contains(lines[0], s)) << "'" << s << "' not in: " << lines[0];
  }
};

// Waits until the child's stderr has a progress line (the time loop runs); false if it ended.
bool wait_for_progress(Process& p) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    if (contains(p.err(), "Mcells/s")) return true;
    int status = 0;
    if (waitpid(p.pid(), &status, WNOHANG) != 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// The base config run for a long time (20 s of model time: tens of thousands of steps), to be
// stopped part-way.
std::string long_config() {
  return replace_line(kBaseConfig, "duration = 0.2", "duration = 20.0");
}

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
// Signals.

// SIGTERM and SIGHUP stop the run at a step boundary as SIGINT does, with one line (SIGHUP:
// exit 129; SIGTERM writes a checkpoint first: exit 75); the traces recorded so far are in the
// .partial gathers (group complete = 0), equal to the first samples of an uninterrupted run.
// While it runs, a second run into the same directory is refused.
TEST_F(ShellTest, TermAndHupKeepTheTracesRecordedSoFar) {
  const fs::path full = write_config("full.toml", kBaseConfig);
  ASSERT_EQ(
      run({"run", full.string(), "--backend", "cpu", "-q", "--set", "output.directory=ref"}).rc, 0);
  std::vector<float> ref;
  {
    const h5::File f = open_h5(dir_ / "ref/gathers.h5");
    ref = read_dataset<float>(f.get(), "shot_0000/p", H5T_NATIVE_FLOAT);
  }
  const fs::path cfg = write_config("long.toml", long_config());
  for (const auto& [sig, name] :
       {std::pair<int, std::string>{SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}}) {
    SCOPED_TRACE(name);
    const std::string outdir = "out_" + name;
    Process p({"run", cfg.string(), "--backend", "cpu", "--set", "output.directory=" + outdir},
              dir_);
    ASSERT_TRUE(wait_for_progress(p)) << p.err();
    if (sig == SIGTERM) {
      const Result second = run({"run", cfg.string(), "--backend", "cpu", "-q", "--overwrite",
                                 "--set", "output.directory=" + outdir});
      expect_one_error_line(second, 3, {"in use by another seisfd run", std::to_string(p.pid())});
    }
    ASSERT_EQ(kill(p.pid(), sig), 0);
    const int rc = p.wait();
    const std::string err = p.err();
    p.remove_logs();
    EXPECT_EQ(rc, sig == SIGTERM ? 75 : 128 + sig) << err;
    const auto lines = lines_of(err);
    ASSERT_FALSE(lines.empty());
    EXPECT_TRUE(contains(lines.back(), sig == SIGTERM ? "stopped at step" : "interrupted at step"))
        << err;
    EXPECT_EQ(fs::exists(dir_ / outdir / "checkpoint.h5"), sig == SIGTERM);
    EXPECT_TRUE(contains(lines.back(), name)) << err;
    const int step = std::stoi(lines.back().substr(lines.back().find("at step ") + 8));
    const fs::path out = dir_ / outdir;
    EXPECT_FALSE(fs::exists(out / "gathers.h5"));
    EXPECT_FALSE(fs::exists(out / seisfd::io::DirectoryLock::kName));
    ASSERT_TRUE(fs::exists(out / "gathers.h5.partial"));
    EXPECT_EQ(complete_flag(out / "gathers.h5.partial"), 0);
    const h5::File f = open_h5(out / "gathers.h5.partial");
    const h5::Group g{H5Gopen2(f.get(), "shot_0000", H5P_DEFAULT)};
    ASSERT_TRUE(g.valid());
    EXPECT_EQ(read_attr<int>(g.get(), "complete", H5T_NATIVE_INT).at(0), 0);
    const auto shape = dataset_shape(g.get(), "p");
    ASSERT_EQ(shape.size(), 2u);
    EXPECT_EQ(shape[0], 5u);
    EXPECT_EQ(shape[1], static_cast<hsize_t>(step / 2 + 1));  // every 2nd step is kept
    const auto p_data = read_dataset<float>(g.get(), "p", H5T_NATIVE_FLOAT);
    const size_t n = std::min<size_t>(shape[1], 101);
    float peak = 0;
    for (size_t r = 0; r < 5; ++r)
      for (size_t k = 0; k < n; ++k) {
        ASSERT_EQ(p_data[r * shape[1] + k], ref[r * 101 + k])
            << "receiver " << r << " sample " << k;
        peak = std::max(peak, std::fabs(p_data[r * shape[1] + k]));
      }
    EXPECT_GT(peak, 0.0f);
  }
}

// ---------------------------------------------------------------------------------------
// Checkpoint and restart: the outputs of a stopped and resumed run are those of an
// uninterrupted one, bit for bit.

// Every dataset and attribute of two HDF5 files, compared byte for byte (float data by bits).
void expect_same_h5(const fs::path& a, const fs::path& b) {
  SCOPED_TRACE(a.string() + " vs " + b.string());
  ASSERT_TRUE(fs::exists(a));
  ASSERT_TRUE(fs::exists(b));
  const h5::File fa = open_h5(a), fb = open_h5(b);
  struct Walk {
    static void run(hid_t ga, hid_t gb, const std::string& where, int& datasets) {
      for (const std::string& name : h5::children(ga, H5I_DATASET)) {
        const std::string full = where + "/" + name;
        ASSERT_TRUE(h5::has_object(gb, name, H5I_DATASET)) << full;
        const auto va = read_dataset<double>(ga, name.c_str(), H5T_NATIVE_DOUBLE);
        const auto vb = read_dataset<double>(gb, name.c_str(), H5T_NATIVE_DOUBLE);
        ASSERT_EQ(va.size(), vb.size()) << full;
        EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), va.size() * sizeof(double))) << full;
        ++datasets;
      }
      for (const std::string& name : h5::children(ga, H5I_GROUP)) {
        const h5::Group sa{H5Gopen2(ga, name.c_str(), H5P_DEFAULT)};
        const h5::Group sb{H5Gopen2(gb, name.c_str(), H5P_DEFAULT)};
        ASSERT_TRUE(sb.valid()) << where + "/" + name;
        run(sa.get(), sb.get(), where + "/" + name, datasets);
      }
      H5O_info_t info;
      ASSERT_GE(H5Oget_info2(ga, &info, H5O_INFO_NUM_ATTRS), 0);
      for (hsize_t k = 0; k < info.num_attrs; ++k) {
        char name[256];
        H5Aget_name_by_idx(ga, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
        const h5::Attribute aa{H5Aopen(ga, name, H5P_DEFAULT)};
        ASSERT_GT(H5Aexists(gb, name), 0) << where << " attribute " << name;
        const h5::Attribute ab{H5Aopen(gb, name, H5P_DEFAULT)};
        const h5::Datatype ta{H5Aget_type(aa.get())};
        const size_t n = H5Aget_storage_size(aa.get());
        ASSERT_EQ(n, H5Aget_storage_size(ab.get())) << where << " attribute " << name;
        std::vector<unsigned char> ba(n), bb(n);
        H5Aread(aa.get(), ta.get(), ba.data());
        H5Aread(ab.get(), ta.get(), bb.data());
        EXPECT_EQ(ba, bb) << where << " attribute " << name;
      }
    }
  };
  int datasets = 0;
  Walk::run(fa.get(), fb.get(), "", datasets);
  EXPECT_GT(datasets, 0);
}

// Stopped by SIGTERM or SIGUSR1 (a checkpoint, exit 75) and resumed: gathers, snapshots and
// XDMF as an uninterrupted run's; acoustic with sponge layers and with CPML, and TTI, on the
// backend given. `duration` (`tti_duration` for TTI) and `snapshot_interval` (model seconds) set
// how long a run is: long enough that the signal, sent at the first progress line, lands before
// the end.
void ShellTest::preempt_and_resume(const std::string& backend, const std::string& duration,
                                   const std::string& tti_duration,
                                   const std::string& snapshot_interval) {
  std::string text = replace_line(kBaseConfig, "duration = 0.2", "duration = " + duration);
  text = replace_line(text, "interval = 0.04", "interval = " + snapshot_interval);
  const std::string cpml = replace_line(text, "type = \"sponge\"", "type = \"cpml\"");
  std::string tti = replace_line(
      text, "vp = 2000.0", "vp = 2000.0\nepsilon = 0.2\ndelta = 0.1\ntheta = 30.0\nphi = 20.0");
  tti = replace_line(tti, "order = 4", "order = 4\nequation = \"tti\"");
  tti = replace_line(tti, "duration = " + duration, "duration = " + tti_duration);
  for (const auto& [name, config, sig] :
       {std::tuple<std::string, std::string, int>{"sponge", text, SIGTERM},
        {"cpml", cpml, SIGUSR1},
        {"tti", tti, SIGTERM}}) {
    SCOPED_TRACE(name + " on " + backend);
    const fs::path cfg = write_config(name + ".toml", config);
    const std::string whole = "whole_" + name, cut = "cut_" + name;
    const Result w = run(
        {"run", cfg.string(), "--backend", backend, "-q", "--set", "output.directory=" + whole});
    ASSERT_EQ(w.rc, 0) << describe(w);
    {
      Process p({"run", cfg.string(), "--backend", backend, "--set", "output.directory=" + cut},
                dir_);
      ASSERT_TRUE(wait_for_progress(p)) << p.err();
      ASSERT_EQ(kill(p.pid(), sig), 0);
      const int rc = p.wait();
      const std::string err = p.err();
      p.remove_logs();
      ASSERT_EQ(rc, 75) << err;
      EXPECT_TRUE(contains(lines_of(err).back(), "checkpoint.h5")) << err;
    }
    EXPECT_TRUE(fs::exists(dir_ / cut / "checkpoint.h5"));
    EXPECT_FALSE(fs::exists(dir_ / cut / "gathers.h5"));
    const Result r = run({"run", cfg.string(), "--backend", backend, "-q", "--resume", "--set",
                          "output.directory=" + cut});
    ASSERT_EQ(r.rc, 0) << describe(r);
    expect_same_h5(dir_ / whole / "gathers.h5", dir_ / cut / "gathers.h5");
    expect_same_h5(dir_ / whole / "snapshots.h5", dir_ / cut / "snapshots.h5");
    EXPECT_EQ(read_file(dir_ / whole / "snapshots.xmf"), read_file(dir_ / cut / "snapshots.xmf"));
    EXPECT_EQ(list_dir(dir_ / cut), (std::vector<std::string>{"gathers.h5", "report.json",
                                                              "snapshots.h5", "snapshots.xmf"}));
  }
}

TEST_F(ShellTest, PreemptedRunResumesBitForBit) {
  preempt_and_resume("cpu", "0.6", "0.3", "0.04");
}

// The same on the GPU: the state comes back from the device into the checkpoint and goes back
// onto it on resume. A 24^3 run takes microseconds a step there, so the runs are 30 000 steps.
TEST_F(ShellTest, PreemptedGpuRunResumesBitForBit) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  preempt_and_resume("cuda", "30.0", "30.0", "3.0");
}

// Periodic checkpoints survive a SIGKILL (what a batch system sends last): the run resumes
// from the last one, and a checkpoint of another config is refused.
TEST_F(ShellTest, PeriodicCheckpointSurvivesSigkill) {
  std::string text = replace_line(kBaseConfig, "duration = 0.2", "duration = 0.6");
  text += "\n[run]\ncheckpoint_interval = 50\n";
  const fs::path cfg = write_config("c.toml", text);
  ASSERT_EQ(
      run({"run", cfg.string(), "--backend", "cpu", "-q", "--set", "output.directory=whole"}).rc,
      0);
  EXPECT_FALSE(fs::exists(dir_ / "whole/checkpoint.h5"));  // removed once the shot is written
  {
    Process p({"run", cfg.string(), "--backend", "cpu", "-q", "--set", "output.directory=cut"},
              dir_);
    const auto t0 = std::chrono::steady_clock::now();
    while (!fs::exists(dir_ / "cut/checkpoint.h5") &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
      int status = 0;
      ASSERT_EQ(waitpid(p.pid(), &status, WNOHANG), 0) << "ended before its first checkpoint";
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_EQ(kill(p.pid(), SIGKILL), 0);
    EXPECT_EQ(p.wait(), 128 + SIGKILL);
    p.remove_logs();
  }
  const Result other = run({"run", cfg.string(), "--backend", "cpu", "-q", "--resume", "--set",
                            "output.directory=cut", "--set", "source.frequency=14.0"});
  EXPECT_NE(other.rc, 0);
  EXPECT_EQ(lines_of(other.err).size(), 1u) << other.err;
  const Result r = run(
      {"run", cfg.string(), "--backend", "cpu", "-q", "--resume", "--set", "output.directory=cut"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  expect_same_h5(dir_ / "whole/gathers.h5", dir_ / "cut/gathers.h5");
  expect_same_h5(dir_ / "whole/snapshots.h5", dir_ / "cut/snapshots.h5");
}

TEST_F(ShellTest, CheckpointIntervalIsStepsOrTime) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result minutes =
      run({"check", cfg.string(), "--set", "run.checkpoint_interval=\"10 min\""});
  ASSERT_EQ(minutes.rc, 0) << describe(minutes);
  EXPECT_TRUE(contains(minutes.out, "checkpoint_interval = \"600.0 s\"")) << minutes.out;
  expect_one_error_line(
      run({"check", cfg.string(), "--set", "run.checkpoint_interval=\"10 days\""}), 2,
      {"run.checkpoint_interval", "unit 'days'"});
  expect_one_error_line(run({"check", cfg.string(), "--set", "run.checkpoint_interval=0"}), 2,
                        {"run.checkpoint_interval"});
  expect_one_error_line(run({"run", cfg.string(), "--backend", "cpu", "--set",
                             "run.checkpoint_interval=10", "--set", "output.gathers=false"}),
                        2, {"run.checkpoint_interval", "gathers"});
}

// Progress written into a closed pipe does not kill the run.
TEST_F(ShellTest, ProgressIntoAClosedPipeIsNotFatal) {
  const fs::path cfg = write_config("c.toml", kBaseConfig);
  const Result r = shell(bin() + " run " + cfg.string() +
                         " --backend cpu 2>&1 | head -n 1 > first_line; echo ${PIPESTATUS[0]}");
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(r.out, "0\n") << describe(r);
  EXPECT_TRUE(contains(read_file(dir_ / "first_line"), "step")) << read_file(dir_ / "first_line");
  EXPECT_EQ(complete_flag(dir_ / "out/gathers.h5"), 1);
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
