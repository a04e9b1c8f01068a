// tti/oN/smem_ring: the z-marching kernel of the TTI update (docs/physics.md §4), both fields in
// one pass, one cell per thread, a 32 x TY xy tile per block (TY = 16 up to order 8, 8 above).
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
// Device code of the variant (kernels/cuda/tti_smem_ring.cu launches it and registers it;
// tti_smem_ring_compact.cu instantiates the compact-medium kernels in a translation unit of
// their own: beside them nvcc stores the fp32 kernels' zero fill of the rectangle in 8-byte
// pieces instead of 16, and the fp32 kernels' PTX stays what it was without them).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
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

template <int R>
struct TtiShape {
  static constexpr int kTX = 32;
  static constexpr int kTY = R <= 4 ? 16 : 8;
  static constexpr int kThreads = kTX * kTY;
  static constexpr int kRP = (R + 3) / 4 * 4;  // x halo, whole float4s
  static constexpr int kW = kTX + 2 * kRP;     // rectangle row, floats
  static constexpr int kW4 = kW / 4;
  static constexpr int kH = kTY + 2 * R;  // rectangle rows
  static constexpr int kRect = kH * kW;
  static constexpr int kRect4 = kH * kW4;
  static constexpr int kSlots = 2 * R + 2;  // ring planes
  // float4 copies a plane: p and q into the ring, the three axis components.
  static constexpr int kCopies = 5 * kRect4;
  static constexpr int kCopySlots = (kCopies + kThreads - 1) / kThreads;
  static constexpr int kXTasks = 2 * R * kTY;  // g_x on the x halo
  static constexpr int kYTasks = 2 * R * kTX;  // g_y on the y halo
  static constexpr int kTasks = kXTasks + kYTasks;
};

