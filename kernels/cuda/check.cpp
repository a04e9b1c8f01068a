#include "kernels/cuda/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace seisfd::cuda {
namespace {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  const std::string msg = std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                          cudaGetErrorString(code) + ") in " + expr + " at " + file + ":" +
                          std::to_string(line);
  if (is_sticky(code)) {
    std::fprintf(stderr, "seisfd: fatal: %s; the CUDA context is unusable\n", msg.c_str());
    std::abort();
  }
  throw CudaError(code, msg);
}

}  // namespace seisfd::cuda
