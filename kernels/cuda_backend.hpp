// The CUDA backend as the solver sees it: device discovery, memory estimate and the engine
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
std::vector<DeviceInfo> cuda_devices();  // never throws; empty when no driver or device

// Device memory of one engine (traces extra): two wavefields and (v dt)^2, plus the CPML auxiliary
// fields.
inline size_t cuda_engine_bytes(const StepSpec& spec) {
  return (3 * static_cast<size_t>(spec.layout.size()) + static_cast<size_t>(cpml_aux_cells(spec))) *
         sizeof(float);
}

// The VTI/TTI engine (kernels/cuda/aniso_engine.cu): p and q (two time levels each), (v dt)^2,
// 1 + 2 eps, sqrt(1 + 2 delta); TTI adds the axis (3 fields) and the cross intermediates of p
// and q (6 fields); the CPML auxiliary fields; with `adjoint`, the transposed update's two
// scratch fields.
inline size_t cuda_aniso_engine_bytes(const StepSpec& spec, bool tti, bool adjoint = false) {
  return ((tti ? 16 : 7) + (adjoint ? 2 : 0)) * static_cast<size_t>(spec.layout.size()) *
             sizeof(float) +
         static_cast<size_t>(cpml_aux_cells(spec)) * sizeof(float);
}

struct AnisoModel;
// `variant` is a registry name or "auto" (the fastest measured: kernels/cuda/autotune.hpp);
// `compressible` applies to the wavefields and the model arrays.
std::unique_ptr<WaveEngine> make_cuda_aniso_engine(const StepSpec& spec, const AnisoModel& model,
                                                   double dt, const std::string& variant,
                                                   int device = 0,
                                                   Compressible compressible = Compressible::kOff);

std::unique_ptr<WaveEngine> make_cuda_engine(const StepSpec& spec,
                                             const std::vector<float>& velocity, double dt,
                                             const std::string& variant, int device = 0,
                                             Compressible compressible = Compressible::kOff);

}  // namespace seisfd
