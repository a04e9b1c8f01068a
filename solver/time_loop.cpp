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
  // Diagnostics arrive asynchronously, a few chunks after they were queued; a non-finite
  // value stops the run naming the step whose field had it.
  auto check = [&](const std::vector<TaggedDiagnostics>& ready) {
    for (const TaggedDiagnostics& t : ready) {
      r.last = t.d;
      ++r.diagnostics_runs;
      if (t.d.nonfinite == 0) continue;
      const std::string where = opt.describe_cell ? opt.describe_cell(t.d.first_nonfinite)
                                                  : "index " + std::to_string(t.d.first_nonfinite);
      throw NumericalError("wavefield is not finite at step " + std::to_string(t.step) + ": " +
                           std::to_string(t.d.nonfinite) + " cells, first at " + where +
                           " (is dt stable for the model? is the model finite?)");
    }
  };
  while (done < total) {
    if (opt.stop && opt.stop->load(std::memory_order_relaxed)) throw Interrupted(done);
    int until = total;
    until = std::min(until, next_multiple(done, opt.diagnostics_interval, total));
    until = std::min(until, next_multiple(done, opt.snapshot_every, total));
    until = std::min(until, next_multiple(done, opt.progress_every, total));
    engine.steps(done, until);
    done = until;
    if (opt.diagnostics_interval > 0 && (done % opt.diagnostics_interval == 0 || done == total)) {
      engine.queue_diagnostics(done);
      check(engine.completed_diagnostics(opt.diagnostics_in_flight));
    }
    if (cb.on_snapshot && opt.snapshot_every > 0 && done % opt.snapshot_every == 0)
      cb.on_snapshot(done);
    if (cb.on_progress) cb.on_progress(done, total);
  }
  check(engine.completed_diagnostics(0));
  engine.synchronize();
  r.steps = total;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace seisfd
