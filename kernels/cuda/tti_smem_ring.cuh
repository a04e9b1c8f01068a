// tti/oN/smem_ring: the z-marching kernel of the TTI update (docs/physics.md §4), both fields in
// one pass, a 32 x TY xy tile per block: one cell per thread (TY = 16 up to order 8, 8 above), or
// two cells a thread adjacent in y (CY = 2: TY = 24, 384 threads; tti/oN/smem_ring_y2).
//
// The operator is kernels/reference/anisotropic.hpp's split discretization: H_z f = sum_a
// d_a(n_a^2 d_a f) (symmetric narrow form) + sum_a D1_a g_a with g_a = n_a sum_{b != a} n_b t_b,
// t = D1 f; H_0 p = lap p - H_z p. Forward: fp = E H_0 p + D H_z q, fq = D H_0 p + H_z q. The
// naive variant writes the six g arrays to memory and reads them back (116 B a cell); here
// nothing but the fields, the medium and the new levels move (48 B a cell: p, q at two levels
// read, p, q written, v dt^2, E, D and the three axis components read).
//
// Shared memory holds, per block:
//  - a ring of 2R + 2 planes of p and q over the tile and an x/y halo of R (RP in x, whole
//    float4s), filled by cp.async one plane ahead: the 2R + 1 planes around the compute plane c
//    that t_z = D1_z f needs on the tile and its halo, and the one landing;
//  - the axis components of plane c over the same rectangle (double-buffered, also cp.async);
//  - g_x of plane c on the tile and its x halo, g_y on the tile and its y halo, of both fields.
// Each iteration computes, at the compute plane c, t and g of both fields on the tile (one cell
// a thread) and on its halo (g_x on the x halo, g_y on the y halo, spread over the threads),
// the diagonal terms and the Laplacian of the tile, and after one barrier the x and y
// divergences of g. D1_z g_z needs g_z of the R planes above and below; instead of a queue of
// g_z, each g_z(c) is scattered into two register queues of partial results (lap p - H_z p and
// H_z q of the planes c - R .. c + R), and the plane c - R, complete once g_z(c) is in, is
// updated: the output lags the compute plane by R planes, and a z chunk runs 2R iterations more
// than it has planes (those compute g_z only). a_z = n_z^2 along z comes from a register queue.
//
// Transposed (the adjoint's update, docs/physics.md §7): the stencils act on X = E p + D q and
// Y = D p + q, formed by the naive variant's pre-pass (two scratch arrays); fp = H_0 X,
// fq = H_z Y, the imaging of a migration's adjoint step fused. The forward launch reduces the
// diagnostics of p on the way (the ring holds it).
//
// Free surface: the fields and the axis in the mirror planes are what the engine keeps there (odd
// fields, reflected axis), so g_z computed in a mirror plane is the even image the reference
// copies there (both factors change sign); g_x and g_y are zero on the surface row, as there.
//
// Device code of the variants (kernels/cuda/tti_smem_ring_launch.cuh launches it,
// tti_smem_ring.cu and tti_smem_ring_y2.cu register it;
// tti_smem_ring_compact.cu instantiates the compact-medium kernels in a translation unit of
// their own: beside them nvcc stores the fp32 kernels' zero fill of the rectangle in 8-byte
// pieces instead of 16, and the fp32 kernels' PTX stays what it was without them).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/compact_medium.cuh"
#include "kernels/cuda/diag_reduce.cuh"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/imaging_fused.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

