#include "io/image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {

namespace {

constexpr const char* kFormat = "seisfd-image-1";

[[noreturn]] void rethrow_for(const std::string& path, const IoError& e,
                              const std::string& note = "") {
  throw IoError("image '" + path + "': " + e.what() + note);
}

void validate(const std::string& path, const ImageGeometry& g) {
  auto bad = [&](const std::string& what) {
    throw IoError("image '" + path + "': invalid geometry: " + what);
  };
  if (g.nz <= 0 || g.ny <= 0 || g.nx <= 0) {
    bad("shape [" + std::to_string(g.nz) + "][" + std::to_string(g.ny) + "][" +
        std::to_string(g.nx) + "] (z,y,x) must be positive");
  }
  for (int a = 0; a < 3; ++a) {
    if (g.decimation[a] < 1) bad("decimation must be >= 1");
    if (!(g.spacing[a] > 0) || !std::isfinite(g.spacing[a])) bad("spacing must be positive");
    if (!std::isfinite(g.origin[a])) bad("origin must be finite");
  }
}

// Names become HDF5 link names and XDMF attribute names: keep them plain.
void validate_name(const std::string& path, const std::string& name) {
  const bool plain =
      !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
      });
  if (!plain) {
    throw IoError("image '" + path + "': image name '" + name +
                  "' must be letters, digits, '_', '-' or '.', not starting with '.'");
  }
}

std::string xmf_path_for(const std::string& h5_path) {
  return std::filesystem::path(h5_path).replace_extension(".xmf").string();
}

