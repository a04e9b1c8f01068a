// Small file helpers shared by the writers.
#pragma once
#include <string>

namespace seisfd::io {

// Writes text to <path>.partial then renames it to path, so a reader never sees half a file.
void write_text_atomic(const std::string& path, const std::string& text);

// Creates the output directory. If it exists and is not empty: with overwrite, leaves it
// (files are replaced one by one as they complete); without, throws IoError naming it and
// the --overwrite flag.
void prepare_output_directory(const std::string& dir, bool overwrite);

namespace detail {
// std::rename(from, to), replacing an existing `to`; throws IoError naming both on failure.
void rename_file(const std::string& from, const std::string& to);
}  // namespace detail

}  // namespace seisfd::io
