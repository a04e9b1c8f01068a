// The CUDA Engine, one for every physics: the medium's coefficients on the device, the selected
// registry variant for the update (its forward or its transposed launch), the CPML profile, the
// scratch the variant needs, and the field_ops kernels around them, all on one stream of one
// device. The step sequence is the one every backend runs (docs/architecture.md §3).
//
// Chunks of steps run as CUDA graphs: the launches of L steps are captured once and replayed
// for every chunk of that length. The step number lives in a device counter that the
// injection and recording kernels read and the chunk advances; a graph records the raw
// addresses of the buffers it was captured with, so one is kept per state (by its id and the
// parity of its levels: after an odd chunk prev and cur swap), direction, sources and
// receivers, and nothing is re-captured as the loop goes on.
//
// Diagnostics: the diagnostics of field m (set_diagnostics_every) are reduced inside the chunk
// that runs step m, by its update kernel where the variant fuses them (it reads field m anyway)
// or by the separate reduction kernel just before it, each into its own accumulator. The
// one-thread kernel that ends every chunk (it advances the step counter) also copies the
// chunk's totals into a ring of pinned host memory mapped for the device and zeroes them: a
// check adds no launch, no copy and no graph boundary. An event after the chunk tells the host
// when those slots are final; the loop never waits for them unless the ring is full.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/cpml.hpp"
#include "kernels/cuda/cuda_state.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/diag_queue.hpp"
#include "kernels/cuda/engine_setup.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/imaging.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/registry.hpp"

namespace seisfd {
namespace {

using cuda::CudaReceivers;
using cuda::CudaSources;
using cuda::CudaState;
using cuda::DeviceBuffer;

class CudaEngine final : public Engine {
 public:
  // `compress`: the medium, the states and the scratch in compressible memory.
  CudaEngine(const StepSpec& spec, const Medium& m, double dt, const KernelVariant& variant,
             const CudaEngineOptions& o, bool compress, int compute_capability)
      : spec_(spec),
        physics_(m.physics),
        fields_(traits(m.physics).fields),
        variant_(variant),
        device_(o.device),
        compress_(compress),
        use_graphs_(o.graphs),
        fuse_diagnostics_(o.fused_diagnostics),
        fuse_imaging_(o.fused_imaging),
        stream_(o.device),
        transfers_(o.device) {
    const cuda::DeviceGuard guard(device_);
    check_medium(m, spec, std::string("cuda engine (") + to_string(m.physics) + "): ");
    compute_capability_ = compute_capability;
    std::vector<float> coef[kMaxMediumArrays];
    CompactArray codes[kMaxMediumArrays];
    medium_coefficients(m, spec, dt, coef, codes);
    for (int k = 0; k < traits(physics_).medium_arrays; ++k) {
      medium_[k] = DeviceBuffer<float>(coef[k].size(), compress_, device_);
      medium_[k].upload(coef[k], stream());
    }
    // Compact storage: the codes beside the fp32 copy of the values they decode to, which the
    // transposed launches, the naive variants, CPML and the injection read.
    if (m.precision != ModelPrecision::kFp32) {
      compact_view_.precision = m.precision;
      for (int k = 0; k < traits(physics_).medium_arrays; ++k) {
        compact_[k] = DeviceBuffer<uint16_t>(codes[k].code.size(), compress_, device_);
        compact_[k].upload(codes[k].code, stream());
        compact_view_.code[k] = compact_[k].get();
        compact_view_.scale[k] = codes[k].scale;
        compact_view_.offset[k] = codes[k].offset;
      }
    }
    compressed_ = compress_ && medium_[kVdt2].compressed();
    vdt2_host_ = std::move(coef[kVdt2]);
    ensure_scratch(variant_.scratch_arrays);
    step_ = DeviceBuffer<int>(1);
    cuda::launch_set_step(step_.get(), 0, stream());
    queue_ = std::make_unique<cuda::DiagQueue>(stream());
    if (spec.cpml_on()) cpml_ = std::make_unique<cuda::CpmlBoundary>(spec, stream());
    stream_.synchronize();  // the uploads' sources go when we return
  }

  ~CudaEngine() override {
    const cuda::DeviceGuard guard(device_);
    release_imaging_scratch();
    cudaStreamSynchronize(stream());  // destructors never throw
    cudaStreamSynchronize(transfers_.get());
    for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
  }

