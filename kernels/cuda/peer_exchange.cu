// The peer halo exchange (kernels/cuda_backend.hpp, docs/parallel.md): neighbours on one node
// pull their halo out of each other's wavefield buffers, mapped through CUDA IPC.
//
// Ordering. After step n a state holds level n + 1 (current) and n (previous); step n + 1 writes
// level n + 2 over level n, and only step n + 2 overwrites level n + 1. So a neighbour may read
// this rank's level n + 1 while this rank runs step n + 1, and must be done before step n + 2.
// Per axis with neighbours: the rank's own work so far is finished (stream synchronized), one
// byte goes each way with the neighbours of that axis (both are done with their step and with
// the earlier axes' pulls, whose halo cells the later axes' faces carry: the edges), then the
// rank pulls the neighbours' faces into its halo and waits for the copies. A neighbour reaches
// its step n + 2 only after the handshakes of exchange n + 1, which this rank enters after its
// pulls of exchange n are complete.
#include <cuda_runtime.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/cuda_state.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd {
namespace {

// What a rank tells its neighbours once per state: where its buffers are and how they are laid.
struct PeerInfo {
  cudaIpcMemHandle_t buffer[kMaxFields][2];
  Layout layout;
  int begin[3], end[3];
  int fields;
};

// dst box (of layout dl, starting at d0) = src box (of layout sl, starting at s0), n cells a side;
// one thread per cell over the box as one range (an x face is n.x = R cells wide).
__global__ void copy_box_kernel(float* __restrict__ dst, Layout dl, int3 d0,
                                const float* __restrict__ src, Layout sl, int3 s0, int3 n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long plane = static_cast<long long>(n.x) * n.y;
  if (i >= plane * n.z) return;
  const int z = static_cast<int>(i / plane);
  const int y = static_cast<int>((i % plane) / n.x);
  const int x = static_cast<int>(i % n.x);
  dst[dl.idx(d0.z + z, d0.y + y, d0.x + x)] = src[sl.idx(s0.z + z, s0.y + y, s0.x + x)];
}

class PeerExchange final : public HaloExchange {
 public:
  PeerExchange(Engine& engine, PeerLink link) : engine_(engine), link_(std::move(link)) {
    if (!link_.sendrecv) throw std::invalid_argument("peer exchange: no link to the neighbours");
  }
  ~PeerExchange() override {
    if (!stream_) return;
    const cuda::DeviceGuard guard(device_);
    for (auto& [uid, m] : mapped_)
      for (int s = 0; s < 6; ++s)
        for (int f = 0; f < kMaxFields; ++f)
          for (int k = 0; k < 2; ++k)
            if (m.remote[s][f][k]) cudaIpcCloseMemHandle(m.remote[s][f][k]);
    cudaStreamDestroy(stream_);
  }

  const char* name() const override { return "peer (CUDA IPC)"; }

