// Device discovery (kernels/cuda_backend.hpp).
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

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

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear: "no driver" is an answer, not an error
    return 0;
  }
  return n;
}

namespace {

// Device i's description, or false where the runtime does not describe it. Its free memory is
// the current device's: the device is switched to for that query only (a context on it).
bool describe(int i, DeviceInfo& d) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  d = DeviceInfo{};
  d.id = i;
  d.name = p.name;
  d.compute_capability = p.major * 10 + p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.total_bytes = p.totalGlobalMem;
  int current = 0;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  if (cudaSetDevice(i) == cudaSuccess) cudaMemGetInfo(&d.free_bytes, &d.total_bytes);
  if (restore) cudaSetDevice(current);
  cudaGetLastError();
  return true;
}

}  // namespace

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> out;
  const int n = cuda_device_count();
  for (int i = 0; i < n; ++i) {
    DeviceInfo d;
    if (describe(i, d)) out.push_back(d);
  }
  return out;
}

DeviceInfo cuda_device(int id) {
  DeviceInfo d;
  const int n = cuda_device_count();
  if (id < 0 || id >= n || !describe(id, d))
    throw std::runtime_error("backend cuda: no CUDA device " + std::to_string(id) + " (found " +
                             std::to_string(n) + ")");
  return d;
}

}  // namespace seisfd