  std::string name() const override { return "cuda:" + variant_.name; }
  Physics physics() const override { return physics_; }
  const StepSpec& spec() const override { return spec_; }

  std::unique_ptr<WaveState> make_state() override {
    const cuda::DeviceGuard guard(device_);
    int64_t cells[3] = {0, 0, 0};
    for (int ax = 0; ax < 3; ++ax) cells[ax] = cpml_ ? cpml_->slab_cells(ax) : 0;
    return std::make_unique<CudaState>(spec_, fields_, cells, compress_, ctx(), name());
  }

  std::unique_ptr<Sources> make_sources(const SparsePoints& pts, const std::vector<double>& traces,
                                        int nt) override {
    if (static_cast<int64_t>(traces.size()) != static_cast<int64_t>(pts.count()) * nt)
      throw std::invalid_argument("sources: traces size does not match points x nt");
    const cuda::DeviceGuard guard(device_);
    std::vector<float> coef(pts.index.size());
    for (size_t k = 0; k < pts.index.size(); ++k) {
      const int64_t i = pts.index[k];
      coef[k] = static_cast<float>(pts.weight[k] * injection_factor(spec_, i, vdt2_host_[i]));
    }
    return std::make_unique<CudaSources>(pts, coef, traces, nt, stream());
  }

  std::unique_ptr<Receivers> make_receivers(const SparsePoints& pts, int nt) override {
    const cuda::DeviceGuard guard(device_);
    return std::make_unique<CudaReceivers>(pts, nt, ctx());
  }

  void advance(WaveState& state, int n_begin, int n_end, const StepIo& io) override {
    CudaState& s = own(state);
    check_direction(spec_, io.direction);
    if (io.direction == Direction::kAdjoint) {
      if (!variant_.transposed)
        throw std::invalid_argument("adjoint: variant " + variant_.name +
                                    " has no transposed update");
      ensure_scratch(variant_.transposed_scratch_arrays);
    }
    if (n_end <= n_begin) return;
    const cuda::DeviceGuard guard(device_);
    launch_steps(s, n_begin, n_end, io);
  }

  // Each step's interior update queued between x.start() and x.finish(), the rest after them;
  // the steps as one graph (per launch of diagnostics) where x is ordered on the device. Not
  // split (x.start(), x.finish(), then the whole step): variants with whole-layout passes
  // (scratch arrays: TTI's cross terms would be computed once per box), the adjoint and fused
  // imaging, volume sources and regions, an empty interior, and interiors cut in x: a face
  // `halo` cells thick in x is updated as whole tiles 32 cells wide or more, which costs more
  // than the exchange it hides (2 x H100, 512^3 a GPU, 1x1x2: bench/NOTES.md).
  void advance_split(WaveState& state, int n_begin, int n_end, const StepIo& io, const Box& inner,
                     const SplitExchange& x) override {
    if (variant_.scratch_arrays > 0 || io.direction != Direction::kForward || imaging_ ||
        io.region || io.volume[0] || io.volume[1] || inner.cells() == 0 ||
        inner.lo[2] != spec_.begin[2] || inner.hi[2] != spec_.end[2]) {
      Engine::advance_split(state, n_begin, n_end, io, inner, x);
      return;
    }
    if (n_end <= n_begin) return;
    CudaState& s = own(state);
    const cuda::DeviceGuard guard(device_);
    const Split split{inner, &x};
    launch_steps(s, n_begin, n_end, io, &split);
  }

  ExecContext context() const override { return ctx(); }

  // ---- Per-cell arrays, Born modelling and imaging (kernels/cuda/imaging.hpp)

  using Engine::make_array;
  std::unique_ptr<CellArray> make_array(ArrayKind kind, int64_t cells) override {
    return std::make_unique<cuda::CudaArray>(kind, cells, device_, stream());
  }

  std::unique_ptr<const CellArray> view(const WaveState& s, FieldRef f) override {
    return std::make_unique<cuda::CudaArray>(level(own(s), f), spec_.layout.size(), device_,
                                             stream());
  }

  void copy(const WaveState& s, FieldRef f, CellArray& out) override {
    const cuda::DeviceGuard guard(device_);
    cuda::launch_level_to_array(level(own(s), f), array(out).ref(), spec_.layout.size(), stream());
  }

