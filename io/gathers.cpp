#include "io/gathers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>
#include <utility>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/h5.hpp"

namespace seisfd::io {

namespace {

constexpr const char* kFormat = "seisfd-gathers-1";

// Prefixes low-level errors with the file being written, so the user sees which output failed.
[[noreturn]] void rethrow_for(const std::string& path, const IoError& e,
                              const std::string& note = "") {
  throw IoError("gathers '" + path + "': " + e.what() + note);
}

// The shot index of a link name written by shot_group_name, or -1 for any other name.
int parse_shot_group_name(const char* name) {
  const std::string s(name);
  if (s.rfind("shot_", 0) != 0 || s.size() < 9 || s.size() > 14) return -1;
  long value = 0;
  for (size_t i = 5; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    value = value * 10 + (s[i] - '0');
  }
  if (value > 0x7fffffffL) return -1;
  const int shot = static_cast<int>(value);
  return h5::shot_group_name(shot) == s ? shot : -1;  // one spelling per shot: no "shot_00001"
}

// Indices of the /shot_NNNN links at the root, ascending (name order puts shot_10000 before
// shot_9999, hence the sort).
std::vector<int> list_shots(hid_t file) {
  H5G_info_t info;
  H5_CHECK(H5Gget_info(file, &info));
  std::vector<int> shots;
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    char name[64] = {};
    // Longer names are truncated, and then are not shot names.
    H5_CHECK(H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name,
                                H5P_DEFAULT));
    const int shot = parse_shot_group_name(name);
    if (shot >= 0) shots.push_back(shot);
  }
  std::sort(shots.begin(), shots.end());
  return shots;
}

// "0-2, 5, 7-9", or "none".
std::string describe_shots(const std::vector<int>& shots) {
  if (shots.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < shots.size();) {
    size_t j = i;
    while (j + 1 < shots.size() && shots[j + 1] == shots[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(shots[i]);
    if (j > i) out += "-" + std::to_string(shots[j]);
    i = j + 1;
  }
  return out;
}

// Checks the root attributes of an open gathers file; returns (complete, config_digest).
std::pair<bool, std::string> check_root(hid_t file) {
  if (H5_CHECK(H5Aexists(file, "format")) <= 0) {
    throw IoError(std::string("not a seisfd gathers file (no format attribute; expected '") +
                  kFormat + "')");
  }
  const std::string format = h5::read_string(file, "format");
  if (format != kFormat) {
    throw IoError("not a seisfd gathers file (format '" + format + "', expected '" + kFormat +
                  "')");
  }
  const bool complete = h5::read_scalar(file, "complete") != 0;
  std::string digest;
  if (H5_CHECK(H5Aexists(file, "config_digest")) > 0)
    digest = h5::read_string(file, "config_digest");
  return {complete, digest};
}

// Opens a gathers file that must exist; IoError (without the file prefix) otherwise.
h5::File open_existing(const std::string& path, unsigned flags) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::string msg = "file does not exist";
    if (std::filesystem::is_regular_file(path + ".partial", ec)) {
      msg += " ('" + path + ".partial', left by a run that stopped, does)";
    }
    throw IoError(msg);
  }
  if (H5Fis_hdf5(path.c_str()) <= 0) throw IoError("not an HDF5 file");
  return h5::File{H5_CHECK(H5Fopen(path.c_str(), flags, H5P_DEFAULT))};
}

