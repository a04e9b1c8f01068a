// SEG-Y through io/segy.hpp (docs/outputs.md §8): gathers and cubes written, read back with the
// readers and checked byte by byte in the headers (big-endian fields at their SEG-Y offsets,
// read here without segyio), and the bad files a reader must refuse with one line naming the
// file and the trace: a wrong sample count, a cut-short file, an unsorted cube, missing
// coordinates, an unsupported sample format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/segy.hpp"
#include "tests/segy_support.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace seisfd::io;
using namespace seisfd::test::segy;

namespace {

using seisfd::test::random_floats;

class SegyTest : public seisfd::test::TempDirTest {
 protected:
  SegyTest() : TempDirTest("seisfd_test_segy_") {}
  void SetUp() override {
    if (!segy_built()) GTEST_SKIP() << "this build has no SEG-Y support (SEISFD_SEGY)";
    TempDirTest::SetUp();
  }
};

// The IoError message of f(), "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// Two shots (indices 0 and 3, 4 and 2 receivers), positions off the mm grid and negative.
struct Gathers {
  int nt = 7;
  double dt = 0.002;
  std::array<double, 3> src0{120.25, -40.5, 12.0}, src3{480.0, 40.0, 7.5};
  std::vector<double> rec0{0.0,     -40.0, 10.0, 10.0, -40.0, 10.0,
                           20.1234, -40.0, 10.0, 30.0, -39.5, 12.25};
  std::vector<double> rec3{400.0, 40.0, 0.0, 600.0, 40.0, 0.5};
  std::vector<float> tr0 = random_floats(4 * 7, 1), tr3 = random_floats(2 * 7, 2);
  void write(const std::string& p) const {
    SegyGatherWriter w(p, nt, dt, "test");
    w.write_shot(0, tr0.data(), 4, rec0.data(), src0);
    w.write_shot(3, tr3.data(), 2, rec3.data(), src3);
    w.finish();
  }
};

TEST_F(SegyTest, GathersRoundTripWithTheirHeaders) {
  const Gathers g;
  const std::string p = path("gathers.sgy");
  {
    SegyGatherWriter w(p, g.nt, g.dt, "seisfd test");
    w.write_shot(0, g.tr0.data(), 4, g.rec0.data(), g.src0);
    // Until finish() only the .partial file exists.
    EXPECT_TRUE(fs::exists(p + ".partial"));
    EXPECT_FALSE(fs::exists(p));
    w.write_shot(3, g.tr3.data(), 2, g.rec3.data(), g.src3);
    EXPECT_NE(error_of([&] { w.write_shot(3, g.tr3.data(), 2, g.rec3.data(), g.src3); }), "");
    w.finish();
  }
  EXPECT_FALSE(fs::exists(p + ".partial"));
  ASSERT_EQ(fs::file_size(p), trace_at(6, g.nt));

  SegyGatherReader r(p);
  ASSERT_EQ(r.shots(), (std::vector<int>{0, 3}));
  EXPECT_EQ(r.first_trace(3), 5);
  const ShotData d0 = r.read_shot(0), d3 = r.read_shot(3);
  EXPECT_EQ(d0.nt, g.nt);
  EXPECT_DOUBLE_EQ(d0.dt, g.dt);
  EXPECT_EQ(d0.t0, 0.0);
  EXPECT_EQ(d0.traces, g.tr0);  // IEEE float32: bit for bit
  EXPECT_EQ(d3.traces, g.tr3);
  ASSERT_EQ(d0.receivers.size(), 4u);
  ASSERT_EQ(d3.receivers.size(), 2u);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(d0.source[a], g.src0[a], 5e-4);  // mm precision (scalar -1000)
    EXPECT_NEAR(d3.source[a], g.src3[a], 5e-4);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(d0.receivers[k][a], g.rec0[3 * k + a], 5e-4);
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(d3.receivers[k][a], g.rec3[3 * k + a], 5e-4);
  }
  EXPECT_TRUE(has(r.text_header(), "PRESSURE IN PA")) << r.text_header();
  EXPECT_TRUE(has(r.text_header(), "METRES")) << r.text_header();
  EXPECT_TRUE(has(r.text_header(), "seisfd test"));

