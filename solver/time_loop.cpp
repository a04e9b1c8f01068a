#include "solver/time_loop.hpp"

#include <algorithm>
#include <chrono>

namespace seisfd {
namespace {

int next_multiple(int after, int every, int limit) {
  if (every <= 0) return limit;
  return std::min(limit, (after / every + 1) * every);
}

}  // namespace

LoopResult run_time_loop(WaveEngine& engine, int nt, const LoopOptions& opt,
                         const LoopCallbacks& cb) {
  LoopResult r;
  const int total = nt - 1;  // step n makes field n + 1
  const auto t0 = std::chrono::steady_clock::now();
  int done = 0;  // fields 1..done exist
  while (done < total) {
    if (opt.stop && opt.stop->load(std::memory_order_relaxed)) throw Interrupted(done);
    int until = total;
    until = std::min(until, next_multiple(done, opt.diagnostics_interval, total));
    until = std::min(until, next_multiple(done, opt.snapshot_every, total));
    until = std::min(until, next_multiple(done, opt.progress_every, total));
    engine.steps(done, until);
    done = until;
    if (opt.diagnostics_interval > 0 && (done % opt.diagnostics_interval == 0 || done == total)) {
      r.last = engine.diagnostics();
      ++r.diagnostics_runs;
      if (r.last.nonfinite > 0) {
        const std::string where = opt.describe_cell
                                      ? opt.describe_cell(r.last.first_nonfinite)
                                      : "index " + std::to_string(r.last.first_nonfinite);
        throw NumericalError("wavefield is not finite at step " + std::to_string(done) + ": " +
                             std::to_string(r.last.nonfinite) + " cells, first at " + where +
                             " (is dt stable for the model? is the model finite?)");
      }
    }
    if (cb.on_snapshot && opt.snapshot_every > 0 && done % opt.snapshot_every == 0)
      cb.on_snapshot(done);
    if (cb.on_progress) cb.on_progress(done, total);
  }
  engine.synchronize();
  r.steps = total;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace seisfd
