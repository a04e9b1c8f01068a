#include "io/snapshots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {

struct SnapshotWriter::Impl {
  std::string partial;
  SnapshotGeometry geom;
  std::vector<double> times;
  h5::File file;
  // Declared after file so they are closed before it (members die in reverse order).
  h5::Dataset p;
  h5::Dataset time;
  bool finished = false;

  std::string discard() {
    p.reset();
    time.reset();
    return h5::discard_after_failed_write(file, partial);
  }
};

namespace {

[[noreturn]] void rethrow_for(const std::string& path, const IoError& e,
                              const std::string& note = "") {
  throw IoError("snapshots '" + path + "': " + e.what() + note);
}

// One snapshot per chunk, unless a snapshot exceeds HDF5's chunk size limit (< 4 GiB): then
// the chunk keeps whole x-y planes and as many z planes as fit ([1][k][ny][nx]); only if one
// plane is itself too big are y rows (then x samples) split the same way.
std::array<hsize_t, 4> chunk_dims(const SnapshotGeometry& g) {
  const std::uint64_t limit = 0xffffffffULL;  // bytes, H5D chunk size must fit 32 bits
  std::array<hsize_t, 4> c{1, static_cast<hsize_t>(g.nz), static_cast<hsize_t>(g.ny),
                           static_cast<hsize_t>(g.nx)};
  for (int a = 1; a < 4; ++a) {
    std::uint64_t inner = sizeof(float);
    for (int b = a + 1; b < 4; ++b) inner *= c[b];
    if (inner * c[a] <= limit) break;
    c[a] = std::max<std::uint64_t>(1, limit / inner);
  }
  return c;
}

void validate(const std::string& path, const SnapshotGeometry& g) {
  auto bad = [&](const std::string& what) {
    throw IoError("snapshots '" + path + "': invalid geometry: " + what);
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

// snapshots.h5 -> snapshots.xmf, next to it.
std::string xmf_path_for(const std::string& h5_path) {
  return std::filesystem::path(h5_path).replace_extension(".xmf").string();
}

}  // namespace

SnapshotWriter::SnapshotWriter(const std::string& path, const SnapshotGeometry& g)
    : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  validate(path, g);
  impl_->partial = path + ".partial";
  impl_->geom = g;
  try {
    impl_->file = h5::File{
        H5_CHECK(H5Fcreate(impl_->partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    const hid_t file = impl_->file.get();
    const hsize_t nz = g.nz, ny = g.ny, nx = g.nx;
    {
      const hsize_t dims[4] = {0, nz, ny, nx};
      const hsize_t maxdims[4] = {H5S_UNLIMITED, nz, ny, nx};
      const h5::Dataspace space{H5_CHECK(H5Screate_simple(4, dims, maxdims))};
      const h5::PropList dcpl{H5_CHECK(H5Pcreate(H5P_DATASET_CREATE))};
      const std::array<hsize_t, 4> chunk = chunk_dims(g);
      H5_CHECK(H5Pset_chunk(dcpl.get(), 4, chunk.data()));
      impl_->p = h5::Dataset{H5_CHECK(H5Dcreate2(file, "p", H5T_IEEE_F32LE, space.get(),
                                                 H5P_DEFAULT, dcpl.get(), H5P_DEFAULT))};
      h5::write_attribute(impl_->p.get(), "units", std::string("Pa"));
    }
    {
      const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {512};
      const h5::Dataspace space{H5_CHECK(H5Screate_simple(1, dims, maxdims))};
      const h5::PropList dcpl{H5_CHECK(H5Pcreate(H5P_DATASET_CREATE))};
      H5_CHECK(H5Pset_chunk(dcpl.get(), 1, chunk));
      impl_->time = h5::Dataset{H5_CHECK(H5Dcreate2(file, "time", H5T_IEEE_F64LE, space.get(),
                                                    H5P_DEFAULT, dcpl.get(), H5P_DEFAULT))};
      h5::write_attribute(impl_->time.get(), "units", std::string("s"));
    }
    h5::write_attribute(file, "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.spacing.data(), {3});
    h5::write_attribute(file, "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, g.origin.data(), {3});
    h5::write_attribute(file, "decimation", H5T_STD_I32LE, H5T_NATIVE_INT, g.decimation.data(),
                        {3});
    h5::write_attribute(file, "axis_order", std::string("z,y,x"));
    h5::write_attribute(file, "complete", 0);
    H5_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, impl_->discard());
  }
}

SnapshotWriter::SnapshotWriter(const std::string& path, const SnapshotGeometry& g, Resume resume)
    : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  validate(path, g);
  impl_->partial = path + ".partial";
  impl_->geom = g;
  try {
    if (H5Fis_hdf5(impl_->partial.c_str()) <= 0) throw IoError("cannot resume: no such HDF5 file");
    impl_->file = h5::File{H5_CHECK(H5Fopen(impl_->partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT))};
    impl_->p = h5::Dataset{H5_CHECK(H5Dopen2(impl_->file.get(), "p", H5P_DEFAULT))};
    impl_->time = h5::Dataset{H5_CHECK(H5Dopen2(impl_->file.get(), "time", H5P_DEFAULT))};
    const auto ps = h5::dataset_shape(impl_->p.get()), ts = h5::dataset_shape(impl_->time.get());
    if (ps.size() != 4 || ps[1] != hsize_t(g.nz) || ps[2] != hsize_t(g.ny) ||
        ps[3] != hsize_t(g.nx) || ts.size() != 1 || ts[0] != ps[0])
      throw IoError("cannot resume: dataset p has shape " + h5::shape_string(ps) +
                    ", another geometry than this run's");
    if (ps[0] < hsize_t(resume.keep))
      throw IoError("cannot resume: it holds " + std::to_string(ps[0]) + " snapshots, the " +
                    "checkpoint counts " + std::to_string(resume.keep));
    const hsize_t keep = static_cast<hsize_t>(resume.keep);
    impl_->times.resize(static_cast<size_t>(ps[0]));
    if (!impl_->times.empty())
      H5_CHECK(H5Dread(impl_->time.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       impl_->times.data()));
    impl_->times.resize(static_cast<size_t>(keep));
    const hsize_t pdims[4] = {keep, ps[1], ps[2], ps[3]}, tdims[1] = {keep};
    H5_CHECK(H5Dset_extent(impl_->p.get(), pdims));
    H5_CHECK(H5Dset_extent(impl_->time.get(), tdims));
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e);
  }
}

// Closing flushes; complete stays 0, the .partial name stays and no .xmf is written.
SnapshotWriter::~SnapshotWriter() = default;

void SnapshotWriter::append(double time, const float* data) {
  h5::silence_errors();
  if (impl_->finished) throw IoError("snapshots '" + path_ + "': append after finish()");
  if (data == nullptr) throw IoError("snapshots '" + path_ + "': append with no data");
  const SnapshotGeometry& g = impl_->geom;
  const hsize_t n = impl_->times.size();
  try {
    {
      const hsize_t dims[4] = {n + 1, hsize_t(g.nz), hsize_t(g.ny), hsize_t(g.nx)};
      H5_CHECK(H5Dset_extent(impl_->p.get(), dims));
      const h5::Dataspace fspace{H5_CHECK(H5Dget_space(impl_->p.get()))};
      const hsize_t start[4] = {n, 0, 0, 0};
      const hsize_t count[4] = {1, hsize_t(g.nz), hsize_t(g.ny), hsize_t(g.nx)};
      H5_CHECK(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr));
      const h5::Dataspace mspace{H5_CHECK(H5Screate_simple(4, count, nullptr))};
      H5_CHECK(H5Dwrite(impl_->p.get(), H5T_NATIVE_FLOAT, mspace.get(), fspace.get(), H5P_DEFAULT,
                        data));
    }
    {
      const hsize_t dims[1] = {n + 1}, start[1] = {n}, count[1] = {1};
      H5_CHECK(H5Dset_extent(impl_->time.get(), dims));
      const h5::Dataspace fspace{H5_CHECK(H5Dget_space(impl_->time.get()))};
      H5_CHECK(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr));
      const h5::Dataspace mspace{H5_CHECK(H5Screate_simple(1, count, nullptr))};
      H5_CHECK(H5Dwrite(impl_->time.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(),
                        H5P_DEFAULT, &time));
    }
    // A reader can follow a running job: every appended snapshot is on disk.
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, impl_->discard());
  }
  impl_->times.push_back(time);
}

int SnapshotWriter::count() const {
  return static_cast<int>(impl_->times.size());
}

void SnapshotWriter::finish() {
  h5::silence_errors();
  if (impl_->finished) return;
  try {
    H5_CHECK(impl_->p.close());
    H5_CHECK(impl_->time.close());
    h5::write_attribute(impl_->file.get(), "complete", 1);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
    H5_CHECK(impl_->file.close());
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, impl_->discard());
  }
  impl_->finished = true;
  detail::rename_file(impl_->partial, path_);
  const std::string h5_name = std::filesystem::path(path_).filename().string();
  write_snapshots_xdmf(xmf_path_for(path_), h5_name, impl_->geom, impl_->times.data(), count());
}

}  // namespace seisfd::io
