// io layer: files are written through seisfd::io and read back with the HDF5 C API.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/h5.hpp"
#include "io/model_file.hpp"
#include "io/snapshots.hpp"
#include "tests/h5_read.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace seisfd::io;

namespace {

using namespace seisfd::test;

// A fresh directory per test, removed afterwards.
class IoTest : public seisfd::test::TempDirTest {
 protected:
  IoTest() : TempDirTest("seisfd_test_io_") {}
};

}  // namespace

TEST_F(IoTest, GathersRoundTrip) {
  const std::string file = path("gathers.h5");
  const int nrec[2] = {4, 3}, nt[2] = {11, 17};
  std::vector<float> traces[2] = {random_floats(4 * 11, 1), random_floats(3 * 17, 2)};
  std::vector<double> recs[2];
  for (int s = 0; s < 2; ++s) {
    for (int r = 0; r < nrec[s] * 3; ++r) recs[s].push_back(10.0 * s + 0.25 * r);
  }
  {
    GatherWriter w(file);
    EXPECT_EQ(w.final_path(), file);
    w.write_shot(0, traces[0].data(), nrec[0], nt[0], recs[0].data(), {1, 2, 3}, 1e-3, 0.0);
    w.write_shot(7, traces[1].data(), nrec[1], nt[1], recs[1].data(), {4, 5, 6}, 5e-4, -0.1, "m/s");
    EXPECT_THROW(
        w.write_shot(7, traces[1].data(), nrec[1], nt[1], recs[1].data(), {4, 5, 6}, 5e-4, -0.1),
        IoError);  // a shot is written once
    EXPECT_TRUE(fs::exists(file + ".partial"));
    EXPECT_FALSE(fs::exists(file));
    w.finish();
  }
  EXPECT_FALSE(fs::exists(file + ".partial"));
  ASSERT_TRUE(fs::exists(file));

  const h5::File f = open_h5(file);
  EXPECT_EQ(read_int_attr(f.get(), "complete"), 1);
  EXPECT_EQ(read_string_attr(f.get(), "format"), "seisfd-gathers-1");
  const char* groups[2] = {"shot_0000", "shot_0007"};
  const std::array<double, 3> sources[2] = {{1, 2, 3}, {4, 5, 6}};
  const double dts[2] = {1e-3, 5e-4}, t0s[2] = {0.0, -0.1};
  const char* units[2] = {"Pa", "m/s"};
  for (int s = 0; s < 2; ++s) {
    SCOPED_TRACE(groups[s]);
    const h5::Group g{H5_CHECK(H5Gopen2(f.get(), groups[s], H5P_DEFAULT))};
    std::vector<hsize_t> shape;
    EXPECT_EQ(read_dataset<float>(g.get(), "p", H5T_NATIVE_FLOAT, &shape), traces[s]);
    EXPECT_EQ(shape, (std::vector<hsize_t>{hsize_t(nrec[s]), hsize_t(nt[s])}));
    EXPECT_EQ(read_dataset<double>(g.get(), "receivers", H5T_NATIVE_DOUBLE, &shape), recs[s]);
    EXPECT_EQ(shape, (std::vector<hsize_t>{hsize_t(nrec[s]), 3}));
    const auto src = read_attr<double>(g.get(), "source", H5T_NATIVE_DOUBLE);
    EXPECT_EQ(src, std::vector<double>(sources[s].begin(), sources[s].end()));
    EXPECT_EQ(read_attr<double>(g.get(), "dt", H5T_NATIVE_DOUBLE), std::vector<double>{dts[s]});
    EXPECT_EQ(read_attr<double>(g.get(), "t0", H5T_NATIVE_DOUBLE), std::vector<double>{t0s[s]});
    EXPECT_EQ(read_string_attr(g.get(), "units"), units[s]);
  }
  // The on-disk types are the documented ones, not just convertible to them.
  const h5::Dataset p{H5_CHECK(H5Dopen2(f.get(), "shot_0000/p", H5P_DEFAULT))};
  const h5::Datatype t{H5_CHECK(H5Dget_type(p.get()))};
  EXPECT_GT(H5Tequal(t.get(), H5T_IEEE_F32LE), 0);
}

