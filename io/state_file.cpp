#include "io/state_file.hpp"

#include <cstdio>
#include <vector>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {
namespace {

constexpr const char* kFormat = "seisfd-state-1";

}  // namespace

void write_state_file(const std::string& path, const StateImage& img) {
  h5::silence_errors();
  const std::string partial = path + ".partial";
  try {
    h5::File f{H5_CHECK(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    h5::write_attribute(f.get(), "format", std::string(kFormat));
    h5::write_attribute(f.get(), "engine", img.engine);
    h5::write_attribute(f.get(), "step", img.step);
    for (const StateArray& a : img.arrays) {
      if (a.element_bytes != 4 && a.element_bytes != 8)
        throw IoError("state array '" + a.name + "': elements of " +
                      std::to_string(a.element_bytes) + " bytes");
      const hsize_t n = a.data.size() / a.element_bytes;
      h5::Dataspace space = h5::make_space({n});
      const hid_t file_type = a.element_bytes == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
      const hid_t mem_type = a.element_bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      h5::Dataset d{H5_CHECK(H5Dcreate2(f.get(), a.name.c_str(), file_type, space.get(),
                                        H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
      if (n > 0)
        H5_CHECK(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()));
      H5_CHECK(d.close());
    }
    H5_CHECK(H5Fflush(f.get(), H5F_SCOPE_GLOBAL));
    H5_CHECK(f.close());
  } catch (const IoError& e) {
    std::remove(partial.c_str());
    throw IoError("cannot write state file '" + path + "': " + e.what());
  }
  detail::rename_file(partial, path);
}

StateImage read_state_file(const std::string& path) {
  h5::silence_errors();
  StateImage img;
  try {
    h5::File f{H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT))};
    if (h5::read_string(f.get(), "format") != kFormat)
      throw IoError("not a seisfd state file (format attribute)");
    img.engine = h5::read_string(f.get(), "engine");
    img.step = static_cast<int>(h5::read_scalar(f.get(), "step"));
    H5G_info_t info;
    H5_CHECK(H5Gget_info(f.get(), &info));
    // In name order: states load their arrays by name.
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      char name[256];
      H5_CHECK(H5Lget_name_by_idx(f.get(), ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name,
                                  H5P_DEFAULT));
      h5::Dataset d{H5_CHECK(H5Dopen2(f.get(), name, H5P_DEFAULT))};
      h5::Datatype t{H5_CHECK(H5Dget_type(d.get()))};
      h5::Dataspace s{H5_CHECK(H5Dget_space(d.get()))};
      const hssize_t n = H5Sget_simple_extent_npoints(s.get());
      StateArray a;
      a.name = name;
      a.element_bytes = static_cast<int>(H5Tget_size(t.get()));
      if (a.element_bytes != 4 && a.element_bytes != 8)
        throw IoError(std::string("array '") + name + "' is not float32 or float64");
      a.data.resize(static_cast<size_t>(n) * a.element_bytes);
      const hid_t mem_type = a.element_bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      if (n > 0) H5_CHECK(H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()));
      img.arrays.push_back(std::move(a));
    }
  } catch (const IoError& e) {
    throw IoError("cannot read state file '" + path + "': " + e.what());
  }
  return img;
}

}  // namespace seisfd::io
