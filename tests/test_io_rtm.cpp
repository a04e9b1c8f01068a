// io for surveys: reading gathers.h5 back (GatherReader) and resuming a stopped gathers file
// (GatherWriter::resume); image.h5 in test_io_image.cpp. Files written through seisfd::io are
// checked with the HDF5 C API (tests/h5_read.hpp), as in test_io.cpp.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/h5.hpp"
#include "io/image.hpp"  // another kind of file under a gathers name
#include "tests/io_support.hpp"

namespace fs = std::filesystem;
using namespace seisfd::io;

namespace {

using namespace seisfd::test;

class IoRtmTest : public seisfd::test::TempDirTest {
 protected:
  IoRtmTest() : TempDirTest("seisfd_test_io_rtm_") {}
};

// A shot with nrec receivers and nt samples, its values derived from seed.
struct TestShot {
  int index, nrec, nt;
  std::vector<float> traces;
  std::vector<double> receivers;  // nrec x 3
  std::array<double, 3> source;
  double dt, t0;

  TestShot(int shot, int nrec_, int nt_)
      : index(shot), nrec(nrec_), nt(nt_), traces(random_floats(size_t(nrec_) * nt_, shot + 1)) {
    for (int r = 0; r < nrec * 3; ++r) receivers.push_back(100.0 * shot + 0.25 * r);
    source = {10.0 * shot, 20.5, 0.1 + 0.2};
    dt = 1e-3 * (shot + 1);
    t0 = -0.05 * shot;
  }
  void write(GatherWriter& w) const {
    w.write_shot(index, traces.data(), nrec, nt, receivers.data(), source, dt, t0);
  }
  void expect_read(const GatherReader& r) const {
    SCOPED_TRACE("shot " + std::to_string(index));
    const ShotData d = r.read_shot(index);
    EXPECT_EQ(d.shot, index);
    EXPECT_EQ(d.nt, nt);
    ASSERT_EQ(d.receivers.size(), size_t(nrec));
    for (int k = 0; k < nrec; ++k) {
      for (int a = 0; a < 3; ++a) EXPECT_EQ(d.receivers[k][a], receivers[k * 3 + a]);
    }
    EXPECT_EQ(d.source, source);
    EXPECT_EQ(d.dt, dt);
    EXPECT_EQ(d.t0, t0);
    EXPECT_EQ(d.units, "Pa");
    EXPECT_EQ(d.traces, traces);
  }
};

}  // namespace

// ------------------------------------------------------------------------- GatherReader

TEST_F(IoRtmTest, GatherReaderRoundTrip) {
  const std::string file = path("gathers.h5");
  const TestShot a(0, 4, 11), b(12345, 3, 17);  // 5 digits: shot_12345 sorts before shot_9999
  const TestShot c(9999, 1, 2);
  {
    GatherWriter w(file, "digest-1");
    a.write(w);
    b.write(w);
    c.write(w);
    EXPECT_EQ(w.shots(), (std::vector<int>{0, 9999, 12345}));
    w.finish();
  }
  const GatherReader r(file);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.config_digest(), "digest-1");
  EXPECT_EQ(r.shots(), (std::vector<int>{0, 9999, 12345}));
  a.expect_read(r);
  b.expect_read(r);
  c.expect_read(r);

  const h5::File f = open_h5(file);
  EXPECT_EQ(read_string_attr(f.get(), "config_digest"), "digest-1");
}

TEST_F(IoRtmTest, GatherReaderReadsPartialFile) {
  const std::string file = path("gathers.h5");
  const TestShot a(2, 3, 5);
  {
    GatherWriter w(file);  // the constructor of before: digest ""
    a.write(w);
  }
  const GatherReader r(file + ".partial");
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.config_digest(), "");
  EXPECT_EQ(r.shots(), std::vector<int>{2});
  a.expect_read(r);
  // The final name does not exist yet; the message points at the .partial file.
  const std::string msg = error_of([&] { GatherReader{file}; });
  EXPECT_HAS(msg, "gathers '" + file + "'");
  EXPECT_HAS(msg, file + ".partial");
}