TEST_F(IoTest, GathersWithoutFinishStayPartial) {
  const std::string file = path("gathers.h5");
  const auto traces = random_floats(2 * 5, 3);
  const std::vector<double> recs(2 * 3, 1.0);
  {
    GatherWriter w(file);
    w.write_shot(1, traces.data(), 2, 5, recs.data(), {0, 0, 0}, 1e-3, 0.0);
  }
  EXPECT_FALSE(fs::exists(file));
  ASSERT_TRUE(fs::exists(file + ".partial"));
  const h5::File f = open_h5(file + ".partial");
  EXPECT_EQ(read_int_attr(f.get(), "complete"), 0);
  // The shot written before the stop is still readable.
  std::vector<hsize_t> shape;
  EXPECT_EQ(read_dataset<float>(f.get(), "shot_0001/p", H5T_NATIVE_FLOAT, &shape), traces);
}

TEST_F(IoTest, SnapshotsRoundTripWithXdmf) {
  const std::string file = path("snapshots.h5");
  SnapshotGeometry g;
  g.nz = 5, g.ny = 7, g.nx = 9;
  g.spacing = {10, 12.5, 15};
  g.origin = {-5, 100, 200.25};
  g.decimation = {2, 3, 4};
  const size_t n = 5 * 7 * 9;
  const double times[3] = {0.1, 0.2, 0.30000000000000004};
  std::vector<float> all;
  {
    SnapshotWriter w(file, g);
    for (int i = 0; i < 3; ++i) {
      const auto snap = random_floats(n, 10 + i);
      w.append(times[i], snap.data());
      all.insert(all.end(), snap.begin(), snap.end());
      EXPECT_EQ(w.count(), i + 1);
    }
    EXPECT_FALSE(fs::exists(file));
    w.finish();
  }
  EXPECT_FALSE(fs::exists(file + ".partial"));
  ASSERT_TRUE(fs::exists(file));

  const h5::File f = open_h5(file);
  std::vector<hsize_t> shape;
  EXPECT_EQ(read_dataset<float>(f.get(), "p", H5T_NATIVE_FLOAT, &shape), all);
  EXPECT_EQ(shape, (std::vector<hsize_t>{3, 5, 7, 9}));
  EXPECT_EQ(read_dataset<double>(f.get(), "time", H5T_NATIVE_DOUBLE, &shape),
            std::vector<double>(times, times + 3));
  EXPECT_EQ(shape, std::vector<hsize_t>{3});
  EXPECT_EQ(read_attr<double>(f.get(), "spacing", H5T_NATIVE_DOUBLE),
            (std::vector<double>{10, 12.5, 15}));
  EXPECT_EQ(read_attr<double>(f.get(), "origin", H5T_NATIVE_DOUBLE),
            (std::vector<double>{-5, 100, 200.25}));
  EXPECT_EQ(read_attr<int>(f.get(), "decimation", H5T_NATIVE_INT), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(read_string_attr(f.get(), "axis_order"), "z,y,x");
  EXPECT_EQ(read_int_attr(f.get(), "complete"), 1);
  {
    const h5::Dataset p{H5_CHECK(H5Dopen2(f.get(), "p", H5P_DEFAULT))};
    EXPECT_EQ(read_string_attr(p.get(), "units"), "Pa");
    const h5::PropList dcpl{H5_CHECK(H5Dget_create_plist(p.get()))};
    hsize_t chunk[4] = {0, 0, 0, 0};
    ASSERT_EQ(H5Pget_chunk(dcpl.get(), 4, chunk), 4);
    EXPECT_EQ(std::vector<hsize_t>(chunk, chunk + 4), (std::vector<hsize_t>{1, 5, 7, 9}));
    const h5::Dataspace space{H5_CHECK(H5Dget_space(p.get()))};
    hsize_t maxdims[4];
    H5_CHECK(H5Sget_simple_extent_dims(space.get(), nullptr, maxdims));
    EXPECT_EQ(maxdims[0], H5S_UNLIMITED);
  }

  const std::string xmf_path = path("snapshots.xmf");
  ASSERT_TRUE(fs::exists(xmf_path));
  EXPECT_FALSE(fs::exists(xmf_path + ".partial"));
  const std::string xmf = read_text(xmf_path);
  EXPECT_EQ(xmf.rfind("<?xml", 0), 0u);
  EXPECT_NE(xmf.find("CollectionType=\"Temporal\""), std::string::npos);
  EXPECT_EQ(count_substr(xmf, "GridType=\"Uniform\""), 3u);
  EXPECT_EQ(count_substr(xmf, "<Grid"), count_substr(xmf, "</Grid>"));
  EXPECT_EQ(count_substr(xmf, "<DataItem"), count_substr(xmf, "</DataItem>"));
  EXPECT_EQ(count_substr(xmf, "TopologyType=\"3DCoRectMesh\" Dimensions=\"5 7 9\""), 3u);
  EXPECT_EQ(count_substr(xmf, "Dimensions=\"3 5 7 9\""), 3u);  // the whole /p
  EXPECT_EQ(count_substr(xmf, ">snapshots.h5:/p<"), 3u);       // relative name
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(xmf.find(">" + std::to_string(i) + " 0 0 0 1 1 1 1 1 5 7 9<"), std::string::npos)
        << "hyperslab of snapshot " << i;
  }
  EXPECT_NE(xmf.find("<Time Value=\"0.30000000000000004\""), std::string::npos);
  EXPECT_NE(xmf.find(">-5 100 200.25<"), std::string::npos);  // origin, z y x
  EXPECT_NE(xmf.find(">10 12.5 15<"), std::string::npos);     // spacing, z y x
}

