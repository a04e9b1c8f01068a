// The time loop: advances a propagation through nt samples, stopping at the event steps
// (snapshots, progress) and batching the steps in between into one Engine::advance each,
// which also queues the diagnostics every diagnostics_interval steps.
#pragma once
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>

#include "kernels/propagation.hpp"

namespace seisfd {

// A NaN or Inf in the wavefield: names the step and the cell.
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The loop saw the stop flag (SIGINT, SIGTERM, SIGHUP, SIGUSR1). checkpointed(): a checkpoint
// of the state at step() was written first (preemption), so the run can be resumed from there.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int step, bool checkpointed = false)
      : std::runtime_error("interrupted"), step_(step), checkpointed_(checkpointed) {}
  int step() const { return step_; }
  bool checkpointed() const { return checkpointed_; }

 private:
  int step_;
  bool checkpointed_;
};

struct LoopOptions {
  int diagnostics_interval = 10;  // steps; 0 = never
  // Chunks of steps whose diagnostics the device may still be computing when the loop goes
  // on: bounds how far the host runs ahead of the device (progress stays honest, a NaN stops
  // the run soon) without a wait per chunk.
  int diagnostics_in_flight = 4;
  int snapshot_every = 0;  // steps; 0 = never
  int progress_every = 0;  // steps between progress callbacks; 0 = never
  const std::atomic<bool>* stop = nullptr;
  // Set with stop: write a checkpoint (LoopCallbacks::on_checkpoint) before stopping.
  const std::atomic<bool>* checkpoint_on_stop = nullptr;
  // Checkpoints while running: at every multiple of checkpoint_every steps, and at the first
  // step boundary after checkpoint_seconds of wall-clock time since the last one (0: never).
  int checkpoint_every = 0;
  double checkpoint_seconds = 0;
  // The state holds field start_step (a resumed shot); the loop makes the fields after it.
  int start_step = 0;
  // Names a cell index for messages, e.g. "(x=10, y=3, z=7)".
  std::function<std::string(int64_t)> describe_cell;
  // A decomposed run (docs/parallel.md): every rank's diagnostics combined into the whole
  // grid's (first_nonfinite then a global index), and the stop flag, the checkpoint on stop and
  // the wall-clock checkpoints agreed by all ranks. Every rank calls them at the same points, so
  // diagnostics_in_flight must be 0 with them.
  std::function<Diagnostics(const Diagnostics&)> combine;
  std::function<bool(bool)> agree;
};

struct LoopCallbacks {
  std::function<void(int field_index)> on_snapshot;  // the state holds field field_index
  std::function<void(int steps_done, int steps_total)> on_progress;
  std::function<void(int field_index)> on_checkpoint;  // the state holds field field_index
};

struct LoopResult {
  int steps = 0;
  double seconds = 0;  // wall time of the loop (engine synchronized at the end)
  Diagnostics last;
  int diagnostics_runs = 0;
};

// Steps opt.start_step .. nt - 2 of `p`, whose state holds field opt.start_step.
LoopResult run_time_loop(Propagation& p, int nt, const LoopOptions& opt,
                         const LoopCallbacks& cb = {});

}  // namespace seisfd