TEST_F(IoRtmTest, GatherReaderFileErrorsNameTheFile) {
  const std::string missing = path("none.h5");
  EXPECT_HAS(error_of([&] { GatherReader{missing}; }), "gathers '" + missing + "'");

  const std::string text = path("text.h5");
  write_text_atomic(text, "not hdf5");
  const std::string m1 = error_of([&] { GatherReader{text}; });
  EXPECT_HAS(m1, "gathers '" + text + "'");
  EXPECT_HAS(m1, "not an HDF5 file");

  const std::string other = path("other.h5");
  {
    h5::File f{H5_CHECK(H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    h5::write_attribute(f.get(), "format", std::string("seisfd-image-1"));
  }
  const std::string m2 = error_of([&] { GatherReader{other}; });
  EXPECT_HAS(m2, "gathers '" + other + "'");
  EXPECT_HAS(m2, "seisfd-image-1");
  EXPECT_HAS(m2, "seisfd-gathers-1");

  const std::string bare = path("bare.h5");
  { h5::File f{H5_CHECK(H5Fcreate(bare.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))}; }
  EXPECT_HAS(error_of([&] { GatherReader{bare}; }), "no format attribute");
}

// Each case damages shot 3 of a good file with the C API; read_shot(3) must name the file,
// the shot and the problem, on one line.
TEST_F(IoRtmTest, GatherReaderShotErrorsNameFileAndShot) {
  struct Case {
    const char* what;
    std::function<void(hid_t group)> damage;
    std::vector<std::string> expect;
  };
  const auto set_double = [](hid_t g, const char* name, double v) {
    h5::write_attribute(g, name, v);
  };
  const std::vector<Case> cases = {
      {"no p",
       [](hid_t g) { H5_CHECK(H5Ldelete(g, "p", H5P_DEFAULT)); },
       {"no dataset /shot_0003/p"}},
      {"no receivers",
       [](hid_t g) { H5_CHECK(H5Ldelete(g, "receivers", H5P_DEFAULT)); },
       {"no dataset /shot_0003/receivers"}},
      {"p rows",
       [](hid_t g) {
         H5_CHECK(H5Ldelete(g, "p", H5P_DEFAULT));
         const std::vector<float> p(4 * 11, 0.0f);
         const h5::Dataspace s = h5::make_space({4, 11});
         const h5::Dataset d{H5_CHECK(
             H5Dcreate2(g, "p", H5T_IEEE_F32LE, s.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
         H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()));
       },
       {"dataset p has shape [4][11] but receivers has 3 rows"}},
      {"receivers columns",
       [](hid_t g) {
         H5_CHECK(H5Ldelete(g, "receivers", H5P_DEFAULT));
         const std::vector<double> r(3 * 2, 0.0);
         const h5::Dataspace s = h5::make_space({3, 2});
         const h5::Dataset d{H5_CHECK(H5Dcreate2(g, "receivers", H5T_IEEE_F64LE, s.get(),
                                                 H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
         H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.data()));
       },
       {"dataset receivers has shape [3][2]"}},
      {"no dt", [](hid_t g) { H5_CHECK(H5Adelete(g, "dt")); }, {"no attribute dt"}},
      {"no t0", [](hid_t g) { H5_CHECK(H5Adelete(g, "t0")); }, {"no attribute t0"}},
      {"no source", [](hid_t g) { H5_CHECK(H5Adelete(g, "source")); }, {"no attribute source"}},
      {"no units", [](hid_t g) { H5_CHECK(H5Adelete(g, "units")); }, {"no attribute units"}},
      {"nan dt",
       [&](hid_t g) { set_double(g, "dt", std::numeric_limits<double>::quiet_NaN()); },
       {"attribute dt is", "finite and positive"}},
      {"zero dt", [&](hid_t g) { set_double(g, "dt", 0.0); }, {"attribute dt is 0"}},
      {"infinite t0",
       [&](hid_t g) { set_double(g, "t0", std::numeric_limits<double>::infinity()); },
       {"attribute t0 is not finite"}},
      {"source of 2",
       [](hid_t g) {
         H5_CHECK(H5Adelete(g, "source"));
         const double two[2] = {1, 2};
         h5::write_attribute(g, "source", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, two, {2});
       },
       {"attribute source has 2 values, expected 3"}},
      {"string dt",
       [](hid_t g) {
         H5_CHECK(H5Adelete(g, "dt"));
         h5::write_attribute(g, "dt", std::string("fast"));
       },
       {"attribute dt is not a number"}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE(c.what);
    const std::string file = path("g" + std::to_string(k) + ".h5");
    {
      GatherWriter w(file);
      TestShot(0, 2, 4).write(w);
      TestShot(3, 3, 11).write(w);
      w.finish();
    }
    {
      const h5::File f = open_h5(file, H5F_ACC_RDWR);
      const h5::Group g{H5_CHECK(H5Gopen2(f.get(), "shot_0003", H5P_DEFAULT))};
      c.damage(g.get());
    }
    const GatherReader r(file);
    const std::string msg = error_of([&] { r.read_shot(3); });
    EXPECT_EQ(msg.rfind("gathers '" + file + "': shot 3: ", 0), 0u) << msg;
    for (const std::string& part : c.expect) EXPECT_HAS(msg, part);
    EXPECT_NO_THROW(r.read_shot(0));  // the other shot is unaffected
  }

  // A shot the file does not hold: the message lists those it does.
  const std::string file = path("g0.h5");
  const GatherReader r(file);
  const std::string msg = error_of([&] { r.read_shot(5); });
  EXPECT_EQ(msg.rfind("gathers '" + file + "': shot 5: ", 0), 0u) << msg;
  EXPECT_HAS(msg, "no group /shot_0005");
  EXPECT_HAS(msg, "holds shots 0, 3");
  EXPECT_HAS(error_of([&] { r.read_shot(-1); }), "shot -1: negative shot index");
}

// ------------------------------------------------------------------------- resume

TEST_F(IoRtmTest, GatherResumeAppendsAndFinishes) {
  const std::string file = path("gathers.h5");
  const TestShot s0(0, 3, 8), s1(1, 3, 8), s2(2, 4, 8);
  {
    GatherWriter w(file, "abc123");
    s0.write(w);
    s1.write(w);
  }  // stopped: no finish
  ASSERT_TRUE(fs::exists(file + ".partial"));
  {
    GatherWriter w = GatherWriter::resume(file, "abc123");
    EXPECT_EQ(w.final_path(), file);
    EXPECT_EQ(w.shots(), (std::vector<int>{0, 1}));
    EXPECT_HAS(error_of([&] { s1.write(w); }), "already written");
    s2.write(w);
    EXPECT_EQ(w.shots(), (std::vector<int>{0, 1, 2}));
    EXPECT_FALSE(fs::exists(file));
    w.finish();
  }
  EXPECT_FALSE(fs::exists(file + ".partial"));
  const GatherReader r(file);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.config_digest(), "abc123");
  EXPECT_EQ(r.shots(), (std::vector<int>{0, 1, 2}));
  s0.expect_read(r);
  s1.expect_read(r);
  s2.expect_read(r);
  const h5::File f = open_h5(file);
  EXPECT_EQ(read_attr<int>(f.get(), "complete", H5T_NATIVE_INT), std::vector<int>{1});
}

TEST_F(IoRtmTest, GatherResumeTwiceAndMove) {
  const std::string file = path("gathers.h5");
  { GatherWriter w(file); }  // stopped before any shot
  {
    auto w = std::make_unique<GatherWriter>(GatherWriter::resume(file));
    EXPECT_TRUE(w->shots().empty());
    TestShot(0, 2, 3).write(*w);
  }
  {
    GatherWriter w = GatherWriter::resume(file);
    EXPECT_EQ(w.shots(), std::vector<int>{0});
    TestShot(1, 2, 3).write(w);
    w.finish();
  }
  EXPECT_EQ(GatherReader(file).shots(), (std::vector<int>{0, 1}));
}

TEST_F(IoRtmTest, GatherResumeRefusesAnotherConfig) {
  const std::string file = path("gathers.h5");
  const TestShot s0(0, 2, 4);
  {
    GatherWriter w(file, "digest-A");
    s0.write(w);
  }
  const std::string msg = error_of([&] { GatherWriter::resume(file, "digest-B"); });
  EXPECT_EQ(msg.rfind("gathers '" + file +
                          ".partial': was started with another config (digest "
                          "digest-A",
                      0),
            0u)
      << msg;
  EXPECT_HAS(msg, "digest-B");
  EXPECT_HAS(msg, "rerun without --resume");
  // The refused resume leaves the file as it was.
  const GatherReader r(file + ".partial");
  EXPECT_FALSE(r.complete());
  s0.expect_read(r);
}

TEST_F(IoRtmTest, GatherResumeRefusesMissingCompleteOrForeignFiles) {
  const std::string missing = path("none.h5");
  const std::string m1 = error_of([&] { GatherWriter::resume(missing); });
  EXPECT_HAS(m1, missing + ".partial");
  EXPECT_HAS(m1, "does not exist");

  // Finished: only the final file exists.
  const std::string done = path("done.h5");
  {
    GatherWriter w(done);
    TestShot(0, 1, 2).write(w);
    w.finish();
  }
  const std::string m2 = error_of([&] { GatherWriter::resume(done); });
  EXPECT_HAS(m2, done + ".partial");
  EXPECT_HAS(m2, "finished");

  // A .partial marked complete (the rename failed): nothing to resume.
  fs::copy_file(done, done + ".partial");
  EXPECT_HAS(error_of([&] { GatherWriter::resume(done); }), "marked complete");

  // Another kind of file under the .partial name.
  const std::string foreign = path("foreign.h5");
  {
    ImageGeometry g;
    g.nz = g.ny = g.nx = 2;
    g.spacing = {1, 1, 1};
    ImageWriter w(foreign, g);
  }
  const std::string m3 = error_of([&] { GatherWriter::resume(foreign); });
  EXPECT_HAS(m3, "gathers '" + foreign + ".partial'");
  EXPECT_HAS(m3, "not a seisfd gathers file");
}

// A shot group left half-written (a write that failed) is dropped on resume and can be redone.
TEST_F(IoRtmTest, GatherResumeDropsHalfWrittenShot) {
  const std::string file = path("gathers.h5");
  const TestShot s0(0, 2, 4), s1(1, 2, 4);
  {
    GatherWriter w(file);
    s0.write(w);
  }
  {
    const h5::File f = open_h5(file + ".partial", H5F_ACC_RDWR);
    const h5::Group g{
        H5_CHECK(H5Gcreate2(f.get(), "shot_0001", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    const h5::Dataspace s = h5::make_space({2, 4});
    const h5::Dataset d{H5_CHECK(
        H5Dcreate2(g.get(), "p", H5T_IEEE_F32LE, s.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
  }
  GatherWriter w = GatherWriter::resume(file);
  EXPECT_EQ(w.shots(), std::vector<int>{0});
  s1.write(w);
  w.finish();
  const GatherReader r(file);
  s0.expect_read(r);
  s1.expect_read(r);
}
