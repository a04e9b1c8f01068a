// The peer halo exchange (kernels/cuda_backend.hpp, docs/parallel.md): neighbours on one node
// exchange packed faces through buffers mapped with CUDA IPC.
//
// Once the state's current level is complete, the rank packs the `halo` cells next to each face
// it shares into a contiguous buffer of its own (every field, the full extent of the other axes),
// one byte goes each way with the neighbours of each axis, and the rank unpacks the neighbours'
// packed buffers, read in place over the peer mapping, into its halo. Contiguous buffers keep
// the link's transfers whole even for x faces, whose rows are only `halo` cells long in the
// wavefield. Everything runs on the engine's stream; the host only waits for the packs and
// trades the bytes.
//
// Edges and corners. The acoustic and VTI stencils read along the axes only, so every face is
// packed at once and the halo's edges are never read. TTI's cross terms read them: its faces go
// axis after axis (z, then y over the z halo just unpacked, then x over both), so that the
// edges and corners arrive with the later axes' faces.
//
// Ordering. Exchange k packs into the buffers of parity k % 2. The neighbour reads them after
// the handshake of exchange k; this rank writes them again at exchange k + 2, which it queues
// only after the handshake of exchange k + 1, and the neighbour enters that handshake only once
// its packs of exchange k + 1 have run, which its stream runs after its unpacks of exchange k.
// The buffers belong to the exchange, not to a state: every state the engine steps goes through
// the same buffers, in the same order on every rank.
//
// Overlap (Propagation::steps, Engine::advance_split): start() queues the packs (the first axis's
// for TTI) where the level is complete; the engine queues the interior's update behind them;
// finish() waits for the packs only, trades the bytes while the interior computes, and queues
// the unpacks behind the interior and ahead of the rest of the step.
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

