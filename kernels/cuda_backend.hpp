// The CUDA backend as the solver sees it: device discovery, memory estimates and the engine
// factory. Plain C++. In a build without CUDA, cuda_built() is false, cuda_devices() is empty
// and make_cuda_engine() throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/compression.hpp"
#include "kernels/cpml.hpp"
#include "kernels/engine.hpp"
#include "kernels/medium.hpp"

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

// Device memory of one state: both time levels of every field, and the CPML memory variables.
inline size_t cuda_state_bytes(Physics p, const StepSpec& spec) {
  return (2 * traits(p).fields * static_cast<size_t>(spec.layout.size()) +
          static_cast<size_t>(cpml_aux_cells(spec))) *
         sizeof(float);
}

// Device memory of an engine without its states: the medium's coefficients and the scratch of
// the forward update (TTI: the six cross intermediates), plus the transposed update's scratch
// (VTI, TTI: two) when `adjoint`.
inline size_t cuda_engine_bytes(Physics p, const StepSpec& spec, bool adjoint = false) {
  const int scratch = (p == Physics::kTti ? 6 : 0) + (adjoint && anisotropic(p) ? 2 : 0);
  return (traits(p).medium_arrays + scratch) * static_cast<size_t>(spec.layout.size()) *
         sizeof(float);
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

}  // namespace seisfd
