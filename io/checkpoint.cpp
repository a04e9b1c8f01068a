#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {
namespace {

constexpr const char* kFormat = "seisfd-checkpoint-1";

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw IoError("cannot open '" + path + "' to sync it: " + std::strerror(err));
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot sync a directory; the file itself is what must be on disk.
  if (rc != 0 && !(directory && (err == EINVAL || err == EROFS)))
    throw IoError("cannot sync '" + path + "': " + std::strerror(err));
}

void write_array(hid_t loc, const std::string& name, const void* data, size_t n, int bytes) {
  const h5::Dataspace space = h5::make_space({static_cast<hsize_t>(n)});
  const hid_t file_type = bytes == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  const hid_t mem_type = bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  h5::Dataset d{H5_CHECK(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT))};
  if (n > 0) H5_CHECK(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  H5_CHECK(d.close());
}

StateArray read_array(hid_t loc, const std::string& name) {
  const h5::Dataset d{H5_CHECK(H5Dopen2(loc, name.c_str(), H5P_DEFAULT))};
  const h5::Datatype t{H5_CHECK(H5Dget_type(d.get()))};
  const h5::Dataspace s{H5_CHECK(H5Dget_space(d.get()))};
  const hssize_t n = H5_CHECK(H5Sget_simple_extent_npoints(s.get()));
  StateArray a;
  a.name = name;
  a.element_bytes = static_cast<int>(H5Tget_size(t.get()));
  if (H5Tget_class(t.get()) != H5T_FLOAT || (a.element_bytes != 4 && a.element_bytes != 8))
    throw IoError("array '" + name + "' is not float32 or float64");
  a.data.resize(static_cast<size_t>(n) * a.element_bytes);
  const hid_t mem_type = a.element_bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (n > 0) H5_CHECK(H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()));
  return a;
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  h5::silence_errors();
  const std::string partial = path + ".partial";
  try {
    h5::File f{H5_CHECK(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const hid_t root = f.get();
    h5::write_attribute(root, "format", std::string(kFormat));
    h5::write_attribute(root, "config_digest", c.config_digest);
    h5::write_attribute(root, "shot", c.shot);
    h5::write_attribute(root, "snapshots", c.snapshots);
    h5::write_attribute(root, "receivers", c.receivers);
    h5::write_attribute(root, "nt", c.nt);
    h5::write_attribute(root, "engine", c.state.engine);
    h5::write_attribute(root, "step", c.state.step);
    write_array(root, "traces", c.traces.data(), c.traces.size(), 8);
    h5::Group state{H5_CHECK(H5Gcreate2(root, "state", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    for (const StateArray& a : c.state.arrays) {
      if (a.element_bytes != 4 && a.element_bytes != 8)
        throw IoError("state array '" + a.name + "': elements of " +
                      std::to_string(a.element_bytes) + " bytes");
      write_array(state.get(), a.name, a.data.data(), a.data.size() / a.element_bytes,
                  a.element_bytes);
    }
    H5_CHECK(state.close());
    H5_CHECK(H5Fflush(root, H5F_SCOPE_GLOBAL));
    H5_CHECK(f.close());
    fsync_path(partial, false);
    detail::rename_file(partial, path);
    const std::string dir = std::filesystem::path(path).parent_path().string();
    fsync_path(dir.empty() ? "." : dir, true);
  } catch (const IoError& e) {
    std::remove(partial.c_str());
    throw IoError("checkpoint '" + path + "': " + e.what());
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  h5::silence_errors();
  Checkpoint c;
  try {
    if (H5Fis_hdf5(path.c_str()) <= 0) throw IoError("not an HDF5 file");
    const h5::File f{H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT))};
    const hid_t root = f.get();
    if (h5::read_string(root, "format") != kFormat)
      throw IoError(std::string("not a seisfd checkpoint (format is not '") + kFormat + "')");
    c.config_digest = h5::read_string(root, "config_digest");
    c.shot = static_cast<int>(h5::read_scalar(root, "shot"));
    c.snapshots = static_cast<int>(h5::read_scalar(root, "snapshots"));
    c.receivers = static_cast<int>(h5::read_scalar(root, "receivers"));
    c.nt = static_cast<int>(h5::read_scalar(root, "nt"));
    c.state.engine = h5::read_string(root, "engine");
    c.state.step = static_cast<int>(h5::read_scalar(root, "step"));
    const StateArray traces = read_array(root, "traces");
    if (traces.element_bytes != 8 ||
        traces.data.size() != static_cast<size_t>(c.receivers) * c.nt * sizeof(double))
      throw IoError("dataset traces does not hold receivers x nt float64 values");
    c.traces.resize(traces.data.size() / sizeof(double));
    // A rank of a decomposed run may hold no receiver: no bytes, and no pointer to pass on.
    if (!c.traces.empty()) std::memcpy(c.traces.data(), traces.data.data(), traces.data.size());
    const h5::Group state{H5_CHECK(H5Gopen2(root, "state", H5P_DEFAULT))};
    for (const std::string& name : h5::children(state.get(), H5I_DATASET))
      c.state.arrays.push_back(read_array(state.get(), name));
  } catch (const IoError& e) {
    throw IoError("checkpoint '" + path + "': " + e.what());
  }
  return c;
}

}  // namespace seisfd::io