// CY: cells a thread computes, adjacent in y (the y stencils' loads of the CY cells shared, the
// per-plane work of a thread spread over CY cells).
template <int R, int CY = 1>
struct TtiShape {
  static constexpr int kTX = 32;
  static_assert(CY == 1 || (CY == 2 && R <= 4), "two cells a thread up to order 8");
  static constexpr int kTYT = CY == 1 ? (R <= 4 ? 16 : 8) : 12;  // thread rows
  static constexpr int kTY = kTYT * CY;                          // tile rows
  static constexpr int kThreads = kTX * kTYT;
  static constexpr int kRP = (R + 3) / 4 * 4;  // x halo, whole float4s
  static constexpr int kW = kTX + 2 * kRP;     // rectangle row, floats
  static constexpr int kW4 = kW / 4;
  static constexpr int kH = kTY + 2 * R;  // rectangle rows
  static constexpr int kRect = kH * kW;
  static constexpr int kRect4 = kH * kW4;
  static constexpr int kSlots = 2 * R + 2;     // ring planes
  static constexpr int kXTasks = 2 * R * kTY;  // g_x on the x halo
  static constexpr int kYTasks = 2 * R * kTX;  // g_y on the y halo
  static constexpr int kTasks = kXTasks + kYTasks;
  static constexpr int kTaskRounds = (kTasks + kThreads - 1) / kThreads;
};

template <int R, int CY = 1>
struct TtiSmem {
  using S = TtiShape<R, CY>;
  float ring[S::kSlots][2][S::kRect];
  float n[2][3][S::kRect];  // z, y, x components of plane c (buffer c & 1)
  float gx[2][S::kTY][S::kW];
  float gy[2][S::kH][S::kTX];
};

// The naive variant's parameters (region, surface, weights, sponge) and the tiling.
template <int R>
struct TtiParams : cuda::AnisoParams<R> {
  int x_base;   // x of the first tile: begin[2] rounded down to 32
  int tiles_x;  // tiles per row of tiles
  int zchunk;   // output planes per block
};

// Each g component is formed at three sites: the halo tasks, the own cell, and the planes
// outside the chunk's outputs (g_z only). They round alike, explicitly: which of two products the
// compiler fuses into an fma otherwise differs between the sites (a product shared by g_x and g_y
// of the own cell is not fused), and the result would depend on where the tiles and the z chunks
// fall (a step split around an interior, or a grid cut into ranks, would no longer repeat the
// whole step's bits).
// One central first-derivative term: acc + w (a - b).
__device__ __forceinline__ float d1_term(float w, float d, float acc) {
  return __fmaf_rn(w, d, acc);
}
// n_a (n_b t_b + n_c t_c), the n_b t_b product fused.
__device__ __forceinline__ float g_axis(float na, float nb, float tb, float nc, float tc) {
  return __fmul_rn(na, __fmaf_rn(nb, tb, __fmul_rn(nc, tc)));
}

// P (forward): the six coefficient arrays read as the 16-bit codes of cm (36 B a cell instead of
// 48): the axis planes by plain 8-byte loads issued where the fp32 kernel issues its copies,
// decoded and stored into the axis buffer after the iteration's second barrier (the buffer of
// plane c + 1 is not read in iteration c).
//
// Addressing, which the instruction count of a plane is sensitive to: the ring slots are never
// computed from the plane number. zc[i] is the shared-window address of the own cell in the slot
// of plane c - R + i and `fill` that of the slot plane c + R + 1 lands in; with 2R + 2 slots the
// slot freed next is the one of plane c - R, so advancing a plane is a rotation of addresses. The
// copies a thread issues and the halo task it computes are decoded once, before the loop
// (bench/NOTES.md counts what each of these saved).
template <int R, bool kT, bool kImage, bool kDiag, ModelPrecision P = ModelPrecision::kFp32,
          int CY = 1>