template <int R>
struct TtiSmem {
  using S = TtiShape<R>;
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

__device__ __forceinline__ int wrap_slot(int s, int n) {
  return s < 0 ? s + n : (s >= n ? s - n : s);
}

// P (forward): the six coefficient arrays read as the 16-bit codes of cm (36 B a cell instead of
// 48): the axis planes by plain 8-byte loads issued where the fp32 kernel issues its copies,
// decoded and stored into the axis buffer after the iteration's second barrier (the buffer of
// plane c + 1 is not read in iteration c). The fp32 kernel's statements are kept as they were
// (its PTX is unchanged); the compact ones stand beside them under if constexpr.
template <int R, bool kT, bool kImage, bool kDiag, ModelPrecision P = ModelPrecision::kFp32>
__global__ void __launch_bounds__(TtiShape<R>::kThreads, 1)
    tti_smem_ring_kernel(const TtiParams<R> p, const cuda::AnisoFields f, const float* u,
                         const float* w, const FusedImaging im, cuda::DiagAccum* acc,
                         const CompactMediumView cm) {
  // u, w: the fields the stencils act on (p, q forward; X, Y transposed); f.g is not used.
  static_assert(P == ModelPrecision::kFp32 || !kT, "the transposed launch reads fp32");
  constexpr bool kCompact = P != ModelPrecision::kFp32;
  using S = TtiShape<R>;
  constexpr int kW = S::kW, kRP = S::kRP, kSl = S::kSlots;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  TtiSmem<R>& sm = *reinterpret_cast<TtiSmem<R>*>(smem_raw);

  const int t = threadIdx.x;
  const int tx = t % S::kTX, ty = t / S::kTX;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int zlast = ze + R - 1;  // the last plane any iteration reads
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  const int gx = x0 + tx, gy = y0 + ty;
  const bool own_ok = gx < p.l.nx && gy < p.l.ny;
  const bool in_region = own_ok && gy < p.end[1] && gx >= p.begin[2] && gx < p.end[2];
  const int own = own_ok ? gy * sy + gx : 0;
  const int cidx = (ty + R) * kW + kRP + tx;  // the own cell in the rectangle

  // The float4 copies this thread issues each plane: source offset in the plane (-1: none, or
  // outside the array, where the rectangle holds zeros), destination in the ring slot's (or the
  // axis buffer's) arrays, and which array.
  int cp_src[S::kCopySlots], cp_dst[S::kCopySlots], cp_arr[S::kCopySlots];
#pragma unroll
  for (int s = 0; s < S::kCopySlots; ++s) {
    const int j = t + s * S::kThreads;
    const int arr = j / S::kRect4, r = j % S::kRect4;
    const int row = r / S::kW4, col = r % S::kW4;
    const int hy = y0 - R + row, hx = x0 - kRP + 4 * col;
    const bool in = j < S::kCopies;
    const bool ok = in && hy >= 0 && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    cp_arr[s] = in ? arr : -1;
    cp_dst[s] = (arr < 2 ? arr : arr - 2) * S::kRect + row * kW + 4 * col;
    cp_src[s] = ok ? hy * sy + hx : -1;
    if (in && !ok) {  // outside the array: zero in every buffer, never copied over
      const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
      if (arr < 2) {
        for (int k = 0; k < kSl; ++k)
          *reinterpret_cast<float4*>(&sm.ring[k][0][0] + cp_dst[s]) = zero;
      } else {
        for (int k = 0; k < 2; ++k) *reinterpret_cast<float4*>(&sm.n[k][0][0] + cp_dst[s]) = zero;
      }
    }
  }
  // Copies of ring plane zr (none if zr > zlast or zr < 0) and axis plane zn, one group.
  auto issue = [&](int zr, int zn) {
    const bool ring_on = zr >= 0 && zr <= zlast, n_on = zn <= zlast;
    const int64_t pr = static_cast<int64_t>(zr) * sz, pn = static_cast<int64_t>(zn) * sz;
    float* ring = &sm.ring[ring_on ? zr % kSl : 0][0][0];
    float* nb = &sm.n[zn & 1][0][0];
#pragma unroll
    for (int s = 0; s < S::kCopySlots; ++s) {
      if (cp_src[s] < 0) continue;
      const int a = cp_arr[s];
      if (a < 2) {
        if (ring_on) cuda::cp_async16(ring + cp_dst[s], (a == 0 ? u : w) + pr + cp_src[s]);
      } else if (n_on) {
        const float* src = a == 2 ? f.n[0] : (a == 3 ? f.n[1] : f.n[2]);
        cuda::cp_async16(nb + cp_dst[s], src + pn + cp_src[s]);
      }
    }
    cuda::cp_async_commit();
  };
  // Compact: issue()'s ring copies, and the axis plane's codes into registers (ncode), decoded
  // into its buffer by land_axis().
  uint2 ncode[kCompact ? S::kCopySlots : 1];
  int n_pending = zlast + 1;
  auto issue_compact = [&](int zr, int zn) {
    const bool ring_on = zr >= 0 && zr <= zlast, n_on = zn <= zlast;
    const int64_t pr = static_cast<int64_t>(zr) * sz, pn = static_cast<int64_t>(zn) * sz;
    float* ring = &sm.ring[ring_on ? zr % kSl : 0][0][0];
#pragma unroll
    for (int s = 0; s < S::kCopySlots; ++s) {
      if (cp_src[s] < 0) continue;
      const int a = cp_arr[s];
      if (a < 2) {
        if (ring_on) cuda::cp_async16(ring + cp_dst[s], (a == 0 ? u : w) + pr + cp_src[s]);
      } else if (n_on) {
        ncode[s] = cuda::ld_codes4<P>(cm, kAxisZ + a - 2, pn + cp_src[s]);
      }
    }
    cuda::cp_async_commit();
    n_pending = zn;
  };
  auto land_axis = [&]() {
    if (n_pending > zlast) return;
    float* nb = &sm.n[n_pending & 1][0][0];
#pragma unroll
    for (int s = 0; s < S::kCopySlots; ++s) {
      if (cp_src[s] < 0 || cp_arr[s] < 2) continue;
      *reinterpret_cast<float4*>(nb + cp_dst[s]) =
          cuda::decode4<P>(cm, kAxisZ + cp_arr[s] - 2, ncode[s]);
    }
    n_pending = zlast + 1;
  };

  float gxy = 0.0f;
  if (p.sponge.on) gxy = cuda::sponge_axis(p.sponge, 1, gy) + cuda::sponge_axis(p.sponge, 2, gx);

  // Prologue: the ring planes zb - R .. zb and the axis plane zb - R.
  if constexpr (kCompact) {
    issue_compact(zb - R, zb - R);
    land_axis();
#pragma unroll 1
    for (int z = zb - R + 1; z <= zb; ++z) issue_compact(z, zlast + 1);
  } else {
    issue(zb - R, zb - R);
#pragma unroll 1
    for (int z = zb - R + 1; z <= zb; ++z) issue(z, zlast + 1);
  }

  // a_z along z at the own column: az[R + d] = n_z^2 of plane c + d.
  float az[2 * R + 1];
#pragma unroll
  for (int i = 0; i <= 2 * R; ++i) {
    const int z = zb - 2 * R + i;
    float v = 0.0f;
    if (own_ok && z >= zb - R && z <= zlast) {
      if constexpr (kCompact) {
        v = cuda::ld_code<P>(cm, kAxisZ, z * sz + own);
      } else {
        v = __ldg(f.n[0] + z * sz + own);
      }
    }
    az[i] = v * v;
  }
  // Partial results of the planes c - R .. c + R: s1 = lap u - H_z u, s2 = H_z w.
  float s1[2 * R + 1], s2[2 * R + 1];
#pragma unroll
  for (int i = 0; i <= 2 * R; ++i) s1[i] = s2[i] = 0.0f;

  cuda::DiagPartial diag;
  int sc = (zb - R) % kSl;  // ring slot of the compute plane
#pragma unroll 1
  for (int c = zb - R; c < ze + R; ++c) {
    cuda::cp_async_wait<0>();
    __syncthreads();  // plane c + R and the axis of plane c have landed; g is free again
    if constexpr (kCompact) {
      issue_compact(c + R + 1, c + 1);
    } else {
      issue(c + R + 1, c + 1);
    }

    const bool out = c >= zb && c < ze;  // c is an output plane: its own terms are computed
    const int o = c - R;                 // the plane updated this iteration
    const bool fin = o >= zb;
    const int64_t at = static_cast<int64_t>(o) * sz + own;
    float pp = 0.f, qp = 0.f, vv = 0.f, ee = 0.f, dd = 0.f, pcg = 0.f, qcg = 0.f;
    if (fin && in_region) {
      pp = __ldcs(f.p_prev + at);
      qp = __ldcs(f.q_prev + at);
      if constexpr (kCompact) {
        vv = cuda::ld_code<P>(cm, kVdt2, at);
        dd = cuda::ld_code<P>(cm, kD, at);
        ee = cuda::e_from_g(dd, cuda::ld_code<P>(cm, kE, at));
      } else {
        vv = __ldg(f.vdt2 + at);
        if constexpr (!kT) {
          ee = __ldg(f.E + at);
          dd = __ldg(f.D + at);
        } else {
          pcg = __ldg(f.p_cur + at);
          qcg = __ldg(f.q_cur + at);
        }
      }
    }
    float nz_next = 0.0f;
    if (own_ok && c + R + 1 <= zlast) {
      if constexpr (kCompact) {
        nz_next = cuda::ld_code<P>(cm, kAxisZ, (c + R + 1) * sz + own);
      } else {
        nz_next = __ldg(f.n[0] + (c + R + 1) * sz + own);
      }
    }

    const float* U0 = &sm.ring[sc][0][0];
    const float* W0 = &sm.ring[sc][1][0];
    const float* Nz = &sm.n[c & 1][0][0];
    const float* Ny = Nz + S::kRect;
    const float* Nx = Ny + S::kRect;
    const bool surface_row = p.free_surface && c == p.surface;

    float gzu, gzw;  // g_z of u and w at the own cell of plane c
    float own_u = 0.f, own_w = 0.f;
    if (out) {
      // g_x on the x halo, g_y on the y halo.
#pragma unroll
      for (int j0 = 0; j0 < S::kTasks; j0 += S::kThreads) {
        const int j = j0 + t;
        if (j >= S::kTasks) break;
        int idx;
        bool xt;
        int hr, hc;
        if (j < S::kXTasks) {
          xt = true;
          hr = j / (2 * R);
          hc = j % (2 * R);
          const int cx = hc < R ? kRP - R + hc : kRP + S::kTX - R + hc;
          hc = cx;
          idx = (R + hr) * kW + cx;
        } else {
          xt = false;
          const int jj = j - S::kXTasks;
          hc = jj % S::kTX;
          hr = jj / S::kTX;
          hr = hr < R ? hr : hr + S::kTY;
          idx = hr * kW + kRP + hc;
        }
        // t along y (x tasks) or x (y tasks) in the plane, t_z through the ring.
        const int st = xt ? kW : 1;
        float tau = 0.f, taw = 0.f, tzu = 0.f, tzw = 0.f;
#pragma unroll
        for (int k = 1; k <= R; ++k) {
          const float wa = xt ? p.w1[1][k] : p.w1[2][k];
          tau = d1_term(wa, U0[idx + k * st] - U0[idx - k * st], tau);
          taw = d1_term(wa, W0[idx + k * st] - W0[idx - k * st], taw);
          const int sp = wrap_slot(sc + k, kSl), sm_ = wrap_slot(sc - k, kSl);
          tzu = d1_term(p.w1[0][k], sm.ring[sp][0][idx] - sm.ring[sm_][0][idx], tzu);
          tzw = d1_term(p.w1[0][k], sm.ring[sp][1][idx] - sm.ring[sm_][1][idx], tzw);
        }
        const float nz = Nz[idx], ny = Ny[idx], nx = Nx[idx];
        if (xt) {  // g_x = n_x (n_z t_z + n_y t_y)
          sm.gx[0][hr][hc] = surface_row ? 0.f : g_axis(nx, nz, tzu, ny, tau);
          sm.gx[1][hr][hc] = surface_row ? 0.f : g_axis(nx, nz, tzw, ny, taw);
        } else {  // g_y = n_y (n_z t_z + n_x t_x)
          sm.gy[0][hr][hc] = surface_row ? 0.f : g_axis(ny, nz, tzu, nx, tau);
          sm.gy[1][hr][hc] = surface_row ? 0.f : g_axis(ny, nz, tzw, nx, taw);
        }
      }

      // The own cell: t, the diagonal terms and the Laplacian (u) of both fields.
      const float uc = U0[cidx], wc = W0[cidx];
      const float nzc = Nz[cidx], nyc = Ny[cidx], nxc = Nx[cidx];
      const float axc = nxc * nxc, ayc = nyc * nyc, azc = az[R];
      float txu = 0.f, tyu = 0.f, tzu = 0.f, txw = 0.f, tyw = 0.f, tzw = 0.f;
      float dxu = 0.f, dyu = 0.f, dzu = 0.f, dxw = 0.f, dyw = 0.f, dzw = 0.f, lap = 0.f;
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        {  // x
          const float ap = Nx[cidx + k] * Nx[cidx + k], am = Nx[cidx - k] * Nx[cidx - k];
          const float up = U0[cidx + k], um = U0[cidx - k];
          const float wp = W0[cidx + k], wm = W0[cidx - k];
          txu = d1_term(p.w1[2][k], up - um, txu);
          txw = d1_term(p.w1[2][k], wp - wm, txw);
          dxu += p.w2[2][k] * ((axc + ap) * (up - uc) - (am + axc) * (uc - um));
          dxw += p.w2[2][k] * ((axc + ap) * (wp - wc) - (am + axc) * (wc - wm));
          lap += p.w2[2][k] * (up - 2.0f * uc + um);
        }
        {  // y
          const int o1 = k * kW;
          const float ap = Ny[cidx + o1] * Ny[cidx + o1], am = Ny[cidx - o1] * Ny[cidx - o1];
          const float up = U0[cidx + o1], um = U0[cidx - o1];
          const float wp = W0[cidx + o1], wm = W0[cidx - o1];
          tyu = d1_term(p.w1[1][k], up - um, tyu);
          tyw = d1_term(p.w1[1][k], wp - wm, tyw);
          dyu += p.w2[1][k] * ((ayc + ap) * (up - uc) - (am + ayc) * (uc - um));
          dyw += p.w2[1][k] * ((ayc + ap) * (wp - wc) - (am + ayc) * (wc - wm));
          lap += p.w2[1][k] * (up - 2.0f * uc + um);
        }
        {  // z
          const int sp = wrap_slot(sc + k, kSl), sm_ = wrap_slot(sc - k, kSl);
          const float ap = az[R + k], am = az[R - k];
          const float up = sm.ring[sp][0][cidx], um = sm.ring[sm_][0][cidx];
          const float wp = sm.ring[sp][1][cidx], wm = sm.ring[sm_][1][cidx];
          tzu = d1_term(p.w1[0][k], up - um, tzu);
          tzw = d1_term(p.w1[0][k], wp - wm, tzw);
          dzu += p.w2[0][k] * ((azc + ap) * (up - uc) - (am + azc) * (uc - um));
          dzw += p.w2[0][k] * ((azc + ap) * (wp - wc) - (am + azc) * (wc - wm));
          lap += p.w2[0][k] * (up - 2.0f * uc + um);
        }
      }
      sm.gx[0][ty][kRP + tx] = surface_row ? 0.f : g_axis(nxc, nzc, tzu, nyc, tyu);
      sm.gx[1][ty][kRP + tx] = surface_row ? 0.f : g_axis(nxc, nzc, tzw, nyc, tyw);
      sm.gy[0][ty + R][tx] = surface_row ? 0.f : g_axis(nyc, nzc, tzu, nxc, txu);
      sm.gy[1][ty + R][tx] = surface_row ? 0.f : g_axis(nyc, nzc, tzw, nxc, txw);
      gzu = g_axis(nzc, nyc, tyu, nxc, txu);
      gzw = g_axis(nzc, nyc, tyw, nxc, txw);
      own_u = lap - 0.5f * (dzu + dyu + dxu);
      own_w = 0.5f * (dzw + dyw + dxw);
    } else {
      // A plane outside the chunk's outputs: g_z of the own cell only.
      float txu = 0.f, tyu = 0.f, txw = 0.f, tyw = 0.f;
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        txu = d1_term(p.w1[2][k], U0[cidx + k] - U0[cidx - k], txu);
        txw = d1_term(p.w1[2][k], W0[cidx + k] - W0[cidx - k], txw);
        tyu = d1_term(p.w1[1][k], U0[cidx + k * kW] - U0[cidx - k * kW], tyu);
        tyw = d1_term(p.w1[1][k], W0[cidx + k * kW] - W0[cidx - k * kW], tyw);
      }
      const float nzc = Nz[cidx], nyc = Ny[cidx], nxc = Nx[cidx];
      gzu = g_axis(nzc, nyc, tyu, nxc, txu);
      gzw = g_axis(nzc, nyc, tyw, nxc, txw);
    }
    // The current levels of the plane updated now (forward: from the ring, whose slot of plane
    // o is not the one being filled).
    float pc = pcg, qc = qcg;
    if constexpr (!kT) {
      const int so = wrap_slot(sc - R, kSl);
      pc = sm.ring[so][0][cidx];
      qc = sm.ring[so][1][cidx];
    }
    __syncthreads();  // g_x, g_y of plane c complete
    if constexpr (kCompact) land_axis();

