// Driver API functions looked up through the runtime (cudaGetDriverEntryPointByVersion): libcuda
// is not linked, so a build on a machine without a driver still loads and runs on the CPU.
#pragma once
#include <cuda_runtime_api.h>

namespace seisfd::cuda {

// fn = the driver's `symbol` of ABI `version` (e.g. 12000 for 12.0); false, with fn null or
// unusable and *error the runtime's answer, where the driver does not provide it. Never throws.
template <class F>
bool driver_entry_point(const char* symbol, unsigned version, F& fn, cudaError_t* error = nullptr) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &q);
  if (e != cudaSuccess) cudaGetLastError();  // "no driver" is an answer here
  if (error) *error = e;
  fn = reinterpret_cast<F>(p);
  return e == cudaSuccess && q == cudaDriverEntryPointSuccess && p != nullptr;
}

}  // namespace seisfd::cuda
