// Device-side pieces shared by the fast acoustic variants (smem_tile, smem_regqueue,
// shfl_regqueue): the stencil weights as a by-value parameter, the per-axis sponge term, 16-byte
// loads/stores with cache hints, and the host-side choice of the z-chunk length of the z-marching
// kernels. The update formula is the one of acoustic_naive (DESIGN.md §4):
//   next = (2 cur - (1 - g) prev + (v dt)^2 lap) / (1 + g),   g = sum over axes of the sponge.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/sponge.cuh"
#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

template <int R>
struct StencilWeights {
  float c0;                               // sum of the three centre weights
  float cz[R + 1], cy[R + 1], cx[R + 1];  // a_k / h^2 per axis, index 0 unused

  static StencilWeights from(const StepSpec& s) {
    StencilWeights w{};
    const auto a = second_derivative_weights(R);
    double centre = 0;
    float* c[3] = {w.cz, w.cy, w.cx};
    for (int ax = 0; ax < 3; ++ax) {
      const double inv_h2 = 1.0 / (s.h[ax] * s.h[ax]);
      centre += a[0] * inv_h2;
      c[ax][0] = 0.0f;
      for (int k = 1; k <= R; ++k) c[ax][k] = static_cast<float>(a[k] * inv_h2);
    }
    w.c0 = static_cast<float>(centre);
    return w;
  }
};

// The sponge term of one axis at index i (the profile of SpongeParams::g, one axis of it).
__device__ __forceinline__ float sponge_axis(const SpongeParams& s, int a, int i) {
  const int dlo = s.lo[a] - i;
  const int dhi = i - s.hi[a];
  const float r = dlo > 0 ? dlo * s.inv_wlo[a] : (dhi > 0 ? dhi * s.inv_whi[a] : 0.0f);
  return s.damp[a] * r * r;
}

// The leapfrog update of one cell; g = 0 when the sponge is off.
__device__ __forceinline__ float leapfrog(bool sponge, float g, float c, float p, float v,
                                          float lap) {
  if (!sponge) return 2.0f * c - p + v * lap;
  return (2.0f * c - (1.0f - g) * p + v * lap) / (1.0f + g);
}

// cur is read-only during a step: the non-coherent path. prev may alias next (each cell reads
// prev only at itself), so it is read through the coherent path, evict-first: it is read once.
__device__ __forceinline__ float4 ld_ro4(const float* p) {
  return __ldg(reinterpret_cast<const float4*>(p));
}
__device__ __forceinline__ float4 ld_stream4(const float* p) {
  return __ldcs(reinterpret_cast<const float4*>(p));
}
__device__ __forceinline__ void st_stream4(float* p, float4 v) {
  __stcs(reinterpret_cast<float4*>(p), v);
}
__device__ __forceinline__ float& lane(float4& v, int l) {
  return l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
}
__device__ __forceinline__ float lane(const float4& v, int l) {
  return l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
}

// Checks every z-marching and tiled variant needs: a halo of `radius` cells around the region,
// a non-empty region, planes indexable in 32 bits.
std::string check_region(const StepSpec& s);
// The 16-byte variants also need 16-byte aligned rows and pointers.
std::string check_vector_layout(const StepSpec& s);

// z-chunk length for a z-marching kernel: `tiles` xy tiles per plane, `nz` planes to update,
// `slots` blocks resident at once on the device; each chunk pays about `warmup` plane-steps to
// fill its queue. Chosen to make the last wave full rather than a small tail.
int plan_z_chunk(int tiles, int nz, int slots, double warmup);

// Resident blocks of `kernel` on the current device (cached by the caller).
int resident_blocks(const void* kernel, int threads, size_t dynamic_smem);

}  // namespace seisfd::cuda
