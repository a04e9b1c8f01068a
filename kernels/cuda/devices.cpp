// Device discovery (kernels/cuda_backend.hpp).
#include <cuda_runtime_api.h>

#include "kernels/cuda_backend.hpp"

namespace seisfd {

bool cuda_built() {
  return true;
}

std::string cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> out;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear: "no driver" is an answer, not an error
    return out;
  }
  int current = 0;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.id = i;
    d.name = p.name;
    d.compute_capability = p.major * 10 + p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.total_bytes = p.totalGlobalMem;
    // The free memory is the current device's: switch for the query only.
    if (cudaSetDevice(i) == cudaSuccess) cudaMemGetInfo(&d.free_bytes, &d.total_bytes);
    out.push_back(d);
  }
  if (restore) cudaSetDevice(current);
  return out;
}

}  // namespace seisfd
