// image.h5 and its XDMF (ImageWriter, ImageReader): the round trip with every attribute, a file
// left partial without finish(), the errors naming file and dataset, a file name the XDMF must
// escape. Checked with the HDF5 C API (tests/h5_read.hpp).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/gathers.hpp"  // another kind of file under an image name
#include "io/h5.hpp"
#include "io/image.hpp"
#include "tests/io_support.hpp"

namespace fs = std::filesystem;
using namespace seisfd::io;
using namespace seisfd::test;

namespace {

class IoImageTest : public TempDirTest {
 protected:
  IoImageTest() : TempDirTest("seisfd_test_io_image_") {}
};

}  // namespace

// ------------------------------------------------------------------------- image.h5

namespace {

ImageGeometry test_geometry() {
  ImageGeometry g;
  g.nz = 5, g.ny = 7, g.nx = 9;
  g.spacing = {10, 12.5, 15};
  g.origin = {0.1 + 0.2, 100, -200.25};  // 0.30000000000000004: the XDMF keeps 17 digits
  g.decimation = {1, 2, 1};
  return g;
}

constexpr size_t kCells = 5 * 7 * 9;

}  // namespace

TEST_F(IoImageTest, ImageRoundTripWithXdmf) {
  const std::string file = path("image.h5");
  const ImageGeometry g = test_geometry();
  const auto cc_old = random_floats(kCells, 1), cc = random_floats(kCells, 2);
  const auto norm = random_floats(kCells, 3), illum = random_floats(kCells, 4);
  const auto shot3 = random_floats(kCells, 5);
  {
    ImageWriter w(file, g);
    EXPECT_EQ(w.final_path(), file);
    w.write("crosscorrelation", cc_old.data());
    w.write("normalized", norm.data());
    w.write_illumination(illum.data());
    w.write_shot(3, "crosscorrelation", shot3.data());
    w.write("crosscorrelation", cc.data());  // overwritten in place, listed once in the XDMF
    w.set_shots(4);
    EXPECT_TRUE(fs::exists(file + ".partial"));
    EXPECT_FALSE(fs::exists(file));
    w.finish();
    EXPECT_HAS(error_of([&] { w.write("normalized", norm.data()); }), "after finish");
    EXPECT_THROW(w.write_illumination(illum.data()), IoError);
    EXPECT_THROW(w.write_shot(0, "normalized", norm.data()), IoError);
    EXPECT_THROW(w.set_shots(5), IoError);
  }
  EXPECT_FALSE(fs::exists(file + ".partial"));
  ASSERT_TRUE(fs::exists(file));

  const h5::File f = open_h5(file);
  const std::vector<hsize_t> want = {5, 7, 9};
  std::vector<hsize_t> shape;
  EXPECT_EQ(read_floats(f.get(), "image/crosscorrelation", &shape), cc);
  EXPECT_EQ(shape, want);
  EXPECT_EQ(read_floats(f.get(), "image/normalized", &shape), norm);
  EXPECT_EQ(shape, want);
  EXPECT_EQ(read_floats(f.get(), "illumination", &shape), illum);
  EXPECT_EQ(shape, want);
  EXPECT_EQ(read_floats(f.get(), "shots/shot_0003/crosscorrelation", &shape), shot3);
  EXPECT_EQ(shape, want);
  EXPECT_EQ(read_attr<double>(f.get(), "spacing", H5T_NATIVE_DOUBLE),
            (std::vector<double>{10, 12.5, 15}));
  EXPECT_EQ(read_attr<double>(f.get(), "origin", H5T_NATIVE_DOUBLE),
            (std::vector<double>{0.1 + 0.2, 100, -200.25}));
  EXPECT_EQ(read_attr<int>(f.get(), "decimation", H5T_NATIVE_INT), (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(read_string_attr(f.get(), "axis_order"), "z,y,x");
  EXPECT_EQ(read_string_attr(f.get(), "units"), "arbitrary");
  EXPECT_EQ(read_string_attr(f.get(), "format"), "seisfd-image-1");
  EXPECT_EQ(read_attr<int>(f.get(), "shots", H5T_NATIVE_INT), std::vector<int>{4});
  EXPECT_EQ(read_attr<int>(f.get(), "complete", H5T_NATIVE_INT), std::vector<int>{1});

  const std::string xmf_path = path("image.xmf");
  ASSERT_TRUE(fs::exists(xmf_path));
  EXPECT_FALSE(fs::exists(xmf_path + ".partial"));
  const std::string xmf = read_text(xmf_path);
  EXPECT_EQ(xmf.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count_substr(xmf, "<Grid"), 1u);
  EXPECT_EQ(count_substr(xmf, "<Grid"), count_substr(xmf, "</Grid>"));
  EXPECT_EQ(count_substr(xmf, "<DataItem"), count_substr(xmf, "</DataItem>"));
  EXPECT_EQ(count_substr(xmf, "<Attribute"), count_substr(xmf, "</Attribute>"));
  EXPECT_EQ(count_substr(xmf, "TopologyType=\"3DCoRectMesh\" Dimensions=\"5 7 9\""), 1u);
  EXPECT_EQ(count_substr(xmf, "<Attribute "), 3u);  // two images and the illumination
  EXPECT_EQ(count_substr(xmf, "Attribute Name=\"crosscorrelation\""), 1u);
  EXPECT_EQ(count_substr(xmf, "Attribute Name=\"normalized\""), 1u);
  EXPECT_EQ(count_substr(xmf, "Attribute Name=\"illumination\""), 1u);
  EXPECT_EQ(count_substr(xmf, ">image.h5:/image/crosscorrelation<"), 1u);  // relative name
  EXPECT_EQ(count_substr(xmf, ">image.h5:/image/normalized<"), 1u);
  EXPECT_EQ(count_substr(xmf, ">image.h5:/illumination<"), 1u);
  EXPECT_EQ(count_substr(xmf,
                         "<DataItem Dimensions=\"5 7 9\" NumberType=\"Float\" "
                         "Precision=\"4\" Format=\"HDF\">"),
            3u);
  EXPECT_HAS(xmf, "Name=\"Origin\"");
  EXPECT_HAS(xmf, ">0.30000000000000004 100 -200.25<");  // origin, z y x
  EXPECT_HAS(xmf, ">10 12.5 15<");                       // spacing, z y x
  EXPECT_EQ(xmf.find("shot_0003"), std::string::npos);   // per-shot images are not listed

  // ImageReader gives back what the C API read.
  const ImageReader r(file);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.shots(), 4);
  EXPECT_EQ(r.units(), "arbitrary");
  EXPECT_EQ(r.geometry().nz, 5);
  EXPECT_EQ(r.geometry().ny, 7);
  EXPECT_EQ(r.geometry().nx, 9);
  EXPECT_EQ(r.geometry().spacing, g.spacing);
  EXPECT_EQ(r.geometry().origin, g.origin);
  EXPECT_EQ(r.geometry().decimation, g.decimation);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"crosscorrelation", "normalized"}));
  EXPECT_EQ(r.read("crosscorrelation"), cc);
  EXPECT_EQ(r.read("normalized"), norm);
  EXPECT_TRUE(r.has_illumination());
  EXPECT_EQ(r.read_illumination(), illum);
  EXPECT_EQ(r.shot_images(), std::vector<int>{3});
  EXPECT_EQ(r.read_shot(3, "crosscorrelation"), shot3);
  const std::string m1 = error_of([&] { r.read("inverse_scattering"); });
  EXPECT_HAS(m1, "image '" + file + "'");
  EXPECT_HAS(m1, "no dataset /image/inverse_scattering");
  const std::string m2 = error_of([&] { r.read_shot(2, "crosscorrelation"); });
  EXPECT_HAS(m2, "image '" + file + "': shot 2:");
}