  void copy(const CellArray& in, WaveState& s, FieldRef f) override {
    const cuda::DeviceGuard guard(device_);
    cuda::launch_array_to_level(array(in).ref(), level(own(s), f), spec_.layout.size(), stream());
  }

  void second_difference(const WaveState& s, int field, const CellArray& older,
                         const CellArray* weight, double scale, CellArray& out) override {
    const cuda::DeviceGuard guard(device_);
    const CudaState& st = own(s);
    out.zero();
    cuda::launch_second_difference(spec_, st.current(field), st.previous(field), array(older).ref(),
                                   weight ? array(*weight).ref() : cuda::ArrayRef{},
                                   static_cast<float>(scale), array(out).ref(), stream());
  }

  void correlate_second_difference(CellArray& image, const CellArray& a, const WaveState& s,
                                   int field, const CellArray& older, double scale) override {
    const cuda::DeviceGuard guard(device_);
    const CudaState& st = own(s);
    cuda::launch_correlate_second_difference(
        spec_, array(image).ref(), array(a).ref(), st.current(field), st.previous(field),
        array(older).ref(), static_cast<float>(scale), stream());
  }

  void correlate(CellArray& image, const CellArray& a, const CellArray& b, double scale) override {
    const cuda::DeviceGuard guard(device_);
    cuda::launch_correlate(spec_, array(image).ref(), array(a).ref(), array(b).ref(),
                           static_cast<float>(scale), stream());
  }

  void correlate(CellArray& image, const CellArray& a, const WaveState& s, FieldRef f,
                 double scale) override {
    const cuda::DeviceGuard guard(device_);
    cuda::launch_correlate(spec_, array(image).ref(), array(a).ref(),
                           cuda::ArrayRef{level(own(s), f), false}, static_cast<float>(scale),
                           stream());
  }

  // The imaging fused into the adjoint update where the variant does it (FusedImaging): the
  // step's own second difference correlated in the update kernel, the injection's share of it
  // by a kernel over the injected cells. Otherwise (or with fused_imaging off) the separate
  // passes of Engine::advance_imaging.
  void advance_imaging(WaveState& state, int n, const StepIo& io, const Imaging& im) override {
    const bool fuse = fuse_imaging_ && variant_.fuses_imaging &&
                      io.direction == Direction::kAdjoint && !io.region && !io.volume[0] &&
                      !io.volume[1];
    if (!fuse) {
      Engine::advance_imaging(state, n, io, im);
      return;
    }
    FusedImaging f;
    for (int k = 0; k < fields_; ++k) {
      if (!im.u[k])
        throw std::invalid_argument("advance_imaging: no source field " + std::to_string(k));
      const cuda::ArrayRef r = array(*im.u[k]).ref();
      if (k > 0 && r.half != f.u_half)
        throw std::invalid_argument("advance_imaging: source fields of mixed precision");
      f.u[k] = r.p;
      f.u_half = r.half;
    }
    const auto image = [](CellArray* a) -> float* {
      if (!a) return nullptr;
      const cuda::ArrayRef r = array(*a).ref();
      if (r.half) throw std::invalid_argument("advance_imaging: images must be fp32");
      return static_cast<float*>(r.p);
    };
    f.cc = image(im.crosscorrelation);
    f.il = image(im.illumination);
    f.zl = image(im.zero_lag);
    f.cc_scale = static_cast<float>(im.cc_scale);
    f.k = static_cast<float>(im.k);
    imaging_ = &f;
    try {
      advance(state, n, n + 1, io);
    } catch (...) {
      imaging_ = nullptr;
      throw;
    }
    imaging_ = nullptr;
  }

  // On the transfer stream, behind an event of the engine's stream; the ticket's event tells the
  // engine's stream when the copy is done.
  long long copy_async(const CellArray& from, CellArray& to) override {
    const cuda::DeviceGuard guard(device_);
    const cuda::CudaArray &a = array(from), &b = array(to);
    if (a.size() != b.size() || a.ref().half != b.ref().half)
      throw std::invalid_argument("copy_async: arrays of different size or precision");
    cuda::Event ready;
    ready.record(stream());
    CUDA_CHECK(cudaStreamWaitEvent(transfers_.get(), ready.get(), 0));
    const size_t bytes = static_cast<size_t>(a.size()) * (a.ref().half ? 2 : 4);
    CUDA_CHECK(cudaMemcpyAsync(b.ref().p, a.ref().p, bytes, cudaMemcpyDefault, transfers_.get()));
    cuda::Event done;
    done.record(transfers_.get());
    copies_.emplace(++last_ticket_, std::move(done));
    return last_ticket_;
  }

