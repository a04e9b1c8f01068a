// The CUDA backend as the solver sees it: device discovery, memory estimate and the engine
// factory. Plain C++. In a build without CUDA, cuda_built() is false, cuda_devices() is empty
// and make_cuda_engine() throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

// Device memory a CUDA engine needs for this spec (wavefields and model; traces extra).
size_t cuda_engine_bytes(const StepSpec& spec);

std::unique_ptr<WaveEngine> make_cuda_engine(const StepSpec& spec,
                                             const std::vector<float>& velocity, double dt,
                                             const std::string& variant, int device = 0);

}  // namespace seisfd
