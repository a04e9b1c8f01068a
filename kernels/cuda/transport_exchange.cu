// The device halo exchanges whose packed faces travel through a library (kernels/cuda_backend.hpp,
// docs/parallel.md): NCCL, or MPI on pinned host buffers or on the device buffers themselves.
//
// Each face slot (z-, z+, y-, y+, x-, x+) with a neighbour has a send buffer (this rank's packed
// owned cells) and a receive buffer (the neighbour's packed cells, unpacked into the halo), in
// device memory; the staged MPI transport adds a pinned host copy of each. Faces go in phases
// (face_exchange.cuh): every face at once, or one axis a phase for TTI.
//
// NCCL. start() queues the first phase's packs on the engine's stream; a second stream (of the
// highest priority) waits for them and sends and receives the faces (one NCCL group); finish()
// makes the engine's stream wait for the transfers (the later phases' packs and transfers queued
// the same way) and queues the unpacks. The engine's interior update, queued between the two,
// runs while the faces travel. Everything is ordered on the device: the host queues steps ahead
// and the engine records chunks of split steps in one CUDA graph (NCCL's calls are captured like
// kernels). The time the engine's stream stood waiting for the transfers is measured on the
// device (two one-thread kernels around the wait, the GPU's global timer), and so is its wait for
// the staged copies back.
//
// MPI. start() queues the packs (and, staged, the copies to pinned memory, on the second stream,
// so the interior need not wait for them); finish() waits on the host for those copies, sends and
// receives every face of the phase at once (MPI_Isend/MPI_Irecv), queues the copies back (on the
// second stream: they too run beside the interior) and, after them, the unpacks. The host waits
// in MPI while the interior computes on the device.
//
// Staged, between ranks of one node: the pinned host buffers of the faces sent are one segment of
// host memory the node's ranks share (HaloLink::share_host: an MPI shared-memory window, pinned
// by each rank), so a neighbour on the node copies the face to its device straight from this
// rank's segment: MPI carries a zero-byte message that says the face is there, and the face
// crosses the host once (device to host, host to device) instead of also through MPI's own
// shared-memory copies. The segment holds two copies of the faces, used by alternate exchanges:
// exchange c + 1 writes the other copy, and exchange c + 2 writes this one only after the
// neighbour's "ready" of exchange c + 1, which it sends once its own copies of exchange c + 1
// are done, and those follow, on its second stream, its copies back of exchange c.
//
// Reuse of the buffers. Exchange c + 1 packs into the send buffers after the engine's stream has
// passed exchange c's wait for the transfers (NCCL) or after the host's MPI_Waitall (MPI); it
// receives into the receive buffers after its own packs, which the engine's stream reaches after
// exchange c's unpacks. One buffer a slot is enough.
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if SEISFD_HAVE_NCCL
#include <nccl.h>
#endif

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/face_exchange.cuh"
#include "kernels/cuda_backend.hpp"

namespace seisfd {
namespace {

using cuda::FaceExchange;
using cuda::FieldPtrs;

// clock[0]: the global timer when the engine's stream reached the wait; clock[1]: the
// nanoseconds waited so far.
__global__ void stamp_kernel(unsigned long long* clock) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  clock[0] = t;
}
__global__ void waited_kernel(unsigned long long* clock) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  clock[1] += t - clock[0];
}

#if SEISFD_HAVE_NCCL
void nccl_check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  throw std::runtime_error(std::string("parallel.exchange = \"nccl\": ") + what + " failed (" +
                           ncclGetErrorString(r) + ")");
}
#endif

const char* transport_name(DeviceTransport t) {
  switch (t) {
    case DeviceTransport::kNccl:
      return "nccl";
    case DeviceTransport::kMpiStaged:
      return "mpi (host-staged)";
    case DeviceTransport::kMpiDevice:
      return "mpi (CUDA-aware)";
  }
  return "?";
}