  void exchange(WaveState& ws, int fields) override {
    auto* s = dynamic_cast<cuda::CudaState*>(&ws);
    if (!s) throw std::invalid_argument("peer exchange: the state was not made by a CUDA engine");
    if (!stream_) {  // on the engine's device, which its buffers tell
      cudaPointerAttributes attr{};
      CUDA_CHECK(cudaPointerGetAttributes(&attr, s->current(0)));
      device_ = attr.device;
      const cuda::DeviceGuard guard(device_);
      CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    const cuda::DeviceGuard guard(device_);
    Mapping& m = mapping(*s);
    // Which of the buffers mapped at first use is current now: the neighbours have rotated theirs
    // as often (the same steps), so theirs of the same index is their current level too.
    for (int a = 0; a < 3; ++a) {
      const int lo = link_.neighbour[2 * a], hi = link_.neighbour[2 * a + 1];
      if (lo < 0 && hi < 0) continue;
      engine_.synchronize();  // the step (Propagation::steps waited for it already), the pulls
      handshake(a);
      for (int f = 0; f < fields; ++f) {
        const int k = s->current(f) == m.own[f][0] ? 0 : 1;
        for (int side = 0; side < 2; ++side) {
          const int slot = 2 * a + side;
          if (link_.neighbour[slot] < 0) continue;
          pull(*s, m, f, k, a, side);
        }
      }
      CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
  }

 private:
  struct Mapping {
    float* own[kMaxFields][2] = {};
    float* remote[6][kMaxFields][2] = {};  // the neighbour's buffers, by face
    PeerInfo info[6];                      // the neighbour's layout and updated region
  };

  void handshake(int a) {
    char out = 1, in_lo = 0, in_hi = 0;
    const int lo = link_.neighbour[2 * a], hi = link_.neighbour[2 * a + 1];
    link_.sendrecv(&out, lo >= 0 ? 1 : 0, lo, &in_hi, hi >= 0 ? 1 : 0, hi, 300 + 2 * a);
    link_.sendrecv(&out, hi >= 0 ? 1 : 0, hi, &in_lo, lo >= 0 ? 1 : 0, lo, 301 + 2 * a);
  }

  Mapping& mapping(cuda::CudaState& s) {
    auto it = mapped_.find(s.uid());
    if (it != mapped_.end()) return it->second;
    Mapping& m = mapped_[s.uid()];
    PeerInfo mine{};
    const StepSpec& spec = engine_.spec();
    mine.layout = spec.layout;
    mine.fields = s.fields();
    for (int a = 0; a < 3; ++a) {
      mine.begin[a] = spec.begin[a];
      mine.end[a] = spec.end[a];
    }
    for (int f = 0; f < s.fields(); ++f) {
      m.own[f][0] = s.current(f);
      m.own[f][1] = s.previous(f);
      for (int k = 0; k < 2; ++k) {
        const cudaError_t e = cudaIpcGetMemHandle(&mine.buffer[f][k], m.own[f][k]);
        if (e != cudaSuccess)
          throw std::runtime_error(
              std::string("parallel.exchange = \"peer\": the wavefield cannot be shared through "
                          "CUDA IPC (") +
              cudaGetErrorString(e) +
              "; compressible memory cannot be: kernel.compressible = off)");
      }
    }
    // Both directions of each axis, as the handshakes go.
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int to = link_.neighbour[2 * a + side], from = link_.neighbour[2 * a + 1 - side];
        PeerInfo got{};
        link_.sendrecv(&mine, to >= 0 ? sizeof mine : 0, to, &got, from >= 0 ? sizeof got : 0, from,
                       400 + 2 * a + side);
        if (from < 0) continue;
        const int slot = 2 * a + 1 - side;
        const int ext[3] = {spec.layout.nz, spec.layout.ny, spec.layout.nx};
        const int nb_ext[3] = {got.layout.nz, got.layout.ny, got.layout.nx};
        for (int b = 0; b < 3; ++b)
          if (b != a && ext[b] != nb_ext[b])
            throw std::logic_error("peer exchange: rank " + std::to_string(from) +
                                   "'s layout does not match this rank's across their face");
        m.info[slot] = got;
        for (int f = 0; f < s.fields(); ++f)
          for (int k = 0; k < 2; ++k) {
            void* p = nullptr;
            const cudaError_t e =
                cudaIpcOpenMemHandle(&p, got.buffer[f][k], cudaIpcMemLazyEnablePeerAccess);
            if (e != cudaSuccess)
              throw std::runtime_error(
                  std::string("parallel.exchange = \"peer\": rank ") + std::to_string(from) +
                  "'s wavefield cannot be mapped (" + cudaGetErrorString(e) +
                  "); peer needs every neighbour on this node (use exchange = \"mpi\")");
            m.remote[slot][f][k] = static_cast<float*>(p);
          }
      }
    return m;
  }

  // This rank's halo of face (axis a, side) from the neighbour's cells next to it.
  void pull(cuda::CudaState& s, const Mapping& m, int f, int k, int a, int side) {
    const int slot = 2 * a + side;
    const StepSpec& spec = engine_.spec();
    const PeerInfo& nb = m.info[slot];
    const int w = link_.halo;
    int d0[3], s0[3], n[3];
    const int ext[3] = {spec.layout.nz, spec.layout.ny, spec.layout.nx};
    for (int b = 0; b < 3; ++b) {
      d0[b] = s0[b] = 0;
      n[b] = ext[b];
    }
    if (side == 0) {  // below: its last owned cells into the halo under begin
      d0[a] = spec.begin[a] - w;
      s0[a] = nb.end[a] - w;
    } else {  // above: its first owned cells into the halo from end
      d0[a] = spec.end[a];
      s0[a] = nb.begin[a];
    }
    n[a] = w;
    const long long cells = 1LL * n[0] * n[1] * n[2];
    copy_box_kernel<<<static_cast<unsigned>((cells + 255) / 256), 256, 0, stream_>>>(
        s.current(f), spec.layout, make_int3(d0[2], d0[1], d0[0]), m.remote[slot][f][k], nb.layout,
        make_int3(s0[2], s0[1], s0[0]), make_int3(n[2], n[1], n[0]));
    CUDA_CHECK_LAUNCH();
  }

  Engine& engine_;
  PeerLink link_;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  std::map<uint64_t, Mapping> mapped_;
};

}  // namespace

std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const PeerLink& link) {
  return std::make_unique<PeerExchange>(engine, link);
}

}  // namespace seisfd