// kPack: packed[f][cell of the box] = field f at the box (origin o, extents n) of layout l; else
// the other way. One thread per cell of the box, every field.
template <bool kPack>
__global__ void face_kernel(float* __restrict__ packed, FieldPtrs field, int fields, Layout l,
                            int3 o, int3 n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long plane = static_cast<long long>(n.x) * n.y, cells = plane * n.z;
  if (i >= cells) return;
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

// What a rank tells the neighbour across one face, once: its packed buffers for that face and
// the extents they were laid out with.
struct FaceInfo {
  cudaIpcMemHandle_t buffer[2];
  int ext[3];
  int fields;
};

class PeerExchange final : public HaloExchange {
 public:
  PeerExchange(Engine& engine, PeerLink link)
      : engine_(engine),
        link_(std::move(link)),
        fields_(traits(engine.physics()).fields),
        edges_(engine.physics() == Physics::kTti) {
    if (!link_.sendrecv) throw std::invalid_argument("peer exchange: no link to the neighbours");
    for (int a = 0; a < 3; ++a)
      if (link_.neighbour[2 * a] >= 0 || link_.neighbour[2 * a + 1] >= 0) axes_[naxes_++] = a;
  }
  ~PeerExchange() override {
    if (!ready_) return;
    const cuda::DeviceGuard guard(device_);
    cudaStreamSynchronize(stream());  // destructors never throw
    for (int s = 0; s < 6; ++s)
      for (int k = 0; k < 2; ++k) {
        if (remote_[s][k]) cudaIpcCloseMemHandle(remote_[s][k]);
        if (own_[s][k]) cudaFree(own_[s][k]);
      }
    cudaEventDestroy(ready_);
  }

  const char* name() const override { return "peer (CUDA IPC)"; }
  bool overlaps() const override { return true; }

  Box interior(const StepSpec& spec) const override {
    Box b = updated_region(spec);
    for (int a = 0; a < 3; ++a) {
      if (link_.neighbour[2 * a] >= 0) b.lo[a] += link_.halo;
      if (link_.neighbour[2 * a + 1] >= 0) b.hi[a] -= link_.halo;
      b.hi[a] = std::max(b.hi[a], b.lo[a]);
    }
    return b;
  }

  // The first phase's packs, queued behind the engine's work so far.
  void start(WaveState& ws) override {
    FieldPtrs f = fields_of(ws, fields_);
    if (!ready_) {
      device_ = engine_.context().device;
      const cuda::DeviceGuard guard(device_);
      CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    }
    const cuda::DeviceGuard guard(device_);
    map_buffers();
    parity_ = static_cast<int>(count_++ & 1);
    for (int i = 0; i < phase_end(0); ++i) copy_axis(true, f, axes_[i]);
    CUDA_CHECK(cudaEventRecord(ready_, stream()));
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
        for (int j = i; j < end; ++j) copy_axis(true, f, axes_[j]);
        CUDA_CHECK(cudaEventRecord(ready_, stream()));
      }
      CUDA_CHECK(cudaEventSynchronize(ready_));  // packed: the neighbours may read them
      for (int j = i; j < end; ++j) handshake(axes_[j]);
      for (int j = i; j < end; ++j) copy_axis(false, f, axes_[j]);
      i = end;
    }
  }

  void exchange(WaveState& ws, int fields) override {
    start(ws);
    finish(ws, fields);
    const cuda::DeviceGuard guard(device_);
    CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

 private:
  cudaStream_t stream() const { return static_cast<cudaStream_t>(engine_.context().stream); }

  // The axes with neighbours of the phase that starts at axes_[i]: all of them, or one for TTI.
  int phase_end(int i) const { return edges_ ? std::min(i + 1, naxes_) : naxes_; }

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
  void copy_axis(bool pack, const FieldPtrs& f, int a) {
    for (int side = 0; side < 2; ++side) {
      const int slot = 2 * a + side;
      if (link_.neighbour[slot] < 0) continue;
      int3 o, n;
      face(a, side, pack, o, n);
      const long long cells = face_cells(a);
      const unsigned blocks = static_cast<unsigned>((cells + 255) / 256);
      const Layout& l = engine_.spec().layout;
      if (pack)
        face_kernel<true><<<blocks, 256, 0, stream()>>>(own_[slot][parity_], f, fields_, l, o, n);
      else
        face_kernel<false>
            <<<blocks, 256, 0, stream()>>>(remote_[slot][parity_], f, fields_, l, o, n);
      CUDA_CHECK_LAUNCH();
    }
  }
  void handshake(int a) {
    char out = 1, in_lo = 0, in_hi = 0;
    const int lo = link_.neighbour[2 * a], hi = link_.neighbour[2 * a + 1];
    link_.sendrecv(&out, lo >= 0 ? 1 : 0, lo, &in_hi, hi >= 0 ? 1 : 0, hi, 300 + 2 * a);
    link_.sendrecv(&out, hi >= 0 ? 1 : 0, hi, &in_lo, lo >= 0 ? 1 : 0, lo, 301 + 2 * a);
  }

  // Once, collectively with the neighbours: this rank's packed buffers (both parities of each
  // face it shares) allocated and their handles sent across the face; the neighbours' opened.
  void map_buffers() {
    if (mapped_) return;
    const Layout& l = engine_.spec().layout;
    const int ext[3] = {l.nz, l.ny, l.nx};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int slot = 2 * a + side;
        if (link_.neighbour[slot] < 0) continue;
        const size_t bytes = static_cast<size_t>(face_cells(a)) * fields_ * sizeof(float);
        for (int k = 0; k < 2; ++k) CUDA_CHECK(cudaMalloc(&own_[slot][k], bytes));
      }
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        // To the neighbour on `side` this rank's buffers of that face; from the one on the other
        // side its buffers of the face it shares with this rank.
        const int to = link_.neighbour[2 * a + side], from = link_.neighbour[2 * a + 1 - side];
        FaceInfo mine{}, got{};
        if (to >= 0) {
          for (int k = 0; k < 2; ++k)
            CUDA_CHECK(cudaIpcGetMemHandle(&mine.buffer[k], own_[2 * a + side][k]));
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
        for (int k = 0; k < 2; ++k) {
          void* p = nullptr;
          const cudaError_t e =
              cudaIpcOpenMemHandle(&p, got.buffer[k], cudaIpcMemLazyEnablePeerAccess);
          if (e != cudaSuccess)
            throw std::runtime_error(
                std::string("parallel.exchange = \"peer\": rank ") + std::to_string(from) +
                "'s halo buffers cannot be mapped (" + cudaGetErrorString(e) +
                "); peer needs every neighbour on this node (use exchange = \"mpi\")");
          remote_[2 * a + 1 - side][k] = static_cast<float*>(p);
        }
      }
    mapped_ = true;
  }

  Engine& engine_;
  PeerLink link_;
  int fields_;
  bool edges_;               // faces axis after axis (the stencil reads the halo's edges)
  int axes_[3], naxes_ = 0;  // the axes with neighbours, in order
  int device_ = 0;
  cudaEvent_t ready_ = nullptr;  // the packs queued last are done
  bool mapped_ = false, started_ = false;
  long long count_ = 0;  // exchanges started so far
  int parity_ = 0;       // of the exchange under way: the buffers it packs and reads
  // By face slot (z-, z+, y-, y+, x-, x+) and parity: this rank's packed faces, and the
  // neighbour's packed faces across that slot (what fills this rank's halo there).
  float* own_[6][2] = {};
  float* remote_[6][2] = {};
};

}  // namespace

std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const PeerLink& link) {
  return std::make_unique<PeerExchange>(engine, link);
}

}  // namespace seisfd
