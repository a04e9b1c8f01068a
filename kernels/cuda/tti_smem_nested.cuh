// tti/oN/smem_nested's kernel, compiled with a tuning policy (kernels/cuda/tuning.hpp:
// TtiNestedPolicy; the library registers TtiNestedDefault in tti_smem_nested.cu, bench/sweep
// times the others): the nested TTI operator (StepSpec::tti_operator = kNested,
// kernels/reference/anisotropic.hpp) in one z-marching pass. Orders 4, 8, 12 and 16 (R even;
// the first derivatives have RC = R / 2 pairs). Needs compute capability 9.0 (TMA).
//
// A block owns a 32 x TY column tile and marches a chunk of z planes. Everything it reads from
// global memory comes by TMA (cp.async.bulk.tensor), issued an iteration ahead by one or two
// producer threads (P::kProducers; two: lane 0 of the last two warps, which have no halo task at
// orders 4-8) and completing on an mbarrier: no thread computes a global address or holds a
// loaded value in a register across iterations. Iteration i:
//   - its group has landed: plane i + RC of u and w (p and q forward; X and Y transposed), the
//     tile with a halo of R cells in y and RP >= R in x, into a ring of R + 2 planes (a power of
//     two where it fits); the axis n at plane i for the tile and RC around it; the tile's own (v
//     dt)^2, E, D and old levels at plane i - RC;
//   - stage A, plane i: t = D1 f (x, y neighbours from the ring's plane, z neighbours from its
//     other planes, or with P::kZQueue the own cell's from register queues of its column's u and
//     w), s = n . t, g_a = n_a s, for u and w. The tile's own cells push g_z into a
//     register queue of 2 RC + 1 planes (g_z is read along z only) and write g_x, g_y to
//     shared buffers of RC + 1 planes; cells RC beyond the tile in x (g_x) and in y (g_y) are
//     computed by 2 RC (32 + TY) of the threads, once each;
//   - stage B, plane b = i - RC: H_z f = sum_a D1_a g_a from the queue and the buffers, the
//     Laplacian of u (z from a register queue of u's column, 2 R + 1 planes; x, y from the
//     ring), H_0 u = lap u - H_z u, the forces and the leapfrog of p and q with the sponge.
// One barrier an iteration (the ring's extra plane and the two group stages make it enough).
// Every value an updated cell needs lies within R of it (begin >= R, end <= n - R); the TMA
// fills what lies outside the arrays with zeros. Above a free surface the fields and the axis
// are mirrored in memory, and the formula then gives the mirror of g itself (see the
// reference's header), so nothing is special there. The diagnostics and the imaging run as the
// engine's separate passes; the medium is read in fp32.
#pragma once
#include <cuda.h>  // CUtensorMap (types only: libcuda is not linked)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/acoustic_tma_ring.cuh"  // tensor maps, mbarriers, tma_load_3d
#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/registry.hpp"

