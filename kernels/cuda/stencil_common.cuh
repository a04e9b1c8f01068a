// Device-side pieces shared by the fast acoustic variants (smem_tile and the z-marching
// smem_regqueue, shfl_regqueue, tma_ring, cluster_dsmem): the stencil weights as a by-value
// parameter, the per-axis sponge term, 16-byte loads/stores with cache hints, cp.async, the
// four-cell x row, Laplacian, update and store of the z-marching kernels, and the host-side
// choice of their z-chunk length. The update formula is the one of acoustic_naive (docs/physics.md
// §2):
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

// The shared-window address of a pointer into shared memory.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// cp.async of 16 bytes global -> shared through L2 only (.cg), committed as groups and waited
// for with at most N groups still in flight; _s: the destination as a shared-window address
// (converted once by the caller).
__device__ __forceinline__ void cp_async16_s(unsigned smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  cp_async16_s(smem_addr(smem), gmem);
}
// 8 bytes (through L1: .cg takes 16 only).
__device__ __forceinline__ void cp_async8(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_addr(smem)), "l"(gmem)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The z-marching kernels work on four cells of an x row per thread (one float4). Their x
// neighbours from a shared-memory row holding RP (>= R, a multiple of 4) halo cells either
// side: `row` points at the row's first halo cell, the thread's cells are at RP + 4 tx; xs gets
// [left halo | the four cells (`own`, from registers) | right halo].
template <int RP>
__device__ __forceinline__ void x_row4(float (&xs)[4 + 2 * RP], const float* row, int tx,
                                       const float4& own) {
#pragma unroll
  for (int j = 0; j < RP / 4; ++j) {
    const float4 a = *reinterpret_cast<const float4*>(row + 4 * tx + 4 * j);
    const float4 b = *reinterpret_cast<const float4*>(row + RP + 4 * tx + 4 + 4 * j);
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      xs[4 * j + l] = lane(a, l);
      xs[RP + 4 + 4 * j + l] = lane(b, l);
    }
  }
#pragma unroll
  for (int l = 0; l < 4; ++l) xs[RP + l] = lane(own, l);
}

// The Laplacian of the four cells: z neighbours from the register queue q (q[R] the cells
// themselves), y neighbours from shared memory at centre +- k * stride (the four cells of row
// k above and below), x neighbours from xs (x_row4 or a shuffle cache).
template <int R, int RP>
__device__ __forceinline__ void laplacian4(float (&lap)[4], const StencilWeights<R>& w,
                                           const float4 (&q)[2 * R + 1],
                                           const float (&xs)[4 + 2 * RP], const float* centre,
                                           int stride) {
#pragma unroll
  for (int l = 0; l < 4; ++l) lap[l] = w.c0 * xs[RP + l];
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    const float4 up = *reinterpret_cast<const float4*>(centre + k * stride);
    const float4 dn = *reinterpret_cast<const float4*>(centre - k * stride);
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      lap[l] += w.cz[k] * (lane(q[R + k], l) + lane(q[R - k], l));
      lap[l] += w.cy[k] * (lane(up, l) + lane(dn, l));
      lap[l] += w.cx[k] * (xs[RP + l + k] + xs[RP + l - k]);
    }
  }
}

// The leapfrog update of the four cells of plane z (gxy: their x and y sponge terms).
__device__ __forceinline__ float4 leapfrog4(const SpongeParams& sp, int z, const float (&gxy)[4],
                                            const float4& c, const float4& p, const float4& v,
                                            const float (&lap)[4]) {
  const float gz = sp.on ? sponge_axis(sp, 0, z) : 0.0f;
  float4 o;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    lane(o, l) = leapfrog(sp.on, gz + gxy[l], lane(c, l), lane(p, l), lane(v, l), lap[l]);
  return o;
}

// Stores the cells of o that mask selects (bit l: cell l is in the region): one streaming
// 16-byte store when all four are.
__device__ __forceinline__ void store4(float* dst, const float4& o, int mask) {
  if (mask == 15) {
    st_stream4(dst, o);
  } else {
#pragma unroll
    for (int l = 0; l < 4; ++l)
      if (mask & (1 << l)) dst[l] = lane(o, l);
  }
}

// Checks every z-marching and tiled variant needs: a halo of `radius` cells around the region,
// a non-empty region, planes indexable in 32 bits.
std::string check_region(const StepSpec& s);
// The 16-byte variants also need 16-byte aligned rows and pointers.
std::string check_vector_layout(const StepSpec& s);
// Both, as a KernelVariant::can_implement: what every z-marching variant of 16-byte loads needs.
std::string can_implement_vector_zmarch(const StepSpec& s, int compute_capability);

// The xy tiles of a z-marching launch of tx x ty cells: the first tile starts at begin[2] rounded
// down to 32 floats (whole 128-byte row segments, 16-byte aligned float4s), so the tiles cover
// the region's x extent from x_base; tiles_x by tiles_y of them.
struct TileGrid {
  int x_base, tiles_x, tiles_y;
};
inline TileGrid tile_grid(const StepSpec& s, int tx, int ty) {
  TileGrid g;
  g.x_base = s.begin[2] / 32 * 32;
  g.tiles_x = (s.end[2] - g.x_base + tx - 1) / tx;
  g.tiles_y = (s.end[1] - s.begin[1] + ty - 1) / ty;
  return g;
}

// z-chunk length for a z-marching kernel: `tiles` xy tiles per plane, `nz` planes to update,
// `slots` blocks resident at once on the device; each chunk pays about `warmup` plane-steps to
// fill its queue. Chosen to make the last wave full rather than a small tail.
int plan_z_chunk(int tiles, int nz, int slots, double warmup);

// Resident blocks of `kernel` on `device` with `dynamic_smem` bytes of dynamic shared memory
// each. Worked out once per (device, kernel, threads, dynamic_smem) and cached (thread-safe); a
// call that asks more shared memory of the kernel than any before also raises its dynamic
// shared-memory limit to dynamic_smem (an attribute of each device's context; it only grows, so
// a kernel may be launched with several sizes). `device` must be the current device
// (the engine's DeviceGuard): a launcher never switches devices; checked on the first call.
int resident_blocks(int device, const void* kernel, int threads, size_t dynamic_smem);

}  // namespace seisfd::cuda
