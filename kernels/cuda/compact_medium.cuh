// Reads of the compact medium (kernels/model_precision.hpp) in the update kernels: a 16-bit code
// per cell and array, decoded in registers with the one correctly rounded fmaf the host's
// decode() uses, so a kernel sees exactly the fp32 values the CPU engine and the fp32 copy hold.
// Device code, and the host's choice of a compact kernel.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/registry.hpp"

namespace seisfd::cuda {

template <ModelPrecision P>
__device__ __forceinline__ float code_value(uint32_t c) {
  if constexpr (P == ModelPrecision::kFp16) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(c)));
  } else if constexpr (P == ModelPrecision::kBf16) {
    return __uint_as_float(c << 16);
  } else {
    return __uint2float_rn(c);
  }
}

template <ModelPrecision P>
__device__ __forceinline__ float decode(const CompactMediumView& m, int a, uint32_t c) {
  return __fmaf_rn(m.scale[a], code_value<P>(c), m.offset[a]);
}

// Array a at cell i (read-only during the step: the non-coherent path).
template <ModelPrecision P>
__device__ __forceinline__ float ld_code(const CompactMediumView& m, int a, int64_t i) {
  return decode<P>(m, a, __ldg(reinterpret_cast<const unsigned short*>(m.code[a]) + i));
}

// Array a at cells i .. i + 3 (i a multiple of 4: one 8-byte load).
template <ModelPrecision P>
__device__ __forceinline__ uint2 ld_codes4(const CompactMediumView& m, int a, int64_t i) {
  return __ldg(reinterpret_cast<const uint2*>(m.code[a] + i));
}
template <ModelPrecision P>
__device__ __forceinline__ float4 decode4(const CompactMediumView& m, int a, uint2 c) {
  return make_float4(decode<P>(m, a, c.x & 0xffffu), decode<P>(m, a, c.x >> 16),
                     decode<P>(m, a, c.y & 0xffffu), decode<P>(m, a, c.y >> 16));
}
template <ModelPrecision P>
__device__ __forceinline__ float4 ld_code4(const CompactMediumView& m, int a, int64_t i) {
  return decode4<P>(m, a, ld_codes4<P>(m, a, i));
}

// E from the decoded D and G = E - D^2 (the kE codes), as the host's medium_coefficients.
__device__ __forceinline__ float e_from_g(float d, float g) {
  return __fmaf_rn(d, d, g);
}
__device__ __forceinline__ float4 e_from_g(const float4& d, const float4& g) {
  return make_float4(e_from_g(d.x, g.x), e_from_g(d.y, g.y), e_from_g(d.z, g.z),
                     e_from_g(d.w, g.w));
}

// The kernel that reads the medium in precision p (not fp32), with the fused diagnostics or
// not: kernel_of(m, d) gives it for m, an integral_constant of the precision, and d, one of the
// diagnostics flag (a variant's template arguments are spelled once, in kernel_of).
template <class KernelOf>
const void* compact_kernel(ModelPrecision p, bool diag, KernelOf kernel_of) {
  using M = ModelPrecision;
  const auto pick = [&](auto m) {
    return diag ? kernel_of(m, std::true_type{}) : kernel_of(m, std::false_type{});
  };
  switch (p) {
    case M::kFp16:
      return pick(std::integral_constant<M, M::kFp16>{});
    case M::kBf16:
      return pick(std::integral_constant<M, M::kBf16>{});
    default:
      return pick(std::integral_constant<M, M::kFixed16>{});
  }
}

}  // namespace seisfd::cuda
