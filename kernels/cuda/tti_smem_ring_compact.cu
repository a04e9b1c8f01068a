// The compact-medium kernels of tti/oN/smem_ring (kernel.model_precision = fp16, bf16, fixed16),
// instantiated apart from the fp32 ones (kernels/cuda/tti_smem_ring.cuh says why).
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tti_smem_ring.cuh"

namespace seisfd {
namespace {

// The forward kernel reading the medium in precision p (not fp32).
template <int R>
const void* compact_kernel(ModelPrecision p, bool diag) {
  return cuda::compact_kernel(p, diag, [](auto m, auto d) {
    return reinterpret_cast<const void*>(
        &tti_smem_ring_kernel<R, false, false, decltype(d)::value, decltype(m)::value>);
  });
}

}  // namespace

const void* tti_smem_ring_compact_kernel(int r, ModelPrecision p, bool diag) {
  const void* k = nullptr;
  cuda::for_each_radius([&](auto rr) {
    constexpr int R = decltype(rr)::value;
    if (R == r) k = compact_kernel<R>(p, diag);
  });
  if (!k)
    throw std::invalid_argument("tti smem_ring: no compact kernel of radius " + std::to_string(r));
  return k;
}

}  // namespace seisfd
