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

// Four cells i .. i + 3 (i a multiple of 4, the z-marching kernels' float4) of field f.
__device__ __forceinline__ float4 imaging_u4(const FusedImaging& im, int64_t i, int f = 0) {
  if (im.u_half) {
    const uint2 r = *reinterpret_cast<const uint2*>(static_cast<const __half*>(im.u[f]) + i);
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&r.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&r.y));
    return make_float4(a.x, a.y, b.x, b.y);
  }
  return *reinterpret_cast<const float4*>(static_cast<const float*>(im.u[f]) + i);
}

// img[i + l] += s * a_l for the lanes of mask (one 16-byte read and write when all four are).
__device__ __forceinline__ void accumulate4(float* img, int64_t i, float s, const float (&a)[4],
                                            int mask) {
  if (mask == 15) {
    float4 v = *reinterpret_cast<const float4*>(img + i);
#pragma unroll
    for (int l = 0; l < 4; ++l) lane(v, l) += s * a[l];
    *reinterpret_cast<float4*>(img + i) = v;
  } else {
#pragma unroll
    for (int l = 0; l < 4; ++l)
      if (mask & (1 << l)) img[i + l] += s * a[l];
  }
}

// The epilogue of four cells: d2 (and d2q, the second field's, with two) their second
// differences, cur their current level of p.
__device__ __forceinline__ void image4(const FusedImaging& im, int64_t i, const float (&d2)[4],
                                       const float4& cur, int mask,
                                       const float (*d2q)[4] = nullptr) {
  const float4 u = imaging_u4(im, i);
  float a[4];
  if (im.cc) {
#pragma unroll
    for (int l = 0; l < 4; ++l) a[l] = lane(u, l) * d2[l];
    if (d2q) {
      const float4 uq = imaging_u4(im, i, 1);
#pragma unroll
      for (int l = 0; l < 4; ++l) a[l] += lane(uq, l) * (*d2q)[l];
    }
    accumulate4(im.cc, i, im.cc_scale, a, mask);
  }
  if (im.il) {
#pragma unroll
    for (int l = 0; l < 4; ++l) a[l] = lane(u, l) * lane(u, l);
    accumulate4(im.il, i, im.k, a, mask);
  }
  if (im.zl) {
#pragma unroll
    for (int l = 0; l < 4; ++l) a[l] = lane(u, l) * lane(cur, l);
    accumulate4(im.zl, i, im.k, a, mask);
  }
}

}  // namespace seisfd::cuda