  // The headers as bytes.
  const std::string b = read_bytes(p);
  EXPECT_EQ(field(b, 0, 3217, 2), 2000);  // µs
  EXPECT_EQ(field(b, 0, 3221, 2), g.nt);
  EXPECT_EQ(field(b, 0, 3225, 2), 5);  // IEEE float
  EXPECT_EQ(field(b, 0, 3255, 2), 1);  // metres
  const size_t t2 = trace_at(2, g.nt), t5 = trace_at(5, g.nt);
  EXPECT_EQ(field(b, t2, 1, 4), 3);   // trace sequence
  EXPECT_EQ(field(b, t2, 9, 4), 0);   // field record = shot
  EXPECT_EQ(field(b, t2, 13, 4), 3);  // receiver from 1
  EXPECT_EQ(field(b, t5, 9, 4), 3);
  EXPECT_EQ(field(b, t5, 13, 4), 2);
  EXPECT_EQ(field(b, t5, 17, 4), 3);  // energy source point
  EXPECT_EQ(field(b, t2, 71, 2), -1000);
  EXPECT_EQ(field(b, t2, 69, 2), -1000);
  EXPECT_EQ(field(b, t2, 73, 4), 120250);
  EXPECT_EQ(field(b, t2, 77, 4), -40500);
  EXPECT_EQ(field(b, t2, 81, 4), 20123);  // 20.1234 m to the mm
  EXPECT_EQ(field(b, t2, 85, 4), -40000);
  EXPECT_EQ(field(b, t2, 49, 4), 12000);   // source depth
  EXPECT_EQ(field(b, t2, 41, 4), -10000);  // receiver elevation = -z
  EXPECT_EQ(field(b, t2, 37, 4),
            static_cast<int32_t>(std::lround(std::hypot(20.1234 - 120.25, 0.5))));
  EXPECT_EQ(field(b, t5, 37, 4), 120);
  EXPECT_EQ(field(b, t5, 115, 2), g.nt);
  EXPECT_EQ(field(b, t5, 117, 2), 2000);
  EXPECT_EQ(field(b, t5, 181, 4), 540000);  // midpoint x
}

// A writer destroyed before finish() leaves <path>.partial; resume() reopens it, drops a trace
// cut short, tells how many traces each shot has, and keep_first() cuts it back to whole shots.
TEST_F(SegyTest, GathersResumeFromAPartialFile) {
  const Gathers g;
  const std::string p = path("g.sgy");
  {
    SegyGatherWriter w(p, g.nt, g.dt, "t", "digest1");
    w.write_shot(0, g.tr0.data(), 4, g.rec0.data(), g.src0);
    w.write_shot(3, g.tr3.data(), 2, g.rec3.data(), g.src3);
  }
  ASSERT_TRUE(fs::exists(p + ".partial"));
  fs::resize_file(p + ".partial", trace_at(5, g.nt) + 17);  // shot 3: one trace and a bit
  EXPECT_TRUE(
      has(error_of([&] { SegyGatherWriter::resume(p, g.nt, g.dt, "digest2"); }), "another config"));
  EXPECT_TRUE(
      has(error_of([&] { SegyGatherWriter::resume(p, g.nt + 1, g.dt, "digest1"); }), "samples"));
  EXPECT_TRUE(has(error_of([&] { SegyGatherWriter::resume(path("none.sgy"), g.nt, g.dt); }),
                  "does not exist"));
  {
    SegyGatherWriter w = SegyGatherWriter::resume(p, g.nt, g.dt, "digest1");
    EXPECT_EQ(w.traces_per_shot(), (std::vector<std::pair<int, int>>{{0, 4}, {3, 1}}));
    EXPECT_EQ(fs::file_size(p + ".partial"), trace_at(5, g.nt));
    w.keep_first(1);
    EXPECT_EQ(w.shots(), (std::vector<int>{0}));
    EXPECT_EQ(fs::file_size(p + ".partial"), trace_at(4, g.nt));
    w.write_shot(3, g.tr3.data(), 2, g.rec3.data(), g.src3);
    w.finish();
  }
  SegyGatherReader r(p);
  EXPECT_EQ(r.shots(), (std::vector<int>{0, 3}));
  EXPECT_EQ(r.read_shot(0).traces, g.tr0);
  EXPECT_EQ(r.read_shot(3).traces, g.tr3);
  const std::string b = read_bytes(p);
  EXPECT_EQ(field(b, trace_at(5, g.nt), 1, 4), 6);  // sequence numbers continue
  EXPECT_TRUE(has(r.text_header(), "digest1"));
  // A finished file is not resumed.
  EXPECT_TRUE(has(error_of([&] { SegyGatherWriter::resume(p, g.nt, g.dt, "digest1"); }),
                  "the run that wrote it finished"));
}

TEST_F(SegyTest, GathersThatSegyCannotHoldAreRefused) {
  const Gathers g;
  const std::string e = error_of([&] { SegyGatherWriter w(path("a.sgy"), 10, 0.0012345, "t"); });
  EXPECT_TRUE(has(e, "microseconds")) << e;
  EXPECT_TRUE(
      has(error_of([&] { SegyGatherWriter w(path("b.sgy"), 40000, 0.001, "t"); }), "samples"));
  EXPECT_FALSE(fs::exists(path("a.sgy.partial")));
}