  void wait(long long ticket) override {
    const cuda::DeviceGuard guard(device_);
    auto it = copies_.find(ticket);
    if (it == copies_.end()) return;  // waited for already
    CUDA_CHECK(cudaStreamWaitEvent(stream(), it->second.get(), 0));
    copies_.erase(it);
  }

  void set_graphs(bool on) override { use_graphs_ = on; }
  bool graphs() const override { return use_graphs_; }

  Diagnostics diagnostics(const WaveState& state) override {
    const cuda::DeviceGuard guard(device_);
    return queue_->reduce_and_wait(own(state).current(0), spec_, stream());
  }

  void queue_diagnostics(const WaveState& state, int step) override {
    const cuda::DeviceGuard guard(device_);
    queue_->reduce_now(own(state).current(0), spec_, step, stream());
  }

  std::vector<TaggedDiagnostics> completed_diagnostics(int max_pending) override {
    const cuda::DeviceGuard guard(device_);
    return queue_->completed(max_pending);
  }

  void synchronize() override {
    const cuda::DeviceGuard guard(device_);
    stream_.synchronize();
    transfers_.synchronize();
  }

  std::vector<std::pair<std::string, std::string>> details() const override { return details_; }
  void set_details(std::vector<std::pair<std::string, std::string>> d) { details_ = std::move(d); }
  double measured_gcells() const override { return gcells_; }
  void set_measured_gcells(double g) { gcells_ = g; }
  bool compressed() const { return compressed_; }

 private:
  // (steps, state, its current p (the levels' parity), steps between reductions, step of the
  // first reduction or -1, direction, sources, receivers)
  // (steps, state, its current level, diagnostics every and first, direction, sources,
  // receivers, a split's exchange and interior)
  using GraphKey = std::tuple<int, uint64_t, const float*, int, int, int, uint64_t, uint64_t,
                              const void*, std::array<int, 6>>;
  // Graphs of states, sources or receivers that are gone are never launched again (ids are not
  // reused); past this many the cache starts over.
  static constexpr size_t kMaxGraphs = 64;

  static std::array<int, 6> box_key(const Box& b) {
    return {b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2]};
  }

  cudaStream_t stream() const { return stream_.get(); }

  static const cuda::CudaArray& array(const CellArray& a) {
    const auto* c = dynamic_cast<const cuda::CudaArray*>(&a);
    if (!c) throw std::invalid_argument("cuda engine: the array was made by another engine");
    return *c;
  }
  static float* level(const CudaState& s, FieldRef f) {
    if (f.field < 0 || f.field >= s.fields())
      throw std::invalid_argument("cuda engine: no field " + std::to_string(f.field));
    return f.level == Level::kCurrent ? s.current(f.field) : s.previous(f.field);
  }
  ExecContext ctx() const { return {device_, stream_.get()}; }

  template <class S, class C = std::conditional_t<std::is_const_v<S>, const CudaState, CudaState>>
  C& own(S& s) const {  // S: WaveState, const or not
    auto* c = dynamic_cast<C*>(&s);
    if (!c || c->fields() != fields_)
      throw std::invalid_argument("cuda engine: the state was made by another engine");
    return *c;
  }

  // At least k zeroed layout-sized scratch arrays (variants write only where they read back).
  void ensure_scratch(int k) {
    const cuda::DeviceGuard guard(device_);
    const size_t n = static_cast<size_t>(spec_.layout.size());
    for (int i = 0; i < k && i < kMaxScratchArrays; ++i)
      if (scratch_[i].size() == 0) {
        scratch_[i] = DeviceBuffer<float>(n, compress_, device_);
        scratch_[i].zero(stream());
      }
  }

  // The first field >= n whose diagnostics are due (diagnostics_every() > 0).
  int first_due(int n) const {
    const int k = diagnostics_every();
    return (std::max(n, 1) + k - 1) / k * k;
  }

