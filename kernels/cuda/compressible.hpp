// Compressible device memory (kernel.compressible): allocations made through the CUDA virtual
// memory API (cuMemCreate with CU_MEM_ALLOCATION_COMP_GENERIC, then reserved, mapped and made
// accessible), on devices whose compute data compression stores runs of equal values (a
// wavefield of zeros before the front arrives) in fewer DRAM bytes.
//
// The driver functions are looked up through the runtime (cudaGetDriverEntryPointByVersion):
// libcuda is not linked, so a build on a machine without a driver still loads and runs on the
// CPU.
#pragma once
#include <cstddef>
#include <string>

#include "kernels/compression.hpp"

namespace seisfd::cuda {

// Whether `device` reports generic compression support and the driver has the functions that
// allocating it needs. Never throws.
bool generic_compression_supported(int device);

// One mapped virtual-memory allocation. `compressed` is what the driver granted: it may return
// an uncompressed handle for a compressible request.
struct VmmAllocation {
  void* ptr = nullptr;
  size_t mapped_bytes = 0;        // the request rounded up to the allocation granularity
  unsigned long long handle = 0;  // CUmemGenericAllocationHandle
  bool compressed = false;
};

// Allocates at least `bytes` on `device`, asking for generic compression. Throws
// std::runtime_error naming the driver call that failed and its result.
VmmAllocation allocate_compressible(size_t bytes, int device);
// Unmaps, frees the address range and releases the handle. Never throws (for destructors).
void release_compressible(const VmmAllocation& a) noexcept;

// Whether an engine may ask for compressible arrays: kOff no; kAuto where the device supports
// it (the engine then measures whether it pays); kOn yes, and throws std::runtime_error naming
// the device where it is not supported.
bool want_compression(Compressible mode, int device, const std::string& device_name);

// After allocating with want_compression(): what the run report says ("off", "on", "not
// supported by <device>", ...); with kOn, throws where the driver granted no compression.
// `measured`: for kAuto on a device that supports it, how the engine decided
// (autotune.hpp's choose_compression), said in the outcome.
std::string compression_outcome(Compressible mode, bool requested, bool granted,
                                const std::string& device_name, const std::string& measured = "");

}  // namespace seisfd::cuda
