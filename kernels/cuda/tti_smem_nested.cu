// tti/oN/smem_nested: the nested TTI operator (StepSpec::tti_operator = kNested,
// kernels/reference/anisotropic.hpp) in one z-marching pass. Orders 4, 8, 12 and 16 (R even;
// the first derivatives have RC = R / 2 pairs).
//
// A block owns a 32 x TY column tile (TY = 8, or 16 at order 16) and marches a chunk of z planes.
// Iteration i:
//   - plane i + RC of u and w (p and q forward; X and Y transposed) enters a ring of R + 1 planes
//     in shared memory, with a halo of R cells in x and y (loaded into registers an iteration
//     ahead, so the global loads overlap the arithmetic);
//   - stage A, plane i: t = D1 f (x, y neighbours from the ring's plane, z neighbours from its
//     other planes), s = n . t, g_a = n_a s, for u and w. The tile's own cells push g_z into a
//     register queue of 2 RC + 1 planes (g_z is read along z only) and write g_x, g_y to
//     shared buffers of RC + 1 planes; cells RC beyond the tile in x (g_x) and in y (g_y) are
//     computed by 2 RC (32 + TY) of the threads, once each;
//   - stage B, plane b = i - RC: H_z f = sum_a D1_a g_a from the queue and the buffers, the
//     Laplacian of u (z from a register queue of u's column, 2 R + 1 planes; x, y from the
//     ring), H_0 u = lap u - H_z u, the forces and the leapfrog of p and q with the sponge.
// Two barriers an iteration. What an iteration reads from the layout outside the ring (the axis
// of stage A's cells, the medium and the old levels of stage B's) is loaded an iteration ahead.
// Reads of the layout stay inside it: every value an updated cell needs lies within R of it
// (begin >= R, end <= n - R). Above a free surface the fields and the axis are mirrored in
// memory, and the formula then gives the mirror of g itself (see the reference's header), so
// nothing is special there. The diagnostics and the imaging run as the engine's separate passes;
// the medium is read in fp32.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

using cuda::AnisoFields;

constexpr int kTX = 32;

// TY rows a tile (a thread a column).
template <int R, int TY>
struct NestedShape {
  static constexpr int kTY = TY;
  static constexpr int kThreads = kTX * TY;
  static constexpr int RC = R / 2;
  static constexpr int kW = kTX + 2 * R;  // a ring plane: the tile and R either side
  static constexpr int kH = kTY + 2 * R;
  static constexpr int kPlane = kW * kH;
  static constexpr int kPlanes = R + 1;      // planes i - RC .. i + RC
  static constexpr int kGxW = kTX + 2 * RC;  // g_x rows: the tile's, RC either side in x
  static constexpr int kGyH = kTY + 2 * RC;  // g_y columns: the tile's, RC either side in y
  static constexpr int kGSlots = RC + 1;     // planes i - RC .. i
  static constexpr int kGx = kTY * kGxW;
  static constexpr int kGy = kGyH * kTX;
  static constexpr int kRingFloats = kPlanes * 2 * kPlane;
  static constexpr int kFloats = kRingFloats + kGSlots * 2 * (kGx + kGy);
  static constexpr int kLoads = (kPlane + kThreads - 1) / kThreads;  // ring cells a thread
  static constexpr int kHaloX = 2 * RC * kTY;                        // g_x tasks
  static constexpr int kHaloY = 2 * RC * kTX;                        // g_y tasks
  static_assert(kHaloX + kHaloY <= kThreads, "one halo task a thread at most");
};

struct NestedLaunch {
  int z_chunk;
};

// D1 along the ring's x, y (offsets in floats) of field plane `a` at cell c.
template <int RC>
__device__ __forceinline__ float ring_d1(const float* a, int c, int step, const float* w1) {
  float acc = 0;
#pragma unroll
  for (int k = 1; k <= RC; ++k) acc += w1[k] * (a[c + k * step] - a[c - k * step]);
  return acc;
}

