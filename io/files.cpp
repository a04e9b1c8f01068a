#include "io/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

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

void prepare_output_directory(const std::string& dir, bool overwrite) {
  if (dir.empty()) throw IoError("output.directory is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) {
      throw IoError("output.directory '" + dir + "' exists and is not a directory");
    }
    const bool empty = fs::is_empty(dir, ec);
    if (ec) throw IoError("output.directory '" + dir + "': cannot list it: " + ec.message());
    if (!empty && !overwrite) {
      throw IoError("output.directory '" + dir +
                    "' exists and is not empty; pass --overwrite to replace its files");
    }
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw IoError("output.directory '" + dir + "': cannot create it: " + ec.message());
}

}  // namespace seisfd::io
