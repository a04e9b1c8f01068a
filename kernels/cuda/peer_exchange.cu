// The peer halo exchange (kernels/cuda_backend.hpp, docs/parallel.md): neighbours on one node
// exchange packed faces through buffers mapped with CUDA IPC, and synchronise on the device.
//
// Once the state's current level is complete, the rank packs its faces (face_exchange.cuh) into
// buffers of its own, signals each neighbour by a flag in the neighbour's memory, waits on the
// device for the neighbours' flags in its own memory, and unpacks the neighbours' packed buffers,
// read in place over the peer mapping, into its halo. Everything is queued on the engine's
// stream: the host never waits for a neighbour, so it queues steps ahead, and the steps of a
// chunk go into one CUDA graph (Engine::advance_split with device_ordered).
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
// Phases (face_exchange.cuh): one for the acoustic and VTI stencils, one an axis for TTI.
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

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/face_exchange.cuh"
#include "kernels/cuda_backend.hpp"

namespace seisfd {
namespace {

using cuda::FaceExchange;
using cuda::FieldPtrs;

// The device-side state of a rank's exchange (one allocation, mapped by the neighbours).
struct Flags {
  unsigned long long inbox[6];  // by slot: the last exchange whose faces the neighbour there packed
  unsigned long long count;     // exchanges started by this rank
  unsigned long long wait_ns;   // time the wait kernels spun
};

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

class PeerExchange final : public FaceExchange {
 public:
  PeerExchange(Engine& engine, HaloLink link) : FaceExchange(engine, std::move(link)) {
    if (!link_.exchange) throw std::invalid_argument("peer exchange: no link to the neighbours");
    const cuda::DeviceGuard guard(device_);
    map_buffers();
  }
  ~PeerExchange() override {
    const cuda::DeviceGuard guard(device_);
    // The whole device, not the engine's stream: the engine may be gone already (an exchange
    // may outlive it). Destructors never throw.
    cudaDeviceSynchronize();
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
  bool device_ordered() const override { return true; }

  // The first phase's packs and signals, queued behind the engine's work so far.
  void start(WaveState& ws) override {
    const FieldPtrs f = fields_of(ws, fields_, "peer exchange");
    const cuda::DeviceGuard guard(device_);
    const int end = phase_end(0);
    for (int i = 0; i < end; ++i) copy_axis(true, f, axes_[i], own_, &flags_->count, 1);
    signal(0, end, true);
    started_ = true;
  }

  void finish(WaveState& ws, int fields) override {
    if (!started_) throw std::logic_error("peer exchange: finish() without start()");
    if (fields != fields_) throw std::invalid_argument("peer exchange: not the engine's fields");
    started_ = false;
    const FieldPtrs f = fields_of(ws, fields, "peer exchange");
    const cuda::DeviceGuard guard(device_);
    for (int i = 0; i < naxes_;) {
      const int end = phase_end(i);
      if (i > 0) {  // a later axis's faces carry the halo the earlier ones brought
        for (int j = i; j < end; ++j) copy_axis(true, f, axes_[j], own_, &flags_->count, 0);
        signal(i, end, false);
      }
      wait_kernel<<<1, 1, 0, stream()>>>(flags_, slots(i, end));
      CUDA_CHECK_LAUNCH();
      for (int j = i; j < end; ++j) copy_axis(false, f, axes_[j], remote_, &flags_->count, 0);
      i = end;
    }
  }

  double wait_seconds() const override { return device_seconds(&flags_->wait_ns); }

 private:
  void signal(int i, int end, bool bump) {
    signal_kernel<<<1, 1, 0, stream()>>>(flags_, bump ? 1 : 0, remote_flag_, slots(i, end));
    CUDA_CHECK_LAUNCH();
  }

  // Once, collectively with the neighbours (every rank of the group constructs its exchange at
  // the same point): this rank's flags and packed buffers (both parities of each face it
  // shares) allocated and their handles sent across the face; the neighbours' opened.
  void map_buffers() {
    int ext[3];
    extents(ext);
    CUDA_CHECK(cudaMalloc(&flags_, sizeof(Flags)));
    CUDA_CHECK(cudaMemset(flags_, 0, sizeof(Flags)));
    CUDA_CHECK(cudaDeviceSynchronize());  // zero before any neighbour may signal into it
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int slot = 2 * a + side;
        if (link_.neighbour[slot] < 0) continue;
        for (int k = 0; k < 2; ++k) CUDA_CHECK(cudaMalloc(&own_[slot][k], face_bytes(a)));
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
        check_neighbour(a, from, got.ext, got.fields);
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
          "); peer needs every neighbour on this node (use exchange = \"nccl\" or \"mpi\")");
    return p;
  }

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

std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const HaloLink& link) {
  return std::make_unique<PeerExchange>(engine, link);
}

}  // namespace seisfd
