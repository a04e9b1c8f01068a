#include "kernels/cuda/compressible.hpp"

#include <cuda.h>  // driver types only: libcuda is not linked
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/cuda/driver_entry.hpp"

namespace seisfd::cuda {
namespace {

// The driver entry points, looked up once; `ok` is false where any is missing.
struct Driver {
  bool ok = false;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_attribute = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemGetAllocationPropertiesFromHandle_v10020 properties = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
};

const Driver& driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    bool ok = driver_entry_point("cuDeviceGet", 2000, d.device_get);
    ok = driver_entry_point("cuDeviceGetAttribute", 2000, d.device_attribute) && ok;
    ok = driver_entry_point("cuMemGetAllocationGranularity", 10020, d.granularity) && ok;
    ok = driver_entry_point("cuMemCreate", 10020, d.create) && ok;
    ok = driver_entry_point("cuMemGetAllocationPropertiesFromHandle", 10020, d.properties) && ok;
    ok = driver_entry_point("cuMemAddressReserve", 10020, d.reserve) && ok;
    ok = driver_entry_point("cuMemMap", 10020, d.map) && ok;
    ok = driver_entry_point("cuMemSetAccess", 10020, d.set_access) && ok;
    ok = driver_entry_point("cuMemUnmap", 10020, d.unmap) && ok;
    ok = driver_entry_point("cuMemAddressFree", 10020, d.address_free) && ok;
    ok = driver_entry_point("cuMemRelease", 10020, d.release) && ok;
    d.ok = ok;
  });
  return d;
}

void check(CUresult r, const char* call, size_t bytes) {
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(std::string("compressible memory: ") + call + " failed (CUresult " +
                             std::to_string(static_cast<int>(r)) + ") for " +
                             std::to_string(bytes >> 20) + " MiB");
}

CUmemAllocationProp compressible_prop(CUdevice dev) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<int>(dev);
  prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  return prop;
}

}  // namespace

bool generic_compression_supported(int device) {
  const Driver& d = driver();
  if (!d.ok) return false;
  CUdevice dev = 0;
  int supported = 0, vmm = 0;
  if (d.device_get(&dev, device) != CUDA_SUCCESS) return false;
  if (d.device_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) !=
      CUDA_SUCCESS)
    return false;
  if (d.device_attribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev) !=
      CUDA_SUCCESS)
    return false;
  return vmm != 0 && supported != 0;
}

VmmAllocation allocate_compressible(size_t bytes, int device) {
  const Driver& d = driver();
  if (!d.ok)
    throw std::runtime_error(
        "compressible memory: the driver does not provide the virtual memory API");
  CUdevice dev = 0;
  check(d.device_get(&dev, device), "cuDeviceGet", bytes);
  const CUmemAllocationProp prop = compressible_prop(dev);
  size_t gran = 0;
  check(d.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
        "cuMemGetAllocationGranularity", bytes);
  VmmAllocation a;
  a.mapped_bytes = (bytes + gran - 1) / gran * gran;
  CUmemGenericAllocationHandle h = 0;
  check(d.create(&h, a.mapped_bytes, &prop, 0), "cuMemCreate", bytes);
  a.handle = h;
  CUmemAllocationProp granted{};
  if (d.properties(&granted, h) != CUDA_SUCCESS) {
    d.release(h);
    check(CUDA_ERROR_UNKNOWN, "cuMemGetAllocationPropertiesFromHandle", bytes);
  }
  a.compressed = granted.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
  CUdeviceptr ptr = 0;
  CUresult r = d.reserve(&ptr, a.mapped_bytes, gran, 0, 0);
  if (r != CUDA_SUCCESS) {
    d.release(h);
    check(r, "cuMemAddressReserve", bytes);
  }
  r = d.map(ptr, a.mapped_bytes, 0, h, 0);
  if (r != CUDA_SUCCESS) {
    d.address_free(ptr, a.mapped_bytes);
    d.release(h);
    check(r, "cuMemMap", bytes);
  }
  a.ptr = reinterpret_cast<void*>(ptr);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  r = d.set_access(ptr, a.mapped_bytes, &access, 1);
  if (r != CUDA_SUCCESS) {
    release_compressible(a);
    check(r, "cuMemSetAccess", bytes);
  }
  return a;
}

void release_compressible(const VmmAllocation& a) noexcept {
  if (!a.ptr) return;
  cudaDeviceSynchronize();  // as cudaFree does: no kernel may still use the range
  const Driver& d = driver();
  const auto ptr = reinterpret_cast<CUdeviceptr>(a.ptr);
  d.unmap(ptr, a.mapped_bytes);
  d.address_free(ptr, a.mapped_bytes);
  d.release(static_cast<CUmemGenericAllocationHandle>(a.handle));
}

bool want_compression(Compressible mode, int device, const std::string& device_name) {
  if (mode == Compressible::kOff) return false;
  const bool ok = generic_compression_supported(device);
  if (!ok && mode == Compressible::kOn)
    throw std::runtime_error("kernel.compressible = on: " + device_name +
                             " (or its driver) does not support generic memory compression; "
                             "use auto or off");
  return ok;
}

std::string compression_outcome(Compressible mode, bool requested, bool granted,
                                const std::string& device_name, const std::string& measured) {
  if (mode == Compressible::kOff) return "off";
  if (!requested)
    return "off (auto: " + (measured.empty() ? "not supported by " + device_name : measured) + ")";
  if (granted)
    return std::string("on (") + to_string(mode) + (measured.empty() ? "" : ": " + measured) + ")";
  if (mode == Compressible::kOn)
    throw std::runtime_error(
        "kernel.compressible = on: the driver granted no compression for the "
        "wavefield arrays on " +
        device_name + "; use auto or off");
  return "off (auto: the driver granted no compression)";
}

}  // namespace seisfd::cuda