// Reads and checks /shot_NNNN; the traces only when with_traces. Errors carry no prefix.
ShotData read_shot_group(hid_t file, int shot, bool with_traces) {
  if (shot < 0) throw IoError("negative shot index");
  const std::string name = h5::shot_group_name(shot);
  if (!h5::has_object(file, name, H5I_GROUP)) {
    throw IoError("no group /" + name + " (the file holds shots " +
                  describe_shots(list_shots(file)) + ")");
  }
  const h5::Group g{H5_CHECK(H5Gopen2(file, name.c_str(), H5P_DEFAULT))};
  if (H5_CHECK(H5Aexists(g.get(), "complete")) > 0 && h5::read_scalar(g.get(), "complete") == 0)
    throw IoError("/" + name + " holds the traces of a run that was stopped (complete = 0)");
  for (const char* d : {"p", "receivers"}) {
    if (!h5::has_object(g.get(), d, H5I_DATASET)) throw IoError("no dataset /" + name + "/" + d);
  }
  const h5::Dataset p{H5_CHECK(H5Dopen2(g.get(), "p", H5P_DEFAULT))};
  const h5::Dataset rec{H5_CHECK(H5Dopen2(g.get(), "receivers", H5P_DEFAULT))};
  const std::vector<hsize_t> ps = h5::dataset_shape(p.get()), rs = h5::dataset_shape(rec.get());
  if (rs.size() != 2 || rs[1] != 3) {
    throw IoError("dataset receivers has shape " + h5::shape_string(rs) +
                  ", expected [nreceivers][3]");
  }
  if (ps.size() != 2 || ps[0] != rs[0]) {
    throw IoError("dataset p has shape " + h5::shape_string(ps) + " but receivers has " +
                  std::to_string(rs[0]) + " rows");
  }
  if (ps[0] == 0 || ps[1] == 0) throw IoError("dataset p has shape " + h5::shape_string(ps));
  for (const hid_t d : {p.get(), rec.get()}) {
    const h5::Datatype t{H5_CHECK(H5Dget_type(d))};
    if (H5Tget_class(t.get()) != H5T_FLOAT) {
      throw IoError(std::string("dataset ") + (d == p.get() ? "p" : "receivers") +
                    " is not a floating-point array");
    }
  }
  ShotData s;
  s.shot = shot;
  s.nt = static_cast<int>(ps[1]);
  s.receivers.resize(rs[0]);
  H5_CHECK(H5Dread(rec.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                   s.receivers.data()->data()));
  for (size_t r = 0; r < s.receivers.size(); ++r) {
    for (double c : s.receivers[r]) {
      if (!std::isfinite(c)) throw IoError("receiver " + std::to_string(r) + " is not finite");
    }
  }
  const std::vector<double> src = h5::read_numbers(g.get(), "source");
  if (src.size() != 3) {
    throw IoError("attribute source has " + std::to_string(src.size()) + " values, expected 3");
  }
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(src[a])) throw IoError("attribute source is not finite");
    s.source[a] = src[a];
  }
  s.dt = h5::read_scalar(g.get(), "dt");
  if (!std::isfinite(s.dt) || !(s.dt > 0)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s.dt);
    throw IoError(std::string("attribute dt is ") + text + "; it must be finite and positive");
  }
  s.t0 = h5::read_scalar(g.get(), "t0");
  if (!std::isfinite(s.t0)) throw IoError("attribute t0 is not finite");
  s.units = h5::read_string(g.get(), "units");
  if (with_traces) {
    s.traces.resize(static_cast<size_t>(ps[0]) * ps[1]);
    H5_CHECK(H5Dread(p.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.traces.data()));
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------- writer

struct GatherWriter::Impl {
  std::string partial;
  h5::File file;
  std::set<int> shots;
  bool finished = false;
};

GatherWriter::GatherWriter(std::unique_ptr<Impl> impl, std::string path)
    : impl_(std::move(impl)), path_(std::move(path)) {}

GatherWriter::GatherWriter(const std::string& path, const std::string& config_digest)
    : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  impl_->partial = path + ".partial";
  try {
    impl_->file = h5::File{
        H5_CHECK(H5Fcreate(impl_->partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT))};
    h5::write_attribute(impl_->file.get(), "format", std::string(kFormat));
    h5::write_attribute(impl_->file.get(), "complete", 0);
    h5::write_attribute(impl_->file.get(), "config_digest", config_digest);
    H5_CHECK(H5Fflush(impl_->file.get(), H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
}

GatherWriter GatherWriter::resume(const std::string& path, const std::string& config_digest) {
  h5::silence_errors();
  auto impl = std::make_unique<Impl>();
  impl->partial = path + ".partial";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(impl->partial, ec)) {
    std::string msg = "gathers '" + impl->partial + "': cannot resume: the file does not exist";
    if (std::filesystem::is_regular_file(path, ec)) {
      msg += " ('" + path + "' does: the run that wrote it finished)";
    }
    throw IoError(msg);
  }
  try {
    impl->file = open_existing(impl->partial, H5F_ACC_RDWR);
    const hid_t file = impl->file.get();
    const auto [complete, digest] = check_root(file);
    if (complete) throw IoError("cannot resume: the file is marked complete");
    if (digest != config_digest) {
      throw IoError("was started with another config (digest " +
                    (digest.empty() ? std::string("none") : digest) + ", this config's is " +
                    (config_digest.empty() ? std::string("none") : config_digest) +
                    "); rerun without --resume");
    }
    for (const int shot : list_shots(file)) {
      try {
        read_shot_group(file, shot, false);
        impl->shots.insert(shot);
      } catch (const IoError&) {
        // Left by a write that failed half-way: drop it so the shot is modelled again.
        H5_CHECK(H5Ldelete(file, h5::shot_group_name(shot).c_str(), H5P_DEFAULT));
      }
    }
    H5_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    rethrow_for(impl->partial, e);
  }
  return GatherWriter(std::move(impl), path);
}

// Closing flushes; complete stays 0 and the .partial name stays, so the file says what it is.
GatherWriter::~GatherWriter() = default;
GatherWriter::GatherWriter(GatherWriter&&) noexcept = default;
GatherWriter& GatherWriter::operator=(GatherWriter&&) noexcept = default;

void GatherWriter::write_shot(int shot, const float* traces, int nrec, int nt,
                              const double* receivers, const std::array<double, 3>& source,
                              double dt, double t0, const std::string& units, bool complete) {
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
  const std::string name = h5::shot_group_name(shot);
  const hid_t file = impl_->file.get();
  bool created = false;
  try {
    if (H5_CHECK(H5Lexists(file, name.c_str(), H5P_DEFAULT)) > 0) {
      throw IoError("shot " + std::to_string(shot) + " (/" + name + ") is already written");
    }
  } catch (const IoError& e) {
    rethrow_for(impl_->partial, e);
  }
  try {
    const h5::Group group{
        H5_CHECK(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))};
    created = true;
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
    h5::write_attribute(group.get(), "complete", complete ? 1 : 0);
    // Each finished shot reaches the disk, so a run that dies later keeps it.
    H5_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL));
  } catch (const IoError& e) {
    // A half-written shot must not look written (best effort: the file may be what failed).
    if (created) H5Ldelete(file, name.c_str(), H5P_DEFAULT);
    rethrow_for(impl_->partial, e, h5::discard_after_failed_write(impl_->file, impl_->partial));
  }
  impl_->shots.insert(shot);
}

