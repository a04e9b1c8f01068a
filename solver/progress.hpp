// Progress on stderr: step, percent, Mcells/s, ETA. Redrawn in place on a terminal, one line
// every few seconds otherwise, nothing when quiet.
#pragma once
#include <chrono>
#include <cstdint>

namespace seisfd {

class Progress {
 public:
  Progress(int64_t total_steps, int64_t cells, bool quiet);
  void update(int64_t done);
  void finish();

 private:
  int64_t total_;
  int64_t cells_;
  bool quiet_, tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace seisfd