template <int R, int TY, bool kT>
__global__ void __launch_bounds__(kTX* TY, 16 / TY)
    tti_nested_kernel(const cuda::AnisoParams<R> p, const AnisoFields f,
                      const float* __restrict__ u, const float* __restrict__ w,
                      const NestedLaunch launch) {
  using S = NestedShape<R, TY>;
  constexpr int RC = S::RC;
  constexpr int kTY = S::kTY, kThreads = S::kThreads;
  extern __shared__ float smem[];
  float* const ring = smem;                          // [slot][field][kH][kW]
  float* const gxs = smem + S::kRingFloats;          // [slot][field][kTY][kGxW]
  float* const gys = gxs + S::kGSlots * 2 * S::kGx;  // [slot][field][kGyH][kTX]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTX + tx;
  const int x0 = p.begin[2] + blockIdx.x * kTX, y0 = p.begin[1] + blockIdx.y * kTY;
  const int z0 = p.begin[0] + blockIdx.z * launch.z_chunk;
  const int z1 = min(z0 + launch.z_chunk, p.end[0]);
  const int x = x0 + tx, y = y0 + ty;
  const bool active = x < p.end[2] && y < p.end[1];
  // Cells whose g an updated cell of this tile may read.
  const bool needed = x < p.end[2] + RC && y < p.end[1] + RC;
  const int64_t sz = p.l.sz;

  const auto slot = [&](int z) { return (z - z0 + S::kPlanes * 4) % S::kPlanes; };
  const auto gslot = [&](int z) { return (z - z0 + S::kGSlots * 4) % S::kGSlots; };
  const auto plane = [&](int z, int fld) { return ring + (slot(z) * 2 + fld) * S::kPlane; };

  // The ring's cells this thread loads: layout index at plane 0 (or -1 beyond the layout).
  int64_t src[S::kLoads];
#pragma unroll
  for (int j = 0; j < S::kLoads; ++j) {
    const int c = tid + j * kThreads;
    src[j] = -1;
    if (c < S::kPlane) {
      const int gy = y0 - R + c / S::kW, gx = x0 - R + c % S::kW;
      if (gy < p.l.ny && gx < p.l.nx) src[j] = p.l.idx(0, gy, gx);
    }
  }
  float su[S::kLoads], sw[S::kLoads];
  const auto fetch = [&](int z) {
#pragma unroll
    for (int j = 0; j < S::kLoads; ++j) {
      su[j] = src[j] >= 0 ? u[src[j] + z * sz] : 0.0f;
      sw[j] = src[j] >= 0 ? w[src[j] + z * sz] : 0.0f;
    }
  };
  const auto put = [&](int z) {
    float* pu = plane(z, 0);
    float* pw = plane(z, 1);
#pragma unroll
    for (int j = 0; j < S::kLoads; ++j) {
      const int c = tid + j * kThreads;
      if (c < S::kPlane) {
        pu[c] = su[j];
        pw[c] = sw[j];
      }
    }
  };
  const int own = (ty + R) * S::kW + tx + R;  // this thread's cell in a ring plane

  // g of u and w at ring cell c of plane z, the cell's axis n (z, y, x).
  const auto g_at = [&](int z, int c, const float(&n)[3], float(&gu)[3], float(&gw)[3]) {
    float tu[3], tw[3];
    const float* pu = plane(z, 0);
    const float* pw = plane(z, 1);
    tu[2] = ring_d1<RC>(pu, c, 1, p.w1[2]);
    tw[2] = ring_d1<RC>(pw, c, 1, p.w1[2]);
    tu[1] = ring_d1<RC>(pu, c, S::kW, p.w1[1]);
    tw[1] = ring_d1<RC>(pw, c, S::kW, p.w1[1]);
    tu[0] = 0.0f;
    tw[0] = 0.0f;
#pragma unroll
    for (int k = 1; k <= RC; ++k) {
      tu[0] += p.w1[0][k] * (plane(z + k, 0)[c] - plane(z - k, 0)[c]);
      tw[0] += p.w1[0][k] * (plane(z + k, 1)[c] - plane(z - k, 1)[c]);
    }
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

  // The halo task of this thread (one of g_x's x-halo cells or g_y's y-halo cells), if any.
  int hy = 0, hx = 0, hkind = 0;  // 1: g_x, 2: g_y
  if (tid < S::kHaloX) {
    const int j = tid / kTY;
    hy = tid % kTY;
    hx = j < RC ? j - RC : kTX + j - RC;
    hkind = x0 + hx < p.end[2] + RC && y0 + hy < p.end[1] ? 1 : 0;
  } else if (tid < S::kHaloX + S::kHaloY) {
    const int t = tid - S::kHaloX, j = t / kTX;
    hx = t % kTX;
    hy = j < RC ? j - RC : kTY + j - RC;
    hkind = y0 + hy < p.end[1] + RC && x0 + hx < p.end[2] ? 2 : 0;
  }

  // What each iteration reads from the layout besides the ring, loaded an iteration ahead: the
  // axis of this thread's cell and of its halo task's at the next plane of stage A, and the
  // medium and the fields' levels at the next plane of stage B.
  const int64_t own_i = needed ? p.l.idx(0, y, x) : -1;
  const int64_t halo_i = hkind != 0 ? p.l.idx(0, y0 + hy, x0 + hx) : -1;
  float n_own[3] = {0.0f, 0.0f, 0.0f}, n_halo[3] = {0.0f, 0.0f, 0.0f};
  const auto fetch_axis = [&](int z) {
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      if (own_i >= 0) n_own[a] = f.n[a][own_i + z * sz];
      if (halo_i >= 0) n_halo[a] = f.n[a][halo_i + z * sz];
    }
  };
  struct Cell {
    float v, E, D, pp, qp, pc, qc;
  } nb{};
  const auto fetch_cell = [&](int z) {
    if (!active || z >= z1) return;
    const int64_t ci = p.l.idx(z, y, x);
    nb.v = f.vdt2[ci];
    nb.pp = f.p_prev[ci];
    nb.qp = f.q_prev[ci];
    if constexpr (kT) {
      nb.pc = f.p_cur[ci];
      nb.qc = f.q_cur[ci];
    } else {
      nb.E = f.E[ci];
      nb.D = f.D[ci];
    }
  };

  float uq[2 * R + 1];                     // u of this column, planes b - R .. b + R
  float gzu[2 * RC + 1], gzw[2 * RC + 1];  // g_z of u and w, planes b - RC .. b + RC
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) uq[k] = 0.0f;
#pragma unroll
  for (int k = 0; k < 2 * RC + 1; ++k) gzu[k] = gzw[k] = 0.0f;
  const auto push_u = [&](float v) {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) uq[k] = uq[k + 1];
    uq[2 * R] = v;
  };

  // The planes below the first stage A's.
  for (int z = z0 - R; z < z0; ++z) {
    fetch(z);
    put(z);
  }
  __syncthreads();
  for (int z = z0 - R; z < z0; ++z) push_u(plane(z, 0)[own]);
  fetch(z0);
  fetch_axis(z0 - RC);
  fetch_cell(z0);
  const int last = z1 - 1 + R;  // the last plane a chunk reads
  for (int i = z0 - RC; i < z1 + RC; ++i) {
    __syncthreads();  // the slot of plane i - RC - 1 and g's of plane i - RC - 1 are free
    put(i + RC);
    if (i + RC + 1 <= last) fetch(i + RC + 1);
    __syncthreads();
    push_u(plane(i + RC, 0)[own]);
    // Stage A: g at plane i.
    {
      float gu[3] = {0.0f, 0.0f, 0.0f}, gw[3] = {0.0f, 0.0f, 0.0f};
      float hu[3] = {0.0f, 0.0f, 0.0f}, hw[3] = {0.0f, 0.0f, 0.0f};
      if (needed) g_at(i, own, n_own, gu, gw);
      if (hkind != 0) g_at(i, (hy + R) * S::kW + hx + R, n_halo, hu, hw);
      if (i + 1 < z1 + RC) fetch_axis(i + 1);
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
      if (hkind != 0) {
        if (hkind == 1) {
          gx[hy * S::kGxW + hx + RC] = hu[2];
          gx[S::kGx + hy * S::kGxW + hx + RC] = hw[2];
        } else {
          gy[(hy + RC) * kTX + hx] = hu[1];
          gy[S::kGy + (hy + RC) * kTX + hx] = hw[1];
        }
      } else if (tid < S::kHaloX) {  // beyond what any updated cell reads
        gx[hy * S::kGxW + hx + RC] = 0.0f;
        gx[S::kGx + hy * S::kGxW + hx + RC] = 0.0f;
      } else if (tid < S::kHaloX + S::kHaloY) {
        gy[(hy + RC) * kTX + hx] = 0.0f;
        gy[S::kGy + (hy + RC) * kTX + hx] = 0.0f;
      }
    }
    // Stage B: the update of plane b = i - RC (g_x, g_y of plane b were written RC >= 1
    // iterations ago, before at least one barrier).
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
    const int64_t ci = p.l.idx(b, y, x);
    const Cell c = nb;
    fetch_cell(b + 1);
    float fp = h0, fq = hzw;
    float pc = c.pc, qc = c.qc;
    if constexpr (!kT) {
      fp = c.E * h0 + c.D * hzw;
      fq = c.D * h0 + hzw;
      pc = uc;
      qc = plane(b, 1)[own];
    }
    const float pn = cuda::leapfrog(p.sponge, b, y, x, pc, c.pp, c.v, fp);
    const float qn = cuda::leapfrog(p.sponge, b, y, x, qc, c.qp, c.v, fq);
    f.p_next[ci] = pn;
    f.q_next[ci] = qn;
  }
}

