// The peer halo exchange (kernels/cuda_backend.hpp, docs/parallel.md): neighbours on one node
// exchange packed faces through buffers mapped with CUDA IPC, and synchronise on the device.
//
// Once the state's current level is complete, the rank packs the `halo` cells next to each face
// it shares into a contiguous buffer of its own (every field, the full extent of the other axes),
// signals each neighbour by a flag in the neighbour's memory, waits on the device for the
// neighbours' flags in its own memory, and unpacks the neighbours' packed buffers, read in place
// over the peer mapping, into its halo. Contiguous buffers keep the link's transfers whole even
// for x faces, whose rows are only `halo` cells long in the wavefield. Everything is queued on
// the engine's stream: the host never waits for a neighbour, so it queues steps ahead, and the
// steps of a chunk go into one CUDA graph (Engine::advance_split with device_ordered).
//
// Flags. Each rank keeps, in device memory, the count of exchanges it has started and six inbox
// flags, one a face slot (z-, z+, y-, y+, x-, x+). Exchange c (counted from 1) packs into the
// buffers of parity c % 2; a signal kernel then stores c into the neighbour's inbox flag of the
// opposite slot with a system-scope release; a wait kernel spins until its own inbox flags of the
// slots being filled hold at least c (system-scope acquire), and the unpacks follow it on the
// stream. The counts live on the device so that a graph replayed does the next exchanges, not the
// recorded ones. The wait kernel adds the time it spun to a device counter: the time the stream
// stood still for the neighbours (HaloExchange::wait_seconds).
//
// Edges and corners. The acoustic and VTI stencils read along the axes only, so every face is
// packed at once and the halo's edges are never read. TTI's cross terms read them: its faces go
// axis after axis (z, then y over the z halo just unpacked, then x over both), so that the
// edges and corners arrive with the later axes' faces.
//
// Ordering. This rank writes the buffers of parity c % 2 again at exchange c + 2, after its
// unpack of exchange c + 1 on its stream, which waited for the neighbour's signal of c + 1, which
// the neighbour's stream sends after its unpack of exchange c, the last read of those buffers.
// The buffers belong to the exchange, not to a state: every state the engine steps goes through
// the same buffers, in the same order on every rank.
//
// Overlap (Propagation::steps, Engine::advance_split): start() queues the packs and signals (the
// first axis's for TTI) where the level is complete; the engine queues the interior's update
// behind them; finish() queues the waits and the unpacks behind the interior and ahead of the
// rest of the step.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cuda_state.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd {
namespace {

struct FieldPtrs {
  float* f[kMaxFields];
};

// The device-side state of a rank's exchange (one allocation, mapped by the neighbours).
struct Flags {
  unsigned long long inbox[6];  // by slot: the last exchange whose faces the neighbour there packed
  unsigned long long count;     // exchanges started by this rank
  unsigned long long wait_ns;   // time the wait kernels spun
};

// The buffer of the exchange under way: exchange c packs into and reads from parity c % 2.
// `ahead`: 1 before the signal kernel has counted the exchange (the first packs), else 0.
__device__ __forceinline__ float* parity_buffer(float* const (&b)[2], const Flags* fl, int ahead) {
  return b[(fl->count + ahead) & 1];
}

struct Buffers {
  float* b[2];
};

// kPack: packed[f][cell of the box] = field f at the box (origin o, extents n) of layout l; else
// the other way. One thread per cell of the box, every field.
template <bool kPack>
__global__ void face_kernel(Buffers buf, const Flags* fl, int ahead, FieldPtrs field, int fields,
                            Layout l, int3 o, int3 n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long plane = static_cast<long long>(n.x) * n.y, cells = plane * n.z;
  if (i >= cells) return;
  float* packed = parity_buffer(buf.b, fl, ahead);
  const int z = static_cast<int>(i / plane);
  const int y = static_cast<int>((i % plane) / n.x);
  const int x = static_cast<int>(i % n.x);
  const long long at = l.idx(o.z + z, o.y + y, o.x + x);
  for (int f = 0; f < fields; ++f)
    if (kPack)
      packed[f * cells + i] = field.f[f][at];
    else
      field.f[f][at] = packed[f * cells + i];
}

using SystemFlag = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_system>;

struct Remote {
  unsigned long long* flag[6];  // by slot: the neighbour's inbox flag for this rank's faces
};

// After the packs of the slots in `mask`: (bump) count the exchange, then give its number to the
// neighbours across those slots. One thread.
__global__ void signal_kernel(Flags* fl, int bump, Remote r, int mask) {
  unsigned long long c = fl->count;
  if (bump) fl->count = ++c;
  __threadfence_system();  // the packs (earlier kernels) before the flags, for every observer
  for (int slot = 0; slot < 6; ++slot)
    if (mask >> slot & 1) SystemFlag(*r.flag[slot]).store(c, ::cuda::memory_order_release);
}

// Until the neighbours across the slots in `mask` have packed the exchange under way. One
// thread; the time it waited adds to wait_ns.
__global__ void wait_kernel(Flags* fl, int mask) {
  const unsigned long long c = fl->count;
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int slot = 0; slot < 6; ++slot) {
    if (!(mask >> slot & 1)) continue;
    SystemFlag in(fl->inbox[slot]);
    while (in.load(::cuda::memory_order_acquire) < c) __nanosleep(64);
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  fl->wait_ns += t1 - t0;
}

// What a rank tells the neighbour across one face, once: its packed buffers for that face, its
// flags, and the extents they were laid out with.
struct FaceInfo {
  cudaIpcMemHandle_t buffer[2];
  cudaIpcMemHandle_t flags;
  int ext[3];
  int fields;
};

class PeerExchange final : public HaloExchange {
 public:
  PeerExchange(Engine& engine, PeerLink link)
      : engine_(engine),
        link_(std::move(link)),
        fields_(traits(engine.physics()).fields),
        edges_(engine.physics() == Physics::kTti),
        device_(engine.context().device) {
    if (!link_.sendrecv) throw std::invalid_argument("peer exchange: no link to the neighbours");
    for (int a = 0; a < 3; ++a)
      if (link_.neighbour[2 * a] >= 0 || link_.neighbour[2 * a + 1] >= 0) axes_[naxes_++] = a;
    const cuda::DeviceGuard guard(device_);
    map_buffers();
  }
  ~PeerExchange() override {
    const cuda::DeviceGuard guard(device_);
    cudaStreamSynchronize(stream());  // destructors never throw
    for (int s = 0; s < 6; ++s) {
      for (int k = 0; k < 2; ++k) {
        if (remote_[s][k]) cudaIpcCloseMemHandle(remote_[s][k]);
        if (own_[s][k]) cudaFree(own_[s][k]);
      }
      if (remote_flags_[s]) cudaIpcCloseMemHandle(remote_flags_[s]);
    }
    if (flags_) cudaFree(flags_);
  }