__global__ void __launch_bounds__(TtiShape<R, CY>::kThreads, 1)
    tti_smem_ring_kernel(const TtiParams<R> p, const cuda::AnisoFields f, const float* u,
                         const float* w, const FusedImaging im, cuda::DiagAccum* acc,
                         const CompactMediumView cm) {
  // u, w: the fields the stencils act on (p, q forward; X, Y transposed); f.g is not used.
  static_assert(P == ModelPrecision::kFp32 || !kT, "the transposed launch reads fp32");
  constexpr bool kCompact = P != ModelPrecision::kFp32;
  using S = TtiShape<R, CY>;
  constexpr int kW = S::kW, kRP = S::kRP, kSl = S::kSlots, kRect = S::kRect;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  TtiSmem<R, CY>& sm = *reinterpret_cast<TtiSmem<R, CY>*>(smem_raw);

  const int t = threadIdx.x;
  const int tx = t % S::kTX, ty = t / S::kTX * CY;  // ty: the tile row of the first own cell
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int zlast = ze + R - 1;  // the last plane any iteration reads
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  // The own cells j = 0 .. CY - 1: rows ty + j of the tile, kW floats apart in the rectangle.
  const int gx = x0 + tx;
  bool own_ok[CY], in_region[CY];
  int own[CY];
#pragma unroll
  for (int j = 0; j < CY; ++j) {
    const int gy = y0 + ty + j;
    own_ok[j] = gx < p.l.nx && gy < p.l.ny;
    in_region[j] = own_ok[j] && gy < p.end[1] && gx >= p.begin[2] && gx < p.end[2];
    own[j] = own_ok[j] ? gy * sy + gx : 0;
  }
  const int cidx = (ty + R) * kW + kRP + tx;  // the first own cell in the rectangle

  // The float4 copies this thread issues each plane, ring (u and w: 2 kRect4 a plane) and axis
  // (3 kRect4) apart: source (the array at plane 0 plus the offset in the plane; -1: none, or
  // outside the array, where the rectangle holds zeros, never copied over) and destination (ring:
  // bytes from the own cell of the slot; axis: floats into the axis buffer).
  constexpr int kRingSlots = (2 * S::kRect4 + S::kThreads - 1) / S::kThreads;
  constexpr int kAxisSlots = (3 * S::kRect4 + S::kThreads - 1) / S::kThreads;
  const unsigned sbase = cuda::smem_addr(smem_raw);
  const float* rg[kRingSlots];
  int rdst[kRingSlots];
  bool ron[kRingSlots];
  const float* ag[kAxisSlots];
  int asrc[kAxisSlots], adst[kAxisSlots], aarr[kAxisSlots];
  // One copy j of a group of `arrays` arrays: its array, rectangle offset and source (-1: none).
  auto decode = [&](int j, int arrays, int& arr, int& at, int& src) {
    arr = j / S::kRect4;
    const int r = j % S::kRect4;
    const int row = r / S::kW4, col = r % S::kW4;
    const int hy = y0 - R + row, hx = x0 - kRP + 4 * col;
    const bool in = j < arrays * S::kRect4;
    const bool ok = in && hy >= 0 && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    at = arr * kRect + row * kW + 4 * col;
    src = ok ? hy * sy + hx : -1;
    return in && !ok;  // the rectangle holds zeros there
  };
  const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int s = 0; s < kRingSlots; ++s) {
    int arr, at, src;
    if (decode(t + s * S::kThreads, 2, arr, at, src))
      for (int k = 0; k < kSl; ++k) *reinterpret_cast<float4*>(&sm.ring[k][0][0] + at) = zero4;
    ron[s] = src >= 0;
    rg[s] = (arr == 0 ? u : w) + max(src, 0);
    rdst[s] = 4 * (at - cidx);
  }
