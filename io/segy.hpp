// SEG-Y (rev 1, big-endian, IEEE float32 samples) through segyio's C API (docs/outputs.md §8):
// shot gathers (one file per survey, every shot's traces), image and model cubes (inline = y
// index, crossline = x index, samples along z). Headers carry the geometry: coordinates in
// metres scaled by byte 71 (elevations and depths by byte 69), the sample interval in µs for
// time and in mm for depth. Writers write <path>.partial and rename it when complete.
// Every error is an IoError of one line naming the file and, for a trace, its number in the
// file (from 1). Without libsegyio at build time (segy_built() false) every function throws.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/gathers.hpp"
#include "io/image.hpp"

namespace seisfd::io {

bool segy_built();  // the build has SEG-Y support (CMake SEISFD_SEGY, libsegyio)
// The name ends in .sgy or .segy (any case): the readers take such files as SEG-Y.
bool is_segy_path(const std::string& path);

// The most samples and the longest sample interval a SEG-Y rev 1 trace holds (16-bit fields).
constexpr int kSegyMaxSamples = 32767;
constexpr int kSegyMaxInterval = 32767;  // µs (time) or mm (depth)

// value / unit when that is a whole number (within 1e-6 relative) from 1 to 2^31 - 1, else -1:
// (dt, 1e-6) gives a time sample interval in µs, (dz, 1e-3) a depth step in mm.
int segy_interval_units(double value, double unit);

// gathers.sgy. Traces in the order written: shot by shot, receiver by receiver. Per trace:
// field record (9) and energy source point (17) = shot index, trace number (13) = receiver
// from 1, trace sequence (1, 5) = trace in the file from 1, offset (37) = horizontal
// source-receiver distance in whole metres, source x/y (73/77), group x/y (81/85) and CDP x/y
// (181/185, the midpoint) scaled by byte 71, source depth (49) and receiver group elevation
// (41, = -depth) scaled by byte 69, sample count (115) and interval (117, µs), delay (109, ms).
class SegyGatherWriter {
 public:
  // nt samples of dt seconds per trace (dt a whole number of µs <= kSegyMaxInterval, nt <=
  // kSegyMaxSamples: IoError otherwise); producer and config_digest (what --resume compares)
  // go into the textual header.
  SegyGatherWriter(const std::string& path, int nt, double dt, const std::string& producer,
                   const std::string& config_digest = "");
  // Reopens <path>.partial, left by a writer destroyed before finish(), to append shots; a trace
  // cut short at its end is dropped. IoError (naming the file) when it does not exist, or was
  // written with another sampling or config_digest.
  static SegyGatherWriter resume(const std::string& path, int nt, double dt,
                                 const std::string& config_digest = "");
  ~SegyGatherWriter();
  SegyGatherWriter(SegyGatherWriter&&) noexcept;
  SegyGatherWriter& operator=(SegyGatherWriter&&) noexcept;
  SegyGatherWriter(const SegyGatherWriter&) = delete;
  SegyGatherWriter& operator=(const SegyGatherWriter&) = delete;

  // traces: nrec x nt, row-major; receivers: nrec x 3 (x, y, z). Flushed to disk when written.
  void write_shot(int shot, const float* traces, int nrec, const double* receivers,
                  const std::array<double, 3>& source);
  std::vector<int> shots() const;  // in the order written
  // (shot, traces) of each shot in file order: a resumed file's last shot may lack traces.
  std::vector<std::pair<int, int>> traces_per_shot() const;
  // Keeps the first n shots of traces_per_shot() and drops the traces after them.
  void keep_first(size_t n);
  void finish();  // renames <path>.partial to <path>
  const std::string& final_path() const { return path_; }

 private:
  struct Impl;
  SegyGatherWriter(std::unique_ptr<Impl> impl, std::string path);
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Reads a gathers SEG-Y file (written by seisfd or not): traces grouped by field record (byte
// 9) into shots, which must be contiguous in the file; positions from the headers with their
// scalars. Checks at opening: sample format (1 IBM or 5 IEEE), the file size, and every trace's
// sample count and interval against the binary header.
class SegyGatherReader {
 public:
  explicit SegyGatherReader(const std::string& path);
  ~SegyGatherReader();
  SegyGatherReader(SegyGatherReader&&) noexcept;
  SegyGatherReader& operator=(SegyGatherReader&&) noexcept;
  SegyGatherReader(const SegyGatherReader&) = delete;
  SegyGatherReader& operator=(const SegyGatherReader&) = delete;

  std::vector<int> shots() const;  // ascending
  // The shot's traces in file order (receiver r = the shot's r-th trace); units "Pa".
  ShotData read_shot(int shot) const;
  int first_trace(int shot) const;  // the file's trace number (from 1) of the shot's receiver 0
  // Source and group x/y (bytes 73-88) of that trace are all 0: the header has no coordinates.
  bool coordinates_missing(int shot, int receiver) const;
  const std::string& text_header() const;  // 3200 characters, ASCII
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// A cube: data [nz][ny][nx] (C order), trace (iy, ix) = inline iy + 1, crossline ix + 1.
struct SegyCube {
  ImageGeometry geometry;  // spacing and origin (z, y, x), m; decimation 1
  std::vector<float> data;
};

// Why a cube of this geometry cannot be written as SEG-Y ("" when it can): dz not a whole
// number of mm up to kSegyMaxInterval, origin z not a whole number of metres within +-32767,
// nz above kSegyMaxSamples.
std::string segy_cube_problem(const ImageGeometry& g);

// Writes a cube: CDP x/y (181/185) and source/group x/y scaled by byte 71, inline (189),
// crossline (193), sample interval = dz in mm (117, binary 3217), delay (109) = origin z in
// whole metres. IoError when dz is not a whole number of mm (<= kSegyMaxInterval), the origin
// z not a whole number of metres, or nz > kSegyMaxSamples. description and units go into the
// textual header.
void write_segy_cube(const std::string& path, const ImageGeometry& g, const float* data,
                     const std::string& description, const std::string& units,
                     const std::string& producer);

// Reads a cube sorted by inline then crossline (every inline the same crosslines, ascending),
// the grid from the headers: nx = crosslines, ny = inlines, nz = samples, spacing and origin
// from the CDP coordinates (axis-aligned: x along the crossline, y along the inline), dz from
// the sample interval in mm and the origin z from the delay (109) in metres. Spacing along an
// axis of one sample is 0 (unknown).
SegyCube read_segy_cube(const std::string& path);
// The same checks and geometry without reading the samples.
ImageGeometry segy_cube_geometry(const std::string& path);

}  // namespace seisfd::io
