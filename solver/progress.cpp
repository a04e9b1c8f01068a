#include "solver/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace seisfd {

Progress::Progress(int total_steps, int64_t cells, bool quiet)
    : total_(total_steps), cells_(cells), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::update(int done) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (since_last < (tty_ ? 0.2 : 5.0) && done < total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double mcells = elapsed > 0 ? double(cells_) * done / elapsed / 1e6 : 0.0;
  const double eta = done > 0 ? elapsed * (total_ - done) / done : 0.0;
  std::fprintf(stderr, "%sstep %d/%d  %5.1f%%  %.1f Mcells/s  ETA %.0f s%s", tty_ ? "\r" : "", done,
               total_, 100.0 * done / total_, mcells, eta, tty_ ? "   " : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!quiet_ && tty_ && drawn_) std::fprintf(stderr, "\n");
}

}  // namespace seisfd
