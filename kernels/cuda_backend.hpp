// The CUDA backend as the solver sees it: device discovery, memory estimates and the engine
// factory. Plain C++. In a build without CUDA, cuda_built() is false, cuda_devices() is empty
// and make_cuda_engine() throws.
#pragma once
#include <cstddef>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/compression.hpp"
#include "kernels/cpml.hpp"
#include "kernels/engine.hpp"
#include "kernels/medium.hpp"
#include "kernels/propagation.hpp"
#include "kernels/rank_message.hpp"

namespace seisfd {

struct KernelVariant;  // kernels/registry.hpp

struct DeviceInfo {
  int id = 0;
  std::string name;
  int compute_capability = 0;  // 90 for Hopper
  int multiprocessors = 0;
  size_t total_bytes = 0;
  size_t free_bytes = 0;
};

bool cuda_built();
std::string cuda_runtime_version();      // "" when not built
std::vector<DeviceInfo> cuda_devices();  // never throws; empty when no driver or device;
                                         // leaves the current device as it was
// The number of devices (0 without a driver), and one device's description: neither makes a
// context on any other device (cuda_devices() makes one on every device, for its free memory;
// a rank of a decomposed run that did so would hold a context on every GPU of its node).
// cuda_device throws std::runtime_error for an id it does not find.
int cuda_device_count();
DeviceInfo cuda_device(int id);

// Device memory of one state: both time levels of every field, and the CPML memory variables.
inline size_t cuda_state_bytes(Physics p, const StepSpec& spec) {
  return (2 * traits(p).fields * static_cast<size_t>(spec.layout.size()) +
          static_cast<size_t>(cpml_aux_cells(spec))) *
         sizeof(float);
}

// Device memory of an engine without its states: the medium's coefficients and the scratch of
// the forward update (TTI: the six cross intermediates), plus the transposed update's scratch
// (VTI, TTI: two) when `adjoint`, plus the 16-bit codes of a compact medium (kept beside the
// fp32 coefficients).
inline size_t cuda_engine_bytes(Physics p, const StepSpec& spec, bool adjoint = false,
                                ModelPrecision model = ModelPrecision::kFp32) {
  const int scratch = (p == Physics::kTti ? 6 : 0) + (adjoint && anisotropic(p) ? 2 : 0);
  const size_t cells = static_cast<size_t>(spec.layout.size());
  const size_t codes = model == ModelPrecision::kFp32 ? 0 : traits(p).medium_arrays * cells * 2;
  return (traits(p).medium_arrays + scratch) * cells * sizeof(float) + codes;
}

struct CudaEngineOptions {
  std::string variant = "auto";  // a registry name, or "auto" (kernels/cuda/autotune.hpp)
  int device = 0;
  Compressible compressible = Compressible::kOff;  // the medium, states and scratch
  bool graphs = true;  // chunks of steps as captured CUDA graphs (else plain launches)
  // Diagnostics reduced by the update kernel where the variant fuses them (else a separate
  // reduction kernel): off only to measure what fusing saves.
  bool fused_diagnostics = true;
  // The imaging of a migration's adjoint steps done by the update kernel where the variant fuses
  // it (else separate passes after the step): off only to measure and test what fusing does.
  bool fused_imaging = true;
  // Device memory the caller will add (its states beyond the first, traces): checked with the
  // engine's own before anything is allocated.
  size_t extra_bytes = 0;
  // Not null: the engine runs this entry (named `variant`) instead of the registry's, for a tool
  // that times and verifies a kernel compiled with another tuning policy (bench/sweep). It must
  // outlive the engine.
  const KernelVariant* entry = nullptr;
};

std::unique_ptr<Engine> make_cuda_engine(const StepSpec& spec, const Medium& medium, double dt,
                                         const CudaEngineOptions& options = {});

// Resolves kernel.variant `variant` for engines of `spec` on `device` now ("auto": measures the
// candidates, or reads the cache), and kernel.compressible `compressible` ("auto": measures the
// variant in compressible and plain memory), and keeps the choices: the engines this process
// makes for that spec and device later take them as they are. Ranks sharing a GPU call it in
// turn, so that no rank times while another's kernels run. Does nothing in a build without CUDA.
void cuda_choose_variant_ahead(const std::string& variant, Physics physics, const StepSpec& spec,
                               int device, Compressible compressible);

// The device halo exchanges of a decomposed run on CUDA engines (docs/parallel.md). Each packs
// the faces a rank shares with its neighbours into contiguous device buffers and unpacks the
// neighbours' into its halo, on the engine's stream; they differ in how the packed faces travel.
// `link` describes the rank's place in its group and the host messages the set-up needs; every
// rank of the group constructs its exchange at the same point (the constructors are collective).
struct HaloLink {
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};  // z-, z+, y-, y+, x-, x+ (-1: none)
  int halo = 0;
  int rank = 0, size = 1;  // this rank in the group, and the group's size
  // One round of messages: every receive and send posted at once, then all awaited.
  using Message = RankMessage;
  std::function<void(const std::vector<Message>& sends, const std::vector<Message>& recvs)>
      exchange;
  std::function<void(void* data, size_t bytes, int root)> broadcast;  // root's bytes to all
  // Host memory shared with the group's ranks on this node (parallel::Comm::share_host),
  // collectively (the staged MPI exchange's send buffers).
  std::function<std::shared_ptr<SharedHostSegments>(size_t bytes)> share_host;

  // Sends `send_bytes` to rank `to` while receiving `recv_bytes` from rank `from` (-1: nothing
  // that way): a round of exchange() with one message each way at most.
  void sendrecv(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes,
                int from, int tag) const {
    std::vector<Message> sends, recvs;
    if (to >= 0) sends.push_back({const_cast<void*>(send), send_bytes, to, tag});
    if (from >= 0) recvs.push_back({recv, recv_bytes, from, tag});
    exchange(sends, recvs);
  }
};

// peer: neighbours on one node map each other's packed buffers through CUDA IPC and synchronise
// on the device (a flag set with a system-scope release in the neighbour's memory, awaited with
// acquire): no host round trip, so chunks of steps go into one CUDA graph. Throws where a
// neighbour's memory cannot be opened (another node).
std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const HaloLink& link);

// How the packed faces travel in the other device exchanges:
//   kNccl:      NCCL send/receive on a second stream, ordered on the device (graphs too); needs a
//               build with NCCL (nccl_built()) and one GPU a rank; the engine must outlive the
//               exchange (its graphs hold the communicator: they are dropped first);
//   kMpiStaged: through pinned host buffers and MPI (link.exchange), the host waiting in MPI
//               while the interior computes; a neighbour on the same node reads the face from
//               this rank's host buffer itself (link.share_host), MPI carrying only a
//               zero-byte "ready" message;
//   kMpiDevice: MPI on the device buffers themselves (a CUDA-aware MPI library).
enum class DeviceTransport { kNccl, kMpiStaged, kMpiDevice };
std::unique_ptr<HaloExchange> make_cuda_transport_exchange(Engine& engine, const HaloLink& link,
                                                           DeviceTransport transport);
bool nccl_built();
std::string nccl_version();  // "2.28.3" (the library's), empty without NCCL

}  // namespace seisfd
