#include "io/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "io/error.hpp"

namespace seisfd::io {

namespace fs = std::filesystem;

namespace detail {

void rename_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int err = errno;
    throw IoError("cannot rename '" + from + "' to '" + to + "': " + std::strerror(err));
  }
}

}  // namespace detail

void write_text_atomic(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) {
      const int err = errno;
      throw IoError("cannot open '" + partial + "' for writing: " + std::strerror(err));
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::remove(partial.c_str());
      throw IoError("writing '" + partial + "' failed (disk full?)");
    }
  }
  detail::rename_file(partial, path);
}

const std::vector<std::string>& owned_output_names() {
  static const std::vector<std::string> names{"gathers.h5",
                                              "snapshots.h5",
                                              "snapshots.xmf",
                                              "image.h5",
                                              "image.xmf",
                                              "report.json",
                                              "checkpoint.h5",
                                              "model.h5",
                                              "model.xmf",
                                              "gathers.sgy",
                                              "image_crosscorrelation.sgy",
                                              "image_normalized.sgy",
                                              "image_inverse_scattering.sgy"};
  return names;
}

DirectoryLock::DirectoryLock(const std::string& dir) : path_((fs::path(dir) / kName).string()) {
  // A lock file removed by its last owner between our open and flock is not the lock any
  // more: lock again until the file we hold is the one at the path.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      throw IoError("output.directory '" + dir + "': cannot create the lock file '" + path_ +
                    "': " + std::strerror(err));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {};
      const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
      ::close(fd);
      if (err == EWOULDBLOCK) {
        std::string who = n > 0 ? std::string(pid, static_cast<size_t>(n)) : std::string("?");
        while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
        throw IoError("output.directory '" + dir + "' is in use by another seisfd run (pid " + who +
                      ", lock file '" + path_ + "'); choose another directory");
      }
      throw IoError("output.directory '" + dir + "': cannot lock '" + path_ +
                    "': " + std::strerror(err));
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      fd_ = fd;
      const std::string text = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) < 0) {
        // The pid is for messages only; the lock holds without it.
      }
      return;
    }
    ::close(fd);
  }
  throw IoError("output.directory '" + dir + "': cannot take the lock file '" + path_ + "'");
}

DirectoryLock::~DirectoryLock() {
  release();
}

DirectoryLock::DirectoryLock(DirectoryLock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

void DirectoryLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still holding it (see the constructor's loop)
  ::close(fd_);
  fd_ = -1;
}

namespace {

void make_directory(const std::string& dir) {
  if (dir.empty()) throw IoError("output.directory is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw IoError("output.directory '" + dir + "' exists and is not a directory");
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw IoError("output.directory '" + dir + "': cannot create it: " + ec.message());
}

bool is_one_of(const fs::path& p, const std::vector<std::string>& keep) {
  std::error_code ec;
  for (const auto& k : keep)
    if (fs::equivalent(p, k, ec)) return true;
  return false;
}

}  // namespace

DirectoryLock prepare_output_directory(const std::string& dir, bool overwrite,
                                       const std::vector<std::string>& keep) {
  make_directory(dir);
  DirectoryLock lock(dir);
  std::error_code ec;
  bool empty = true;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename() != DirectoryLock::kName) empty = false;
  if (ec) throw IoError("output.directory '" + dir + "': cannot list it: " + ec.message());
  if (empty) return lock;
  if (!overwrite)
    throw IoError("output.directory '" + dir +
                  "' exists and is not empty; pass --overwrite to replace its files");
  for (const auto& name : owned_output_names())
    for (const std::string& f : {name, name + ".partial"}) {
      const fs::path p = fs::path(dir) / f;
      if (!fs::exists(fs::symlink_status(p, ec)) || is_one_of(p, keep)) continue;
      if (!fs::remove(p, ec) && ec)
        throw IoError("output.directory '" + dir + "': cannot remove the earlier '" + f +
                      "': " + ec.message());
    }
  return lock;
}

DirectoryLock lock_output_directory(const std::string& dir) {
  std::error_code ec;
  // Without the directory there is nothing to resume: the readers of its files say so.
  if (!fs::is_directory(dir, ec)) return DirectoryLock();
  return DirectoryLock(dir);
}

}  // namespace seisfd::io
