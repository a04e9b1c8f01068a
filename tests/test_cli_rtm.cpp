// The survey, Born and migration commands from the outside (docs/migration.md): seisfd run over
// several shots and --resume after an interrupt, seisfd born then seisfd migrate into a
// complete image.h5 that every storage strategy reproduces, and the bad inputs of a migration
// (data that disagree with the config, a missing shot, a budget too small): one line naming
// them, a non-zero exit, and no image that looks complete.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "io/gathers.hpp"
#include "io/image.hpp"
#include "tests/cli_support.hpp"

namespace {

using namespace seisfd::test::cli;

// A two-layer slab, three shots along x over a fixed receiver line; order 4, 350 steps.
constexpr const char* kSurvey = R"([grid]
nx = 48
ny = 8
nz = 32
spacing = 10.0

[model]
type = "layered"
interfaces = [0.0, 180.0]
velocities = [2000.0, 2500.0]

[physics]
order = 4

[time]
duration = 0.35
dt = 0.001

[source]
frequency = 15.0

[shots]
layout = "grid"
start = [120.0, 40.0, 20.0]
spacing = [120.0, 0.0]
count = [3, 1]
receivers = "fixed"

[receivers]
layout = "line"
start = [0.0, 40.0, 10.0]
end = [470.0, 40.0, 10.0]
count = 48

[boundary]
type = "sponge"
width = 10

[born]
perturbation = "reflectors"
contrast = 0.1

[migration]
smoothing = 30.0
direct_arrival = "keep"
conditions = ["crosscorrelation", "normalized", "inverse_scattering"]

[output]
directory = "out"
)";

class CliRtmTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    config_ = write_config("survey.toml", kSurvey).string();
  }
  // seisfd born into `dir` (extra --set arguments appended).
  Result born(const std::string& dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"born", config_, "-q", "--set", "output.directory=" + dir};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  // seisfd migrate of `data` into `dir`.
  Result migrate(const std::string& data, const std::string& dir,
                 std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"migrate",
                                  config_,
                                  "-q",
                                  "--set",
                                  "migration.data=" + data,
                                  "--set",
                                  "output.directory=" + dir};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  std::string config_;
};

std::vector<float> all_traces(const fs::path& p) {
  seisfd::io::GatherReader r(p.string());
  std::vector<float> v;
  for (int s : r.shots()) {
    const auto d = r.read_shot(s);
    v.insert(v.end(), d.traces.begin(), d.traces.end());
  }
  return v;
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(b[i]) * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

TEST_F(CliRtmTest, RunModelsEveryShotIntoOneFile) {
  const Result r = run({"run", config_});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "shot 3 of 3")) << r.err;
  seisfd::io::GatherReader g((dir_ / "out/gathers.h5").string());
  EXPECT_TRUE(g.complete());
  ASSERT_EQ(g.shots(), (std::vector<int>{0, 1, 2}));
  for (int s = 0; s < 3; ++s) {
    const auto d = g.read_shot(s);
    EXPECT_DOUBLE_EQ(d.source[0], 120.0 + 120.0 * s);
    EXPECT_EQ(d.receivers.size(), 48u);
    EXPECT_EQ(d.nt, 351);
  }
  const auto rep = nlohmann::json::parse(read_file(dir_ / "out/report.json"));
  ASSERT_EQ(rep["shots"].size(), 3u) << rep.dump(1);
  EXPECT_EQ(rep["shots"][2]["shot"], 2);
}