namespace seisfd::cuda::tti_nested {

constexpr int kTX = 32;

constexpr int pow2_at_least(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}
constexpr int round_up(int n, int a) {
  return (n + a - 1) / a * a;
}

// Whether the kernel compiles for radius R with policy P: R even (the first derivatives have
// R / 2 pairs), at most P's radius (its registers), and one halo task a thread at most (2 RC
// (32 + TY) halo cells for 32 TY threads). bench/sweep asks before it instantiates a policy.
template <int R, class P>
inline constexpr bool kHaloFits = (R * (kTX + P::kTileRows)) <= (kTX * P::kTileRows);
template <int R, class P>
inline constexpr bool kFits = (R % 2 == 0) && (R <= P::kMaxRadius) && kHaloFits<R, P>;

// A 32 x TY tile (a thread a column) and the shared-memory layout of its block, in floats
// (every box 128-byte aligned, as the TMA writes it).
template <int R, class P>
struct Shape {
  static constexpr int kTY = P::kTileRows;
  static constexpr int kThreads = kTX * kTY;
  static constexpr int RC = R / 2;
  // A box's first x is a multiple of 4 floats (16 bytes; tiles start at such an x, and rows
  // are padded to 32 floats): on an H200 a box starting 2 floats off faulted (illegal
  // instruction in the TMA load).
  // Ring boxes: u or w of a plane, the tile and RP >= R either side in x, R in y.
  static constexpr int kRP = round_up(R, 4);
  static constexpr int kW = kTX + 2 * kRP;
  static constexpr int kH = kTY + 2 * R;
  static constexpr int kPlane = kW * kH;
  static constexpr int kPlaneF = round_up(kPlane, 32);
  // g_x rows (the tile's, RC either side in x), g_y columns (RC either side in y), of planes
  // i - RC .. i.
  static constexpr int kGxW = kTX + 2 * RC;
  static constexpr int kGyH = kTY + 2 * RC;
  static constexpr int kGx = kTY * kGxW;
  static constexpr int kGy = kGyH * kTX;
  // Axis boxes: the cells whose g the tile reads, RC around it (NX >= RC in x).
  static constexpr int kNX = round_up(RC, 4);
  static constexpr int kNW = kTX + 2 * kNX;
  static constexpr int kNH = kTY + 2 * RC;
  static constexpr int kNBoxF = round_up(kNW * kNH, 32);
  // The tile's own cells of the medium and the fields' levels: 5 arrays.
  static constexpr int kCells = 5;
  static constexpr int kCellF = kTX * kTY;
  // The layout's bytes with `planes` ring slots and `gslots` slots of g_x and g_y (+ 3
  // mbarriers).
  static constexpr size_t bytes(int planes, int gslots) {
    return size_t{4} * (round_up(planes * 2 * kPlaneF + gslots * 2 * (kGx + kGy), 32) +
                        2 * 3 * kNBoxF + 2 * kCells * kCellF) +
           3 * 8;
  }
  // Iteration i reads planes i - RC .. i + RC while the copy of plane i + RC + 1 lands: R + 2
  // slots, and RC + 1 of g. Powers of two (a slot is then a mask of z) where the ring stays
  // within 64 KB and P::kMinBlocks blocks of that layout still fit a multiprocessor (228 KB,
  // 1 KB of it reserved a block).
  static constexpr size_t kSmPerSm = 228 * 1024, kReservedPerBlock = 1024;
  static constexpr bool kMasked =
      pow2_at_least(R + 2) * 2 * kPlaneF * 4 <= 64 * 1024 &&
      P::kMinBlocks * (bytes(pow2_at_least(R + 2), pow2_at_least(RC + 1)) + kReservedPerBlock) <=
          kSmPerSm;
  static constexpr int kPlanes = kMasked ? pow2_at_least(R + 2) : R + 2;
  static constexpr int kGSlots = kMasked ? pow2_at_least(RC + 1) : RC + 1;
  static constexpr int kGxOff = kPlanes * 2 * kPlaneF;
  static constexpr int kGyOff = kGxOff + kGSlots * 2 * kGx;
  static constexpr int kAxisOff = round_up(kGyOff + kGSlots * 2 * kGy, 32);
  static constexpr int kCellOff = kAxisOff + 2 * 3 * kNBoxF;
  static constexpr int kBarOff = kCellOff + 2 * kCells * kCellF;
  static constexpr size_t kSmemBytes = bytes(kPlanes, kGSlots);
  // What an iteration's group and the warm-up deliver: the ring's planes and the axis (the
  // first producer's), the tile's own arrays (the second's).
  static constexpr unsigned kRingAxisBytes = 4u * (2 * kPlane + 3 * kNW * kNH);
  static constexpr unsigned kCellBytes = 4u * kCells * kCellF;
  static constexpr unsigned kWarmBytes = 4u * R * 2 * kPlane;
  static constexpr int kHaloX = 2 * RC * kTY;  // g_x tasks
  static constexpr int kHaloY = 2 * RC * kTX;  // g_y tasks
  static_assert(kHaloFits<R, P> && kHaloX + kHaloY <= kThreads, "one halo task a thread at most");
  static_assert(kW % 4 == 0 && kNW % 4 == 0, "TMA box rows are multiples of 16 bytes");
  static_assert(kSmemBytes == size_t{4} * kBarOff + 3 * 8, "the offsets are the layout's");
  static_assert(kSmemBytes <= 232448, "a block's shared memory on Hopper");
  static_assert(P::kMinBlocks * (kSmemBytes + kReservedPerBlock) <= kSmPerSm,
                "P::kMinBlocks blocks a multiprocessor");
  static_assert(kThreads >= 64, "two producers in the last two warps");
};

struct Launch {
  int z_chunk;
  int x_base;  // x of the first tile: begin[2] rounded down to a multiple of 32 (tile_grid)
};

// The TMA tensor maps a launch reads through: u and w (the ring), the axis components, and the
// own-tile arrays: (v dt)^2, E, D, p_prev, q_prev forward; (v dt)^2, p_prev, q_prev, p_cur,
// q_cur transposed.
struct Maps {
  CUtensorMap u, w;
  CUtensorMap n[3];
  CUtensorMap cell[5];
};

// D1 along the ring's x, y (offsets in floats) of field plane `a` at cell c.
template <int RC>
__device__ __forceinline__ float ring_d1(const float* a, int c, int step, const float* w1) {
  float acc = 0;
#pragma unroll
  for (int k = 1; k <= RC; ++k) acc += w1[k] * (a[c + k * step] - a[c - k * step]);
  return acc;
}

template <int R, class P, bool kT>
__global__ void __launch_bounds__(kTX* P::kTileRows, P::kMinBlocks)
    tti_nested_kernel(const AnisoParams<R> p, const __grid_constant__ Maps maps,
                      float* __restrict__ p_next, float* __restrict__ q_next, const Launch launch) {
  namespace tma = tma_ring;
  using S = Shape<R, P>;
  constexpr int RC = S::RC;
  constexpr int kTY = S::kTY;
  extern __shared__ __align__(128) float smem[];
  float* const ring = smem;                 // [slot][field][kH][kW]
  float* const gxs = smem + S::kGxOff;      // [slot][field][kTY][kGxW]
  float* const gys = smem + S::kGyOff;      // [slot][field][kGyH][kTX]
  float* const axis = smem + S::kAxisOff;   // [stage][component][kNH][kNW]
  float* const cells = smem + S::kCellOff;  // [stage][array][kTY][kTX]
  uint64_t* const bar = reinterpret_cast<uint64_t*>(smem + S::kBarOff);  // stages 0, 1; warm-up
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTX + tx;
  const int x0 = launch.x_base + blockIdx.x * kTX, y0 = p.begin[1] + blockIdx.y * kTY;
  const int z0 = p.begin[0] + blockIdx.z * launch.z_chunk;
  const int z1 = min(z0 + launch.z_chunk, p.end[0]);
  const int x = x0 + tx, y = y0 + ty;
  const bool active = x >= p.begin[2] && x < p.end[2] && y < p.end[1];
  // Cells whose g an updated cell of this tile may read.
  const bool needed = x >= p.begin[2] - RC && x < p.end[2] + RC && y < p.end[1] + RC;

  // z >= z0 - R >= 0 wherever a slot is taken.
  const auto slot = [&](int z) {
    if constexpr (S::kMasked) return z & (S::kPlanes - 1);
    return (z - z0 + S::kPlanes * 4) % S::kPlanes;
  };
  const auto gslot = [&](int z) {
    if constexpr (S::kMasked) return z & (S::kGSlots - 1);
    return (z - z0 + S::kGSlots * 4) % S::kGSlots;
  };
  const auto plane = [&](int z, int fld) { return ring + (slot(z) * 2 + fld) * S::kPlaneF; };

  // The producers: lane 0 of the last warp and of the one before it (warps with no halo task
  // at orders 4-8, so that the issuing does not lengthen the slowest warp's iteration), or
  // thread 0 alone.
  constexpr bool kTwo = P::kProducers == 2;
  const bool producer_a = kTwo ? tid == S::kThreads - 64 : tid == 0;  // the ring, the axis
  const bool producer_b = kTwo ? tid == S::kThreads - 32 : tid == 0;  // the tile's arrays
  // The group of iteration i, on mbarrier i & 1 (one arrival a producer, each with its bytes):
  // the ring's plane i + RC (the newest it reads), the axis at plane i (stage A), the own-tile
  // arrays at plane i - RC (stage B). Issued an iteration ahead; the TMA fills what lies
  // outside the arrays with zeros.
  const auto issue = [&](int i) {
    uint64_t* b = &bar[i & 1];
    if (producer_a) {
      tma::mbar_arrive_expect_tx(b, kTwo ? S::kRingAxisBytes : S::kRingAxisBytes + S::kCellBytes);
      tma::tma_load_3d(plane(i + RC, 0), &maps.u, b, x0 - S::kRP, y0 - R, i + RC);
      tma::tma_load_3d(plane(i + RC, 1), &maps.w, b, x0 - S::kRP, y0 - R, i + RC);
      float* ax = axis + (i & 1) * 3 * S::kNBoxF;
#pragma unroll
      for (int a = 0; a < 3; ++a)
        tma::tma_load_3d(ax + a * S::kNBoxF, &maps.n[a], b, x0 - S::kNX, y0 - RC, i);
    }
    if (producer_b) {
      if constexpr (kTwo) tma::mbar_arrive_expect_tx(b, S::kCellBytes);
      float* ce = cells + (i & 1) * S::kCells * S::kCellF;
#pragma unroll
      for (int k = 0; k < S::kCells; ++k)
        tma::tma_load_3d(ce + k * S::kCellF, &maps.cell[k], b, x0, y0, i - RC);
    }
  };
  const int own = (ty + R) * S::kW + tx + S::kRP;  // this thread's cell in a ring box

  // g of u and w at ring cell c of plane z, the cell's axis n (z, y, x); the z derivatives tu0,
  // tw0 given.
  const auto g_from = [&](float tu0, float tw0, int z, int c, const float(&n)[3], float(&gu)[3],
                          float(&gw)[3]) {
    float tu[3], tw[3];
    const float* pu = plane(z, 0);
    const float* pw = plane(z, 1);
    tu[2] = ring_d1<RC>(pu, c, 1, p.w1[2]);
    tw[2] = ring_d1<RC>(pw, c, 1, p.w1[2]);
    tu[1] = ring_d1<RC>(pu, c, S::kW, p.w1[1]);
    tw[1] = ring_d1<RC>(pw, c, S::kW, p.w1[1]);
    tu[0] = tu0;
    tw[0] = tw0;
    const float nz = n[0], ny = n[1], nx = n[2];
    const float su_ = nz * tu[0] + ny * tu[1] + nx * tu[2];
    const float sw_ = nz * tw[0] + ny * tw[1] + nx * tw[2];
    gu[0] = nz * su_;
    gu[1] = ny * su_;
    gu[2] = nx * su_;
    gw[0] = nz * sw_;
    gw[1] = ny * sw_;
    gw[2] = nx * sw_;
  };
  // The same with the z derivatives from the ring's other planes.
  const auto g_at = [&](int z, int c, const float(&n)[3], float(&gu)[3], float(&gw)[3]) {
    float tu0 = 0.0f, tw0 = 0.0f;
#pragma unroll
    for (int k = 1; k <= RC; ++k) {
      tu0 += p.w1[0][k] * (plane(z + k, 0)[c] - plane(z - k, 0)[c]);
      tw0 += p.w1[0][k] * (plane(z + k, 1)[c] - plane(z - k, 1)[c]);
    }
    g_from(tu0, tw0, z, c, n, gu, gw);
  };

  // The halo task of this thread (one of g_x's x-halo cells or g_y's y-halo cells), if any.
  int hy = 0, hx = 0, hkind = 0;  // 1: g_x, 2: g_y
  if (tid < S::kHaloX) {
    const int j = tid / kTY;
    hy = tid % kTY;
    hx = j < RC ? j - RC : kTX + j - RC;
    hkind = x0 + hx >= p.begin[2] - RC && x0 + hx < p.end[2] + RC && y0 + hy < p.end[1] ? 1 : 0;
  } else if (tid < S::kHaloX + S::kHaloY) {
    const int t = tid - S::kHaloX, j = t / kTX;
    hx = t % kTX;
    hy = j < RC ? j - RC : kTY + j - RC;
    hkind = y0 + hy < p.end[1] + RC && x0 + hx >= p.begin[2] && x0 + hx < p.end[2] ? 2 : 0;
  }
  const int own_n = (ty + RC) * S::kNW + tx + S::kNX;   // this cell in an axis box
  const int halo_n = (hy + RC) * S::kNW + hx + S::kNX;  // the halo task's
  const int own_c = ty * kTX + tx;                      // this cell in an own-tile box
  // The sponge's y and x parts of this column (its z part a plane at a time).
  const float g_yx = p.sponge.on ? sponge_axis(p.sponge, 1, y) + sponge_axis(p.sponge, 2, x) : 0.0f;
  const int64_t sz = p.l.sz;
  const int64_t col = static_cast<int64_t>(y) * p.l.sy + x;

  float uq[2 * R + 1];                     // u of this column, planes b - R .. b + R
  float gzu[2 * RC + 1], gzw[2 * RC + 1];  // g_z of u and w, planes b - RC .. b + RC
  // P::kZQueue: w of this column, planes i - RC .. i + RC (= b .. b + R): the own cell's z
  // derivatives in stage A from registers (u's from uq), not from the ring.
  float wq[P::kZQueue ? 2 * RC + 1 : 1];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) uq[k] = 0.0f;
#pragma unroll
  for (int k = 0; k < 2 * RC + 1; ++k) gzu[k] = gzw[k] = 0.0f;
#pragma unroll
  for (int k = 0; k < (P::kZQueue ? 2 * RC + 1 : 1); ++k) wq[k] = 0.0f;
  // The column's newest plane z into the queues.
  const auto push = [&](int z) {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) uq[k] = uq[k + 1];
    uq[2 * R] = plane(z, 0)[own];
    if constexpr (P::kZQueue) {
#pragma unroll
      for (int k = 0; k < 2 * RC; ++k) wq[k] = wq[k + 1];
      wq[2 * RC] = plane(z, 1)[own];
    }
  };

  if (producer_a) {
    tma::prefetch_map(&maps.u);
    tma::prefetch_map(&maps.w);
    tma::mbar_init(&bar[0], P::kProducers);
    tma::mbar_init(&bar[1], P::kProducers);
    tma::mbar_init(&bar[2], 1);
    tma::mbar_init_fence();
  }
  __syncthreads();
  const int first = z0 - RC;  // the first iteration
  if (producer_a) {
    // Warm-up: planes z0 - R .. z0 - 1, the ring's part the first group does not bring.
    tma::mbar_arrive_expect_tx(&bar[2], S::kWarmBytes);
    for (int z = z0 - R; z < z0; ++z) {
      tma::tma_load_3d(plane(z, 0), &maps.u, &bar[2], x0 - S::kRP, y0 - R, z);
      tma::tma_load_3d(plane(z, 1), &maps.w, &bar[2], x0 - S::kRP, y0 - R, z);
    }
  }
  if (producer_a || producer_b) issue(first);
  tma::mbar_wait(&bar[2], 0);
  for (int z = z0 - R; z < z0; ++z) push(z);
  for (int i = first; i < z1 + RC; ++i) {
    // Iteration i - 1 is done everywhere: the group of i + 1 may overwrite what it read (ring
    // plane i + 1 + RC - kPlanes <= i - RC - 1, stage (i + 1) & 1 = that of i - 1), and the
    // g's of plane i go to the slot of plane i - kGSlots <= i - RC - 1.
    __syncthreads();
    if ((producer_a || producer_b) && i + 1 < z1 + RC) issue(i + 1);
    tma::mbar_wait(&bar[i & 1], ((i - first) >> 1) & 1);
    push(i + RC);
    // Stage A: g at plane i.
    {
      const float* ax = axis + (i & 1) * 3 * S::kNBoxF;
      float gu[3] = {0.0f, 0.0f, 0.0f}, gw[3] = {0.0f, 0.0f, 0.0f};
      float hu[3] = {0.0f, 0.0f, 0.0f}, hw[3] = {0.0f, 0.0f, 0.0f};
      if (needed) {
        const float n[3] = {ax[own_n], ax[S::kNBoxF + own_n], ax[2 * S::kNBoxF + own_n]};
        if constexpr (P::kZQueue) {
          // uq[2 R - RC + m] and wq[RC + m] hold plane i + m.
          float tu0 = 0.0f, tw0 = 0.0f;
#pragma unroll
          for (int k = 1; k <= RC; ++k) {
            tu0 += p.w1[0][k] * (uq[2 * R - RC + k] - uq[2 * R - RC - k]);
            tw0 += p.w1[0][k] * (wq[RC + k] - wq[RC - k]);
          }
          g_from(tu0, tw0, i, own, n, gu, gw);
        } else {
          g_at(i, own, n, gu, gw);
        }
      }
      if (hkind != 0) {
        const float n[3] = {ax[halo_n], ax[S::kNBoxF + halo_n], ax[2 * S::kNBoxF + halo_n]};
        g_at(i, (hy + R) * S::kW + hx + S::kRP, n, hu, hw);
      }
#pragma unroll
      for (int k = 0; k < 2 * RC; ++k) {
        gzu[k] = gzu[k + 1];
        gzw[k] = gzw[k + 1];
      }
      gzu[2 * RC] = gu[0];
      gzw[2 * RC] = gw[0];
      float* gx = gxs + gslot(i) * 2 * S::kGx;
      float* gy = gys + gslot(i) * 2 * S::kGy;
      gx[ty * S::kGxW + tx + RC] = gu[2];
      gx[S::kGx + ty * S::kGxW + tx + RC] = gw[2];
      gy[(ty + RC) * kTX + tx] = gu[1];
      gy[S::kGy + (ty + RC) * kTX + tx] = gw[1];
      if (hkind == 1) {
        gx[hy * S::kGxW + hx + RC] = hu[2];
        gx[S::kGx + hy * S::kGxW + hx + RC] = hw[2];
      } else if (hkind == 2) {
        gy[(hy + RC) * kTX + hx] = hu[1];
        gy[S::kGy + (hy + RC) * kTX + hx] = hw[1];
      }
    }
    // Stage B: the update of plane b = i - RC (g_x, g_y of plane b were written RC >= 1
    // iterations ago, before at least one barrier). The halo g's that no updated cell reads
    // (beyond the region's end + RC) are never written and never read.
    const int b = i - RC;
    if (b < z0 || !active) continue;
    const float* gx = gxs + gslot(b) * 2 * S::kGx + ty * S::kGxW + tx + RC;
    const float* gy = gys + gslot(b) * 2 * S::kGy + (ty + RC) * kTX + tx;
    float hzu = 0.0f, hzw = 0.0f;
#pragma unroll
    for (int k = 1; k <= RC; ++k) {
      hzu += p.w1[0][k] * (gzu[RC + k] - gzu[RC - k]);
      hzw += p.w1[0][k] * (gzw[RC + k] - gzw[RC - k]);
      hzu += p.w1[1][k] * (gy[k * kTX] - gy[-k * kTX]);
      hzw += p.w1[1][k] * (gy[S::kGy + k * kTX] - gy[S::kGy - k * kTX]);
      hzu += p.w1[2][k] * (gx[k] - gx[-k]);
      hzw += p.w1[2][k] * (gx[S::kGx + k] - gx[S::kGx - k]);
    }
    // Differences first, as the naive kernel: (f+ - 2 f + f-).
    const float* pu = plane(b, 0) + own;
    const float uc = uq[R];
    float lap = 0.0f;
#pragma unroll
    for (int k = 1; k <= R; ++k) {
      lap += p.w2[0][k] * (uq[R + k] - 2.0f * uc + uq[R - k]);
      lap += p.w2[1][k] * (pu[k * S::kW] - 2.0f * uc + pu[-k * S::kW]);
      lap += p.w2[2][k] * (pu[k] - 2.0f * uc + pu[-k]);
    }
    const float h0 = lap - hzu;
    const float* ce = cells + (i & 1) * S::kCells * S::kCellF + own_c;
    const float v = ce[0];
    float fp, fq, pc, qc, pp, qp;
    if constexpr (kT) {
      pp = ce[1 * S::kCellF];
      qp = ce[2 * S::kCellF];
      pc = ce[3 * S::kCellF];
      qc = ce[4 * S::kCellF];
      fp = h0;
      fq = hzw;
    } else {
      const float E = ce[1 * S::kCellF], D = ce[2 * S::kCellF];
      pp = ce[3 * S::kCellF];
      qp = ce[4 * S::kCellF];
      fp = E * h0 + D * hzw;
      fq = D * h0 + hzw;
      pc = uc;
      if constexpr (P::kZQueue)
        qc = wq[0];  // plane i - RC = b
      else
        qc = plane(b, 1)[own];
    }
    // The leapfrog with the sponge, (2 c - (1 - g) p + v f) / (1 + g), the division as a
    // reciprocal (exactly 1 where g = 0): a quotient's IEEE slow path, which a zero numerator
    // takes, is not paid in the quiet parts of the field.
    const float g = p.sponge.on ? sponge_axis(p.sponge, 0, b) + g_yx : 0.0f;
    const float inv = __frcp_rn(1.0f + g);
    const int64_t ci = b * sz + col;
    p_next[ci] = (2.0f * pc - (1.0f - g) * pp + v * fp) * inv;
    q_next[ci] = (2.0f * qc - (1.0f - g) * qp + v * fq) * inv;
  }
}

