// Model volumes from HDF5: a float dataset of shape [nz][ny][nx] (float32 or float64 on disk,
// read as float32). Errors (IoError) name the file, the dataset, and both shapes when they
// differ; they start with "model.path: ", the config key that names the file.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace seisfd::io {

// The planes z0 <= z < z1 of a (z, y, x) float dataset of shape expected_zyx (z1 < 0: to the
// last); the shape is checked whole.
std::vector<float> read_volume(const std::string& path, const std::string& dataset,
                               const std::array<int, 3>& expected_zyx, int z0 = 0, int z1 = -1);

// The model a run used, for viewing and for reuse as model.path (docs/outputs.md §7): one float32
// [nz][ny][nx] dataset per field at the root (attribute units), root attributes format =
// "seisfd-model-1", spacing and origin (z, y, x; metres, of sample [0][0][0]), axis_order = "z,y,x"
// and complete. Written as <path>.partial, renamed when whole, then <path> with extension .xmf
// (one 3DCoRectMesh grid, one Attribute per field) so ParaView opens it on the right grid.
struct ModelGeometry {
  int nz = 0, ny = 0, nx = 0;
  std::array<double, 3> spacing{};  // (z, y, x), m
  std::array<double, 3> origin{};   // (z, y, x), m
};
struct ModelField {
  std::string name;   // dataset name: letters, digits, '_'
  std::string units;  // "m/s", "degrees", "" (dimensionless)
  const float* data;  // nz*ny*nx values, C order
};
void write_model_file(const std::string& path, const ModelGeometry& g,
                      const std::vector<ModelField>& fields);
// The XDMF of a model file (called by write_model_file; public for tests). h5_name: the HDF5
// file relative to the .xmf, normally its bare name.
void write_model_xdmf(const std::string& xmf_path, const std::string& h5_name,
                      const ModelGeometry& g, const std::vector<std::string>& names);

// Writes a float32 [nz][ny][nx] dataset (creates or truncates the file). For tests and tools.
void write_volume(const std::string& path, const std::string& dataset,
                  const std::array<int, 3>& zyx, const float* data);

}  // namespace seisfd::io
