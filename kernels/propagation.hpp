// One propagation: a state that an engine advances in one direction, with the sources and
// receivers bound to it (a shot's forward modelling, its adjoint, a receiver wavefield of RTM).
// What the time loop and the operators drive; the engine itself stays reusable for the next
// shot, the other direction or another state. Plain C++.
#pragma once
#include <memory>
#include <vector>

#include "kernels/engine.hpp"

namespace seisfd {

// Fills the halo of a state from the ranks beside it (a decomposed run, docs/parallel.md): the
// current level of every field, after each step. The solver implements it; a propagation that
// has one steps one at a time and exchanges between steps.
class HaloExchange {
 public:
  virtual ~HaloExchange() = default;
  // The halo of s's current level filled, before it returns.
  virtual void exchange(WaveState& s, int fields) = 0;
  virtual const char* name() const = 0;  // "mpi (host-staged)", "peer (CUDA IPC)"

  // Overlap with the update (Propagation::steps, Engine::advance_split), for an exchange that
  // can: start() marks s's current level complete with what its engine has queued so far;
  // finish() exchanges that level and orders the engine's later work after it (it may return
  // before the halo has arrived); interior() is the part of the updated region whose stencil
  // reads no halo this exchange fills.
  virtual bool overlaps() const { return false; }
  virtual void start(WaveState& /*s*/) {}
  virtual void finish(WaveState& s, int fields) { exchange(s, fields); }
  virtual Box interior(const StepSpec& spec) const;
  // start() and finish() only queue work on the engine's stream, synchronised with the
  // neighbours on the device (no host waits): the steps may go into one graph.
  virtual bool device_ordered() const { return false; }
  bool overlap = true;  // false: exchange after each step even where it could overlap

  // Wall time spent in the exchange by the host: after the steps had finished without overlap
  // (the exposed communication), beside the interior's update with it. Kept by
  // Propagation::steps.
  double seconds = 0;
  // For an exchange synchronised on the device: the time the engine's stream stood waiting for
  // the neighbours' faces, so far (the exposed communication; waits for the device); else -1.
  virtual double wait_seconds() const { return -1; }
};

class Propagation {
 public:
  explicit Propagation(Engine& engine, Direction direction = Direction::kForward);

  Engine& engine() const { return engine_; }
  WaveState& state() const { return *state_; }
  Direction direction() const { return io_.direction; }

  // Sources inject trace sample n at step n ([points][nt]); receivers record field n into
  // sample n ([points][nt]). Replace what was bound before.
  void set_injection(const SparsePoints& points, const std::vector<double>& traces, int nt);
  void set_recording(const SparsePoints& points, int nt);
  // Volume sources per field (StepIo::volume; null: none) and a reconstruction region
  // (StepIo::region; null: the whole updated region), for the steps that follow.
  void set_volume(const CellArray* p, const CellArray* q = nullptr) {
    io_.volume[0] = p;
    io_.volume[1] = q;
  }
  void set_region(const Box* region) { io_.region = region; }
  // What the steps inject and record (for Engine::advance_imaging).
  const StepIo& io() const { return io_; }

  // Steps [n_begin, n_end) (Engine::advance), one at a time with the halo exchanged where an
  // exchange is set: after each step, so that the halo of the last level is filled on return;
  // or, where the exchange overlaps, during each step (Engine::advance_split), beside the
  // update of the interior, so that the halo of the last level is filled by the next step.
  void steps(int n_begin, int n_end);
  void set_exchange(HaloExchange* x) { exchange_ = x; }
  HaloExchange* exchange() const { return exchange_; }
  // The state back to zero (step 0) and the recorded traces cleared: ready for the next run.
  void reset();

  // p of the current field on the strided sub-box [lo, hi) with stride dec (z, y, x).
  void copy_field(const int lo[3], const int hi[3], const int dec[3],
                  std::vector<float>& out) const;
  std::vector<double> recorded() const;  // [points][nt]; empty without receivers
  Diagnostics diagnostics() { return engine_.diagnostics(*state_); }
  void queue_diagnostics(int step) { engine_.queue_diagnostics(*state_, step); }
  std::vector<TaggedDiagnostics> completed_diagnostics(int max_pending) {
    return engine_.completed_diagnostics(max_pending);
  }

 private:
  Engine& engine_;
  std::unique_ptr<WaveState> state_;
  std::unique_ptr<Sources> sources_;
  std::unique_ptr<Receivers> receivers_;
  StepIo io_;
  HaloExchange* exchange_ = nullptr;
};

// The linear modelling operator F (source traces -> receiver traces) and its exact discrete
// adjoint F* (receiver traces -> source traces), each on a fresh state of `engine`
// (docs/physics.md §7). The adjoint steps the transposed update over the time-reversed data,
// injected at the receivers, and records at the sources with the source weights; the result
// is reversed back. traces: [npoints][nt]. With an exchange, the engine computes one rank's part
// and the traces are that rank's points'.
std::vector<double> apply_forward(Engine& engine, const SparsePoints& sources,
                                  const std::vector<double>& source_traces,
                                  const SparsePoints& receivers, int nt,
                                  HaloExchange* exchange = nullptr);
std::vector<double> apply_adjoint(Engine& engine, const SparsePoints& receivers,
                                  const std::vector<double>& data, const SparsePoints& sources,
                                  int nt, HaloExchange* exchange = nullptr);

}  // namespace seisfd
