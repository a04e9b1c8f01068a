// The compact-medium kernels of tti/oN/smem_ring (kernel.model_precision = fp16, bf16, fixed16),
// instantiated apart from the fp32 ones (kernels/cuda/tti_smem_ring.cuh says why).
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tti_smem_ring.cuh"

namespace seisfd {
namespace {

// The forward kernel reading the medium in precision p (not fp32).
template <int R>
const void* compact_kernel(ModelPrecision p, bool diag) {
  using M = ModelPrecision;
  const auto pick = [&](auto k0, auto k1) { return reinterpret_cast<const void*>(diag ? k1 : k0); };
  switch (p) {
    case M::kFp16:
      return pick(&tti_smem_ring_kernel<R, false, false, false, M::kFp16>,
                  &tti_smem_ring_kernel<R, false, false, true, M::kFp16>);
    case M::kBf16:
      return pick(&tti_smem_ring_kernel<R, false, false, false, M::kBf16>,
                  &tti_smem_ring_kernel<R, false, false, true, M::kBf16>);
    default:
      return pick(&tti_smem_ring_kernel<R, false, false, false, M::kFixed16>,
                  &tti_smem_ring_kernel<R, false, false, true, M::kFixed16>);
  }
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
