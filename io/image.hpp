// image.h5 + image.xmf (docs/outputs.md §4, docs/migration.md §5): datasets /image/<condition>
// float32 [nz][ny][nx] (one per imaging condition, stacked over shots), /illumination (same
// shape), optional per-shot images /shots/shot_NNNN/<condition>. Root attributes, as in
// snapshots.h5: spacing [3] and origin [3] in (z, y, x) order (metres, of the written samples),
// decimation [3] (z, y, x), axis_order = "z,y,x"; plus format = "seisfd-image-1",
// units = "arbitrary", shots (int: the shots stacked so far, set_shots) and complete (0/1).
// Datasets are contiguous (no chunk limit); writing a name again overwrites it in place.
// Written as <path>.partial and flushed after every write, so a reader can follow a running
// job; finish() sets complete = 1, renames, and writes <path> with extension .xmf: one
// 3DCoRectMesh grid with one Attribute per /image dataset and the illumination. A writer
// destroyed before finish() leaves the .partial file with complete = 0 and writes no XDMF.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace seisfd::io {

struct ImageGeometry {
  int nz = 0, ny = 0, nx = 0;              // samples of every image
  std::array<double, 3> spacing{};         // (z, y, x), m
  std::array<double, 3> origin{};          // (z, y, x), m: position of sample [0][0][0]
  std::array<int, 3> decimation{1, 1, 1};  // (z, y, x), relative to the modelling grid
};

class ImageWriter {
 public:
  ImageWriter(const std::string& path, const ImageGeometry& g);
  ~ImageWriter();
  ImageWriter(const ImageWriter&) = delete;
  ImageWriter& operator=(const ImageWriter&) = delete;

  // data: nz*ny*nx floats, C order. name: the imaging condition ("crosscorrelation",
  // "normalized", "inverse_scattering"): letters, digits, '_', '-', '.', not starting with '.'.
  void write(const std::string& name, const float* data);
  void write_illumination(const float* data);
  void write_shot(int shot, const std::string& name, const float* data);
  void set_shots(int shots);
  void finish();
  const std::string& final_path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Reads an image file, final or .partial (pass the name it has on disk). Errors are IoError
// naming the file.
class ImageReader {
 public:
  explicit ImageReader(const std::string& path);
  ~ImageReader();
  ImageReader(ImageReader&&) noexcept;
  ImageReader& operator=(ImageReader&&) noexcept;
  ImageReader(const ImageReader&) = delete;
  ImageReader& operator=(const ImageReader&) = delete;

  bool complete() const;
  int shots() const;
  const std::string& units() const;
  // spacing, origin and decimation from the attributes; nz, ny, nx from the datasets (0 while
  // the file holds none).
  const ImageGeometry& geometry() const;
  std::vector<std::string> names() const;  // the /image datasets, in name order
  std::vector<float> read(const std::string& name) const;
  bool has_illumination() const;
  std::vector<float> read_illumination() const;
  std::vector<int> shot_images() const;  // shots with a /shots/shot_NNNN group, ascending
  std::vector<float> read_shot(int shot, const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Writes the XDMF 2 description of an image file (called by finish(); public for tests): one
// 3DCoRectMesh grid with an Attribute per name in `images` (dataset /image/<name> of h5_name, a
// path relative to the .xmf, normally the bare file name) and, with illumination, one for
// /illumination.
void write_image_xdmf(const std::string& xmf_path, const std::string& h5_name,
                      const ImageGeometry& g, const std::vector<std::string>& images,
                      bool illumination);

}  // namespace seisfd::io
