// snapshots.h5 + snapshots.xmf (docs/outputs.md §2): dataset /p float32 [nsnap][nz][ny][nx]
// (attribute units = "Pa"), chunked one snapshot per chunk, extendible along the first axis;
// dataset /time [nsnap] (float64, s); root attributes spacing [3] and origin [3] in (z, y, x)
// order (metres, of the written samples, decimation included), decimation [3] in (z, y, x)
// order, axis_order = "z,y,x", complete (0/1).
// A snapshot larger than HDF5's chunk limit (4 GiB) is chunked [1][k][ny][nx] with the largest
// k that fits (and, only if one x-y plane is itself too large, rows are split the same way).
// Written as <path>.partial; append() flushes, so a reader can follow a running job.
// finish() sets complete = 1, renames, and writes the XDMF file (<path> with extension .xmf)
// that ParaView opens with the right geometry and times. A writer destroyed before finish()
// leaves the .partial file with complete = 0 and writes no XDMF.
#pragma once
#include <array>
#include <memory>
#include <string>

namespace seisfd::io {

struct SnapshotGeometry {
  int nz = 0, ny = 0, nx = 0;              // samples written per snapshot
  std::array<double, 3> spacing{};         // (z, y, x), m
  std::array<double, 3> origin{};          // (z, y, x), m
  std::array<int, 3> decimation{1, 1, 1};  // (z, y, x)
};

class SnapshotWriter {
 public:
  SnapshotWriter(const std::string& path, const SnapshotGeometry& g);
  // Reopens <path>.partial left by a stopped run to continue it: keeps its first `keep`
  // snapshots (those taken before the checkpoint the run resumes from) and drops any after.
  // IoError when it is missing, of another geometry, or holds fewer than `keep`.
  struct Resume {
    int keep = 0;
  };
  SnapshotWriter(const std::string& path, const SnapshotGeometry& g, Resume resume);
  ~SnapshotWriter();
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  // data: nz*ny*nx floats, C order.
  void append(double time, const float* data);
  int count() const;
  void finish();
  const std::string& final_path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Writes the XDMF 2 description of a snapshots file (called by finish(); public for tests):
// a temporal collection with one 3DCoRectMesh grid per snapshot reading /p of h5_name (a
// path relative to the .xmf, normally the bare file name) through a HyperSlab.
void write_snapshots_xdmf(const std::string& xmf_path, const std::string& h5_name,
                          const SnapshotGeometry& g, const double* times, int nsnap);

}  // namespace seisfd::io
