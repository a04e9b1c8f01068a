// Makes a device current for a scope and restores the one that was current before, so that a
// call on one engine never leaves another device current for the caller (several devices per
// process: one per rank, or tests that use two). Plain C++ (runtime API header only).
#pragma once
#include <cuda_runtime_api.h>

#include "kernels/cuda/check.hpp"

namespace seisfd::cuda {

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) CUDA_CHECK(cudaSetDevice(device));
    switched_ = previous_ != device;
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);  // destructors never throw
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace seisfd::cuda