  // One step split around a halo exchange (advance_split): the update of `inner` first.
  struct Split {
    Box inner;
    const SplitExchange* exchange;
  };

  // Steps [n_begin, n_end) in launches of at most kPerLaunch reductions each (one accumulator
  // each), and of one step each where a split's exchange waits on the host.
  void launch_steps(CudaState& s, int n_begin, int n_end, const StepIo& io,
                    const Split* split = nullptr) {
    if (n_begin != device_step_) cuda::launch_set_step(step_.get(), n_begin, stream());
    const int64_t every = diagnostics_every();
    for (int n = n_begin; n < n_end;) {
      int end = split && !split->exchange->device_ordered ? n + 1 : n_end;
      if (every > 0)
        end = static_cast<int>(
            std::min<int64_t>(end, first_due(n) + every * cuda::DiagQueue::kPerLaunch));
      launch_chunk(s, n, end, io, split);
      n = end;
    }
    device_step_ = n_end;
    s.set_step(n_end);
  }

  // Steps [n, end) as one graph, or as plain launches, with the reductions due among them.
  void launch_chunk(CudaState& st, int n, int end, const StepIo& io, const Split* split = nullptr) {
    cudaStream_t s = stream();
    const int count = end - n;
    const int first = diagnostics_every() > 0 && first_due(n) < end ? first_due(n) - n : -1;
    const int every = first >= 0 ? diagnostics_every() : 0;
    std::vector<int> fields;
    for (int k = first; every > 0 && k < count; k += every) fields.push_back(n + k);
    queue_->make_room(static_cast<int>(fields.size()));
    // Volume sources and regions change between the one-step runs that use them, and a split's
    // exchange may wait on the host: plain launches.
    const bool plain =
        io.region || io.volume[0] || io.volume[1] || (split && !split->exchange->device_ordered);
    if (!use_graphs_ || count < 2 || plain) {
      enqueue(st, count, s, first, every, io, split);
    } else {
      const auto* src = static_cast<const CudaSources*>(io.sources);
      const auto* rec = static_cast<const CudaReceivers*>(io.receivers);
      const GraphKey key{count,
                         st.uid(),
                         st.current(0),
                         every,
                         first,
                         static_cast<int>(io.direction),
                         src ? src->uid() : 0,
                         rec ? rec->uid() : 0,
                         split ? split->exchange->id : nullptr,
                         box_key(split ? split->inner : Box{})};
      auto it = graphs_.find(key);
      if (it == graphs_.end()) {
        if (graphs_.size() >= kMaxGraphs) drop_graphs();
        cudaGraph_t g;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
        enqueue(st, count, s, first, every, io, split);  // recorded, not run; roles as after
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
        CUDA_CHECK(cudaGraphDestroy(g));
        graphs_.emplace(key, exec);
        CUDA_CHECK(cudaGraphLaunch(exec, s));
      } else {
        CUDA_CHECK(cudaGraphLaunch(it->second, s));
        if (count % 2) st.rotate();
      }
    }
    queue_->published(fields, s);
  }