    if (out) {
      float dgu = 0.f, dgw = 0.f;
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        dgu += p.w1[2][k] * (sm.gx[0][ty][kRP + tx + k] - sm.gx[0][ty][kRP + tx - k]);
        dgw += p.w1[2][k] * (sm.gx[1][ty][kRP + tx + k] - sm.gx[1][ty][kRP + tx - k]);
        dgu += p.w1[1][k] * (sm.gy[0][ty + R + k][tx] - sm.gy[0][ty + R - k][tx]);
        dgw += p.w1[1][k] * (sm.gy[1][ty + R + k][tx] - sm.gy[1][ty + R - k][tx]);
      }
      s1[R] += own_u - dgu;
      s2[R] += own_w + dgw;
    }
    // D1_z g_z: g_z(c) enters the plane c - k with +w1_k and the plane c + k with -w1_k
    // (s1 holds minus H_z u).
#pragma unroll
    for (int k = 1; k <= R; ++k) {
      const float bu = p.w1[0][k] * gzu, bw = p.w1[0][k] * gzw;
      s1[R - k] -= bu;
      s1[R + k] += bu;
      s2[R - k] += bw;
      s2[R + k] -= bw;
    }

    if (fin && in_region) {
      const float h0 = s1[0], hz = s2[0];
      float fp = h0, fq = hz;
      if constexpr (!kT) {
        fp = ee * h0 + dd * hz;
        fq = dd * h0 + hz;
      }
      const float g = p.sponge.on ? cuda::sponge_axis(p.sponge, 0, o) + gxy : 0.0f;
      f.p_next[at] = cuda::leapfrog(p.sponge.on, g, pc, pp, vv, fp);
      f.q_next[at] = cuda::leapfrog(p.sponge.on, g, qc, qp, vv, fq);
      if constexpr (kImage) cuda::image_cell(im, at, vv * fp, vv * fq, pc);
      if constexpr (kDiag) diag.add(pc, at);
    }

#pragma unroll
    for (int i = 0; i < 2 * R; ++i) {
      s1[i] = s1[i + 1];
      s2[i] = s2[i + 1];
      az[i] = az[i + 1];
    }
    s1[2 * R] = s2[2 * R] = 0.0f;
    az[2 * R] = nz_next * nz_next;
    sc = sc + 1 == kSl ? 0 : sc + 1;
  }
  cuda::cp_async_wait<0>();
  if constexpr (kDiag) cuda::block_commit<S::kThreads>(diag, acc);
}

}  // namespace
}  // namespace seisfd
