// SEG-Y from the outside (docs/outputs.md §8): output.formats writes gathers.sgy beside or
// instead of gathers.h5 with the same numbers; seisfd migrate reads observed data from SEG-Y and
// gives the image it gives from HDF5, and writes image_<condition>.sgy cubes; models come from
// SEG-Y cubes. Bad input (a wrong sample count, missing coordinates, an unsorted cube, a cube
// of another grid, a config SEG-Y cannot honour) gets one line naming the file and the trace,
// or the key, and a non-zero exit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "io/gathers.hpp"
#include "io/image.hpp"
#include "io/segy.hpp"
#include "tests/cli_support.hpp"
#include "tests/segy_support.hpp"

namespace {

using namespace seisfd::test::cli;
using namespace seisfd::test::segy;
namespace io = seisfd::io;

// Two shots over a fixed line of 32 receivers on a two-layer slab; order 4, 250 steps.
constexpr const char* kSurvey = R"([grid]
nx = 32
ny = 6
nz = 24
spacing = 10.0

[model]
type = "layered"
interfaces = [0.0, 120.0]
velocities = [2000.0, 2500.0]

[physics]
order = 4

[time]
duration = 0.25
dt = 0.001

[source]
frequency = 15.0

[shots]
layout = "grid"
start = [100.0, 30.0, 20.0]
spacing = [110.0, 0.0]
count = [2, 1]
receivers = "fixed"

[receivers]
layout = "line"
start = [0.0, 30.0, 10.0]
end = [310.0, 30.0, 10.0]
count = 32

[boundary]
type = "sponge"
width = 8

[born]
perturbation = "reflectors"
contrast = 0.1

[migration]
smoothing = 20.0
storage = "store"
conditions = ["crosscorrelation", "normalized"]

[output]
directory = "out"
)";

constexpr int kNt = 251;

