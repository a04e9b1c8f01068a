// The backend boundary (docs/architecture.md §2). An Engine holds what does not change from
// shot to shot: the medium's coefficients on its device (or the CPU), the kernels chosen for
// them, scratch, CUDA graphs. A WaveState holds everything a propagation advances: both time
// levels of every wavefield and the CPML memory variables. The engine advances any state it
// made, in either direction, with any sources and receivers it made, so one engine serves many
// shots, the forward and the adjoint propagation, and several states at once (RTM keeps a
// source and a receiver wavefield). Plain C++: no CUDA types.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/exec.hpp"
#include "kernels/physics.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd {

// Sparse point operators in CSR form: point p touches cells index[offset[p] .. offset[p+1])
// of the engine's layout with interpolation weights (a discrete delta for sources: summing to
// 1/(hx hy hz); summing to 1 for receivers). id[p] is the point's index in the survey (its row
// in the shot's traces), so that a subdomain that holds only some points still knows which.
// Injection adds weight * (v dt)^2 / (1 + g) * sample to the new field, the (v dt)^2 / (1 + g)
// factor being the engine's own, so that injection is exactly the source term of the discrete
// update and its transpose is recording with the same weights (docs/physics.md §6).
struct SparsePoints {
  std::vector<int64_t> offset{0};
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<int> id;
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

enum class Direction {
  kForward,  // the update of the wave equation
  kAdjoint,  // its transpose (docs/physics.md §7)
};

// A box of cells [lo, hi) in the engine's computational indices (z, y, x).
struct Box {
  int lo[3] = {0, 0, 0};
  int hi[3] = {0, 0, 0};
  int64_t cells() const {
    int64_t n = 1;
    for (int a = 0; a < 3; ++a) n *= hi[a] > lo[a] ? hi[a] - lo[a] : 0;
    return n;
  }
};

// The six faces of `inner` of thickness `width` (inside it), without overlaps: the z faces
// whole, the y faces between them, the x faces between those. What the edge-strip reads and
// writes of a state take: a halo exchange's faces, a reconstruction's saved boundary.
std::vector<Box> edge_strips(const Box& inner, int width);
// The updated region of a step description as a box, and the description with its updated
// region narrowed to a box (what a reconstruction region or a split step updates).
Box updated_region(const StepSpec& spec);
StepSpec narrowed(const StepSpec& spec, const Box& b);
// The cells of `outer` outside `inner` as non-overlapping boxes in the same order (z faces
// whole, then y, then x; empty ones left out): what a step split around an interior updates
// after the interior.
std::vector<Box> shell_boxes(const Box& outer, const Box& inner);

// Throws std::invalid_argument where no exact update exists for the direction: the adjoint
// with CPML (every backend refuses it with this one message).
void check_direction(const StepSpec& spec, Direction d);

// One wavefield of a state at one time level.
enum class Level { kPrevious, kCurrent };
struct FieldRef {
  int field = 0;  // 0 = p, 1 = q
  Level level = Level::kCurrent;
};

// A state's arrays copied to host memory, by name, for save/load and checkpoint files.
struct StateArray {
  std::string name;  // "p.current", "p.previous", "q.current", "cpml.psi.z", ...
  int element_bytes = 4;
  std::vector<unsigned char> data;
};
struct StateImage {
  std::string engine;  // Engine::name() of the engine that saved it
  int step = 0;
  std::vector<StateArray> arrays;  // names unique; load() finds them by name
  const StateArray* find(const std::string& name) const {
    for (const StateArray& a : arrays)
      if (a.name == name) return &a;
    return nullptr;
  }
};

// Values widened to double on the host's threads (a downloaded array or traces: hundreds of MB).
std::vector<double> widen(const std::vector<float>& values);

// A per-cell array over the engine's layout, where the engine computes: a model perturbation,
// an image, a stored wavefield level (docs/migration.md); or a buffer of any size (the edge
// strips a boundary reconstruction keeps). Where: on the device (fp32, or fp16 to
// halve stored wavefields), or in (pinned) host memory; the CPU engine keeps all of them in host
// memory.
enum class ArrayKind { kDevice, kDeviceHalf, kHost };
class CellArray {
 public:
  virtual ~CellArray() = default;
  ArrayKind kind() const { return kind_; }
  virtual int64_t size() const = 0;  // elements: the layout's size unless made with another
  virtual void upload(const std::vector<float>& values) = 0;  // size() values
  // In double: the CPU engine in fp64 keeps values that float would round.
  virtual std::vector<double> download() const = 0;
  // In float, the precision of the images written: the GPU's arrays without a double copy (at
  // 512^3 the largest temporaries of a migration's image path).
  virtual std::vector<float> download_float() const = 0;
  virtual void zero() = 0;

