#include "io/model_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {

namespace {

// Model volumes come from the model.path config key; messages start with it so the user
// knows which setting to fix.
constexpr const char* kKey = "model.path: ";

std::string shape_string(const hsize_t* dims, int rank) {
  std::string s;
  for (int i = 0; i < rank; ++i) s += "[" + std::to_string(dims[i]) + "]";
  return s;
}

}  // namespace

std::vector<float> read_volume(const std::string& path, const std::string& dataset,
                               const std::array<int, 3>& expected_zyx, int z0, int z1) {
  h5::silence_errors();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw IoError(std::string(kKey) + "model file '" + path + "' does not exist");
  }
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    throw IoError(std::string(kKey) + "'" + path + "' is not an HDF5 file");
  }
  const std::string where = "dataset '" + dataset + "' in '" + path + "'";
  try {
    const h5::File file{H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT))};
    // H5Lexists fails (< 0) when a group on the way ("a" in "a/b") is missing, and
    // H5Oexists_by_name catches a dangling link: all of these mean the dataset is absent.
    if (dataset.empty() || H5Lexists(file.get(), dataset.c_str(), H5P_DEFAULT) <= 0 ||
        H5Oexists_by_name(file.get(), dataset.c_str(), H5P_DEFAULT) <= 0) {
      throw IoError(std::string(kKey) + "no " + where);
    }
    const h5::Dataset dset{H5_CHECK(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT))};
    const h5::Dataspace space{H5_CHECK(H5Dget_space(dset.get()))};
    const int rank = H5_CHECK(H5Sget_simple_extent_ndims(space.get()));
    const hsize_t want[3] = {hsize_t(expected_zyx[0]), hsize_t(expected_zyx[1]),
                             hsize_t(expected_zyx[2])};
    if (rank != 3) {
      throw IoError(std::string(kKey) + where + " has rank " + std::to_string(rank) +
                    " but the grid needs a 3D array " + shape_string(want, 3) + " (z,y,x)");
    }
    hsize_t dims[3] = {0, 0, 0};
    H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims, nullptr));
    if (dims[0] != want[0] || dims[1] != want[1] || dims[2] != want[2]) {
      throw IoError(std::string(kKey) + where + " has shape " + shape_string(dims, 3) +
                    " (z,y,x) but the grid needs " + shape_string(want, 3));
    }
    const h5::Datatype type{H5_CHECK(H5Dget_type(dset.get()))};
    if (H5_CHECK(H5Tget_class(type.get())) != H5T_FLOAT) {
      throw IoError(std::string(kKey) + where + " is not a floating-point array");
    }
    if (z1 < 0) z1 = static_cast<int>(dims[0]);
    const hsize_t start[3] = {hsize_t(z0), 0, 0}, count[3] = {hsize_t(z1 - z0), dims[1], dims[2]};
    std::vector<float> out(count[0] * count[1] * count[2]);
    if (out.empty()) return out;
    H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr));
    const h5::Dataspace mem = h5::make_space({count[0], count[1], count[2]});
    // HDF5 converts float64 (or big-endian) data on disk to native float on the way in.
    H5_CHECK(
        H5Dread(dset.get(), H5T_NATIVE_FLOAT, mem.get(), space.get(), H5P_DEFAULT, out.data()));
    return out;
  } catch (const IoError& e) {
    const std::string what = e.what();
    if (what.rfind(kKey, 0) == 0) throw;
    throw IoError(std::string(kKey) + "reading " + where + ": " + what);
  }
}

void write_model_file(const std::string& path, const ModelGeometry& g,
                      const std::vector<ModelField>& fields) {
  h5::silence_errors();
  const auto fail = [&](const std::string& what) {
    throw IoError("model '" + path + "': " + what);
  };
  if (g.nz <= 0 || g.ny <= 0 || g.nx <= 0) fail("shape must be positive");
  for (int a = 0; a < 3; ++a) {
    if (!(g.spacing[a] > 0) || !std::isfinite(g.spacing[a])) fail("spacing must be positive");
    if (!std::isfinite(g.origin[a])) fail("origin must be finite");
  }
  if (fields.empty()) fail("no field to write");
  std::vector<std::string> names;
  for (const ModelField& f : fields) {
    const bool plain = !f.name.empty() && std::all_of(f.name.begin(), f.name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!plain || f.data == nullptr) fail("invalid field '" + f.name + "'");
    names.push_back(f.name);
  }
  const std::string partial = path + ".partial";
  try {
    h5::File file{H5_CHECK(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const hid_t root = file.get();
    h5::write_attribute(root, "format", std::string("seisfd-model-1"));
    h5::write_attribute(root, "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.spacing.data(), {3});
    h5::write_attribute(root, "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.origin.data(), {3});
    h5::write_attribute(root, "axis_order", std::string("z,y,x"));
    h5::write_attribute(root, "complete", 0);
    const h5::Dataspace space = h5::make_space({hsize_t(g.nz), hsize_t(g.ny), hsize_t(g.nx)});
    for (const ModelField& f : fields) {
      h5::Dataset d{H5_CHECK(H5Dcreate2(root, f.name.c_str(), H5T_IEEE_F32LE, space.get(),
                                        H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
      H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, f.data));
      h5::write_attribute(d.get(), "units", f.units);
    }
    h5::write_attribute(root, "complete", 1);
    H5_CHECK(file.close());
  } catch (const IoError& e) {
    throw IoError("model '" + partial + "': " + e.what());
  }
  detail::rename_file(partial, path);
  write_model_xdmf(std::filesystem::path(path).replace_extension(".xmf").string(),
                   std::filesystem::path(path).filename().string(), g, names);
}

void write_volume(const std::string& path, const std::string& dataset,
                  const std::array<int, 3>& zyx, const float* data) {
  h5::silence_errors();
  if (zyx[0] <= 0 || zyx[1] <= 0 || zyx[2] <= 0 || data == nullptr) {
    throw IoError("write_volume '" + path + "': shape must be positive, with data");
  }
  try {
    h5::File file{H5_CHECK(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const h5::Dataspace space = h5::make_space({hsize_t(zyx[0]), hsize_t(zyx[1]), hsize_t(zyx[2])});
    h5::Dataset dset{H5_CHECK(H5Dcreate2(file.get(), dataset.c_str(), H5T_IEEE_F32LE, space.get(),
                                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    H5_CHECK(H5Dwrite(dset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
    H5_CHECK(dset.close());
    H5_CHECK(file.close());
  } catch (const IoError& e) {
    throw IoError("write_volume '" + path + "' dataset '" + dataset + "': " + e.what());
  }
}

}  // namespace seisfd::io