std::vector<int> GatherWriter::shots() const {
  return {impl_->shots.begin(), impl_->shots.end()};
}

void GatherWriter::finish() {
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
}

// ---------------------------------------------------------------------------------- reader

struct GatherReader::Impl {
  h5::File file;
  bool complete = false;
  std::string digest;
};

GatherReader::GatherReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  h5::silence_errors();
  try {
    impl_->file = open_existing(path, H5F_ACC_RDONLY);
    std::tie(impl_->complete, impl_->digest) = check_root(impl_->file.get());
  } catch (const IoError& e) {
    rethrow_for(path, e);
  }
}

GatherReader::~GatherReader() = default;
GatherReader::GatherReader(GatherReader&&) noexcept = default;
GatherReader& GatherReader::operator=(GatherReader&&) noexcept = default;

bool GatherReader::complete() const {
  return impl_->complete;
}

const std::string& GatherReader::config_digest() const {
  return impl_->digest;
}

std::vector<int> GatherReader::shots() const {
  h5::silence_errors();
  try {
    // A shot a stopped run left (group attribute complete = 0) is not one of the file's shots.
    std::vector<int> out;
    for (const int shot : list_shots(impl_->file.get())) {
      const h5::Group g{
          H5_CHECK(H5Gopen2(impl_->file.get(), h5::shot_group_name(shot).c_str(), H5P_DEFAULT))};
      if (H5_CHECK(H5Aexists(g.get(), "complete")) > 0 && h5::read_scalar(g.get(), "complete") == 0)
        continue;
      out.push_back(shot);
    }
    return out;
  } catch (const IoError& e) {
    rethrow_for(path_, e);
  }
}

ShotData GatherReader::read_shot(int shot) const {
  h5::silence_errors();
  try {
    return read_shot_group(impl_->file.get(), shot, true);
  } catch (const IoError& e) {
    throw IoError("gathers '" + path_ + "': shot " + std::to_string(shot) + ": " + e.what());
  }
}

}  // namespace seisfd::io