 protected:
  explicit CellArray(ArrayKind k) : kind_(k) {}

 private:
  ArrayKind kind_;
};

class WaveState {
 public:
  virtual ~WaveState() = default;
  // The state holds fields step() - 1 (previous) and step() (current).
  int step() const { return step_; }
  void set_step(int s) { step_ = s; }

  // Every field and memory variable to zero, step 0 (the state before a propagation).
  virtual void zero() = 0;
  // A copy of `other`, made by the same engine; step included.
  virtual void copy_from(const WaveState& other) = 0;
  // Every array to host memory and back (load: an image this engine's states saved).
  virtual StateImage save() const = 0;
  virtual void load(const StateImage& image) = 0;

  // One field on the strided sub-box [b.lo, b.hi) with stride dec, into out (C order).
  virtual void read_box(FieldRef f, const Box& b, const int dec[3],
                        std::vector<float>& out) const = 0;
  // Several boxes of one field, concatenated in order (each C order); write_boxes the inverse.
  // In float, or in double: values kept at the state's own precision (element_bytes()) come
  // back bit for bit (what a reconstruction that must not round needs).
  virtual void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                          std::vector<float>& out) const = 0;
  virtual void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                           const std::vector<float>& in) = 0;
  virtual void read_boxes(FieldRef f, const std::vector<Box>& boxes,
                          std::vector<double>& out) const = 0;
  virtual void write_boxes(FieldRef f, const std::vector<Box>& boxes,
                           const std::vector<double>& in) = 0;
  // The same into, and out of, an array of the engine that made this state (fp32, or the
  // state's own precision on the CPU: exact either way), from element `offset` of the array on,
  // enqueued where the engine computes without waiting: what a boundary reconstruction keeps
  // at every step. Half-precision arrays are refused.
  virtual void read_boxes(FieldRef f, const std::vector<Box>& boxes, CellArray& out,
                          int64_t offset) const = 0;
  virtual void write_boxes(FieldRef f, const std::vector<Box>& boxes, const CellArray& in,
                           int64_t offset) = 0;
  virtual int element_bytes() const = 0;  // of the fields: 4 or 8

 private:
  int step_ = 0;
};

// Injection points with their traces ([points][nt]), resident where the engine computes.
class Sources {
 public:
  virtual ~Sources() = default;
  int count() const { return count_; }
  int nt() const { return nt_; }

 protected:
  Sources(int count, int nt) : count_(count), nt_(nt) {}

 private:
  int count_, nt_;
};

// Recording points and what was recorded into them ([points][nt]).
class Receivers {
 public:
  virtual ~Receivers() = default;
  int count() const { return count_; }
  int nt() const { return nt_; }
  virtual std::vector<double> traces() const = 0;
  virtual void clear() = 0;  // every sample to zero

 protected:
  Receivers(int count, int nt) : count_(count), nt_(nt) {}

 private:
  int count_, nt_;
};

// What a run of steps injects and records, and in which direction it steps.
struct StepIo {
  const Sources* sources = nullptr;
  Receivers* receivers = nullptr;
  Direction direction = Direction::kForward;
  // Volume sources (Born modelling, docs/migration.md §2), forward only: at each step, added to
  // field f where sources inject, with their factor (v dt)^2 / (1 + g). The same arrays at
  // every step of the run (the caller steps one at a time to change them).
  const CellArray* volume[kMaxFields] = {nullptr, nullptr};
  // Reconstruction (docs/migration.md §4): update only the cells of this box, without CPML
  // (it must lie where no layer damps), e.g. the forward update run backward in time. Null: the
  // whole updated region.
  const Box* region = nullptr;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  virtual Physics physics() const = 0;
  virtual const StepSpec& spec() const = 0;

  virtual std::unique_ptr<WaveState> make_state() = 0;  // zeroed, step 0
  // Traces [points][nt] (a point's row is its position in `points`).
  virtual std::unique_ptr<Sources> make_sources(const SparsePoints& points,
                                                const std::vector<double>& traces, int nt) = 0;
  virtual std::unique_ptr<Receivers> make_receivers(const SparsePoints& points, int nt) = 0;