TEST_F(IoTest, SnapshotsWithoutFinishStayPartial) {
  const std::string file = path("snapshots.h5");
  SnapshotGeometry g;
  g.nz = 2, g.ny = 3, g.nx = 4;
  g.spacing = {1, 1, 1};
  const auto snap = random_floats(24, 5);
  {
    SnapshotWriter w(file, g);
    w.append(0.5, snap.data());
  }
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(path("snapshots.xmf")));
  ASSERT_TRUE(fs::exists(file + ".partial"));
  const h5::File f = open_h5(file + ".partial");
  EXPECT_EQ(read_int_attr(f.get(), "complete"), 0);
  std::vector<hsize_t> shape;
  EXPECT_EQ(read_dataset<float>(f.get(), "p", H5T_NATIVE_FLOAT, &shape), snap);
  EXPECT_EQ(shape, (std::vector<hsize_t>{1, 2, 3, 4}));
}

// A snapshot over HDF5's 4 GiB chunk limit is chunked as [1][k][ny][nx], k as large as fits.
// Only metadata is written, so the test is cheap.
TEST_F(IoTest, SnapshotsChunkBigSnapshotUnderLimit) {
  SnapshotGeometry g;
  g.nz = 8, g.ny = 16384, g.nx = 16384;  // 8 GiB per snapshot, 1 GiB per z plane
  g.spacing = {1, 1, 1};
  { SnapshotWriter w(path("big.h5"), g); }
  const h5::File f = open_h5(path("big.h5.partial"));
  const h5::Dataset p{H5_CHECK(H5Dopen2(f.get(), "p", H5P_DEFAULT))};
  const h5::PropList dcpl{H5_CHECK(H5Dget_create_plist(p.get()))};
  hsize_t chunk[4] = {0, 0, 0, 0};
  ASSERT_EQ(H5Pget_chunk(dcpl.get(), 4, chunk), 4);
  EXPECT_EQ(std::vector<hsize_t>(chunk, chunk + 4), (std::vector<hsize_t>{1, 3, 16384, 16384}));
}

TEST_F(IoTest, SnapshotsRejectBadGeometry) {
  SnapshotGeometry g;
  g.nz = 0, g.ny = 3, g.nx = 4;
  g.spacing = {1, 1, 1};
  EXPECT_THROW(SnapshotWriter(path("s.h5"), g), IoError);
}

TEST_F(IoTest, ReadVolumeRoundTrip) {
  const std::string file = path("model.h5");
  const auto v = random_floats(3 * 4 * 5, 7);
  write_volume(file, "vp", {3, 4, 5}, v.data());
  EXPECT_EQ(read_volume(file, "vp", {3, 4, 5}), v);
}