template <int R, int TY, bool kT>
void launch_tti_smem_nested_ty(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  using S = NestedShape<R, TY>;
  constexpr int kTY = TY, kThreads = S::kThreads;
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  AnisoFields f = AnisoFields::from(a);
  const float *u, *w;
  cuda::stencil_inputs<kT>(s, a, st, u, w);
  auto p = cuda::AnisoParams<R>::from(s);
  const int tiles_x = (s.end[2] - s.begin[2] + kTX - 1) / kTX;
  const int tiles_y = (s.end[1] - s.begin[1] + kTY - 1) / kTY;
  const int nzu = s.end[0] - s.begin[0];
  const void* kernel = reinterpret_cast<const void*>(&tti_nested_kernel<R, TY, kT>);
  const size_t smem = sizeof(float) * S::kFloats;
  const int slots = cuda::resident_blocks(ctx.device, kernel, kThreads, smem);
  // Each chunk loads 2 R planes and computes g on R planes beyond its own.
  NestedLaunch launch{cuda::plan_z_chunk(tiles_x * tiles_y, nzu, slots, 1.0 * R)};
  const dim3 grid(tiles_x, tiles_y, (nzu + launch.z_chunk - 1) / launch.z_chunk);
  void* args[] = {&p, &f, &u, &w, &launch};
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(kTX, kTY), args, smem, st));
  CUDA_CHECK_LAUNCH();
}