  // Steps n = n_begin .. n_end - 1 on `state`, which then holds field n_end. Step n makes
  // field n + 1 from fields n - 1 and n: the update in io.direction with its boundary
  // corrections, the injection of sample n of io.sources (while n < nt), the free surface, and
  // the recording of field n + 1 into sample n + 1 of io.receivers (while n + 1 < nt).
  // Forward: sources inject into every field and receivers record p; adjoint: sources inject
  // into p and receivers record the sum of the fields. With set_diagnostics_every(K), the
  // diagnostics of every field m in [n_begin, n_end) with m > 0 and m % K == 0 are queued as
  // part of the steps (a backend reduces them inside the batch, where the update reads field m
  // anyway). Throws std::invalid_argument where the engine has no update for the direction.
  virtual void advance(WaveState& state, int n_begin, int n_end, const StepIo& io) = 0;

  // Steps [n_begin, n_end) split around a halo exchange (docs/parallel.md): the same as
  // advance(s, n_begin, n_end, io), except that the halo of s's current level is filled during
  // each step by x. An engine that can, for each step, calls x.start() where the current level
  // is complete, queues the update of the cells of `inner` (whose stencil reads no halo), calls
  // x.finish(), which orders its own work before what is queued after it, and then queues the
  // rest of the step: the boundary's corrections and the update of the cells around `inner`, the
  // injection and the rest. Where x.device_ordered, start() and finish() only queue work on the
  // engine's stream (no host waits), and the engine may record the steps in a graph (the hooks
  // are then called while recording, not again when it replays). This default calls x.start(),
  // x.finish() and advances, step after step.
  struct SplitExchange {
    std::function<void()> start, finish;
    bool device_ordered = false;
    const void* id = nullptr;  // the exchange: a recorded graph is of one exchange only
  };
  virtual void advance_split(WaveState& s, int n_begin, int n_end, const StepIo& io,
                             const Box& /*inner*/, const SplitExchange& x) {
    for (int n = n_begin; n < n_end; ++n) {
      x.start();
      x.finish();
      advance(s, n, n + 1, io);
    }
  }
  // Where the engine queues its work (device and stream); {} for an engine that computes where
  // it is called.
  virtual ExecContext context() const { return {}; }

  // K steps between diagnostics inside advance(); 0: none (queue_diagnostics only).
  void set_diagnostics_every(int k) { diagnostics_every_ = k > 0 ? k : 0; }
  int diagnostics_every() const { return diagnostics_every_; }
  bool diagnostics_due(int field) const {
    return diagnostics_every_ > 0 && field > 0 && field % diagnostics_every_ == 0;
  }

  // Diagnostics of p of the state's current field, waiting for them.
  virtual Diagnostics diagnostics(const WaveState& state) = 0;
  // Asynchronous diagnostics: queue a reduction of the state's current field, tagged `step`;
  // collect the finished ones (these and those advance() queued) later, oldest first, waiting
  // only until at most max_pending are still in flight (0: all done). Engines without a device
  // compute them at once.
  virtual void queue_diagnostics(const WaveState& state, int step) {
    done_.push_back({step, diagnostics(state)});
  }
  virtual std::vector<TaggedDiagnostics> completed_diagnostics(int /*max_pending*/) {
    std::vector<TaggedDiagnostics> out;
    out.swap(done_);
    return out;
  }