// model.h5: one dataset per field with its units, the grid's attributes, complete = 1, no
// .partial left; model.xmf: one grid on that geometry with an attribute per field; the file reads
// back as a model.path input.
TEST_F(IoTest, ModelFileWithXdmf) {
  const std::string file = path("model.h5");
  ModelGeometry g;
  g.nz = 3;
  g.ny = 4;
  g.nx = 5;
  g.spacing = {5.0, 10.0, 12.5};
  g.origin = {-5.0, 100.0, 200.25};
  const auto vp = random_floats(60, 11);
  const auto eps = random_floats(60, 12);
  write_model_file(file, g, {{"vp", "m/s", vp.data()}, {"epsilon", "", eps.data()}});
  EXPECT_FALSE(fs::exists(file + ".partial"));
  {
    const h5::File f = open_h5(file);
    EXPECT_EQ(read_string_attr(f.get(), "format"), "seisfd-model-1");
    EXPECT_EQ(read_int_attr(f.get(), "complete"), 1);
    EXPECT_EQ(read_string_attr(f.get(), "axis_order"), "z,y,x");
    EXPECT_EQ(read_attr<double>(f.get(), "spacing", H5T_NATIVE_DOUBLE),
              (std::vector<double>{5.0, 10.0, 12.5}));
    EXPECT_EQ(read_attr<double>(f.get(), "origin", H5T_NATIVE_DOUBLE),
              (std::vector<double>{-5.0, 100.0, 200.25}));
    std::vector<hsize_t> shape;
    EXPECT_EQ(read_dataset<float>(f.get(), "epsilon", H5T_NATIVE_FLOAT, &shape), eps);
    EXPECT_EQ(shape, (std::vector<hsize_t>{3, 4, 5}));
    const h5::Dataset d{H5_CHECK(H5Dopen2(f.get(), "vp", H5P_DEFAULT))};
    EXPECT_EQ(read_string_attr(d.get(), "units"), "m/s");
  }
  EXPECT_EQ(read_volume(file, "vp", {3, 4, 5}), vp);
  const std::string xmf = read_text(path("model.xmf"));
  EXPECT_EQ(count_substr(xmf, "TopologyType=\"3DCoRectMesh\" Dimensions=\"3 4 5\""), 1u);
  EXPECT_NE(xmf.find(">-5 100 200.25<"), std::string::npos);  // origin, z y x
  EXPECT_NE(xmf.find(">5 10 12.5<"), std::string::npos);      // spacing, z y x
  EXPECT_NE(xmf.find("<Attribute Name=\"vp\""), std::string::npos);
  EXPECT_NE(xmf.find(">model.h5:/vp<"), std::string::npos);
  EXPECT_NE(xmf.find(">model.h5:/epsilon<"), std::string::npos);
  EXPECT_EQ(count_substr(xmf, "<DataItem"), count_substr(xmf, "</DataItem>"));

  g.spacing[1] = 0;
  EXPECT_THROW(write_model_file(path("bad.h5"), g, {{"vp", "m/s", vp.data()}}), IoError);
  g.spacing[1] = 10;
  EXPECT_THROW(write_model_file(path("bad.h5"), g, {{"v/p", "m/s", vp.data()}}), IoError);
  EXPECT_FALSE(fs::exists(path("bad.h5")));
}