  // The launches of `count` steps on stream s (run now, or recorded into a graph). Step k
  // reduces the diagnostics of its cur when k >= first and (k - first) % every == 0 (every > 0),
  // the j-th such step into acc(j): the update does it where the variant fuses them, the
  // separate reduction otherwise. The chunk's last launch advances the step counter and
  // publishes the chunk's reductions.
  // With a split, each step: the exchange's start, the update of split->inner, its finish, then
  // the CPML's psi (which reads the halo) and the update of the boxes around the interior.
  void enqueue(CudaState& st, int count, cudaStream_t s, int first, int every, const StepIo& io,
               const Split* split = nullptr) {
    const PhysicsTraits& t = traits(physics_);
    const bool forward = io.direction == Direction::kForward;
    // The update of the cells of spec r's region: the variant's, or where it refuses a box (a
    // thin box of a split step or of a reconstruction), the naive variant's; nothing for none.
    const auto update = [&](const StepSpec& r, UpdateArgs args, const ExecContext& ctx) {
      if (updated_region(r).cells() == 0) return;
      const KernelVariant& v = variant_for(r);
      for (int i = 0; i < kMaxScratchArrays; ++i) args.scratch[i] = scratch_[i].get();
      (forward ? v.forward : v.transposed)(r, args, ctx);
    };
    // A region: its cells only, without CPML (StepIo::region).
    const StepSpec restricted = io.region ? narrowed(spec_, *io.region) : spec_;
    cuda::CpmlBoundary* const cpml = io.region ? nullptr : cpml_.get();
    const auto* src = static_cast<const CudaSources*>(io.sources);
    const auto* rec = static_cast<const CudaReceivers*>(io.receivers);
    const ExecContext c = ctx();
    int j = 0;
    for (int k = 0; k < count; ++k) {
      const bool reduce = every > 0 && k >= first && (k - first) % every == 0;
      // A fused imaging step reduces its diagnostics separately (one epilogue per launch).
      // A region or a split may update some boxes with another variant: reduced separately.
      const bool fused = reduce && variant_.fuses_diagnostics && fuse_diagnostics_ && !imaging_ &&
                         !split && !io.region;
      cuda::DiagAccum* acc = reduce ? queue_->acc(j++) : nullptr;
      if (reduce && !fused) cuda::launch_diagnostics(st.current(0), spec_, acc, s);
      UpdateArgs a;
      for (int f = 0; f < fields_; ++f) {
        a.prev[f] = st.previous(f);
        a.cur[f] = st.current(f);
        a.next[f] = st.previous(f);  // the new level overwrites the oldest
      }
      for (int m = 0; m < t.medium_arrays; ++m) a.medium[m] = medium_[m].get();
      a.compact = compact_view_;
      for (int i = 0; i < kMaxScratchArrays; ++i) a.scratch[i] = scratch_[i].get();
      if (fused) a.diag = acc;
      if (imaging_) a.imaging = *imaging_;
      // CPML (forward only: the adjoint refuses it): axis d follows field cpml_source[d].
      const float* csrc[3] = {a.cur[t.cpml_source[0]], a.cur[t.cpml_source[1]],
                              a.cur[t.cpml_source[2]]};
      if (split) {
        split->exchange->start();
        update(narrowed(spec_, split->inner), a, c);
        split->exchange->finish();
        if (cpml) cpml->launch_psi(st.cpml(), csrc, s);
        for (const Box& b : shell_boxes(updated_region(spec_), split->inner))
          update(narrowed(spec_, b), a, c);
      } else {
        if (cpml) cpml->launch_psi(st.cpml(), csrc, s);
        update(restricted, a, c);
      }
      if (cpml) {
        const float* w[kMaxFields][3];
        for (int f = 0; f < kMaxFields; ++f)
          for (int ax = 0; ax < 3; ++ax)
            w[f][ax] = t.cpml_weight[f][ax] < 0 ? nullptr : a.medium[t.cpml_weight[f][ax]];
        cpml->launch_correct(st.cpml(), csrc, a.medium[kVdt2], a.next[0], w[0],
                             fields_ > 1 ? a.next[1] : nullptr, w[1], s);
      }
      st.rotate();
      for (int f = 0; f < fields_ && forward; ++f)
        if (io.volume[f])
          cuda::launch_inject_volume(spec_, st.current(f), a.medium[kVdt2],
                                     array(*io.volume[f]).ref(), s);
      // Forward: inject into every field, record p; adjoint: inject into p, record the sum.
      if (src)
        cuda::launch_inject(st.current(0), forward && fields_ > 1 ? st.current(1) : nullptr,
                            src->view(), step_.get(), k, s);
      if (src && imaging_ && imaging_->cc)
        cuda::launch_correlate_injection(spec_, {imaging_->cc, false},
                                         {const_cast<void*>(imaging_->u[0]), imaging_->u_half},
                                         src->view(), step_.get(), k, imaging_->cc_scale, s);
      if (spec_.free_surface)
        for (int f = 0; f < fields_; ++f)
          cuda::launch_free_surface(st.current(f), spec_.layout, spec_.surface, spec_.radius, s);
      if (rec)
        cuda::launch_record(st.current(0), !forward && fields_ > 1 ? st.current(1) : nullptr,
                            rec->view(), step_.get(), k + 1, s);
    }
    if (j > 0)
      cuda::launch_diag_publish(queue_->ring(), queue_->acc(), j, s, step_.get(), count);
    else
      cuda::launch_advance_step(step_.get(), count, s);
  }

