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

LoopResult run_time_loop(Propagation& prop, int nt, const LoopOptions& opt,
                         const LoopCallbacks& cb) {
  Engine& engine = prop.engine();
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
  // The engine queues the diagnostics of every K-th field inside its batches of steps (a
  // device reduces them in the update that reads the field); the last field has no step after
  // it and is queued here.
  const int every = opt.diagnostics_interval > 0 ? opt.diagnostics_interval : 0;
  struct EveryGuard {  // the engine may run other loops afterwards
    Engine& e;
    ~EveryGuard() { e.set_diagnostics_every(0); }
  } guard{engine};
  engine.set_diagnostics_every(every);
  while (done < total) {
    if (opt.stop && opt.stop->load(std::memory_order_relaxed)) throw Interrupted(done);
    int until = total;
    until = std::min(until, next_multiple(done, opt.snapshot_every, total));
    until = std::min(until, next_multiple(done, opt.progress_every, total));
    if (opt.snapshot_every <= 0 && opt.progress_every <= 0 && every > 0)
      until = std::min(until, next_multiple(done, every, total));  // still check as it goes
    prop.steps(done, until);
    const int chunk = until - done;
    done = until;
    if (every > 0) {
      if (done == total) prop.queue_diagnostics(done);
      // Up to diagnostics_in_flight chunks' worth may still be on the device.
      const int per_chunk = std::max(1, (chunk + every - 1) / every);
      check(engine.completed_diagnostics(opt.diagnostics_in_flight * per_chunk));
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