TEST_F(IoTest, ReadVolumeConvertsFloat64) {
  const std::string file = path("model64.h5");
  const std::vector<double> v = {1.5, 2500.25, -3.0, 4e3, 5.0, 6.125};
  {
    h5::File f{H5_CHECK(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const h5::Dataspace s = h5::make_space({1, 2, 3});
    const h5::Dataset d{H5_CHECK(
        H5Dcreate2(f.get(), "vp", H5T_IEEE_F64LE, s.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
  }
  EXPECT_EQ(read_volume(file, "vp", {1, 2, 3}), std::vector<float>(v.begin(), v.end()));
}

TEST_F(IoTest, ReadVolumeWrongShapeNamesBothShapes) {
  const std::string file = path("x.h5");
  const std::vector<float> v(5 * 6 * 7, 1.0f);
  write_volume(file, "vp", {5, 6, 7}, v.data());
  try {
    read_volume(file, "vp", {5, 6, 8});
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[5][6][7]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[5][6][8]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'vp'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST_F(IoTest, ReadVolumeMissingFileOrDataset) {
  const std::string missing = path("nope.h5");
  try {
    read_volume(missing, "vp", {1, 1, 1});
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string text = path("not_hdf5.h5");
  write_text_atomic(text, "hello");
  try {
    read_volume(text, "vp", {1, 1, 1});
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
  const std::string file = path("model.h5");
  const float one = 1.0f;
  write_volume(file, "vp", {1, 1, 1}, &one);
  for (const char* name : {"density", "grp/vs"}) {
    try {
      read_volume(file, name, {1, 1, 1});
      FAIL() << "no IoError for " << name;
    } catch (const IoError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("'") + name + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(file), std::string::npos) << msg;
    }
  }
}

// The function, the source file's name and line, and HDF5's words, in one short line: no call
// text, no build path, no internal call stack.
TEST_F(IoTest, CheckedCallCarriesCallFileAndLine) {
  h5::silence_errors();
  const std::string missing = path("missing.h5");
  try {
    H5_CHECK(H5Fopen(missing.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("HDF5 H5Fopen failed (test_io.cpp:", 0), 0u) << msg;
    // The system's words from HDF5's innermost error; the file is named by the callers.
    EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("missing.c_str()"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("../"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("H5F_"), std::string::npos) << msg;  // internal function names
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 250u) << msg;
  }
}

TEST_F(IoTest, PrepareOutputDirectory) {
  const std::string fresh = path("a/b/out");
  prepare_output_directory(fresh, false);
  EXPECT_TRUE(fs::is_directory(fresh));
  prepare_output_directory(fresh, false);  // exists but empty: fine

  write_text_atomic(fresh + "/sentinel.txt", "keep me");
  try {
    prepare_output_directory(fresh, false);
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(fresh), std::string::npos) << msg;
    EXPECT_NE(msg.find("--overwrite"), std::string::npos) << msg;
  }
  EXPECT_EQ(read_text(fresh + "/sentinel.txt"), "keep me");
  EXPECT_NO_THROW(prepare_output_directory(fresh, true));
  EXPECT_EQ(read_text(fresh + "/sentinel.txt"), "keep me");

  // --overwrite removes the outputs a run owns (not the inputs named in keep, not other files).
  for (const char* f : {"gathers.h5", "snapshots.h5.partial", "image.xmf", "report.json"})
    write_text_atomic(fresh + "/" + f, "old");
  write_text_atomic(fresh + "/snapshots.h5", "an input");
  {
    const DirectoryLock lock =
        prepare_output_directory(fresh, true, {path("a/b/out/../out/snapshots.h5")});
    EXPECT_FALSE(fs::exists(fresh + "/gathers.h5"));
    EXPECT_FALSE(fs::exists(fresh + "/snapshots.h5.partial"));
    EXPECT_FALSE(fs::exists(fresh + "/image.xmf"));
    EXPECT_FALSE(fs::exists(fresh + "/report.json"));
    EXPECT_EQ(read_text(fresh + "/snapshots.h5"), "an input");
    EXPECT_EQ(read_text(fresh + "/sentinel.txt"), "keep me");
    // The directory is locked while the lock lives (a second open file description conflicts
    // even within one process).
    ASSERT_TRUE(fs::exists(fresh + "/" + DirectoryLock::kName));
    try {
      lock_output_directory(fresh);
      FAIL() << "no IoError";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another seisfd run (pid " +
                                           std::to_string(getpid())),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(fresh + "/" + DirectoryLock::kName));
  // A lock file left by a killed run is not held.
  write_text_atomic(fresh + "/" + DirectoryLock::kName, "12345\n");
  EXPECT_NO_THROW(lock_output_directory(fresh));

  const std::string file = path("a_file");
  write_text_atomic(file, "x");
  try {
    prepare_output_directory(file, true);
    FAIL() << "no IoError";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
}

TEST_F(IoTest, WriteTextAtomic) {
  const std::string file = path("report.json");
  write_text_atomic(file, "{\"a\": 1}\n");
  EXPECT_EQ(read_text(file), "{\"a\": 1}\n");
  write_text_atomic(file, "second");  // replaces
  EXPECT_EQ(read_text(file), "second");
  EXPECT_FALSE(fs::exists(file + ".partial"));
  EXPECT_THROW(write_text_atomic(path("no/such/dir/f.txt"), "x"), IoError);
}
