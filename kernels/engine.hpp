// The backend boundary. A WaveEngine owns the wavefields of one propagation on one device (or
// the CPU) and advances them one step at a time; the time loop, outputs and orchestration live
// in solver/ and see only this interface. Plain C++: no CUDA types.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/step_spec.hpp"

namespace seisfd {

// Sparse point operators in CSR form: point p touches cells index[offset[p] .. offset[p+1])
// with interpolation weights (a discrete delta for sources: summing to 1/(hx hy hz); summing to
// 1 for receivers). Injection adds weight * (v dt)^2 / (1 + g) * trace to the new field, the
// (v dt)^2 / (1 + g) factor being the engine's own, so that injection is exactly the source
// term of the discrete update and its transpose is recording with the same weights.
struct SparsePoints {
  std::vector<int64_t> offset{0};
  std::vector<int64_t> index;
  std::vector<double> weight;
  int count() const { return static_cast<int>(offset.size()) - 1; }
};

struct Diagnostics {
  double sum_sq = 0;  // sum of p^2 over the updated region
  double max_abs = 0;
  int64_t nonfinite = 0;         // cells that are NaN or Inf
  int64_t first_nonfinite = -1;  // linear index of one such cell, -1 if none
};

struct TaggedDiagnostics {
  int step = 0;  // the diagnostics are of field `step`
  Diagnostics d;
};

class WaveEngine {
 public:
  virtual ~WaveEngine() = default;
  virtual std::string name() const = 0;
  virtual const StepSpec& spec() const = 0;

  // Injection traces are [npoints][nt], recording output is [npoints][nt].
  virtual void set_injection(const SparsePoints& points, const std::vector<double>& traces,
                             int nt) = 0;
  virtual void set_recording(const SparsePoints& points, int nt) = 0;

  // Advances from field n to n+1: stencil update (with sponge), injection of trace sample n,
  // free-surface mirroring, then recording of field n+1 into sample n+1 (if n+1 < nt).
  virtual void step(int n) = 0;
  // Switches to the transposed update for apply_adjoint (solver/operators.hpp). Engines whose
  // update is its own transpose after the substitution eta = C mu (acoustic) ignore it.
  virtual void set_adjoint(bool /*on*/) {}
  // Several steps; backends may batch them (a CUDA graph, say). Same result as step() calls.
  // With a diagnostics interval K set, the diagnostics of every field m in [n_begin, n_end)
  // with m > 0 and m % K == 0 are queued as part of the steps (queue_diagnostics(m) before
  // step m): a backend reduces them inside the batch, where the update reads field m anyway.
  virtual void steps(int n_begin, int n_end) {
    for (int n = n_begin; n < n_end; ++n) {
      if (diagnostics_due(n)) queue_diagnostics(n);
      step(n);
    }
  }
  // K steps between diagnostics inside steps(); 0: none (queue_diagnostics only).
  virtual void set_diagnostics_every(int k) { diagnostics_every_ = k > 0 ? k : 0; }
  int diagnostics_every() const { return diagnostics_every_; }
  bool diagnostics_due(int field) const {
    return diagnostics_every_ > 0 && field > 0 && field % diagnostics_every_ == 0;
  }

  // The current field (field n+1 after step(n)) on the strided sub-box [lo, hi) with stride
  // dec, all (z, y, x) in computational indices, into out (C order).
  virtual void copy_field(const int lo[3], const int hi[3], const int dec[3],
                          std::vector<float>& out) = 0;
  virtual std::vector<double> recorded() = 0;  // [npoints][nt]
  virtual Diagnostics diagnostics() = 0;       // of the current field, waiting for it

  // Asynchronous diagnostics: queue a reduction of the current field (field `step`), collect
  // the finished ones (these and those steps() queued) later, oldest first, waiting only until
  // at most max_pending are still in flight (0: all done). Engines without a device compute
  // them at once.
  virtual void queue_diagnostics(int step) { done_.push_back({step, diagnostics()}); }
  virtual std::vector<TaggedDiagnostics> completed_diagnostics(int /*max_pending*/) {
    std::vector<TaggedDiagnostics> out;
    out.swap(done_);
    return out;
  }

  // Launch chunks of steps as captured graphs where the backend has them (default on).
  virtual void set_graphs(bool /*on*/) {}
  virtual bool graphs() const { return false; }

  virtual void synchronize() {}

  // What the run report should say about how this engine was set up beyond its name (the
  // variant choice, the memory it got), as (key, value) pairs.
  virtual std::vector<std::pair<std::string, std::string>> details() const { return {}; }

 private:
  std::vector<TaggedDiagnostics> done_;
  int diagnostics_every_ = 0;
};

}  // namespace seisfd