// The launch of the kernel compiled with policy P: forward (kT false) or transposed.
template <int R, class P, bool kT>
void launch(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  using S = Shape<R, P>;
  constexpr int TY = S::kTY;
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  const float *u, *w;
  stencil_inputs<kT>(s, a, st, u, w);
  const float* cell[5] = {a.medium[kVdt2], a.medium[kE], a.medium[kD], a.prev[0], a.prev[1]};
  if constexpr (kT) {
    cell[1] = a.prev[0];
    cell[2] = a.prev[1];
    cell[3] = a.cur[0];
    cell[4] = a.cur[1];
  }
  const float* axes[3] = {a.medium[kAxisZ], a.medium[kAxisZ + 1], a.medium[kAxisZ + 2]};
  for (const float* ptr : {u, w, cell[0], cell[1], cell[2], cell[3], cell[4], axes[0], axes[1],
                           axes[2]})  // what the TMA reads
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("tti/smem_nested: arrays must be 16-byte aligned (TMA)");
  const int dev = ctx.device;
  constexpr int kPromo = 256;  // the L2 fetch granule of the TMA reads
  Maps m;
  m.u = tma_ring::tensor_map(dev, u, s.layout, S::kW, S::kH, kPromo);
  m.w = tma_ring::tensor_map(dev, w, s.layout, S::kW, S::kH, kPromo);
  for (int k = 0; k < 3; ++k)
    m.n[k] = tma_ring::tensor_map(dev, axes[k], s.layout, S::kNW, S::kNH, kPromo);
  for (int k = 0; k < 5; ++k)
    m.cell[k] = tma_ring::tensor_map(dev, cell[k], s.layout, kTX, TY, kPromo);
  auto p = AnisoParams<R>::from(s);
  // Tiles on the rows' 32-cell segments, as the decomposition's cuts assume
  // (solver/decomposition.cpp).
  const TileGrid tg = tile_grid(s, kTX, TY);
  const int nzu = s.end[0] - s.begin[0];
  const void* kernel = reinterpret_cast<const void*>(&tti_nested_kernel<R, P, kT>);
  const int slots = resident_blocks(ctx.device, kernel, S::kThreads, S::kSmemBytes);
  // Each chunk loads 2 R planes and computes g on R planes beyond its own.
  Launch launch{plan_z_chunk(tg.tiles_x * tg.tiles_y, nzu, slots, 1.0 * R), tg.x_base};
  const dim3 grid(tg.tiles_x, tg.tiles_y, (nzu + launch.z_chunk - 1) / launch.z_chunk);
  float* pn = a.next[0];
  float* qn = a.next[1];
  void* args[] = {&p, &m, &pn, &qn, &launch};
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(kTX, TY), args, S::kSmemBytes, st));
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda::tti_nested