class CliSegyTest : public CliTest {
 protected:
  void SetUp() override {
    if (!io::segy_built()) GTEST_SKIP() << "this build has no SEG-Y support (SEISFD_SEGY)";
    CliTest::SetUp();
    config_ = write_config("survey.toml", kSurvey).string();
  }
  Result seisfd(const std::string& cmd, const std::string& dir, std::vector<std::string> extra) {
    std::vector<std::string> args{cmd, config_, "--set", "output.directory=" + dir};
    if (cmd != "check") args.push_back("-q");
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  // One line on stderr containing every one of `names`, a non-zero exit.
  void expect_refused(const Result& r, const std::vector<std::string>& names) {
    EXPECT_NE(r.rc, 0) << describe(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    for (const auto& n : names) EXPECT_TRUE(contains(r.err, n)) << n << " in: " << r.err;
  }
  std::string config_;
};

const std::vector<std::string> kBoth{"--set", "output.formats=[\"hdf5\", \"segy\"]"};

TEST_F(CliSegyTest, InfoSaysWhetherSegyIsBuiltIn) {
  const Result r = run({"info"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "segy        yes")) << r.out;
}

// born writes both files with the same numbers; migrate from the SEG-Y data gives the image the
// HDF5 data give, bit for bit, and its SEG-Y cubes hold the image.h5 numbers on its grid.
TEST_F(CliSegyTest, BornSegyMigratesLikeHdf5) {
  const Result b = seisfd("born", "data", kBoth);
  ASSERT_EQ(b.rc, 0) << describe(b);
  io::GatherReader h5((dir_ / "data/gathers.h5").string());
  io::SegyGatherReader sgy((dir_ / "data/gathers.sgy").string());
  ASSERT_EQ(sgy.shots(), h5.shots());
  ASSERT_EQ(sgy.shots(), (std::vector<int>{0, 1}));
  for (int s : h5.shots()) {
    const io::ShotData a = h5.read_shot(s), c = sgy.read_shot(s);
    EXPECT_EQ(c.nt, kNt);
    EXPECT_DOUBLE_EQ(c.dt, a.dt);
    EXPECT_EQ(c.traces, a.traces) << "shot " << s;
    ASSERT_EQ(c.receivers.size(), a.receivers.size());
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(c.source[k], a.source[k], 5e-4);
      for (size_t r = 0; r < a.receivers.size(); ++r)
        EXPECT_NEAR(c.receivers[r][k], a.receivers[r][k], 5e-4);
    }
  }
  const auto rep = nlohmann::json::parse(read_file(dir_ / "data/report.json"));
  EXPECT_EQ(rep["outputs"].size(), 2u) << rep["outputs"];

  const Result m1 = seisfd("migrate", "img_h5", {"--set", "migration.data=data/gathers.h5"});
  ASSERT_EQ(m1.rc, 0) << describe(m1);
  std::vector<std::string> from_sgy{"--set", "migration.data=data/gathers.sgy"};
  from_sgy.insert(from_sgy.end(), kBoth.begin(), kBoth.end());
  const Result m2 = seisfd("migrate", "img_sgy", from_sgy);
  ASSERT_EQ(m2.rc, 0) << describe(m2);
  io::ImageReader i1((dir_ / "img_h5/image.h5").string()), i2((dir_ / "img_sgy/image.h5").string());
  EXPECT_FALSE(fs::exists(dir_ / "img_h5/image_crosscorrelation.sgy"));
  for (const std::string name : {"crosscorrelation", "normalized"}) {
    SCOPED_TRACE(name);
    const std::vector<float> a = i1.read(name);
    double peak = 0;
    for (float v : a) peak = std::max(peak, std::fabs(double(v)));
    EXPECT_GT(peak, 0.0);
    EXPECT_EQ(i2.read(name), a);
    const io::SegyCube cube =
        io::read_segy_cube((dir_ / "img_sgy" / ("image_" + name + ".sgy")).string());
    EXPECT_EQ(cube.data, a);
    EXPECT_EQ(cube.geometry.nz, 24);
    EXPECT_EQ(cube.geometry.ny, 6);
    EXPECT_EQ(cube.geometry.nx, 32);
    for (int k = 0; k < 3; ++k) {
      EXPECT_DOUBLE_EQ(cube.geometry.spacing[k], 10.0);
      EXPECT_DOUBLE_EQ(cube.geometry.origin[k], 0.0);
    }
  }
  EXPECT_EQ(io::read_segy_cube((dir_ / "img_sgy/image_illumination.sgy").string()).data,
            i1.read_illumination());
}

// formats = ["segy"] alone: gathers.sgy and no gathers.h5; a dt of seisfd's choosing is rounded
// to whole microseconds, and a migration of the same config (HDF5 image, no dt given) samples
// as the data do.
TEST_F(CliSegyTest, SegyInsteadOfHdf5) {
  std::string text = replace_line(kSurvey, "dt = 0.001", "");
  text = replace_line(text, "duration = 0.25", "duration = 0.1");
  const std::string cfg = write_config("nodt.toml", text).string();
  const Result r2 = run(
      {"run", cfg, "-q", "--set", "output.directory=only", "--set", "output.formats=[\"segy\"]"});
  ASSERT_EQ(r2.rc, 0) << describe(r2);
  EXPECT_FALSE(fs::exists(dir_ / "only/gathers.h5"));
  const auto rep = nlohmann::json::parse(read_file(dir_ / "only/report.json"));
  const double dt = rep["time"]["output_dt"];
  EXPECT_NEAR(dt * 1e6, std::round(dt * 1e6), 1e-6);
  io::SegyGatherReader g((dir_ / "only/gathers.sgy").string());
  EXPECT_EQ(g.shots(), (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(g.read_shot(1).dt, std::round(dt * 1e6) * 1e-6);
  EXPECT_EQ(g.read_shot(1).nt, static_cast<int>(rep["time"]["nt"]));
  const Result m = run({"migrate", cfg, "-q", "--set", "output.directory=img", "--set",
                        "migration.data=only/gathers.sgy"});
  ASSERT_EQ(m.rc, 0) << describe(m);
  EXPECT_TRUE(io::ImageReader((dir_ / "img/image.h5").string()).complete());
  const auto mrep = nlohmann::json::parse(read_file(dir_ / "img/report.json"));
  EXPECT_EQ(mrep["time"]["dt"], rep["time"]["dt"]);
}

// Interrupted after its first shot, a run writing both formats leaves both .partial files;
// --resume continues both, and the files are the uninterrupted run's.
TEST_F(CliSegyTest, InterruptedRunResumesBothFormats) {
  // Three heavier shots (order 8, twice the steps) leave time to interrupt the second one.
  std::vector<std::string> opts{
      "--set", "shots.count=[3, 1]", "--set", "shots.spacing=[100.0, 0.0]",
      "--set", "physics.order=8",    "--set", "time.duration=0.5"};
  opts.insert(opts.end(), kBoth.begin(), kBoth.end());
  ASSERT_EQ(seisfd("run", "whole", opts).rc, 0);
  std::vector<std::string> args{"run", config_, "--set", "output.directory=cut"};
  args.insert(args.end(), opts.begin(), opts.end());
  {
    Process p(args, dir_);
    const auto t0 = std::chrono::steady_clock::now();
    while (!contains(p.err(), "shot 1 of 3") &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(contains(p.err(), "shot 1 of 3")) << p.err();
    kill(p.pid(), SIGINT);
    ASSERT_NE(p.wait(), 0) << "the run finished before the interrupt reached it:\n" << p.err();
  }
  EXPECT_FALSE(fs::exists(dir_ / "cut/gathers.sgy"));
  ASSERT_TRUE(fs::exists(dir_ / "cut/gathers.sgy.partial"));
  // Another config cannot resume it.
  std::vector<std::string> other = args;
  other.insert(other.end(), {"--resume", "--set", "physics.order=4"});
  const Result o = run(other);
  EXPECT_NE(o.rc, 0);
  EXPECT_EQ(lines_of(o.err).size(), 1u) << o.err;
  args.push_back("--resume");
  const Result r = run(args);
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "shot 2 of 3")) << r.err;
  EXPECT_FALSE(contains(r.err, "shot 1 of 3")) << r.err;
  io::SegyGatherReader a((dir_ / "cut/gathers.sgy").string()),
      b((dir_ / "whole/gathers.sgy").string());
  ASSERT_EQ(a.shots(), (std::vector<int>{0, 1, 2}));
  for (int s : {0, 1, 2}) EXPECT_EQ(a.read_shot(s).traces, b.read_shot(s).traces) << s;
  EXPECT_EQ(read_bytes((dir_ / "cut/gathers.sgy").string()),
            read_bytes((dir_ / "whole/gathers.sgy").string()));
  io::GatherReader h((dir_ / "cut/gathers.h5").string());
  EXPECT_EQ(h.shots(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(h.read_shot(1).traces, a.read_shot(1).traces);
}

// ------------------------------------------------------------------------ bad SEG-Y data

class CliSegyBadData : public CliSegyTest {
 protected:
  void SetUp() override {
    CliSegyTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(seisfd("born", "data", {"--set", "output.formats=[\"segy\"]"}).rc, 0);
    path_ = (dir_ / "data/gathers.sgy").string();
    bytes_ = read_bytes(path_);
  }
  Result migrate_patched() {
    write_bytes(path_, bytes_);
    return seisfd("migrate", "img", {"--set", "migration.data=data/gathers.sgy"});
  }
  void expect_no_image() {
    EXPECT_FALSE(fs::exists(dir_ / "img/image.h5"));
    EXPECT_FALSE(fs::exists(dir_ / "img/image_crosscorrelation.sgy"));
  }
  std::string path_, bytes_;
};

TEST_F(CliSegyBadData, WrongSampleCount) {
  set_field(bytes_, trace_at(39, kNt), 115, 2, kNt - 1);
  expect_refused(migrate_patched(), {"migration.data", path_, "trace 40:", "samples"});
  expect_no_image();
}

TEST_F(CliSegyBadData, WrongSampleCountEverywhere) {
  // A consistent file of another duration: the config's check names the shot's first trace.
  ASSERT_EQ(
      seisfd("born", "short", {"--set", "output.formats=[\"segy\"]", "--set", "time.duration=0.2"})
          .rc,
      0);
  expect_refused(seisfd("migrate", "img", {"--set", "migration.data=short/gathers.sgy"}),
                 {"short/gathers.sgy", "trace 1 (shot 0)", "201 samples", "needs 251"});
}

TEST_F(CliSegyBadData, MissingReceiverCoordinates) {
  for (int pos : {73, 77, 81, 85}) set_field(bytes_, trace_at(36, kNt), pos, 4, 0);  // shot 1
  // The source too: the trace is told as one without coordinates.
  expect_refused(migrate_patched(), {path_, "trace 37", "no coordinates"});
  expect_no_image();
}

TEST_F(CliSegyBadData, ReceiverElsewhere) {
  set_field(bytes_, trace_at(5, kNt), 81, 4, 55000);  // shot 0 receiver 5 at x 55 m, not 50
  expect_refused(migrate_patched(),
                 {path_, "trace 6 (shot 0, receiver 5)", "(55, 30, 10)", "(50, 30, 10)"});
}

// ------------------------------------------------------------------------ models from SEG-Y

class CliSegyModel : public CliSegyTest {
 protected:
  // The config's layered model as a cube of the given geometry.
  std::string write_model(const std::string& name, io::ImageGeometry g) {
    std::vector<float> v(static_cast<size_t>(g.nz) * g.ny * g.nx);
    for (int z = 0; z < g.nz; ++z)
      for (size_t i = 0; i < static_cast<size_t>(g.ny) * g.nx; ++i)
        v[z * static_cast<size_t>(g.ny) * g.nx + i] =
            g.origin[0] + z * g.spacing[0] >= 120.0 ? 2500.0f : 2000.0f;
    const std::string p = (dir_ / name).string();
    io::write_segy_cube(p, g, v.data(), "VP", "M/S", "test");
    return p;
  }
  static io::ImageGeometry grid() {
    io::ImageGeometry g;
    g.nz = 24;
    g.ny = 6;
    g.nx = 32;
    g.spacing = {10, 10, 10};
    return g;
  }
};

TEST_F(CliSegyModel, VelocityFromSegyGivesTheLayeredRun) {
  const std::string p = write_model("vp.sgy", grid());
  std::string text =
      replace_line(kSurvey, "type = \"layered\"", "type = \"file\"\npath = \"vp.sgy\"");
  text = replace_line(text, "interfaces = [0.0, 120.0]", "");
  text = replace_line(text, "velocities = [2000.0, 2500.0]", "");
  const std::string cfg = write_config("from_sgy.toml", text).string();
  const Result a = run({"run", cfg, "-q", "--set", "output.directory=a"});
  ASSERT_EQ(a.rc, 0) << describe(a);
  const Result b = seisfd("run", "b", {});
  ASSERT_EQ(b.rc, 0) << describe(b);
  io::GatherReader ga((dir_ / "a/gathers.h5").string()), gb((dir_ / "b/gathers.h5").string());
  for (int s : {0, 1}) {
    const auto ta = ga.read_shot(s).traces;
    EXPECT_EQ(ta, gb.read_shot(s).traces) << "shot " << s;
    double peak = 0;
    for (float v : ta) peak = std::max(peak, std::fabs(double(v)));
    EXPECT_GT(peak, 0.0);
  }

  // grid.from_model: the grid from the cube's headers, the same run again.
  std::string fm = replace_line(text, "nx = 32", "from_model = true");
  for (const char* k : {"ny = 6", "nz = 24", "spacing = 10.0"}) fm = replace_line(fm, k, "");
  const std::string fm_cfg = write_config("from_model.toml", fm).string();
  const Result c = run({"run", fm_cfg, "-q", "--set", "output.directory=c"});
  ASSERT_EQ(c.rc, 0) << describe(c);
  io::GatherReader gc((dir_ / "c/gathers.h5").string());
  for (int s : {0, 1}) EXPECT_EQ(gc.read_shot(s).traces, gb.read_shot(s).traces) << "shot " << s;
  const auto rep = nlohmann::json::parse(read_file(dir_ / "c/report.json"));
  EXPECT_EQ(rep["config"]["grid"]["nx"], 32);
  EXPECT_EQ(rep["config"]["grid"]["nz"], 24);
  EXPECT_EQ(rep["config"]["grid"]["dy"], 10.0);
  expect_refused(run({"check", fm_cfg, "--set", "grid.nx=4"}), {"grid.nx", "from_model"});
  const std::string fm_constant = write_config(
      "fm_constant.toml", replace_line(replace_line(fm, "type = \"file\"", "type = \"constant\""),
                                       "path = \"vp.sgy\"", "vp = 2000.0"));
  expect_refused(run({"check", fm_constant}), {"grid.from_model", "SEG-Y model.path"});

  // A cube of another grid, or unsorted, is refused by `seisfd check` with one line.
  io::ImageGeometry g = grid();
  g.nx = 31;
  write_model("vp.sgy", g);
  expect_refused(run({"check", cfg}), {"model.path", "vp.sgy", "31 crosslines", "grid has 32"});
  g = grid();
  g.spacing[2] = 12.0;
  write_model("vp.sgy", g);
  expect_refused(run({"check", cfg}), {"model.path", "spacing along x 12", "grid.dx"});
  g = grid();
  g.origin[0] = 5;
  write_model("vp.sgy", g);
  expect_refused(run({"check", cfg}), {"model.path", "origin z 5"});
  write_model("vp.sgy", grid());
  std::string bytes = read_bytes(p);
  set_field(bytes, trace_at(40, 24), 189, 4, 1);  // trace 41 (inline 2) claims inline 1
  write_bytes(p, bytes);
  expect_refused(run({"check", cfg}), {"model.path", "vp.sgy", "trace 41:", "sorted by inline"});
  expect_refused(run({"check", fm_cfg}), {"model.path", "vp.sgy", "trace 41:", "sorted by inline"});
}

// Anisotropy parameters from SEG-Y cubes: the VTI run of constant epsilon and delta again.
TEST_F(CliSegyModel, AnisotropyFromSegy) {
  const std::vector<float> eps(24 * 6 * 32, 0.1f), delta(24 * 6 * 32, 0.05f);
  io::write_segy_cube((dir_ / "eps.sgy").string(), grid(), eps.data(), "EPSILON", "1", "test");
  io::write_segy_cube((dir_ / "delta.sgy").string(), grid(), delta.data(), "DELTA", "1", "test");
  const Result a = seisfd("run", "a",
                          {"--set", "physics.equation=\"vti\"", "--set", "model.epsilon=0.1",
                           "--set", "model.delta=0.05"});
  ASSERT_EQ(a.rc, 0) << describe(a);
  const Result b =
      seisfd("run", "b",
             {"--set", "physics.equation=\"vti\"", "--set", "model.epsilon={ path = \"eps.sgy\" }",
              "--set", "model.delta={ path = \"delta.sgy\" }"});
  ASSERT_EQ(b.rc, 0) << describe(b);
  io::GatherReader ga((dir_ / "a/gathers.h5").string()), gb((dir_ / "b/gathers.h5").string());
  for (int s : {0, 1}) EXPECT_EQ(ga.read_shot(s).traces, gb.read_shot(s).traces) << "shot " << s;
  expect_refused(seisfd("check", "c",
                        {"--set", "physics.equation=\"vti\"", "--set",
                         "model.epsilon={ path = \"eps.sgy\", dataset = \"e\" }"}),
                 {"model.epsilon.dataset", "SEG-Y"});
}

// ------------------------------------------------------------------------ config

TEST_F(CliSegyTest, ConfigErrorsNameTheKey) {
  expect_refused(seisfd("check", "x", {"--set", "output.formats=[\"segy\", \"segy\"]"}),
                 {"output.formats", "twice"});
  expect_refused(seisfd("check", "x", {"--set", "output.formats=[\"sgy\"]"}),
                 {"output.formats", "did you mean \"segy\""});
  expect_refused(seisfd("check", "x", {"--set", "output.formats=[]"}), {"output.formats"});
  expect_refused(
      seisfd("check", "x", {"--set", "output.formats=[\"segy\"]", "--set", "time.dt=0.0003333"}),
      {"time.dt", "microseconds"});
  expect_refused(seisfd("run", "x", {"--set", "output.formats=[\"segy\"]", "--resume"}),
                 {"x/gathers.sgy.partial", "cannot resume", "does not exist"});
  // A grid SEG-Y images cannot describe is refused before anything runs.
  ASSERT_EQ(seisfd("born", "data", {}).rc, 0);
  expect_refused(
      seisfd(
          "migrate", "img",
          {"--set", "migration.data=data/gathers.h5", "--set", "output.formats=[\"segy\"]", "--set",
           "grid.origin=[0.0, 0.0, 0.5]", "--set", "shots.start=[100.0, 30.0, 20.5]", "--set",
           "receivers.start=[0.0, 30.0, 10.5]", "--set", "receivers.end=[310.0, 30.0, 10.5]"}),
      {"output.formats", "origin z 0.5"});
}

}  // namespace