#pragma unroll
  for (int s = 0; s < kAxisSlots; ++s) {
    int arr, at, src;
    if (decode(t + s * S::kThreads, 3, arr, at, src))
      for (int k = 0; k < 2; ++k) *reinterpret_cast<float4*>(&sm.n[k][0][0] + at) = zero4;
    asrc[s] = src;
    aarr[s] = min(arr, 2);
    ag[s] = f.n[aarr[s]] + max(src, 0);
    adst[s] = at;
  }
  const unsigned n_smem = cuda::smem_addr(&sm.n[0][0][0]);
  constexpr unsigned kAxisBytes = 3 * kRect * sizeof(float);
  // Copies of ring plane zr into the slot whose own cell is at shared address `slot` (none
  // if zr > zlast or zr < 0) and of axis plane zn (none if zn > zlast), one group. Compact: the
  // axis plane's codes into registers (ncode), decoded into its buffer by land_axis().
  uint2 ncode[kCompact ? kAxisSlots : 1];
  int n_pending = zlast + 1;
  auto issue = [&](unsigned slot, int zr, int zn) {
    const bool ring_on = zr >= 0 && zr <= zlast, n_on = zn <= zlast;
    const int64_t pr = static_cast<int64_t>(zr) * sz, pn = static_cast<int64_t>(zn) * sz;
    const unsigned nb_s = n_smem + (zn & 1) * kAxisBytes;
#pragma unroll
    for (int s = 0; s < kRingSlots; ++s)
      if (ring_on && ron[s]) cuda::cp_async16_s(slot + rdst[s], rg[s] + pr);
#pragma unroll
    for (int s = 0; s < kAxisSlots; ++s) {
      if (!n_on || asrc[s] < 0) continue;
      if constexpr (kCompact) {
        ncode[s] = cuda::ld_codes4<P>(cm, kAxisZ + aarr[s], pn + asrc[s]);
      } else {
        cuda::cp_async16_s(nb_s + 4 * adst[s], ag[s] + pn);
      }
    }
    cuda::cp_async_commit();
    if constexpr (kCompact) n_pending = n_on ? zn : zlast + 1;
  };
  auto land_axis = [&]() {
    if (n_pending > zlast) return;
    float* nb = &sm.n[n_pending & 1][0][0];
#pragma unroll
    for (int s = 0; s < kAxisSlots; ++s) {
      if (asrc[s] < 0) continue;
      *reinterpret_cast<float4*>(nb + adst[s]) = cuda::decode4<P>(cm, kAxisZ + aarr[s], ncode[s]);
    }
    n_pending = zlast + 1;
  };

  // The halo tasks of this thread (g_x on the x halo, g_y on the y halo), decoded once: the
  // cell in the rectangle and the g entry, -1 where the thread has no task in that round.
  int tk_idx[S::kTaskRounds], tk_g[S::kTaskRounds];
#pragma unroll
  for (int rd = 0; rd < S::kTaskRounds; ++rd) {
    const int j = t + rd * S::kThreads;
    tk_idx[rd] = tk_g[rd] = -1;
    if (j < S::kXTasks) {
      const int hr = j / (2 * R), h = j % (2 * R);
      const int cx = h < R ? kRP - R + h : kRP + S::kTX - R + h;
      tk_idx[rd] = (R + hr) * kW + cx;
      tk_g[rd] = hr * kW + cx;
    } else if (j < S::kTasks) {
      const int jj = j - S::kXTasks;
      const int hc = jj % S::kTX;
      int hr = jj / S::kTX;
      hr = hr < R ? hr : hr + S::kTY;
      tk_idx[rd] = hr * kW + kRP + hc;
      tk_g[rd] = hr * S::kTX + hc;
    }
  }

  // Ring slots: plane zb - R + j lives in slot j mod kSl (j may be negative before the loop: planes
  // never read). zc[i]: the own cell in the slot of plane c - R + i; fill: the slot of c + R + 1.
  // Shared-window addresses (32-bit registers) that the loads take with the neighbours' offsets
  // as immediates; sptr() turns one back into a pointer, which the compiler folds away.
  unsigned zc[2 * R + 1];
#pragma unroll
  for (int i = 0; i <= 2 * R; ++i) {
    const int j = i - R;
    zc[i] = cuda::smem_addr(&sm.ring[j < 0 ? j + kSl : j][0][cidx]);
  }
  unsigned fill = cuda::smem_addr(&sm.ring[R + 1][0][cidx]);
  auto sptr = [&](unsigned a) { return reinterpret_cast<const float*>(smem_raw + (a - sbase)); };

  float gxy[CY];
#pragma unroll
  for (int j = 0; j < CY; ++j) {
    gxy[j] = 0.0f;
    if (p.sponge.on)
      gxy[j] = cuda::sponge_axis(p.sponge, 1, y0 + ty + j) + cuda::sponge_axis(p.sponge, 2, gx);
  }

  // Prologue: the ring planes zb - R .. zb (slots 0 .. R) and the axis plane zb - R.
  issue(zc[R], zb - R, zb - R);
  if constexpr (kCompact) land_axis();