TEST_F(SegyTest, CubeRoundTripWithTheGridInTheHeaders) {
  ImageGeometry g;
  g.nz = 5;
  g.ny = 3;
  g.nx = 4;
  g.spacing = {2.5, 12.5, 7.25};  // (z, y, x)
  g.origin = {10.0, -50.0, 100.25};
  const std::vector<float> data = random_floats(5 * 3 * 4, 3);
  const std::string p = path("cube.sgy");
  write_segy_cube(p, g, data.data(), "TEST CUBE", "M/S", "seisfd test");
  EXPECT_FALSE(fs::exists(p + ".partial"));
  const SegyCube c = read_segy_cube(p);
  EXPECT_EQ(c.geometry.nz, 5);
  EXPECT_EQ(c.geometry.ny, 3);
  EXPECT_EQ(c.geometry.nx, 4);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(c.geometry.spacing[a], g.spacing[a], 1e-9) << a;
    EXPECT_NEAR(c.geometry.origin[a], g.origin[a], 1e-9) << a;
  }
  EXPECT_EQ(c.data, data);

  const std::string b = read_bytes(p);
  EXPECT_EQ(field(b, 0, 3217, 2), 2500);  // dz in mm
  EXPECT_EQ(field(b, 0, 3221, 2), 5);
  const size_t t = trace_at(6, 5);  // inline 2 (y index 1), crossline 3 (x index 2)
  EXPECT_EQ(field(b, t, 189, 4), 2);
  EXPECT_EQ(field(b, t, 193, 4), 3);
  EXPECT_EQ(field(b, t, 71, 2), -1000);
  EXPECT_EQ(field(b, t, 181, 4), 114750);  // x = 100.25 + 2 * 7.25
  EXPECT_EQ(field(b, t, 185, 4), -37500);  // y = -50 + 12.5
  EXPECT_EQ(field(b, t, 109, 2), 10);      // origin z, m
  EXPECT_EQ(field(b, t, 115, 2), 5);
  EXPECT_EQ(field(b, t, 117, 2), 2500);
}

TEST_F(SegyTest, CubesThatSegyCannotHoldAreRefusedBeforeWriting) {
  ImageGeometry g;
  g.nz = g.ny = g.nx = 2;
  g.spacing = {0.0125, 1, 1};
  const std::vector<float> data(8, 1.0f);
  EXPECT_TRUE(has(segy_cube_problem(g), "whole number of mm"));
  EXPECT_TRUE(has(error_of([&] { write_segy_cube(path("c.sgy"), g, data.data(), "", "", ""); }),
                  "depth step"));
  g.spacing = {1, 1, 1};
  g.origin = {0.5, 0, 0};
  EXPECT_TRUE(has(segy_cube_problem(g), "origin z"));
  g.origin = {0, 0, 0};
  EXPECT_EQ(segy_cube_problem(g), "");
  EXPECT_FALSE(fs::exists(path("c.sgy")));
  EXPECT_FALSE(fs::exists(path("c.sgy.partial")));
}

// --------------------------------------------------------------------------- bad input

// One line, naming the file and the trace.
void expect_names(const std::string& e, const std::string& file, const std::string& trace,
                  const std::string& what) {
  EXPECT_NE(e, "");
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_TRUE(has(e, file)) << e;
  EXPECT_TRUE(has(e, trace)) << e;
  EXPECT_TRUE(has(e, what)) << e;
}

TEST_F(SegyTest, WrongSampleCountInATraceNamesTheTrace) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  std::string b = read_bytes(p);
  set_field(b, trace_at(4, g.nt), 115, 2, g.nt + 1);
  write_bytes(p, b);
  expect_names(error_of([&] { SegyGatherReader r(p); }), p, "trace 5:", "samples");
}

TEST_F(SegyTest, WrongSampleCountInTheBinaryHeaderNamesTraceOne) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  std::string b = read_bytes(p);
  set_field(b, 0, 3221, 2, g.nt - 1);
  write_bytes(p, b);
  expect_names(error_of([&] { SegyGatherReader r(p); }), p, "trace 1:", "samples");
}

TEST_F(SegyTest, CutShortFileNamesTheIncompleteTrace) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  fs::resize_file(p, trace_at(5, g.nt) + 100);
  expect_names(error_of([&] { SegyGatherReader r(p); }), p, "trace 6", "cut short");
  EXPECT_TRUE(has(error_of([&] { read_segy_cube(p); }), "trace 6"));
}