// Interrupted after the first shot (SIGINT once its line is out), the partial file keeps the
// finished shots; --resume models the rest, and the result is the uninterrupted run's.
TEST_F(CliRtmTest, InterruptedRunResumesFromTheFirstMissingShot) {
  ASSERT_EQ(run({"run", config_, "-q", "--set", "output.directory=whole"}).rc, 0);
  // Heavier shots (order 8, twice the steps) on the CPU (a GPU models each in a hundredth of a
  // second) leave time to interrupt the second one.
  const std::vector<std::string> slower{
      "--set", "physics.order=8", "--set", "time.duration=0.7", "--backend", "cpu"};
  std::vector<std::string> args{"run", config_, "--set", "output.directory=cut"};
  args.insert(args.end(), slower.begin(), slower.end());
  std::vector<std::string> whole{"run", config_, "-q", "--set", "output.directory=whole8"};
  whole.insert(whole.end(), slower.begin(), slower.end());
  ASSERT_EQ(run(whole).rc, 0);
  {
    Process p(args, dir_);
    const auto t0 = std::chrono::steady_clock::now();
    while (!contains(p.err(), "shot 1 of 3") &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(contains(p.err(), "shot 1 of 3")) << p.err();
    kill(p.pid(), SIGINT);
    const int rc = p.wait();
    ASSERT_NE(rc, 0) << "the run finished before the interrupt reached it:\n" << p.err();
  }
  EXPECT_FALSE(fs::exists(dir_ / "cut/gathers.h5"));
  {
    seisfd::io::GatherReader g((dir_ / "cut/gathers.h5.partial").string());
    EXPECT_FALSE(g.complete());
    EXPECT_EQ(g.shots(), (std::vector<int>{0}));
  }
  // A different config cannot resume it.
  const Result other = run(
      {"run", config_, "--resume", "--set", "output.directory=cut", "--set", "physics.order=4"});
  EXPECT_NE(other.rc, 0);
  EXPECT_EQ(lines_of(other.err).size(), 1u) << other.err;
  args.push_back("--resume");
  const Result r = run(args);
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "shot 2 of 3")) << r.err;
  EXPECT_EQ(all_traces(dir_ / "cut/gathers.h5"), all_traces(dir_ / "whole8/gathers.h5"));
}

// born then migrate: a complete image.h5 with every condition, the illumination and the
// attributes; store, boundary and checkpoint give the same image.
TEST_F(CliRtmTest, BornThenMigrateWritesACompleteImage) {
  const Result b = born("data");
  ASSERT_EQ(b.rc, 0) << describe(b);
  seisfd::io::GatherReader g((dir_ / "data/gathers.h5").string());
  EXPECT_TRUE(g.complete());
  EXPECT_EQ(g.shots().size(), 3u);

  std::vector<float> ref;
  for (const std::string storage : {"store", "boundary", "checkpoint"}) {
    SCOPED_TRACE(storage);
    const std::string dir = "image_" + storage;
    const Result m =
        migrate("data/gathers.h5", dir, {"--set", "migration.storage=\"" + storage + "\""});
    ASSERT_EQ(m.rc, 0) << describe(m);
    seisfd::io::ImageReader im((dir_ / dir / "image.h5").string());
    EXPECT_TRUE(im.complete());
    EXPECT_EQ(im.shots(), 3);
    EXPECT_EQ(im.names(),
              (std::vector<std::string>{"crosscorrelation", "inverse_scattering", "normalized"}));
    EXPECT_EQ(im.geometry().nz, 32);
    EXPECT_EQ(im.geometry().nx, 48);
    EXPECT_TRUE(im.has_illumination());
    EXPECT_TRUE(fs::exists(dir_ / dir / "image.xmf"));
    const auto rep = nlohmann::json::parse(read_file(dir_ / dir / "report.json"));
    EXPECT_EQ(rep["migration"]["storage"], storage);
    const std::vector<float> img = im.read("crosscorrelation");
    double peak = 0;
    for (float v : img) peak = std::max(peak, std::fabs(double(v)));
    EXPECT_GT(peak, 0.0);
    if (ref.empty()) {
      ref = img;
      // The shots stack on the device; with shot_images each shot's own image is written, and
      // the three add up to the stack.
      const Result ms =
          migrate("data/gathers.h5", "image_shots",
                  {"--set", "migration.storage=\"store\"", "--set", "migration.shot_images=true"});
      ASSERT_EQ(ms.rc, 0) << describe(ms);
      seisfd::io::ImageReader is((dir_ / "image_shots/image.h5").string());
      ASSERT_EQ(is.shot_images().size(), 3u);
      std::vector<float> sum(img.size(), 0.0f);
      for (int shot : is.shot_images()) {
        const std::vector<float> one = is.read_shot(shot, "crosscorrelation");
        ASSERT_EQ(one.size(), img.size());
        EXPECT_GT(rel_l2(one, std::vector<float>(one.size(), 0.0f)), 0.0) << "shot " << shot;
        EXPECT_GT(rel_l2(one, img), 0.05) << "shot " << shot << " is the whole stack";
        for (size_t j = 0; j < sum.size(); ++j) sum[j] += one[j];
      }
      EXPECT_LE(rel_l2(sum, img), 1e-5);
    } else {
      // fp32: boundary reconstruction adds its own rounding (docs/migration.md §4).
      EXPECT_LE(rel_l2(img, ref), 1e-5);
    }
  }
}