h5::Group open_or_create_group(hid_t loc, const std::string& name) {
  if (H5_CHECK(H5Lexists(loc, name.c_str(), H5P_DEFAULT)) > 0) {
    return h5::Group{H5_CHECK(H5Gopen2(loc, name.c_str(), H5P_DEFAULT))};
  }
  return h5::Group{H5_CHECK(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
}

// Creates loc/name as float32 [nz][ny][nx], or opens it when it exists, and writes data.
void write_volume(hid_t loc, const std::string& name, const ImageGeometry& g, const float* data) {
  const std::vector<hsize_t> want = {hsize_t(g.nz), hsize_t(g.ny), hsize_t(g.nx)};
  h5::Dataset d;
  if (H5_CHECK(H5Lexists(loc, name.c_str(), H5P_DEFAULT)) > 0) {
    d = h5::Dataset{H5_CHECK(H5Dopen2(loc, name.c_str(), H5P_DEFAULT))};
    if (h5::dataset_shape(d.get()) != want) {
      throw IoError("dataset " + name + " exists with shape " +
                    h5::shape_string(h5::dataset_shape(d.get())));
    }
  } else {
    const h5::Dataspace space = h5::make_space({want[0], want[1], want[2]});
    d = h5::Dataset{H5_CHECK(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT,
                                        H5P_DEFAULT, H5P_DEFAULT))};
  }
  H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  H5_CHECK(d.close());
}

std::vector<double> read_numbers(hid_t obj, const char* name, size_t count) {
  std::vector<double> v = h5::read_numbers(obj, name);
  if (v.size() != count)
    throw IoError(std::string("attribute ") + name + " is not " + std::to_string(count) +
                  " number(s)");
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------- writer

struct ImageWriter::Impl {
  std::string partial;
  ImageGeometry geom;
  h5::File file;
  std::vector<std::string> images;  // in the order first written, for the XDMF
  bool illumination = false;
  bool finished = false;
};

ImageWriter::ImageWriter(const std::string& path, const ImageGeometry& g)
    : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  validate(path, g);
  impl_->partial = path + ".partial";
  impl_->geom = g;
  try {
    impl_->file = h5::File{
        H5_CHECK(H5Fcreate(impl_->partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const hid_t file = impl_->file.get();
    h5::write_attribute(file, "format", std::string(kFormat));
    h5::write_attribute(file, "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.spacing.data(), {3});
    h5::write_attribute(file, "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.origin.data(), {3});
    h5::write_attribute(file, "decimation", H5T_STD_I32LE, H5T_NATIVE_INT, g.decimation.data(),
                        {3});
    h5::write_attribute(file, "axis_order", std::string("z,y,x"));
    h5::write_attribute(file, "units", std::string("arbitrary"));
    h5::write_attribute(file, "shots", 0);
    h5::write_attribute(file, "complete", 0);
    H5_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
}

// Closing flushes; complete stays 0, the .partial name stays and no .xmf is written.
ImageWriter::~ImageWriter() = default;

void ImageWriter::write(const std::string& name, const float* data) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("image '" + path_ + "': write after finish()");
  validate_name(path_, name);
  if (data == nullptr) throw IoError("image '" + path_ + "': image '" + name + "' has no data");
  try {
    const h5::Group group = open_or_create_group(impl_->file.get(), "image");
    write_volume(group.get(), name, impl_->geom, data);
    // A reader can follow a running job: every image written is on disk.
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
  auto& images = impl_->images;
  if (std::find(images.begin(), images.end(), name) == images.end()) images.push_back(name);
}

void ImageWriter::write_illumination(const float* data) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("image '" + path_ + "': write after finish()");
  if (data == nullptr) throw IoError("image '" + path_ + "': illumination has no data");
  try {
    write_volume(impl_->file.get(), "illumination", impl_->geom, data);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
  impl_->illumination = true;
}

void ImageWriter::write_shot(int shot, const std::string& name, const float* data) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("image '" + path_ + "': write after finish()");
  if (shot < 0) {
    throw IoError("image '" + path_ + "': negative shot index " + std::to_string(shot));
  }
  validate_name(path_, name);
  if (data == nullptr) {
    throw IoError("image '" + path_ + "': shot " + std::to_string(shot) + " image '" + name +
                  "' has no data");
  }
  try {
    const h5::Group shots = open_or_create_group(impl_->file.get(), "shots");
    const h5::Group group = open_or_create_group(shots.get(), h5::shot_group_name(shot));
    write_volume(group.get(), name, impl_->geom, data);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
}

void ImageWriter::set_shots(int shots) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("image '" + path_ + "': set_shots after finish()");
  try {
    h5::write_attribute(impl_->file.get(), "shots", shots);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
}

void ImageWriter::finish() {
  h5::silence_errors();
  if (impl_->finished) return;
  try {
    h5::write_attribute(impl_->file.get(), "complete", 1);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
    H5_CHECK(impl_->file.close());
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
  impl_->finished = true;
  detail::rename_file(impl_->partial, path_);
  const std::string h5_name = std::filesystem::path(path_).filename().string();
  write_image_xdmf(xmf_path_for(path_), h5_name, impl_->geom, impl_->images, impl_->illumination);
}

// ---------------------------------------------------------------------------------- reader

struct ImageReader::Impl {
  h5::File file;
  bool complete = false;
  int shots = 0;
  std::string units;
  ImageGeometry geom;

  // Reads loc/name as float32 [nz][ny][nx], checking it is a dataset of the file's shape.
  std::vector<float> read(const std::string& name) const {
    if (!h5::has_object(file.get(), name, H5I_DATASET)) throw IoError("no dataset /" + name);
    const h5::Dataset d{H5_CHECK(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT))};
    const std::vector<hsize_t> shape = h5::dataset_shape(d.get());
    const std::vector<hsize_t> want = {hsize_t(geom.nz), hsize_t(geom.ny), hsize_t(geom.nx)};
    if (shape != want) {
      throw IoError("dataset /" + name + " has shape " + h5::shape_string(shape) + ", expected " +
                    h5::shape_string(want));
    }
    std::vector<float> v(static_cast<size_t>(want[0]) * want[1] * want[2]);
    H5_CHECK(H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
    return v;
  }
};

ImageReader::ImageReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  try {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw IoError("file does not exist");
    if (H5Fis_hdf5(path.c_str()) <= 0) throw IoError("not an HDF5 file");
    impl_->file = h5::File{H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT))};
    const hid_t file = impl_->file.get();
    const std::string format =
        H5_CHECK(H5Aexists(file, "format")) > 0 ? h5::read_string(file, "format") : "";
    if (format != kFormat) {
      throw IoError("not a seisfd image file (format '" + format + "', expected '" + kFormat +
                    "')");
    }
    impl_->complete = read_numbers(file, "complete", 1)[0] != 0;
    impl_->shots = static_cast<int>(read_numbers(file, "shots", 1)[0]);
    impl_->units = h5::read_string(file, "units");
    ImageGeometry& g = impl_->geom;
    const std::vector<double> sp = read_numbers(file, "spacing", 3);
    const std::vector<double> org = read_numbers(file, "origin", 3);
    const std::vector<double> dec = read_numbers(file, "decimation", 3);
    for (int a = 0; a < 3; ++a) {
      g.spacing[a] = sp[a];
      g.origin[a] = org[a];
      g.decimation[a] = static_cast<int>(dec[a]);
    }
    // The shape is that of the datasets: the first image, else the illumination.
    std::string first;
    if (h5::has_object(file, "image", H5I_GROUP)) {
      const h5::Group group{H5_CHECK(H5Gopen2(file, "image", H5P_DEFAULT))};
      const std::vector<std::string> names = h5::children(group.get(), H5I_DATASET);
      if (!names.empty()) first = "image/" + names[0];
    }
    if (first.empty() && h5::has_object(file, "illumination", H5I_DATASET)) first = "illumination";
    if (!first.empty()) {
      const h5::Dataset d{H5_CHECK(H5Dopen2(file, first.c_str(), H5P_DEFAULT))};
      const std::vector<hsize_t> shape = h5::dataset_shape(d.get());
      if (shape.size() != 3) {
        throw IoError("dataset /" + first + " has shape " + h5::shape_string(shape) +
                      ", expected [nz][ny][nx]");
      }
      g.nz = static_cast<int>(shape[0]), g.ny = static_cast<int>(shape[1]);
      g.nx = static_cast<int>(shape[2]);
    }
  } catch (const IoError& e) {
    rethrow_for(path, e);
  }
}

ImageReader::~ImageReader() = default;
ImageReader::ImageReader(ImageReader&&) noexcept = default;
ImageReader& ImageReader::operator=(ImageReader&&) noexcept = default;

bool ImageReader::complete() const {
  return impl_->complete;
}
int ImageReader::shots() const {
  return impl_->shots;
}
const std::string& ImageReader::units() const {
  return impl_->units;
}
const ImageGeometry& ImageReader::geometry() const {
  return impl_->geom;
}

std::vector<std::string> ImageReader::names() const {
  h5::silence_errors();
  try {
    const hid_t file = impl_->file.get();
    if (!h5::has_object(file, "image", H5I_GROUP)) return {};
    const h5::Group group{H5_CHECK(H5Gopen2(file, "image", H5P_DEFAULT))};
    return h5::children(group.get(), H5I_DATASET);
  } catch (const IoError& e) {
    rethrow_for(path_, e);
  }
}

std::vector<float> ImageReader::read(const std::string& name) const {
  h5::silence_errors();
  try {
    if (name.empty() || name.find('/') != std::string::npos) {
      throw IoError("invalid image name '" + name + "'");
    }
    return impl_->read("image/" + name);
  } catch (const IoError& e) {
    rethrow_for(path_, e);
  }
}

bool ImageReader::has_illumination() const {
  h5::silence_errors();
  return h5::has_object(impl_->file.get(), "illumination", H5I_DATASET);
}

std::vector<float> ImageReader::read_illumination() const {
  h5::silence_errors();
  try {
    return impl_->read("illumination");
  } catch (const IoError& e) {
    rethrow_for(path_, e);
  }
}

std::vector<int> ImageReader::shot_images() const {
  h5::silence_errors();
  try {
    const hid_t file = impl_->file.get();
    if (!h5::has_object(file, "shots", H5I_GROUP)) return {};
    const h5::Group group{H5_CHECK(H5Gopen2(file, "shots", H5P_DEFAULT))};
    std::vector<int> out;
    for (const std::string& name : h5::children(group.get(), H5I_GROUP)) {
      int shot = -1;
      char tail = 0;
      if (std::sscanf(name.c_str(), "shot_%d%c", &shot, &tail) == 1 && shot >= 0 &&
          h5::shot_group_name(shot) == name) {
        out.push_back(shot);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  } catch (const IoError& e) {
    rethrow_for(path_, e);
  }
}

std::vector<float> ImageReader::read_shot(int shot, const std::string& name) const {
  h5::silence_errors();
  try {
    if (shot < 0) throw IoError("negative shot index");
    if (name.empty() || name.find('/') != std::string::npos) {
      throw IoError("invalid image name '" + name + "'");
    }
    return impl_->read("shots/" + h5::shot_group_name(shot) + "/" + name);
  } catch (const IoError& e) {
    throw IoError("image '" + path_ + "': shot " + std::to_string(shot) + ": " + e.what());
  }
}

}  // namespace seisfd::io
