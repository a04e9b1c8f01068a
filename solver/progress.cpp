#include "solver/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace seisfd {

Progress::Progress(int64_t total_steps, int64_t cells, bool quiet)
    : total_(total_steps), cells_(cells), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::update(int64_t done) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  // The first line comes at once (the run has started and its speed is known), then one every
  // 0.2 s on a terminal and every 5 s in a log.
  if (drawn_ && since_last < (tty_ ? 0.2 : 5.0) && done < total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double mcells = elapsed > 0 ? double(cells_) * done / elapsed / 1e6 : 0.0;
  const double eta = done > 0 ? elapsed * (total_ - done) / done : 0.0;
  std::fprintf(stderr, "%sstep %lld/%lld  %5.1f%%  %.1f Mcells/s  ETA %.0f s%s", tty_ ? "\r" : "",
               static_cast<long long>(done), static_cast<long long>(total_),
               100.0 * double(done) / double(total_), mcells, eta, tty_ ? "   " : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!quiet_ && tty_ && drawn_) std::fprintf(stderr, "\n");
}

}  // namespace seisfd