// 32 x 8 tiles (two blocks a multiprocessor, one computing while the other waits at a barrier)
// up to order 12: measured on an H200 at 512^3, 32 x 16 -> 32 x 8: order 4 36.2 -> 39.8, order 8
// 30.4 -> 33.0 Gcells/s (bench/NOTES.md). Order 16's halo tasks need the 32 x 16 tile's threads.
template <int R, bool kT>
void launch_tti_smem_nested(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  launch_tti_smem_nested_ty<R, (R <= 6 ? 8 : 16), kT>(s, a, ctx);
}

std::string can_implement_tti_smem_nested(const StepSpec& s, int compute_capability) {
  if (s.tti_operator != TtiOperator::kNested)
    return "implements physics.tti_operator = \"nested\" only";
  if (s.end[0] - s.begin[0] <= 0) return "an empty region";
  if (s.end[1] - s.begin[1] > 65535 * 8) return "more than 524280 rows";
  return cuda::can_implement_aniso_naive(s, compute_capability);
}

}  // namespace

void register_tti_smem_nested(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R % 2 == 0) {
      KernelVariant v = cuda::variant_entry(
          Physics::kTti, R, "smem_nested",
          "TTI, nested operator: one z-marching pass, a ring of R + 1 planes with halos in "
          "shared memory, the intermediates of the tile's cells and of RC around it computed "
          "once, g_z and the Laplacian's z column in register queues");
      v.min_compute_capability = 60;
      v.can_implement = &can_implement_tti_smem_nested;
      v.forward = &launch_tti_smem_nested<R, false>;
      v.transposed = &launch_tti_smem_nested<R, true>;
      v.scratch_arrays = 0;
      v.transposed_scratch_arrays = 2;  // X, Y
      v.preference = cuda::tuning::kPreferenceTtiSmemNested;
      t.push_back(v);
    }
  });
}

}  // namespace seisfd