// The images a migration computes are the ones its conditions need (the illumination always):
// asked for one condition, it writes that image and the illumination, equal to those of the
// migration asked for all three.
TEST_F(CliRtmTest, OneConditionGivesTheImagesOfAllThree) {
  ASSERT_EQ(born("data").rc, 0);
  const Result all = migrate("data/gathers.h5", "image_all");
  ASSERT_EQ(all.rc, 0) << describe(all);
  seisfd::io::ImageReader ia((dir_ / "image_all/image.h5").string());
  for (const std::string cond : {"crosscorrelation", "inverse_scattering"}) {
    SCOPED_TRACE(cond);
    const std::string dir = "image_" + cond;
    const Result m =
        migrate("data/gathers.h5", dir, {"--set", "migration.conditions=[\"" + cond + "\"]"});
    ASSERT_EQ(m.rc, 0) << describe(m);
    seisfd::io::ImageReader im((dir_ / dir / "image.h5").string());
    EXPECT_TRUE(im.complete());
    EXPECT_EQ(im.names(), std::vector<std::string>{cond});
    EXPECT_EQ(im.read(cond), ia.read(cond));
    ASSERT_TRUE(im.has_illumination());
    EXPECT_EQ(im.read_illumination(), ia.read_illumination());
  }
}

// Each bad input: a non-zero exit, one line on stderr naming what is wrong, and no image.h5.
class CliRtmBadInput : public CliRtmTest {
 protected:
  void SetUp() override {
    CliRtmTest::SetUp();
    ASSERT_EQ(born("data").rc, 0);
  }
  void expect_refused(const Result& r, const std::string& names, const std::string& dir) {
    EXPECT_NE(r.rc, 0) << describe(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, names)) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / dir / "image.h5")) << dir;
    if (fs::exists(dir_ / dir / "image.h5.partial")) {
      EXPECT_FALSE(seisfd::io::ImageReader((dir_ / dir / "image.h5.partial").string()).complete());
    }
  }
};

TEST_F(CliRtmBadInput, DataOfAnotherTimeStep) {
  ASSERT_EQ(born("data_dt", {"--set", "time.dt=0.0007"}).rc, 0);
  expect_refused(migrate("data_dt/gathers.h5", "img"), "dt", "img");
}

TEST_F(CliRtmBadInput, DataOfAnotherDuration) {
  ASSERT_EQ(born("data_nt", {"--set", "time.duration=0.3"}).rc, 0);
  expect_refused(migrate("data_nt/gathers.h5", "img"), "samples", "img");
}

TEST_F(CliRtmBadInput, DataOfOtherReceivers) {
  ASSERT_EQ(born("data_rx", {"--set", "receivers.count=40"}).rc, 0);
  expect_refused(migrate("data_rx/gathers.h5", "img"), "receivers", "img");
}

TEST_F(CliRtmBadInput, MissingShot) {
  ASSERT_EQ(born("data_2", {"--set", "shots.count=[2, 1]"}).rc, 0);
  expect_refused(migrate("data_2/gathers.h5", "img"), "no shot 2", "img");
}

TEST_F(CliRtmBadInput, BudgetTooSmallForAnyStrategy) {
  expect_refused(migrate("data/gathers.h5", "img", {"--set", "migration.memory_budget=1e-6"}),
                 "budget", "img");
}

TEST_F(CliRtmBadInput, BudgetTooSmallForTheStrategyAsked) {
  expect_refused(
      migrate("data/gathers.h5", "img",
              {"--set", "migration.memory_budget=0.001", "--set", "migration.storage=\"store\""}),
      "store", "img");
}

}  // namespace
