// Model volumes from HDF5: a float dataset of shape [nz][ny][nx] (float32 or float64 on disk,
// read as float32). Errors (IoError) name the file, the dataset, and both shapes when they
// differ; they start with "model.path: ", the config key that names the file.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace seisfd::io {

std::vector<float> read_volume(const std::string& path, const std::string& dataset,
                               const std::array<int, 3>& expected_zyx);

// Writes a float32 [nz][ny][nx] dataset (creates or truncates the file). For tests and tools.
void write_volume(const std::string& path, const std::string& dataset,
                  const std::array<int, 3>& zyx, const float* data);

}  // namespace seisfd::io
