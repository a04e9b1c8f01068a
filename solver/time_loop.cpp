#include "solver/time_loop.hpp"

#include <algorithm>
#include <chrono>

#include "kernels/wall_clock.hpp"

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
  int done = opt.start_step;  // fields 1..done exist
  // Diagnostics arrive asynchronously, a few chunks after they were queued; a non-finite
  // value stops the run naming the step whose field had it.
  auto check = [&](const std::vector<TaggedDiagnostics>& ready) {
    for (TaggedDiagnostics t : ready) {
      if (opt.combine) t.d = opt.combine(t.d);
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
  auto last_checkpoint = t0;
  const bool checkpoints = static_cast<bool>(cb.on_checkpoint);
  auto checkpoint = [&] {
    // Only what has been checked may be saved: a non-finite field must not become a restart.
    if (every > 0) check(engine.completed_diagnostics(0));
    cb.on_checkpoint(done);
    last_checkpoint = std::chrono::steady_clock::now();
  };
  while (done < total) {
    bool stop = opt.stop && opt.stop->load(std::memory_order_relaxed);
    if (opt.agree) stop = opt.agree(stop);
    if (stop) {
      bool save = checkpoints && opt.checkpoint_on_stop && opt.checkpoint_on_stop->load();
      if (opt.agree && checkpoints) save = opt.agree(save);  // a signal may reach ranks apart
      if (save) checkpoint();
      throw Interrupted(done, save);
    }
    int until = total;
    if (checkpoints) until = std::min(until, next_multiple(done, opt.checkpoint_every, total));
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
    if (checkpoints && done < total) {
      const bool by_steps = opt.checkpoint_every > 0 && done % opt.checkpoint_every == 0;
      bool by_time =
          opt.checkpoint_seconds > 0 && seconds_since(last_checkpoint) >= opt.checkpoint_seconds;
      if (opt.agree && opt.checkpoint_seconds > 0) by_time = opt.agree(by_time);  // clocks differ
      if (by_steps || by_time) checkpoint();
    }
  }
  check(engine.completed_diagnostics(0));
  engine.synchronize();
  r.steps = total - opt.start_step;
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace seisfd
