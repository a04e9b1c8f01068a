// Checked CUDA runtime calls. Plain C++ (runtime API header only, no CUDA syntax).
// A recoverable error throws CudaError with the call, file and line; a sticky error (the
// context is dead: illegal address, launch failure, ...) prints and aborts, because nothing
// after it can run on this device.
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace seisfd::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

inline void check(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expr, file, line);
}

}  // namespace seisfd::cuda

#define CUDA_CHECK(expr) ::seisfd::cuda::check((expr), #expr, __FILE__, __LINE__)
// After every launch: configuration errors now, and in debug builds execution errors too.
#define CUDA_CHECK_LAUNCH() \
  ::seisfd::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
