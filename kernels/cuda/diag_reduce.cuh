// The diagnostics reduction on the device (energy sum p^2, max |p|, count and first index of the
// non-finite cells), as a per-thread partial and a block reduction committed with one atomic per
// block and quantity. Used by the separate reduction kernel
// (field_ops.cu) and by update kernels that reduce the field they read while they update
// (smem_regqueue, shfl_regqueue: fused diagnostics).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/field_ops.hpp"

namespace seisfd::cuda {

struct DiagPartial {
  double sum = 0.0;
  float mx = 0.0f;
  unsigned bad = 0u;  // cells of one thread: fewer than 2^32
  unsigned long long first = ~0ull;

  __device__ __forceinline__ void add(float v, int64_t index) {
    if (!isfinite(v)) {
      ++bad;
      first = min(first, static_cast<unsigned long long>(index));
    } else {
      sum += static_cast<double>(v) * v;
      mx = fmaxf(mx, fabsf(v));
    }
  }

  // Up to four cells of one row (lanes selected by mask, cell l at index + l), the way the
  // fused update kernels feed them: their squares summed in float (four terms: relative error
  // ~1e-7), then one double addition. Only when that float sum is not finite (a NaN or Inf
  // cell, or a square beyond the float range) are the cells taken one by one, the non-finite
  // ones counted straight into acc: a run that has them is about to stop, and the thread keeps
  // no count or index of its own (registers the update kernel needs).
  __device__ __forceinline__ void add4(const float4& v, int mask, int64_t index, DiagAccum* acc) {
    const float c[4] = {v.x, v.y, v.z, v.w};
    float s = 0.0f, m = 0.0f;
#pragma unroll
    for (int l = 0; l < 4; ++l)
      if (mask & (1 << l)) {
        s = fmaf(c[l], c[l], s);
        m = fmaxf(m, fabsf(c[l]));
      }
    if (isfinite(s)) {
      sum += static_cast<double>(s);
      mx = fmaxf(mx, m);
      return;
    }
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      if (!(mask & (1 << l))) continue;
      if (isfinite(c[l])) {
        sum += static_cast<double>(c[l]) * c[l];
        mx = fmaxf(mx, fabsf(c[l]));
      } else {
        atomicAdd(&acc->nonfinite, 1ull);
        atomicMin(&acc->first_nonfinite, static_cast<unsigned long long>(index + l));
      }
    }
  }

  __device__ __forceinline__ void warp_reduce() {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, d);
      mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, d));
      bad += __shfl_down_sync(0xffffffffu, bad, d);
      first = min(first, __shfl_down_sync(0xffffffffu, first, d));
    }
  }
};

// Every thread of the block (kThreads, a multiple of 32, at most 1024) calls it once with its
// partial: warp shuffles, one value per warp through shared memory, the first warp, then one
// atomic per quantity into acc. Contains a __syncthreads.
template <int kThreads>
__device__ __forceinline__ void block_commit(DiagPartial part, DiagAccum* acc) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block of whole warps");
  constexpr int kWarps = kThreads / 32;
  __shared__ double s_sum[kWarps];
  __shared__ float s_max[kWarps];
  __shared__ unsigned s_bad[kWarps];
  __shared__ unsigned long long s_first[kWarps];
  part.warp_reduce();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    s_sum[warp] = part.sum;
    s_max[warp] = part.mx;
    s_bad[warp] = part.bad;
    s_first[warp] = part.first;
  }
  __syncthreads();
  if (warp == 0) {
    const bool have = lane < kWarps;
    part.sum = have ? s_sum[lane] : 0.0;
    part.mx = have ? s_max[lane] : 0.0f;
    part.bad = have ? s_bad[lane] : 0u;
    part.first = have ? s_first[lane] : ~0ull;
    part.warp_reduce();
    if (lane == 0) {  // the block's totals
      atomicAdd(&acc->sum_sq, part.sum);
      atomicMax(&acc->max_abs_bits, __float_as_uint(part.mx));
      if (part.bad > 0) {
        atomicAdd(&acc->nonfinite, static_cast<unsigned long long>(part.bad));
        atomicMin(&acc->first_nonfinite, part.first);
      }
    }
  }
}

}  // namespace seisfd::cuda
