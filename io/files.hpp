// Small file helpers shared by the writers.
#pragma once
#include <string>
#include <vector>

namespace seisfd::io {

// Writes text to <path>.partial then renames it to path, so a reader never sees half a file.
void write_text_atomic(const std::string& path, const std::string& text);

// The files a run owns in its output directory (each also as <name>.partial while written).
const std::vector<std::string>& owned_output_names();

// Exclusive use of an output directory: an flock on <dir>/.seisfd.lock (holding the owner's
// pid) kept until destroyed, which removes the file. Two runs into one directory at once would
// replace each other's results; the second is refused with an IoError naming the first's pid.
class DirectoryLock {
 public:
  DirectoryLock() = default;
  explicit DirectoryLock(const std::string& dir);  // the directory must exist
  ~DirectoryLock();
  DirectoryLock(DirectoryLock&& o) noexcept;
  DirectoryLock& operator=(DirectoryLock&& o) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  static constexpr const char* kName = ".seisfd.lock";

 private:
  void release() noexcept;
  int fd_ = -1;
  std::string path_;
};

// Creates the output directory and locks it. If it already holds files (the lock file aside):
// without overwrite, throws IoError naming it and the --overwrite flag; with overwrite, removes
// the outputs a run owns (owned_output_names() and their .partial files) except those that are
// one of `keep` (the run's inputs), so that no earlier result is left beside the new ones.
// Other files are left alone.
DirectoryLock prepare_output_directory(const std::string& dir, bool overwrite,
                                       const std::vector<std::string>& keep = {});
// For --resume: the directory is locked and nothing is removed (a directory that does not exist
// is not locked: resuming from it fails on the files it lacks).
DirectoryLock lock_output_directory(const std::string& dir);

namespace detail {
// std::rename(from, to), replacing an existing `to`; throws IoError naming both on failure.
void rename_file(const std::string& from, const std::string& to);
}  // namespace detail

}  // namespace seisfd::io
