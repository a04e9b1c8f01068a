// The imaging epilogue of the adjoint update kernels (kernels/registry.hpp FusedImaging): once a
// kernel has a cell's second time difference in registers (its (v dt)^2 times the operator it
// just applied) and the cell's current adjoint value, it correlates them with the source field
// there. The cross-correlation needs no other pass over the adjoint fields: the fused imaging
// step reads u and reads and writes the images, nothing else (docs/migration.md §3).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/stencil_common.cuh"
#include "kernels/registry.hpp"

namespace seisfd::cuda {

__device__ __forceinline__ float imaging_u(const FusedImaging& im, int f, int64_t i) {
  return im.u_half ? __half2float(static_cast<const __half*>(im.u[f])[i])
                   : static_cast<const float*>(im.u[f])[i];
}

// One cell i: d2p, d2q the second differences of p and q (d2q unused with one field), cur0 the
// current level of p.
__device__ __forceinline__ void image_cell(const FusedImaging& im, int64_t i, float d2p, float d2q,
                                           float cur0) {
  const float u0 = imaging_u(im, 0, i);
  if (im.cc) {
    float a = u0 * d2p;
    if (im.u[1]) a += imaging_u(im, 1, i) * d2q;
    im.cc[i] += im.cc_scale * a;
  }
  if (im.il) im.il[i] += im.k * u0 * u0;
  if (im.zl) im.zl[i] += im.k * u0 * cur0;
}

// Four fp16 values (8 bytes) as a float4.
__device__ __forceinline__ float4 half4_to_float4(const uint2 r) {
  const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&r.x));
  const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&r.y));
  return make_float4(a.x, a.y, b.x, b.y);
}

// Four cells i .. i + 3 (i a multiple of 4, the z-marching kernels' float4) of field f.
__device__ __forceinline__ float4 imaging_u4(const FusedImaging& im, int64_t i, int f = 0) {
  if (im.u_half)
    return half4_to_float4(
        *reinterpret_cast<const uint2*>(static_cast<const __half*>(im.u[f]) + i));
  return *reinterpret_cast<const float4*>(static_cast<const float*>(im.u[f]) + i);
}

// What the epilogue of four cells reads, each where it is used: the source field of field f
// (Image4Read::kU0 + f) and the images' values before this step's term. image4 reads them from
// global memory at the epilogue; acoustic smem_regqueue copies them into shared memory with the
// plane, ahead of it, and passes a reader of its copies.
enum Image4Read { kU0 = 0, kU1 = 1, kCc = 2, kIl = 3, kZl = 4 };

// The epilogue of four cells: d2 (and d2q, the second field's, with two) their second
// differences, cur their current level of p, read(what) the float4 of `what`; the lanes of
// mask written.
template <class Read>
__device__ __forceinline__ void image4_with(const FusedImaging& im, int64_t i, const float (&d2)[4],
                                            const float4& cur, int mask, const Read& read,
                                            const float (*d2q)[4] = nullptr) {
  const float4 u = read(kU0);
  if (im.cc) {
    float a[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) a[l] = lane(u, l) * d2[l];
    if (d2q) {
      const float4 uq = read(kU1);
#pragma unroll
      for (int l = 0; l < 4; ++l) a[l] += lane(uq, l) * (*d2q)[l];
    }
    float4 v = read(kCc);
#pragma unroll
    for (int l = 0; l < 4; ++l) lane(v, l) += im.cc_scale * a[l];
    store4(im.cc + i, v, mask);
  }
  if (im.il) {
    float4 v = read(kIl);
#pragma unroll
    for (int l = 0; l < 4; ++l) lane(v, l) += im.k * (lane(u, l) * lane(u, l));
    store4(im.il + i, v, mask);
  }
  if (im.zl) {
    float4 v = read(kZl);
#pragma unroll
    for (int l = 0; l < 4; ++l) lane(v, l) += im.k * (lane(u, l) * lane(cur, l));
    store4(im.zl + i, v, mask);
  }
}

// The epilogue of four cells, its reads from global memory where it runs.
__device__ __forceinline__ void image4(const FusedImaging& im, int64_t i, const float (&d2)[4],
                                       const float4& cur, int mask,
                                       const float (*d2q)[4] = nullptr) {
  const auto read = [&](int what) {
    if (what <= kU1) return imaging_u4(im, i, what);
    const float* img = what == kCc ? im.cc : what == kIl ? im.il : im.zl;
    return *reinterpret_cast<const float4*>(img + i);
  };
  image4_with(im, i, d2, cur, mask, read, d2q);
}

}  // namespace seisfd::cuda
