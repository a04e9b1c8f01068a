#include "io/gathers.hpp"

#include <cstdio>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {

struct GatherWriter::Impl {
  std::string partial;
  h5::File file;
  bool finished = false;
};

namespace {

// Prefixes low-level errors with the file being written, so the user sees which output failed.
[[noreturn]] void rethrow_for(const std::string& path, const IoError& e) {
  throw IoError("gathers '" + path + "': " + e.what());
}

std::string shot_group_name(int shot) {
  char name[32];
  std::snprintf(name, sizeof name, "shot_%04d", shot);
  return name;
}

}  // namespace

GatherWriter::GatherWriter(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  impl_->partial = path + ".partial";
  try {
    impl_->file = h5::File{
        H5_CHECK(H5Fcreate(impl_->partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    h5::write_attribute(impl_->file.get(), "format", std::string("seisfd-gathers-1"));
    h5::write_attribute(impl_->file.get(), "complete", 0);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e);
  }
}

// Closing flushes; complete stays 0 and the .partial name stays, so the file says what it is.
GatherWriter::~GatherWriter() = default;

void GatherWriter::write_shot(int shot, const float* traces, int nrec, int nt,
                              const double* receivers, const std::array<double, 3>& source,
                              double dt, double t0, const std::string& units) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("gathers '" + path_ + "': write_shot after finish()");
  if (shot < 0) {
    throw IoError("gathers '" + path_ + "': negative shot index " + std::to_string(shot));
  }
  if (nrec <= 0 || nt <= 0 || traces == nullptr || receivers == nullptr) {
    throw IoError("gathers '" + path_ + "': shot " + std::to_string(shot) + " has nrec " +
                  std::to_string(nrec) + ", nt " + std::to_string(nt) +
                  " (both must be positive, with data)");
  }
  const std::string name = shot_group_name(shot);
  try {
    const hid_t file = impl_->file.get();
    if (H5_CHECK(H5Lexists(file, name.c_str(), H5P_DEFAULT)) > 0) {
      throw IoError("shot " + std::to_string(shot) + " (/" + name + ") is already written");
    }
    const h5::Group group{
        H5_CHECK(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    const hsize_t n_rec = static_cast<hsize_t>(nrec), n_t = static_cast<hsize_t>(nt);
    {
      const h5::Dataspace space = h5::make_space({n_rec, n_t});
      h5::Dataset p{H5_CHECK(H5Dcreate2(group.get(), "p", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT,
                                        H5P_DEFAULT, H5P_DEFAULT))};
      H5_CHECK(H5Dwrite(p.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, traces));
      H5_CHECK(p.close());
    }
    {
      const h5::Dataspace space = h5::make_space({n_rec, 3});
      h5::Dataset rec{H5_CHECK(H5Dcreate2(group.get(), "receivers", H5T_IEEE_F64LE, space.get(),
                                          H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
      H5_CHECK(H5Dwrite(rec.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, receivers));
      H5_CHECK(rec.close());
    }
    h5::write_attribute(group.get(), "source", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, source.data(),
                        {3});
    h5::write_attribute(group.get(), "dt", dt);
    h5::write_attribute(group.get(), "t0", t0);
    h5::write_attribute(group.get(), "units", units);
    // Each finished shot reaches the disk, so a run that dies later keeps it.
    H5_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e);
  }
}

void GatherWriter::finish() {
  h5::silence_errors();
  if (impl_->finished) return;
  try {
    h5::write_attribute(impl_->file.get(), "complete", 1);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
    H5_CHECK(impl_->file.close());
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e);
  }
  impl_->finished = true;
  detail::rename_file(impl_->partial, path_);
}

}  // namespace seisfd::io