class TransportExchange final : public FaceExchange {
 public:
  TransportExchange(Engine& engine, HaloLink link, DeviceTransport transport)
      : FaceExchange(engine, std::move(link)), transport_(transport) {
    if (!link_.exchange || !link_.broadcast ||
        (transport_ == DeviceTransport::kMpiStaged && !link_.share_host))
      throw std::invalid_argument("halo exchange: no link to the neighbours");
#if !SEISFD_HAVE_NCCL
    if (transport_ == DeviceTransport::kNccl)
      throw std::runtime_error(
          "parallel.exchange = \"nccl\": this seisfd was built without NCCL (use \"peer\" or "
          "\"mpi\")");
#endif
    const cuda::DeviceGuard guard(device_);
    int lowest = 0, highest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, highest));
    for (int p = 0; p < 3; ++p) {
      CUDA_CHECK(cudaEventCreateWithFlags(&packed_[p], cudaEventDisableTiming));
      CUDA_CHECK(cudaEventCreateWithFlags(&moved_[p], cudaEventDisableTiming));
      CUDA_CHECK(cudaEventCreateWithFlags(&landed_[p], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaMalloc(&clock_, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(clock_, 0, 2 * sizeof(unsigned long long)));
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int slot = 2 * a + side;
        if (link_.neighbour[slot] < 0) continue;
        CUDA_CHECK(cudaMalloc(&send_[slot][0], face_bytes(a)));
        CUDA_CHECK(cudaMalloc(&recv_[slot][0], face_bytes(a)));
      }
    check_neighbours();
    if (transport_ == DeviceTransport::kMpiStaged) make_host_buffers();
    if (transport_ == DeviceTransport::kNccl) make_communicator();
  }

  ~TransportExchange() override {
    const cuda::DeviceGuard guard(device_);
    // The whole device, not the engine's stream: the engine may be gone already (an exchange
    // may outlive it). Destructors never throw.
    cudaDeviceSynchronize();
#if SEISFD_HAVE_NCCL
    if (comm_) {
      // Graphs that captured NCCL's transfers hold the communicator: released first (the engine
      // outlives the exchange wherever NCCL is used), else ncclCommDestroy waits for them.
      try {
        engine_.drop_graphs();
      } catch (...) {  // destructors never throw
      }
      ncclCommDestroy(comm_);
    }
#endif
    for (int s = 0; s < 6; ++s) {
      if (send_[s][0]) cudaFree(send_[s][0]);
      if (recv_[s][0]) cudaFree(recv_[s][0]);
      if (host_recv_[s]) cudaFreeHost(host_recv_[s]);
    }
    if (shared_) cudaHostUnregister(shared_->region);  // set only once pinned
    if (clock_) cudaFree(clock_);
    for (int p = 0; p < 3; ++p) {
      if (packed_[p]) cudaEventDestroy(packed_[p]);
      if (moved_[p]) cudaEventDestroy(moved_[p]);
      if (landed_[p]) cudaEventDestroy(landed_[p]);
    }
    if (side_) cudaStreamDestroy(side_);
  }

  const char* name() const override {
    return transport_name(transport_);
  }
  bool device_ordered() const override {
    return transport_ == DeviceTransport::kNccl;
  }

  void start(WaveState& ws) override {
    const FieldPtrs f = fields_of(ws, fields_, name());
    const cuda::DeviceGuard guard(device_);
    copy_ ^= 1;
    send_phase(f, 0);
    started_ = true;
  }

  void finish(WaveState& ws, int fields) override {
    if (!started_) throw std::logic_error("halo exchange: finish() without start()");
    if (fields != fields_) throw std::invalid_argument("halo exchange: not the engine's fields");
    started_ = false;
    const FieldPtrs f = fields_of(ws, fields, name());
    const cuda::DeviceGuard guard(device_);
    for (int i = 0; i < naxes_;) {
      const int end = phase_end(i);
      if (i > 0) send_phase(f, i);  // a later axis's faces carry the halo the earlier ones brought
      receive_phase(i);
      for (int j = i; j < end; ++j) copy_axis(false, f, axes_[j], recv_);
      i = end;
    }
  }

  double wait_seconds() const override {
    // The stream's wait for the faces, timed on the device: NCCL's transfers, or the staged
    // copies to the device (the host's time in MPI is `seconds`). MPI on the device buffers
    // orders nothing on the device: -1.
    return transport_ == DeviceTransport::kMpiDevice ? -1 : device_seconds(clock_ + 1);
  }

 private:
  // The phase that starts at axes_[i]: its packs on the engine's stream, then on the second
  // stream what moves them (NCCL's transfers, or the staged copies to the host).
  void send_phase(const FieldPtrs& f, int i) {
    const int end = phase_end(i), p = phase_of(i);
    for (int j = i; j < end; ++j) copy_axis(true, f, axes_[j], send_);
    CUDA_CHECK(cudaEventRecord(packed_[p], stream()));
    if (transport_ == DeviceTransport::kMpiDevice) return;
    CUDA_CHECK(cudaStreamWaitEvent(side_, packed_[p], 0));
    if (transport_ == DeviceTransport::kNccl) {
      transfer(i, end);
    } else {
      for_slots(i, end, [&](int slot, int a) {
        CUDA_CHECK(cudaMemcpyAsync(host_send(slot), send_[slot][0], face_bytes(a),
                                   cudaMemcpyDeviceToHost, side_));
      });
    }
    CUDA_CHECK(cudaEventRecord(moved_[p], side_));
  }

  // The engine's stream made to wait for the faces of the phase that starts at axes_[i] to
  // arrive in the receive buffers.
  void receive_phase(int i) {
    const int end = phase_end(i), p = phase_of(i);
    if (transport_ == DeviceTransport::kNccl) {
      timed_wait(moved_[p]);
      return;
    }
    const bool staged = transport_ == DeviceTransport::kMpiStaged;
    CUDA_CHECK(cudaEventSynchronize(staged ? moved_[p] : packed_[p]));
    sends_.clear();
    recvs_.clear();
    for_slots(i, end, [&](int slot, int a) {
      const int peer = link_.neighbour[slot];
      // Tags by the receiver's slot: this rank's face on side s is the neighbour's on side 1-s.
      // A neighbour that reads the face from the shared segment gets a zero-byte message.
      const size_t bytes = remote_[slot] ? 0 : face_bytes(a);
      sends_.push_back({staged ? host_send(slot) : send_[slot][0], bytes, peer, kTag + (slot ^ 1)});
      recvs_.push_back(
          {staged ? remote_or_host_recv(slot) : recv_[slot][0], bytes, peer, kTag + slot});
    });
    link_.exchange(sends_, recvs_);
    if (!staged) return;
    for_slots(i, end, [&](int slot, int a) {
      CUDA_CHECK(cudaMemcpyAsync(recv_[slot][0], remote_or_host_recv(slot), face_bytes(a),
                                 cudaMemcpyHostToDevice, side_));
    });
    CUDA_CHECK(cudaEventRecord(landed_[p], side_));
    timed_wait(landed_[p]);
  }

  // The engine's stream made to wait for `event`, the time it stood there added to clock_[1]
  // (the exposed communication, on the device's clock).
  void timed_wait(cudaEvent_t event) {
    stamp_kernel<<<1, 1, 0, stream()>>>(clock_);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamWaitEvent(stream(), event, 0));
    waited_kernel<<<1, 1, 0, stream()>>>(clock_);
    CUDA_CHECK_LAUNCH();
  }

  // Staged MPI: the pinned host buffers. Those of the faces sent are this rank's segment of the
  // node's shared host memory (two copies, see the header), laid out slot after slot; each
  // neighbour on the node says where in its segment the face it sends this rank lies. A face
  // from a neighbour elsewhere arrives in a pinned buffer of its own.
  void make_host_buffers() {
    size_t at[6] = {}, half = 0;
    for (int slot = 0; slot < 6; ++slot)
      if (link_.neighbour[slot] >= 0) {
        at[slot] = half;
        half += face_bytes(slot / 2);
      }
    const auto segments = link_.share_host(2 * half);  // collective over the group
    CUDA_CHECK(
        cudaHostRegister(segments->region, segments->region_bytes, cudaHostRegisterPortable));
    shared_ = segments;
    half_ = half;
    // Each neighbour's offset and copy size of the face it sends this rank: the round of axis a
    // and side s sends what goes out on side s, and hears from the neighbour on side 1 - s.
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int out = 2 * a + side, in = 2 * a + 1 - side;
        const int to = link_.neighbour[out], from = link_.neighbour[in];
        const uint64_t mine[2] = {at[out], half};
        uint64_t theirs[2] = {0, 0};
        link_.sendrecv(mine, to >= 0 ? sizeof mine : 0, to, theirs, from >= 0 ? sizeof theirs : 0,
                       from, kTag + 20 + out);
        if (from < 0 || !shared_->of[from]) continue;
        remote_[in] = static_cast<unsigned char*>(shared_->of[from]) + theirs[0];
        remote_half_[in] = theirs[1];
      }
    for (int slot = 0; slot < 6; ++slot) {
      send_at_[slot] = static_cast<unsigned char*>(shared_->own) + at[slot];
      if (link_.neighbour[slot] >= 0 && !remote_[slot])
        CUDA_CHECK(cudaMallocHost(&host_recv_[slot], face_bytes(slot / 2)));
    }
  }

  // This exchange's copy of the face sent on `slot` in host memory.
  void* host_send(int slot) const {
    return send_at_[slot] + copy_ * half_;
  }
  // Where the face that arrives on `slot` is read from: the neighbour's segment, or this rank's
  // receive buffer.
  void* remote_or_host_recv(int slot) const {
    if (remote_[slot]) return remote_[slot] + copy_ * remote_half_[slot];
    return host_recv_[slot];
  }

  // The phases' index (0, 1, 2) of the phase that starts at axes_[i].
  int phase_of(int i) const {
    return edges_ ? i : 0;
  }

  template <class F>
  void for_slots(int i, int end, F&& f) const {
    for (int j = i; j < end; ++j)
      for (int side = 0; side < 2; ++side) {
        const int slot = 2 * axes_[j] + side;
        if (link_.neighbour[slot] >= 0) f(slot, axes_[j]);
      }
  }

  // NCCL: every face of the phase sent and received in one group, on the second stream.
  void transfer(int i, int end) {
#if SEISFD_HAVE_NCCL
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for_slots(i, end, [&](int slot, int a) {
      const size_t count = face_bytes(a) / sizeof(float);
      const int peer = link_.neighbour[slot];
      nccl_check(ncclSend(send_[slot][0], count, ncclFloat, peer, comm_, side_), "ncclSend");
      nccl_check(ncclRecv(recv_[slot][0], count, ncclFloat, peer, comm_, side_), "ncclRecv");
    });
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
#else
    (void)i;
    (void)end;
#endif
  }

  // Once: each neighbour laid out the face this rank shares with it as this rank did.
  void check_neighbours() {
    int ext[4];
    extents(ext);
    ext[3] = fields_;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int to = link_.neighbour[2 * a + side], from = link_.neighbour[2 * a + 1 - side];
        int got[4] = {0, 0, 0, 0};
        link_.sendrecv(ext, to >= 0 ? sizeof ext : 0, to, got, from >= 0 ? sizeof got : 0, from,
                       kTag + 10 + 2 * a + side);
        if (from >= 0) check_neighbour(a, from, got, got[3]);
      }
  }

  // NCCL's communicator over the group: rank 0's unique id to every rank, then each joins on its
  // device.
  void make_communicator() {
#if SEISFD_HAVE_NCCL
    ncclUniqueId id{};
    if (link_.rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    link_.broadcast(&id, sizeof id, 0);
    const ncclResult_t r = ncclCommInitRank(&comm_, link_.size, id, link_.rank);
    if (r != ncclSuccess)
      throw std::runtime_error(
          std::string("parallel.exchange = \"nccl\": rank ") + std::to_string(link_.rank) +
          " could not join the group's NCCL communicator (" + ncclGetErrorString(r) +
          "); NCCL needs one GPU a rank (ranks sharing a GPU: use \"peer\")");
    // NCCL connects to a peer at the first transfer with it (allocations a graph capture must not
    // see): every face once now, outside any capture.
    transfer(0, naxes_);
    CUDA_CHECK(cudaStreamSynchronize(side_));
#endif
  }

  static constexpr int kTag = 500;

  DeviceTransport transport_;
  bool started_ = false;
  cudaStream_t side_ = nullptr;  // the transfers (NCCL) or the staged copies to the host
  // By phase: the packs done (engine's stream); the faces moved (second stream).
  cudaEvent_t packed_[3] = {}, moved_[3] = {};
  unsigned long long* clock_ = nullptr;  // stamp_kernel's and waited_kernel's (device memory)
  cudaEvent_t landed_[3] = {};           // staged: the faces copied to the device (second stream)
  // By slot: this rank's packed faces and the neighbours' received (device; [1] unused), and
  // their pinned host copies (staged MPI).
  float* send_[6][2] = {};
  float* recv_[6][2] = {};
  float* host_recv_[6] = {};  // a neighbour not read from shared host memory
  // Staged: where the face sent on a slot lies in host memory (copy 0), the size of one copy,
  // the copy this exchange uses, and, for a neighbour on the node, where the
  // face it sends lies in its segment (copy 0) and its copy size.
  unsigned char* send_at_[6] = {};
  size_t half_ = 0;
  int copy_ = 0;
  unsigned char* remote_[6] = {};
  size_t remote_half_[6] = {};
  std::shared_ptr<SharedHostSegments> shared_;
  std::vector<RankMessage> sends_, recvs_;  // MPI: the round of the phase under way (reused)
#if SEISFD_HAVE_NCCL
  ncclComm_t comm_ = nullptr;
#endif
};

}  // namespace

std::unique_ptr<HaloExchange> make_cuda_transport_exchange(Engine& engine, const HaloLink& link,
                                                           DeviceTransport transport) {
  return std::make_unique<TransportExchange>(engine, link, transport);
}

bool nccl_built() {
  return SEISFD_HAVE_NCCL != 0;
}

std::string nccl_version() {
#if SEISFD_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z from 2.9 on.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
#else
  return "";
#endif
}

}  // namespace seisfd