  // ---- Per-cell arrays and the operations of Born modelling and imaging (docs/migration.md).
  // An array of `cells` elements, zeroed; make_array(kind): of the layout's size.
  virtual std::unique_ptr<CellArray> make_array(ArrayKind kind, int64_t cells) = 0;
  std::unique_ptr<CellArray> make_array(ArrayKind kind = ArrayKind::kDevice) {
    return make_array(kind, spec().layout.size());
  }
  // Level f of s as an array without a copy (what an imaging step may read directly), valid
  // until s steps, rotates or is written; null where the engine cannot give one (copy() then).
  virtual std::unique_ptr<const CellArray> view(const WaveState& /*s*/, FieldRef /*f*/) {
    return nullptr;
  }
  // A level of one field into an array, or an array into a level (any kinds).
  virtual void copy(const WaveState& s, FieldRef f, CellArray& out) = 0;
  virtual void copy(const CellArray& in, WaveState& s, FieldRef f) = 0;
  // out = scale * weight * ((1+g) cur - 2 prev + (1-g) older) of field `field` of s (weight
  // null: 1), g the sponge term: the second time difference of the step that made s's current
  // level, times dt^2 (older: the level before prev).
  virtual void second_difference(const WaveState& s, int field, const CellArray& older,
                                 const CellArray* weight, double scale, CellArray& out) = 0;
  // image += scale * a * ((1+g) cur - 2 prev + (1-g) older) of field `field` of s.
  virtual void correlate_second_difference(CellArray& image, const CellArray& a, const WaveState& s,
                                           int field, const CellArray& older, double scale) = 0;
  // image += scale * a * b, and image += scale * a * (level f of s).
  virtual void correlate(CellArray& image, const CellArray& a, const CellArray& b,
                         double scale) = 0;
  virtual void correlate(CellArray& image, const CellArray& a, const WaveState& s, FieldRef f,
                         double scale) = 0;

  // A transfer beside the computation (what a migration's host storage overlaps with the
  // steps): copies `from` into `to` (arrays of this engine of the same size and precision, any
  // kinds) once the work enqueued so far has run, on a queue of its own; work enqueued after
  // wait(ticket) runs once that copy is done. An engine that computes where it is called copies
  // at once. Throws std::invalid_argument for arrays that do not match.
  virtual long long copy_async(const CellArray& from, CellArray& to);
  virtual void wait(long long /*ticket*/) {}

  // Adjoint step n of a migration with the imaging of that step (docs/migration.md §3): the
  // same as advance(s, n, n + 1, io) followed by, with psi the adjoint field (psi[n - 1] the
  // state's previous level before the step, psi[n] its current one, psi[n + 1] the new one),
  //   crosscorrelation += cc_scale * sum_f u[f] ((1+g) psi_f[n+1] - 2 psi_f[n] + (1-g) psi_f[n-1])
  //   illumination     += k u[0]^2
  //   zero_lag         += k u[0] psi_0[n]
  // over the updated region (images left null are not computed). This default runs them as
  // separate passes after the step; a backend may fuse them into its update, where the second
  // difference is at hand (the CUDA engine does).
  struct Imaging {
    const CellArray* u[kMaxFields] = {nullptr, nullptr};  // the source field of the step
    CellArray* crosscorrelation = nullptr;
    CellArray* illumination = nullptr;
    CellArray* zero_lag = nullptr;
    double cc_scale = 0;
    double k = 1;
  };
  virtual void advance_imaging(WaveState& s, int n, const StepIo& io, const Imaging& im);

  // Launch chunks of steps as captured graphs where the backend has them (default on).
  virtual void set_graphs(bool /*on*/) {}
  virtual bool graphs() const { return false; }
  // The recorded graphs released (after the work queued so far): before something they hold
  // goes, such as an NCCL communicator whose transfers a graph captured.
  virtual void drop_graphs() {}
  virtual void synchronize() {}
  // What the run report should say about how this engine was set up beyond its name (the
  // variant choice, the memory it got), as (key, value) pairs.
  virtual std::vector<std::pair<std::string, std::string>> details() const { return {}; }
  // The update rate of this engine's kernel as measured on its grid shape and device when the
  // kernel was chosen (Gcells/s over the layout's cells: `kernel.variant = "auto"`'s
  // measurement or its cache); 0 where nothing was measured.
  virtual double measured_gcells() const { return 0.0; }

  // Called between the batches of steps a Propagation hands the engine (Propagation::steps):
  // what a rank must do while it computes, such as letting MPI serve the other ranks' requests.
  void set_poll(std::function<void()> f) { poll_ = std::move(f); }
  void poll() const {
    if (poll_) poll_();
  }

 protected:
  // advance_imaging's arrays are the derived engine's (they may hold its stream): a derived
  // engine releases them in its destructor, before its own members go.
  void release_imaging_scratch() { older_.clear(); }

 private:
  std::vector<TaggedDiagnostics> done_;
  int diagnostics_every_ = 0;
  std::vector<std::unique_ptr<CellArray>> older_;  // advance_imaging's psi[n - 1] per field
  std::function<void()> poll_;                     // set_poll
};

}  // namespace seisfd