TEST_F(SegyTest, ShotsSplitAcrossTheFileNameTheTrace) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  std::string b = read_bytes(p);
  set_field(b, trace_at(5, g.nt), 9, 4, 0);  // the last trace claims shot 0 again
  write_bytes(p, b);
  expect_names(error_of([&] { SegyGatherReader r(p); }), p, "trace 6:", "(shot) 0 again");
}

TEST_F(SegyTest, MissingCoordinatesAreToldPerTrace) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  std::string b = read_bytes(p);
  for (int pos : {73, 77, 81, 85}) set_field(b, trace_at(2, g.nt), pos, 4, 0);
  write_bytes(p, b);
  SegyGatherReader r(p);
  EXPECT_TRUE(r.coordinates_missing(0, 2));
  EXPECT_FALSE(r.coordinates_missing(0, 1));
  // A trace whose source differs from its shot's first trace is named.
  expect_names(error_of([&] { r.read_shot(0); }), p, "trace 3:", "source of shot 0");
}

TEST_F(SegyTest, UnsupportedSampleFormatIsRefused) {
  Gathers g;
  const std::string p = path("g.sgy");
  g.write(p);
  std::string b = read_bytes(p);
  set_field(b, 0, 3225, 2, 3);  // 2-byte integers
  write_bytes(p, b);
  const std::string e = error_of([&] { SegyGatherReader r(p); });
  EXPECT_TRUE(has(e, "format code 3")) << e;
  EXPECT_TRUE(has(e, p)) << e;
}

class SegyCubeBad : public SegyTest {
 protected:
  void SetUp() override {
    SegyTest::SetUp();
    if (IsSkipped()) return;
    g_.nz = 4;
    g_.ny = 3;
    g_.nx = 5;
    g_.spacing = {10, 20, 10};
    g_.origin = {0, 0, 0};
    const std::vector<float> data = random_floats(4 * 3 * 5, 4);
    p_ = path("cube.sgy");
    write_segy_cube(p_, g_, data.data(), "T", "M/S", "t");
    b_ = read_bytes(p_);
  }
  std::string reread() {
    write_bytes(p_, b_);
    return error_of([&] { read_segy_cube(p_); });
  }
  ImageGeometry g_;
  std::string p_, b_;
};

TEST_F(SegyCubeBad, CrosslinesOutOfOrder) {
  set_field(b_, trace_at(2, 4), 193, 4, 2);  // inline 1: crosslines 1 2 2 4 5
  expect_names(reread(), p_, "trace 3:", "sorted by inline");
}

TEST_F(SegyCubeBad, InlinesOutOfOrder) {
  for (int k = 5; k < 10; ++k) set_field(b_, trace_at(k, 4), 189, 4, 7);
  for (int k = 10; k < 15; ++k) set_field(b_, trace_at(k, 4), 189, 4, 6);  // 1, 7, 6
  expect_names(reread(), p_, "trace 11:", "sorted by inline");
}

TEST_F(SegyCubeBad, NoLineNumbers) {
  for (int k = 0; k < 15; ++k)
    for (int pos : {189, 193}) set_field(b_, trace_at(k, 4), pos, 4, 0);
  expect_names(reread(), p_, "trace 2:", "missing?");
}

TEST_F(SegyCubeBad, MissingCoordinates) {
  for (int k = 0; k < 15; ++k)
    for (int pos : {181, 185}) set_field(b_, trace_at(k, 4), pos, 4, 0);
  expect_names(reread(), p_, "trace 2:", "coordinates missing");
}

TEST_F(SegyCubeBad, IrregularCoordinates) {
  set_field(b_, trace_at(8, 4), 181, 4, 25000);  // x 25 m where 30 m belongs
  expect_names(reread(), p_, "trace 9:", "regular");
}

TEST_F(SegyCubeBad, WrongSampleCountInATrace) {
  set_field(b_, trace_at(7, 4), 115, 2, 5);
  expect_names(reread(), p_, "trace 8:", "samples");
}

TEST(SegyPath, ExtensionsAreRecognised) {
  EXPECT_TRUE(is_segy_path("a/b.sgy"));
  EXPECT_TRUE(is_segy_path("B.SEGY"));
  EXPECT_FALSE(is_segy_path("gathers.h5"));
  EXPECT_FALSE(is_segy_path("sgy"));
  EXPECT_EQ(segy_interval_units(0.002, 1e-6), 2000);
  EXPECT_EQ(segy_interval_units(0.0012345, 1e-6), -1);
  EXPECT_EQ(segy_interval_units(12.5, 1e-3), 12500);
}

}  // namespace