  const char* name() const override { return "peer (CUDA IPC)"; }
  bool overlaps() const override { return true; }
  bool device_ordered() const override { return true; }

  Box interior(const StepSpec& spec) const override {
    Box b = updated_region(spec);
    for (int a = 0; a < 3; ++a) {
      if (link_.neighbour[2 * a] >= 0) b.lo[a] += link_.halo;
      if (link_.neighbour[2 * a + 1] >= 0) b.hi[a] -= link_.halo;
      b.hi[a] = std::max(b.hi[a], b.lo[a]);
    }
    return b;
  }

  // The first phase's packs and signals, queued behind the engine's work so far.
  void start(WaveState& ws) override {
    const FieldPtrs f = fields_of(ws, fields_);
    const cuda::DeviceGuard guard(device_);
    const int end = phase_end(0);
    for (int i = 0; i < end; ++i) copy_axis(true, f, axes_[i], 1);
    signal(0, end, true);
    started_ = true;
  }

  void finish(WaveState& ws, int fields) override {
    if (!started_) throw std::logic_error("peer exchange: finish() without start()");
    if (fields != fields_) throw std::invalid_argument("peer exchange: not the engine's fields");
    started_ = false;
    const FieldPtrs f = fields_of(ws, fields);
    const cuda::DeviceGuard guard(device_);
    for (int i = 0; i < naxes_;) {
      const int end = phase_end(i);
      if (i > 0) {  // a later axis's faces carry the halo the earlier ones brought
        for (int j = i; j < end; ++j) copy_axis(true, f, axes_[j], 0);
        signal(i, end, false);
      }
      wait_kernel<<<1, 1, 0, stream()>>>(flags_, slots(i, end));
      CUDA_CHECK_LAUNCH();
      for (int j = i; j < end; ++j) copy_axis(false, f, axes_[j], 0);
      i = end;
    }
  }