TEST_F(IoImageTest, ImageWithoutFinishStaysPartial) {
  const std::string file = path("image.h5");
  const auto cc = random_floats(kCells, 7);
  {
    ImageWriter w(file, test_geometry());
    w.write("crosscorrelation", cc.data());
    w.set_shots(1);
  }
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(path("image.xmf")));
  ASSERT_TRUE(fs::exists(file + ".partial"));
  const h5::File f = open_h5(file + ".partial");
  EXPECT_EQ(read_attr<int>(f.get(), "complete", H5T_NATIVE_INT), std::vector<int>{0});
  EXPECT_EQ(read_attr<int>(f.get(), "shots", H5T_NATIVE_INT), std::vector<int>{1});
  std::vector<hsize_t> shape;
  EXPECT_EQ(read_floats(f.get(), "image/crosscorrelation", &shape), cc);

  const ImageReader r(file + ".partial");
  EXPECT_FALSE(r.complete());
  EXPECT_FALSE(r.has_illumination());
  EXPECT_EQ(r.read("crosscorrelation"), cc);
}

TEST_F(IoImageTest, ImageErrors) {
  ImageGeometry bad = test_geometry();
  bad.ny = 0;
  EXPECT_HAS(error_of([&] { ImageWriter(path("a.h5"), bad); }), "invalid geometry");
  bad = test_geometry();
  bad.spacing[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_HAS(error_of([&] { ImageWriter(path("b.h5"), bad); }), "spacing");

  const std::string file = path("image.h5");
  ImageWriter w(file, test_geometry());
  const auto v = random_floats(kCells, 1);
  for (const char* name : {"", "a/b", ".hidden", "two words", "x<y"}) {
    const std::string msg = error_of([&] { w.write(name, v.data()); });
    EXPECT_HAS(msg, "image '" + file + "'");
    EXPECT_HAS(msg, std::string("'") + name + "'");
  }
  EXPECT_THROW(w.write("crosscorrelation", nullptr), IoError);
  EXPECT_THROW(w.write_shot(-1, "crosscorrelation", v.data()), IoError);

  // The reader names the file and refuses other formats.
  const std::string gathers = path("gathers.h5");
  {
    GatherWriter gw(gathers);
    gw.finish();
  }
  const std::string m = error_of([&] { ImageReader{gathers}; });
  EXPECT_HAS(m, "image '" + gathers + "'");
  EXPECT_HAS(m, "not a seisfd image file");
  EXPECT_HAS(error_of([&] { ImageReader{path("none.h5")}; }), "does not exist");
}

TEST_F(IoImageTest, ImageXdmfEscapesFileName) {
  const std::string xmf = path("odd.xmf");
  write_image_xdmf(xmf, "a&b<c>.h5", test_geometry(), {"crosscorrelation"}, false);
  const std::string text = read_text(xmf);
  EXPECT_HAS(text, ">a&amp;b&lt;c&gt;.h5:/image/crosscorrelation<");
  EXPECT_EQ(text.find("illumination"), std::string::npos);
  EXPECT_EQ(count_substr(text, "<Attribute "), 1u);
}
