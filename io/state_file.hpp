// A wave state on disk: the host image of every array a propagation advances
// (kernels/engine.hpp StateImage), one HDF5 file. What checkpoints and restarts write and read.
// Layout: one dataset per array, named as in the image (float32 or float64 by element size,
// one dimension), root attributes format = "seisfd-state-1", engine, step. Written as
// <path>.partial, flushed and closed, then renamed: a reader never sees half a state.
#pragma once
#include <string>

#include "kernels/engine.hpp"

namespace seisfd::io {

// Throws IoError naming the file.
void write_state_file(const std::string& path, const StateImage& image);
StateImage read_state_file(const std::string& path);

}  // namespace seisfd::io