  // The variant that updates the region of r: the engine's, unless r narrows the region to a
  // box it refuses (or to no cells); then the naive variant of the physics and order, which
  // takes any box.
  const KernelVariant& variant_for(const StepSpec& r) {
    bool whole = true;
    for (int a = 0; a < 3; ++a)
      whole = whole && r.begin[a] == spec_.begin[a] && r.end[a] == spec_.end[a];
    if (whole || !variant_.can_implement || updated_region(r).cells() == 0 ||
        variant_.can_implement(r, compute_capability_).empty())
      return variant_;
    if (!fallback_) {
      const std::string name =
          std::string(to_string(physics_)) + "/o" + std::to_string(2 * spec_.radius) + "/naive";
      fallback_ = find_variant(name);
      if (!fallback_) throw std::logic_error("cuda engine: no variant " + name);
      ensure_scratch(std::max(fallback_->scratch_arrays, fallback_->transposed_scratch_arrays));
    }
    return *fallback_;
  }

  void drop_graphs() override {
    const cuda::DeviceGuard guard(device_);
    stream_.synchronize();
    for (auto& [key, exec] : graphs_) CUDA_CHECK(cudaGraphExecDestroy(exec));
    graphs_.clear();
  }

  StepSpec spec_;
  Physics physics_;
  int fields_;
  const KernelVariant& variant_;
  int device_;
  bool compress_, compressed_ = false;
  bool use_graphs_, fuse_diagnostics_, fuse_imaging_;
  const FusedImaging* imaging_ = nullptr;  // during advance_imaging: what its step fuses
  cuda::Stream stream_;
  cuda::Stream transfers_;                   // copy_async's queue
  std::map<long long, cuda::Event> copies_;  // copies not waited for yet, by ticket
  long long last_ticket_ = 0;
  std::vector<float> vdt2_host_;  // (v dt)^2 as the device has it: the injection coefficients
  DeviceBuffer<float> medium_[kMaxMediumArrays];
  DeviceBuffer<uint16_t> compact_[kMaxMediumArrays];  // kernel.model_precision's codes, if not fp32
  CompactMediumView compact_view_;
  DeviceBuffer<float> scratch_[kMaxScratchArrays];
  std::unique_ptr<cuda::CpmlBoundary> cpml_;
  DeviceBuffer<int> step_;                   // the device's step counter
  int device_step_ = 0;                      // its value once the queued work has run
  int compute_capability_ = 0;               // of the device (variant_for asks variants with it)
  const KernelVariant* fallback_ = nullptr;  // variant_for()'s naive variant, found at first use
  std::map<GraphKey, cudaGraphExec_t> graphs_;
  std::unique_ptr<cuda::DiagQueue> queue_;  // the queued diagnostics
  std::vector<std::pair<std::string, std::string>> details_;
  double gcells_ = 0;  // the chosen variant's measured rate (measured_gcells)
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const StepSpec& spec, const Medium& medium, double dt,
                                         const CudaEngineOptions& o) {
  const size_t bytes = cuda_engine_bytes(medium.physics, spec, false, medium.precision) +
                       cuda_state_bytes(medium.physics, spec) + o.extra_bytes;
  const cuda::EngineSetup s =
      cuda::prepare_engine(spec, bytes, o.variant, medium.physics, o.device, o.compressible);
  if (o.entry && o.entry->name != s.choice.variant->name)
    throw std::logic_error("cuda engine: the entry given is not the variant chosen");
  const KernelVariant& variant = o.entry ? *o.entry : *s.choice.variant;
  auto e = std::make_unique<CudaEngine>(spec, medium, dt, variant, o, s.compress,
                                        s.device.compute_capability);
  auto details = cuda::engine_details(s, e->compressed());
  if (medium.precision != ModelPrecision::kFp32)
    details.emplace_back("model_precision",
                         std::string(to_string(medium.precision)) +
                             (s.choice.variant->reads_compact_medium
                                  ? ": the forward update reads the 16-bit codes"
                                  : ": this variant reads the fp32 copy of the rounded values"));
  e->set_details(std::move(details));
  for (const auto& [name, g] : s.choice.gcells)
    if (name == s.choice.variant->name) e->set_measured_gcells(g);
  return e;
}

}  // namespace seisfd
