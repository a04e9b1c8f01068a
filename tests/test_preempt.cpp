// Runs that survive the batch system, from the outside: SIGTERM, SIGHUP and SIGUSR1 stop a run at
// a step boundary with what it recorded so far, a checkpoint lets `--resume` finish it with the
// outputs of an uninterrupted run bit for bit (CPU and GPU), periodic checkpoints survive a
// SIGKILL, and progress into a closed pipe is not fatal. Each test spawns the real binary
// (SEISFD_BINARY) in its own temporary directory (tests/shell_support.hpp). Nothing here waits
// for a fixed time: a signal is sent once the run has printed its first progress line (the time
// loop is running).
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

}  // namespace

// A member of the shared fixture (declared in tests/shell_support.hpp), defined here where it is
// used. Stopped by SIGTERM or SIGUSR1 (a checkpoint, exit 75) and resumed: gathers, snapshots and
// XDMF as an uninterrupted run's; acoustic with sponge layers and with CPML, and TTI, on the
// backend given. `duration` (`tti_duration` for TTI) and `snapshot_interval` (model seconds) set
// how long a run is: long enough that the signal, sent at the first progress line, lands before
// the end.
void seisfd::test::shell::ShellTest::preempt_and_resume(const std::string& backend,
                                                        const std::string& duration,
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

namespace {

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

}  // namespace
