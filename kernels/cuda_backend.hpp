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

namespace seisfd {

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
};

std::unique_ptr<Engine> make_cuda_engine(const StepSpec& spec, const Medium& medium, double dt,
                                         const CudaEngineOptions& options = {});

// The peer halo exchange (docs/parallel.md): ranks on one node map each other's wavefield
// buffers through CUDA IPC, and after each step a rank pulls its halo straight out of its
// neighbours' memory, one copy kernel per face and field, axis after axis; a few bytes between
// neighbours per axis (`sendrecv`, the solver's MPI) order each pull after the neighbour's step
// and before the neighbour overwrites that level. The states of `engine` (a CUDA engine) are
// mapped on first use, collectively with the neighbours. Throws where a state's memory cannot be
// shared (compressible allocations) or a neighbour's cannot be opened (another node).
struct PeerLink {
  std::array<int, 6> neighbour{-1, -1, -1, -1, -1, -1};  // z-, z+, y-, y+, x-, x+ (-1: none)
  int halo = 0;
  // Sends `send_bytes` to rank `to` while receiving `recv_bytes` from rank `from` (-1: nothing).
  std::function<void(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes,
                     int from, int tag)>
      sendrecv;
};
std::unique_ptr<HaloExchange> make_cuda_peer_exchange(Engine& engine, const PeerLink& link);

}  // namespace seisfd
