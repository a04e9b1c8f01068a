// gathers.h5 (docs/outputs.md §1): one group per shot /shot_NNNN (NNNN = shot index, zero-padded
// to 4 digits; 10000 and above simply get more digits) with dataset p float32
// [nreceivers][nt], receivers float64 [nreceivers][3] (x, y, z in m), attributes source [3],
// dt, t0, units. Root attributes: format = "seisfd-gathers-1", complete (0/1).
// Written as <path>.partial with complete = 0, flushed after every shot; finish() sets
// complete = 1 and renames to <path>. A writer destroyed before finish() leaves the .partial
// file with complete = 0. Writing the same shot twice is an IoError.
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