#pragma unroll
  for (int i = 1; i <= R; ++i) issue(zc[R + i], zb - R + i, zlast + 1);

  // a_z along z at each own column: az[j][R + d] = n_z^2 of plane c + d.
  float az[CY][2 * R + 1];
#pragma unroll
  for (int j = 0; j < CY; ++j) {
#pragma unroll
    for (int i = 0; i <= 2 * R; ++i) {
      const int z = zb - 2 * R + i;
      float v = 0.0f;
      if (own_ok[j] && z >= zb - R && z <= zlast) {
        if constexpr (kCompact) {
          v = cuda::ld_code<P>(cm, kAxisZ, z * sz + own[j]);
        } else {
          v = __ldg(f.n[0] + z * sz + own[j]);
        }
      }
      az[j][i] = v * v;
    }
  }
  // Partial results of the planes c - R .. c + R: s1 = lap u - H_z u, s2 = H_z w.
  float s1[CY][2 * R + 1], s2[CY][2 * R + 1];
#pragma unroll
  for (int j = 0; j < CY; ++j)
#pragma unroll
    for (int i = 0; i <= 2 * R; ++i) s1[j][i] = s2[j][i] = 0.0f;

  cuda::DiagPartial diag;
#pragma unroll 1
  for (int c = zb - R; c < ze + R; ++c) {
    cuda::cp_async_wait<0>();
    __syncthreads();  // plane c + R and the axis of plane c have landed; g is free again
    issue(fill, c + R + 1, c + 1);

    const bool out = c >= zb && c < ze;  // c is an output plane: its own terms are computed
    const int o = c - R;                 // the plane updated this iteration
    const bool fin = o >= zb;
    float pp[CY], qp[CY], vv[CY], ee[CY], dd[CY], pcg[CY], qcg[CY], nz_next[CY];
#pragma unroll
    for (int j = 0; j < CY; ++j) {
      pp[j] = qp[j] = vv[j] = ee[j] = dd[j] = pcg[j] = qcg[j] = nz_next[j] = 0.f;
      const int64_t at = static_cast<int64_t>(o) * sz + own[j];
      if (fin && in_region[j]) {
        pp[j] = __ldcs(f.p_prev + at);
        qp[j] = __ldcs(f.q_prev + at);
        if constexpr (kCompact) {
          vv[j] = cuda::ld_code<P>(cm, kVdt2, at);
          dd[j] = cuda::ld_code<P>(cm, kD, at);
          ee[j] = cuda::e_from_g(dd[j], cuda::ld_code<P>(cm, kE, at));
        } else {
          vv[j] = __ldg(f.vdt2 + at);
          if constexpr (!kT) {
            ee[j] = __ldg(f.E + at);
            dd[j] = __ldg(f.D + at);
          } else {
            pcg[j] = __ldg(f.p_cur + at);
            qcg[j] = __ldg(f.q_cur + at);
          }
        }
      }
      if (own_ok[j] && c + R + 1 <= zlast) {
        if constexpr (kCompact) {
          nz_next[j] = cuda::ld_code<P>(cm, kAxisZ, (c + R + 1) * sz + own[j]);
        } else {
          nz_next[j] = __ldg(f.n[0] + (c + R + 1) * sz + own[j]);
        }
      }
    }

    const float* C = sptr(zc[R]);  // u of the first own cell in plane c; w at + kRect
    const float* Nz = &sm.n[c & 1][0][0];
    const float* Ny = Nz + kRect;
    const float* Nx = Ny + kRect;
    const bool surface_row = p.free_surface && c == p.surface;

    float gzu[CY], gzw[CY];  // g_z of u and w at the own cells of plane c
    float own_u[CY], own_w[CY];
    if (out) {
      // g_x on the x halo (t along y), g_y on the y halo (t along x); t_z through the ring.
      auto task = [&](auto xt, int idx, float* g0) {
        constexpr bool kX = decltype(xt)::value;  // g_x (t along y) or g_y (t along x)
        constexpr int st = kX ? kW : 1, ax = kX ? 1 : 2;
        constexpr int gstride = kX ? S::kTY * kW : S::kH * S::kTX;
        const int d = idx - cidx;
        const unsigned d4 = 4u * static_cast<unsigned>(d);
        float tau = 0.f, taw = 0.f, tzu = 0.f, tzw = 0.f;
#pragma unroll
        for (int k = 1; k <= R; ++k) {
          const float* a = C + d;
          tau = d1_term(p.w1[ax][k], a[k * st] - a[-k * st], tau);
          taw = d1_term(p.w1[ax][k], a[kRect + k * st] - a[kRect - k * st], taw);
          const float* zp = sptr(zc[R + k] + d4);
          const float* zm = sptr(zc[R - k] + d4);
          tzu = d1_term(p.w1[0][k], zp[0] - zm[0], tzu);
          tzw = d1_term(p.w1[0][k], zp[kRect] - zm[kRect], tzw);
        }
        const float nz = Nz[idx], ny = Ny[idx], nx = Nx[idx];
        // g_x = n_x (n_z t_z + n_y t_y), g_y = n_y (n_z t_z + n_x t_x)
        const float na = kX ? nx : ny, nb = kX ? ny : nx;
        g0[0] = surface_row ? 0.f : g_axis(na, nz, tzu, nb, tau);
        g0[gstride] = surface_row ? 0.f : g_axis(na, nz, tzw, nb, taw);
      };
#pragma unroll
      for (int rd = 0; rd < S::kTaskRounds; ++rd) {
        if (tk_idx[rd] < 0) continue;
        if (t + rd * S::kThreads < S::kXTasks) {
          task(std::true_type{}, tk_idx[rd], &sm.gx[0][0][0] + tk_g[rd]);
        } else {
          task(std::false_type{}, tk_idx[rd], &sm.gy[0][0][0] + tk_g[rd]);
        }
      }

      // The own cells: t, the diagonal terms and the Laplacian (u) of both fields, each second
      // difference taken as differences from the centre first (summing the neighbours first and
      // cancelling at the end costs 3-10x the fp32 rounding error at high orders: bench/NOTES.md).
      // The CY cells read the same shared-memory words where their y stencils overlap (one load).
      float txu[CY], tyu[CY], tzu[CY], txw[CY], tyw[CY], tzw[CY], nzs[CY], nys[CY], nxs[CY];
#pragma unroll
      for (int j = 0; j < CY; ++j) {
        const int cj = cidx + j * kW, oj = j * kW;
        const float uc = C[oj], wc = C[kRect + oj];
        const float nzc = Nz[cj], nyc = Ny[cj], nxc = Nx[cj];
        nzs[j] = nzc;
        nys[j] = nyc;
        nxs[j] = nxc;
        const float axc = nxc * nxc, ayc = nyc * nyc, azc = az[j][R];
        float dxu = 0.f, dyu = 0.f, dzu = 0.f, dxw = 0.f, dyw = 0.f, dzw = 0.f, lap = 0.f;
        txu[j] = tyu[j] = tzu[j] = txw[j] = tyw[j] = tzw[j] = 0.f;
#pragma unroll
        for (int k = 1; k <= R; ++k) {
          {  // x
            const float ap = Nx[cj + k] * Nx[cj + k], am = Nx[cj - k] * Nx[cj - k];
            const float up = C[oj + k], um = C[oj - k], wp = C[kRect + oj + k],
                        wm = C[kRect + oj - k];
            txu[j] = d1_term(p.w1[2][k], up - um, txu[j]);
            txw[j] = d1_term(p.w1[2][k], wp - wm, txw[j]);
            const float dpu = up - uc, dmu = uc - um;
            dxu += p.w2[2][k] * ((axc + ap) * dpu - (am + axc) * dmu);
            dxw += p.w2[2][k] * ((axc + ap) * (wp - wc) - (am + axc) * (wc - wm));
            lap += p.w2[2][k] * (dpu - dmu);
          }
          {  // y
            const int o1 = k * kW;
            const float ap = Ny[cj + o1] * Ny[cj + o1], am = Ny[cj - o1] * Ny[cj - o1];
            const float up = C[oj + o1], um = C[oj - o1], wp = C[kRect + oj + o1],
                        wm = C[kRect + oj - o1];
            tyu[j] = d1_term(p.w1[1][k], up - um, tyu[j]);
            tyw[j] = d1_term(p.w1[1][k], wp - wm, tyw[j]);
            const float dpu = up - uc, dmu = uc - um;
            dyu += p.w2[1][k] * ((ayc + ap) * dpu - (am + ayc) * dmu);
            dyw += p.w2[1][k] * ((ayc + ap) * (wp - wc) - (am + ayc) * (wc - wm));
            lap += p.w2[1][k] * (dpu - dmu);
          }
          {  // z
            const float ap = az[j][R + k], am = az[j][R - k];
            const float* zp = sptr(zc[R + k]);
            const float* zm = sptr(zc[R - k]);
            const float up = zp[oj], um = zm[oj], wp = zp[kRect + oj], wm = zm[kRect + oj];
            tzu[j] = d1_term(p.w1[0][k], up - um, tzu[j]);
            tzw[j] = d1_term(p.w1[0][k], wp - wm, tzw[j]);
            const float dpu = up - uc, dmu = uc - um;
            dzu += p.w2[0][k] * ((azc + ap) * dpu - (am + azc) * dmu);
            dzw += p.w2[0][k] * ((azc + ap) * (wp - wc) - (am + azc) * (wc - wm));
            lap += p.w2[0][k] * (dpu - dmu);
          }
        }
        gzu[j] = g_axis(nzc, nyc, tyu[j], nxc, txu[j]);
        gzw[j] = g_axis(nzc, nyc, tyw[j], nxc, txw[j]);
        own_u[j] = lap - 0.5f * (dzu + dyu + dxu);
        own_w[j] = 0.5f * (dzw + dyw + dxw);
      }
      // The stores after every cell's loads (a load after a store is not shared between cells).
#pragma unroll
      for (int j = 0; j < CY; ++j) {
        const float nzc = nzs[j], nyc = nys[j], nxc = nxs[j];
        sm.gx[0][ty + j][kRP + tx] = surface_row ? 0.f : g_axis(nxc, nzc, tzu[j], nyc, tyu[j]);
        sm.gx[1][ty + j][kRP + tx] = surface_row ? 0.f : g_axis(nxc, nzc, tzw[j], nyc, tyw[j]);
        sm.gy[0][ty + j + R][tx] = surface_row ? 0.f : g_axis(nyc, nzc, tzu[j], nxc, txu[j]);
        sm.gy[1][ty + j + R][tx] = surface_row ? 0.f : g_axis(nyc, nzc, tzw[j], nxc, txw[j]);
      }
    } else {
      // A plane outside the chunk's outputs: g_z of the own cells only.
#pragma unroll
      for (int j = 0; j < CY; ++j) {
        const int cj = cidx + j * kW, oj = j * kW;
        float txu = 0.f, tyu = 0.f, txw = 0.f, tyw = 0.f;
#pragma unroll
        for (int k = 1; k <= R; ++k) {
          txu = d1_term(p.w1[2][k], C[oj + k] - C[oj - k], txu);
          txw = d1_term(p.w1[2][k], C[kRect + oj + k] - C[kRect + oj - k], txw);
          tyu = d1_term(p.w1[1][k], C[oj + k * kW] - C[oj - k * kW], tyu);
          tyw = d1_term(p.w1[1][k], C[kRect + oj + k * kW] - C[kRect + oj - k * kW], tyw);
        }
        const float nzc = Nz[cj], nyc = Ny[cj], nxc = Nx[cj];
        gzu[j] = g_axis(nzc, nyc, tyu, nxc, txu);
        gzw[j] = g_axis(nzc, nyc, tyw, nxc, txw);
        own_u[j] = own_w[j] = 0.f;
      }
    }
    // The current levels of the planes updated now (forward: from the ring, whose slot of plane
    // o is not the one being filled).
    float pc[CY], qc[CY];
#pragma unroll
    for (int j = 0; j < CY; ++j) {
      pc[j] = pcg[j];
      qc[j] = qcg[j];
      if constexpr (!kT) {
        pc[j] = sptr(zc[0])[j * kW];
        qc[j] = sptr(zc[0])[kRect + j * kW];
      }
    }
    __syncthreads();  // g_x, g_y of plane c complete
    if constexpr (kCompact) land_axis();

    if (out) {
#pragma unroll
      for (int j = 0; j < CY; ++j) {
        const int yj = ty + j;
        float dgu = 0.f, dgw = 0.f;
#pragma unroll
        for (int k = 1; k <= R; ++k) {
          dgu += p.w1[2][k] * (sm.gx[0][yj][kRP + tx + k] - sm.gx[0][yj][kRP + tx - k]);
          dgw += p.w1[2][k] * (sm.gx[1][yj][kRP + tx + k] - sm.gx[1][yj][kRP + tx - k]);
          dgu += p.w1[1][k] * (sm.gy[0][yj + R + k][tx] - sm.gy[0][yj + R - k][tx]);
          dgw += p.w1[1][k] * (sm.gy[1][yj + R + k][tx] - sm.gy[1][yj + R - k][tx]);
        }
        s1[j][R] += own_u[j] - dgu;
        s2[j][R] += own_w[j] + dgw;
      }
    }
#pragma unroll
    for (int j = 0; j < CY; ++j) {
      // D1_z g_z: g_z(c) enters the plane c - k with +w1_k and the plane c + k with -w1_k
      // (s1 holds minus H_z u).
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        const float bu = p.w1[0][k] * gzu[j], bw = p.w1[0][k] * gzw[j];
        s1[j][R - k] -= bu;
        s1[j][R + k] += bu;
        s2[j][R - k] += bw;
        s2[j][R + k] -= bw;
      }

      if (fin && in_region[j]) {
        const int64_t at = static_cast<int64_t>(o) * sz + own[j];
        const float h0 = s1[j][0], hz = s2[j][0];
        float fp = h0, fq = hz;
        if constexpr (!kT) {
          fp = ee[j] * h0 + dd[j] * hz;
          fq = dd[j] * h0 + hz;
        }
        float pn, qn;
        if (p.sponge.on) {  // one reciprocal for both fields
          const float g = cuda::sponge_axis(p.sponge, 0, o) + gxy[j];
          const float r = __frcp_rn(1.0f + g);
          pn = (2.0f * pc[j] - (1.0f - g) * pp[j] + vv[j] * fp) * r;
          qn = (2.0f * qc[j] - (1.0f - g) * qp[j] + vv[j] * fq) * r;
        } else {
          pn = 2.0f * pc[j] - pp[j] + vv[j] * fp;
          qn = 2.0f * qc[j] - qp[j] + vv[j] * fq;
        }
        f.p_next[at] = pn;
        f.q_next[at] = qn;
        if constexpr (kImage) cuda::image_cell(im, at, vv[j] * fp, vv[j] * fq, pc[j]);
        if constexpr (kDiag) diag.add(pc[j], at);
      }

#pragma unroll
      for (int i = 0; i < 2 * R; ++i) {
        s1[j][i] = s1[j][i + 1];
        s2[j][i] = s2[j][i + 1];
        az[j][i] = az[j][i + 1];
      }
      s1[j][2 * R] = s2[j][2 * R] = 0.0f;
      az[j][2 * R] = nz_next[j] * nz_next[j];
    }
    // Advance the ring a plane: the slot of c - R is the next one filled.
    const unsigned landed = fill;
    fill = zc[0];
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) zc[i] = zc[i + 1];
    zc[2 * R] = landed;
  }
  cuda::cp_async_wait<0>();
  if constexpr (kDiag) cuda::block_commit<S::kThreads>(diag, acc);
}

}  // namespace
}  // namespace seisfd
