// gathers.h5 (DESIGN.md §7): one group per shot /shot_NNNN with dataset p float32
// [nreceivers][nt], receivers float64 [nreceivers][3] (x, y, z in m), attributes source [3],
// dt, t0, units. Written as <path>.partial with root attribute complete = 0; finish() sets
// complete = 1 and renames to <path>. A writer destroyed before finish() leaves the .partial
// file with complete = 0.
#pragma once
#include <array>
#include <memory>
#include <string>

namespace seisfd::io {

class GatherWriter {
 public:
  explicit GatherWriter(const std::string& path);
  ~GatherWriter();
  GatherWriter(const GatherWriter&) = delete;
  GatherWriter& operator=(const GatherWriter&) = delete;

  // traces: nrec x nt, row-major; receivers: nrec x 3 (x, y, z).
  void write_shot(int shot, const float* traces, int nrec, int nt, const double* receivers,
                  const std::array<double, 3>& source, double dt, double t0,
                  const std::string& units = "Pa");
  void finish();
  const std::string& final_path() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

}  // namespace seisfd::io