  void exchange(WaveState& ws, int fields) override {
    start(ws);
    finish(ws, fields);
    const cuda::DeviceGuard guard(device_);
    CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  double wait_seconds() const override {
    const cuda::DeviceGuard guard(device_);
    unsigned long long ns = 0;
    CUDA_CHECK(cudaMemcpyAsync(&ns, &flags_->wait_ns, sizeof ns, cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    return 1e-9 * static_cast<double>(ns);
  }

 private:
  cudaStream_t stream() const { return static_cast<cudaStream_t>(engine_.context().stream); }

  // The axes with neighbours of the phase that starts at axes_[i]: all of them, or one for TTI.
  int phase_end(int i) const { return edges_ ? std::min(i + 1, naxes_) : naxes_; }

  // The slots with a neighbour of the axes axes_[i, end), as a mask.
  int slots(int i, int end) const {
    int m = 0;
    for (int j = i; j < end; ++j)
      for (int side = 0; side < 2; ++side)
        if (link_.neighbour[2 * axes_[j] + side] >= 0) m |= 1 << (2 * axes_[j] + side);
    return m;
  }

  void signal(int i, int end, bool bump) {
    signal_kernel<<<1, 1, 0, stream()>>>(flags_, bump ? 1 : 0, remote_flag_, slots(i, end));
    CUDA_CHECK_LAUNCH();
  }

  static FieldPtrs fields_of(WaveState& ws, int fields) {
    auto* s = dynamic_cast<cuda::CudaState*>(&ws);
    if (!s) throw std::invalid_argument("peer exchange: the state was not made by a CUDA engine");
    FieldPtrs f{};
    for (int k = 0; k < fields; ++k) f.f[k] = s->current(k);
    return f;
  }

  // The face box of (axis a, side) in this rank's layout: the owned cells next to it (pack) or
  // the halo beyond it (unpack), `halo` deep, the full extent of the other axes.
  void face(int a, int side, bool owned, int3& o, int3& n) const {
    const StepSpec& spec = engine_.spec();
    const int w = link_.halo;
    int d0[3] = {0, 0, 0}, ext[3] = {spec.layout.nz, spec.layout.ny, spec.layout.nx};
    if (side == 0)
      d0[a] = owned ? spec.begin[a] : spec.begin[a] - w;
    else
      d0[a] = owned ? spec.end[a] - w : spec.end[a];
    ext[a] = w;
    o = make_int3(d0[2], d0[1], d0[0]);
    n = make_int3(ext[2], ext[1], ext[0]);
  }

  long long face_cells(int a) const {
    const Layout& l = engine_.spec().layout;
    const long long ext[3] = {l.nz, l.ny, l.nx};
    long long c = link_.halo;
    for (int b = 0; b < 3; ++b)
      if (b != a) c *= ext[b];
    return c;
  }

  // Pack this rank's faces of axis a into its buffers, or unpack the neighbours' across them.
  void copy_axis(bool pack, const FieldPtrs& f, int a, int ahead) {
    for (int side = 0; side < 2; ++side) {
      const int slot = 2 * a + side;
      if (link_.neighbour[slot] < 0) continue;
      int3 o, n;
      face(a, side, pack, o, n);
      const long long cells = face_cells(a);
      const unsigned blocks = static_cast<unsigned>((cells + 255) / 256);
      const Layout& l = engine_.spec().layout;
      if (pack)
        face_kernel<true><<<blocks, 256, 0, stream()>>>(Buffers{{own_[slot][0], own_[slot][1]}},
                                                        flags_, ahead, f, fields_, l, o, n);
      else
        face_kernel<false><<<blocks, 256, 0, stream()>>>(
            Buffers{{remote_[slot][0], remote_[slot][1]}}, flags_, ahead, f, fields_, l, o, n);
      CUDA_CHECK_LAUNCH();
    }
  }

  // Once, collectively with the neighbours (every rank of the group constructs its exchange at
  // the same point): this rank's flags and packed buffers (both parities of each face it
  // shares) allocated and their handles sent across the face; the neighbours' opened.
  void map_buffers() {
    const Layout& l = engine_.spec().layout;
    const int ext[3] = {l.nz, l.ny, l.nx};
    CUDA_CHECK(cudaMalloc(&flags_, sizeof(Flags)));
    CUDA_CHECK(cudaMemset(flags_, 0, sizeof(Flags)));
    CUDA_CHECK(cudaDeviceSynchronize());  // zero before any neighbour may signal into it
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int slot = 2 * a + side;
        if (link_.neighbour[slot] < 0) continue;
        const size_t bytes = static_cast<size_t>(face_cells(a)) * fields_ * sizeof(float);
        for (int k = 0; k < 2; ++k) CUDA_CHECK(cudaMalloc(&own_[slot][k], bytes));
      }
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        // To the neighbour on `side` this rank's buffers of that face and its flags; from the
        // one on the other side its buffers of the face it shares with this rank, and its flags.
        const int to = link_.neighbour[2 * a + side], from = link_.neighbour[2 * a + 1 - side];
        FaceInfo mine{}, got{};
        if (to >= 0) {
          for (int k = 0; k < 2; ++k)
            CUDA_CHECK(cudaIpcGetMemHandle(&mine.buffer[k], own_[2 * a + side][k]));
          CUDA_CHECK(cudaIpcGetMemHandle(&mine.flags, flags_));
          for (int b = 0; b < 3; ++b) mine.ext[b] = ext[b];
          mine.fields = fields_;
        }
        link_.sendrecv(&mine, to >= 0 ? sizeof mine : 0, to, &got, from >= 0 ? sizeof got : 0, from,
                       400 + 2 * a + side);
        if (from < 0) continue;
        for (int b = 0; b < 3; ++b)
          if (b != a && got.ext[b] != ext[b])
            throw std::logic_error("peer exchange: rank " + std::to_string(from) +
                                   "'s layout does not match this rank's across their face");
        if (got.fields != fields_)
          throw std::logic_error("peer exchange: rank " + std::to_string(from) +
                                 " steps another physics");
        const int slot = 2 * a + 1 - side;  // where `from` lies from this rank
        for (int k = 0; k < 2; ++k)
          remote_[slot][k] = static_cast<float*>(open(got.buffer[k], from));
        // This rank signals `from` in the inbox of its slot facing this rank (the other side).
        remote_flags_[slot] = static_cast<Flags*>(open(got.flags, from));
        remote_flag_.flag[slot] = &remote_flags_[slot]->inbox[slot ^ 1];
      }
  }

  static void* open(const cudaIpcMemHandle_t& h, int from) {
    void* p = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess)
      throw std::runtime_error(
          std::string("parallel.exchange = \"peer\": rank ") + std::to_string(from) +
          "'s halo buffers cannot be mapped (" + cudaGetErrorString(e) +
          "); peer needs every neighbour on this node (use exchange = \"mpi\")");
    return p;
  }

  Engine& engine_;
  PeerLink link_;
  int fields_;
  bool edges_;  // faces axis after axis (the stencil reads the halo's edges)
  int device_;
  int axes_[3], naxes_ = 0;  // the axes with neighbours, in order
  bool started_ = false;
  Flags* flags_ = nullptr;  // this rank's count, inbox and wait time (device memory)
  // By face slot (z-, z+, y-, y+, x-, x+) and parity: this rank's packed faces, and the
  // neighbour's packed faces across that slot (what fills this rank's halo there).
  float* own_[6][2] = {};
  float* remote_[6][2] = {};
  Flags* remote_flags_[6] = {};  // the neighbours' flags, mapped (for closing)
  Remote remote_flag_{};         // by slot: the flag this rank's signal sets there
};

}  // namespace

std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const PeerLink& link) {
  return std::make_unique<PeerExchange>(engine, link);
}

}  // namespace seisfd
