// vti/oN/smem_regqueue: the z-marching kernel of the VTI fast path (docs/physics.md §4), p and q
// marched together, four cells of an x row per thread (a float4), a 64 x 16 xy tile per block.
//
// The VTI operators split by axis: H_0 = d_xx + d_yy acts on one field and H_z = d_zz on the
// other, so the field H_0 acts on is needed only in its own plane (a shared-memory tile with an
// x/y halo of R) and the field H_z acts on only along z (a register queue of the 2R + 1 planes
// around the output plane, no shared memory). Forward: H_0 p and H_z q, coupled by E and D at the
// cell. Transposed (the adjoint's update, docs/physics.md §7): H_0 X and H_z Y with X = E p + D q
// and Y = D p + q formed as the planes are loaded (Y in the mirror planes above a free surface is
// the odd image of its interior plane, as the separate pre-pass of the naive variant makes it),
// so both directions read each array once: 36 B a cell (p, q at two levels, v dt^2, E, D; p and
// q written), the physics' streaming pattern.
//
// Each plane iteration: the own cells' pointwise values (previous levels, coefficients) are
// loaded first, the next plane's tile is loaded into registers while this plane computes from
// shared memory and the queue, then stored into the other of two tile buffers (one barrier a
// plane). The imaging of a migration's adjoint step can be fused (FusedImaging).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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

using cuda::lane;

template <int R>
struct VtiShape {
  static constexpr int kTX = 64;
  static constexpr int kTX4 = kTX / 4;
  static constexpr int kTY = 16;
  static constexpr int kThreads = kTX4 * kTY;
  static constexpr int kRP = (R + 3) / 4 * 4;  // x halo, rounded up to whole float4s
  static constexpr int kW = kTX + 2 * kRP;     // tile row, floats
  static constexpr int kW4 = kW / 4;
  static constexpr int kH = kTY + 2 * R;  // tile rows
  static constexpr int kRect4 = kH * kW4;
  static constexpr int kSlots = (kRect4 + kThreads - 1) / kThreads;
  static constexpr int kMinBlocks = R <= 4 ? 2 : 1;
};

template <int R>
struct VtiParams {
  Layout l;
  int begin[3], end[3];
  int x_base;   // x of the first tile: begin[2] rounded down to 32
  int tiles_x;  // tiles per row of tiles
  int zchunk;   // planes per block
  int surface;
  bool free_surface;
  float wz[R + 1], wy[R + 1], wx[R + 1];  // second-derivative weights / h^2, index 0 unused
  cuda::SpongeParams sponge;
};

struct VtiFields {
  const float* p_prev;
  const float* p_cur;
  float* p_next;
  const float* q_prev;
  const float* q_cur;
  float* q_next;
  const float* vdt2;
  const float* E;
  const float* D;
};

__device__ __forceinline__ float4 fma4(const float4& a, const float4& x, const float4& b,
                                       const float4& y) {
  return make_float4(a.x * x.x + b.x * y.x, a.y * x.y + b.y * y.y, a.z * x.z + b.z * y.z,
                     a.w * x.w + b.w * y.w);
}

// The tile field at global offset o of plane offset pl: p (forward) or X = E p + D q.
template <bool kT>
__device__ __forceinline__ float4 tile_value(const VtiFields& f, int64_t at) {
  if constexpr (!kT) {
    return cuda::ld_ro4(f.p_cur + at);
  } else {
    return fma4(cuda::ld_ro4(f.E + at), cuda::ld_ro4(f.p_cur + at), cuda::ld_ro4(f.D + at),
                cuda::ld_ro4(f.q_cur + at));
  }
}

// The queue field of plane z at the own cells: q (forward) or Y = D p + q, the odd image of the
// interior plane in the mirror planes above a free surface.
template <int R, bool kT>
__device__ __forceinline__ float4 queue_value(const VtiParams<R>& p, const VtiFields& f, int z,
                                              int own) {
  if constexpr (!kT) {
    return cuda::ld_ro4(f.q_cur + z * p.l.sz + own);
  } else {
    const bool mirror = p.free_surface && z < p.surface;
    const int64_t at = (mirror ? 2 * p.surface - z : z) * p.l.sz + own;
    const float4 one = make_float4(1.f, 1.f, 1.f, 1.f);
    float4 y =
        fma4(cuda::ld_ro4(f.D + at), cuda::ld_ro4(f.p_cur + at), one, cuda::ld_ro4(f.q_cur + at));
    if (mirror) y = make_float4(-y.x, -y.y, -y.z, -y.w);
    return y;
  }
}

// kDiag (forward): the diagnostics of p's current level reduced into acc on the way (the tile
// holds it): no extra bytes, one block reduction at the end. P (forward): v dt^2, E and D read
// as the 16-bit codes of cm (30 B a cell instead of 36); fp32: from f.
template <int R, bool kT, bool kImage, bool kDiag = false, ModelPrecision P = ModelPrecision::kFp32>
__global__ void __launch_bounds__(VtiShape<R>::kThreads, VtiShape<R>::kMinBlocks)
    vti_smem_regqueue_kernel(const VtiParams<R> p, const VtiFields f, const FusedImaging im,
                             cuda::DiagAccum* acc, const CompactMediumView cm) {
  static_assert(P == ModelPrecision::kFp32 || !kT, "the transposed launch reads fp32");
  using S = VtiShape<R>;
  __shared__ __align__(16) float tile[2][S::kH][S::kW];

  const int t = threadIdx.x;
  const int tx = t % S::kTX4, ty = t / S::kTX4;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  // Own 4 cells: loaded when inside the array (gx % 4 == 0 and sy % 32 == 0: gx + 3 < sy),
  // stored when inside the region.
  const int gx = x0 + 4 * tx, gy = y0 + ty;
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  // The float4s of the tile (own cells and halo) this thread loads each plane; zero outside the
  // array (only neighbours of cells outside the region lie there).
  int rsm[S::kSlots], roff[S::kSlots];
  bool rin[S::kSlots], rok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    const int j = t + s * S::kThreads;
    const int row = j / S::kW4, col = j % S::kW4;
    const int hy = y0 - R + row, hx = x0 - S::kRP + 4 * col;
    rin[s] = j < S::kRect4;
    rok[s] = rin[s] && hy >= 0 && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    rsm[s] = row * S::kW + 4 * col;
    roff[s] = rok[s] ? hy * sy + hx : 0;
  }

  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }

  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 Q[2 * R + 1];
#pragma unroll
  for (int i = 0; i < 2 * R; ++i) Q[i] = own_ok ? queue_value<R, kT>(p, f, zb - R + i, own) : zero;
  float4 nq = own_ok ? queue_value<R, kT>(p, f, zb + R, own) : zero;
  {
    const int64_t pl = zb * sz;
#pragma unroll
    for (int s = 0; s < S::kSlots; ++s)
      if (rin[s])
        *reinterpret_cast<float4*>(&tile[0][0][0] + rsm[s]) =
            rok[s] ? tile_value<kT>(f, pl + roff[s]) : zero;
  }
  __syncthreads();

  cuda::DiagPartial diag;
  int buf = 0;
  for (int z = zb; z < ze; ++z) {
    const bool more = z + 1 < ze;
    const int64_t at = z * sz + own;
    // This plane's pointwise values, then the next plane's tile and queue plane.
    float4 pp = zero, qp = zero, vv = zero, ee = zero, dd = zero, pc4 = zero, qc4 = zero;
    if (own_ok) {
      pp = cuda::ld_stream4(f.p_prev + at);
      qp = cuda::ld_stream4(f.q_prev + at);
      if constexpr (P != ModelPrecision::kFp32) {
        vv = cuda::ld_code4<P>(cm, kVdt2, at);
        dd = cuda::ld_code4<P>(cm, kD, at);
        ee = cuda::e_from_g(dd, cuda::ld_code4<P>(cm, kE, at));
      } else if constexpr (!kT) {
        vv = cuda::ld_ro4(f.vdt2 + at);
        ee = cuda::ld_ro4(f.E + at);
        dd = cuda::ld_ro4(f.D + at);
      } else {
        vv = cuda::ld_ro4(f.vdt2 + at);
        pc4 = cuda::ld_ro4(f.p_cur + at);
        qc4 = cuda::ld_ro4(f.q_cur + at);
      }
    }
    float4 hn[S::kSlots];
    float4 nnq = zero;
    if (more) {
      const int64_t pl = (z + 1) * sz;
#pragma unroll
      for (int s = 0; s < S::kSlots; ++s) hn[s] = rok[s] ? tile_value<kT>(f, pl + roff[s]) : zero;
      if (own_ok) nnq = queue_value<R, kT>(p, f, z + 1 + R, own);
    }
    Q[2 * R] = nq;

    // H_0 of the tile field and H_z of the queue field at the four cells (difference form, as
    // the reference: f+ - 2 f + f-).
    const float* centre = &tile[buf][ty + R][S::kRP + 4 * tx];
    const float4 c = *reinterpret_cast<const float4*>(centre);
    float xs[4 + 2 * S::kRP];
#pragma unroll
    for (int j = 0; j < (4 + 2 * S::kRP) / 4; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(centre - S::kRP + 4 * j);
#pragma unroll
      for (int l = 0; l < 4; ++l) xs[4 * j + l] = lane(v, l);
    }
    float h0[4], hz[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) h0[l] = hz[l] = 0.0f;
#pragma unroll
    for (int k = 1; k <= R; ++k) {
      const float4 up = *reinterpret_cast<const float4*>(centre + k * S::kW);
      const float4 dn = *reinterpret_cast<const float4*>(centre - k * S::kW);
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        const float cl = lane(c, l), ql = lane(Q[R], l);
        h0[l] += p.wx[k] * (xs[S::kRP + l + k] - 2.0f * cl + xs[S::kRP + l - k]);
        h0[l] += p.wy[k] * (lane(up, l) - 2.0f * cl + lane(dn, l));
        hz[l] += p.wz[k] * (lane(Q[R + k], l) - 2.0f * ql + lane(Q[R - k], l));
      }
    }

    if (mask) {
      const float gz = p.sponge.on ? cuda::sponge_axis(p.sponge, 0, z) : 0.0f;
      const float4 pc = kT ? pc4 : c;
      const float4 qc = kT ? qc4 : Q[R];
      float4 pn, qn;
      float d2p[4], d2q[4];
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        float fp = h0[l], fq = hz[l];
        if constexpr (!kT) {
          fp = lane(ee, l) * h0[l] + lane(dd, l) * hz[l];
          fq = lane(dd, l) * h0[l] + hz[l];
        }
        const float v = lane(vv, l);
        d2p[l] = v * fp;
        d2q[l] = v * fq;
        lane(pn, l) = cuda::leapfrog(p.sponge.on, gz + gxy[l], lane(pc, l), lane(pp, l), v, fp);
        lane(qn, l) = cuda::leapfrog(p.sponge.on, gz + gxy[l], lane(qc, l), lane(qp, l), v, fq);
      }
      cuda::store4(f.p_next + at, pn, mask);
      cuda::store4(f.q_next + at, qn, mask);
      if constexpr (kImage) cuda::image4(im, at, d2p, pc, mask, &d2q);
      if constexpr (kDiag) diag.add4(pc, mask, at, acc);
    }

    if (more) {
      float* nt = &tile[buf ^ 1][0][0];
#pragma unroll
      for (int s = 0; s < S::kSlots; ++s)
        if (rin[s]) *reinterpret_cast<float4*>(nt + rsm[s]) = hn[s];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) Q[i] = Q[i + 1];
    nq = nnq;
    buf ^= 1;
  }
  if constexpr (kDiag) cuda::block_commit<S::kThreads>(diag, acc);
}

// The transposed update with a ring of planes: the tile arrays of each plane (p, q, E, D with the
// x/y halo) are loaded once, R + 1 planes ahead of the output plane, and give at once X = E p +
// D q on the tile (kept in the ring until the plane is output), p and q at the own cells (kept
// likewise, for the leapfrog) and Y = D p + q at the own cells (the queue's newest plane, through
// a double buffer). Each array is read once a plane, as in the forward launch.
template <int R>
struct VtiRing {
  using S = VtiShape<R>;
  static constexpr int kPlanes = R + 2;  // output plane .. newest, and the one being written
  float x[kPlanes][S::kH][S::kW];
  float p[kPlanes][S::kTY][S::kTX];
  float q[kPlanes][S::kTY][S::kTX];
  float y[2][S::kTY][S::kTX];
};

template <int R, bool kImage>
__global__ void __launch_bounds__(VtiShape<R>::kThreads, VtiShape<R>::kMinBlocks)
    vti_ring_transposed_kernel(const VtiParams<R> p, const VtiFields f, const FusedImaging im) {
  using S = VtiShape<R>;
  using Ring = VtiRing<R>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Ring& ring = *reinterpret_cast<Ring*>(smem_raw);

  const int t = threadIdx.x;
  const int tx = t % S::kTX4, ty = t / S::kTX4;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  const int gx = x0 + 4 * tx, gy = y0 + ty;
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  // The tile slots this thread loads, and where a slot falls in the own region (-1: halo).
  int rsm[S::kSlots], roff[S::kSlots], rown[S::kSlots];
  bool rin[S::kSlots], rok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    const int j = t + s * S::kThreads;
    const int row = j / S::kW4, col = j % S::kW4;
    const int hy = y0 - R + row, hx = x0 - S::kRP + 4 * col;
    rin[s] = j < S::kRect4;
    rok[s] = rin[s] && hy >= 0 && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    rsm[s] = row * S::kW + 4 * col;
    roff[s] = rok[s] ? hy * sy + hx : 0;
    const int orow = row - R, ocol = 4 * col - S::kRP;
    rown[s] = rin[s] && orow >= 0 && orow < S::kTY && ocol >= 0 && ocol < S::kTX
                  ? orow * S::kTX + ocol
                  : -1;
  }

  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  const float4 one = make_float4(1.f, 1.f, 1.f, 1.f);

  // Loads of one plane's tile arrays into registers, and their store into ring slot k (and the
  // Y buffer yb).
  struct Loaded {
    float4 p, q, e, d;
  };
  auto load = [&](int z, Loaded(&out)[S::kSlots]) {
    const int64_t pl = static_cast<int64_t>(z) * sz;
#pragma unroll
    for (int s = 0; s < S::kSlots; ++s) {
      if (rok[s]) {
        const int64_t at = pl + roff[s];
        out[s] = {cuda::ld_ro4(f.p_cur + at), cuda::ld_ro4(f.q_cur + at), cuda::ld_ro4(f.E + at),
                  cuda::ld_ro4(f.D + at)};
      } else {
        out[s] = {zero, zero, zero, zero};
      }
    }
  };
  auto put = [&](const Loaded(&in)[S::kSlots], int k, int yb) {
#pragma unroll
    for (int s = 0; s < S::kSlots; ++s) {
      if (!rin[s]) continue;
      const Loaded& v = in[s];
      *reinterpret_cast<float4*>(&ring.x[k][0][0] + rsm[s]) = fma4(v.e, v.p, v.d, v.q);
      if (rown[s] >= 0) {
        *reinterpret_cast<float4*>(&ring.p[k][0][0] + rown[s]) = v.p;
        *reinterpret_cast<float4*>(&ring.q[k][0][0] + rown[s]) = v.q;
        *reinterpret_cast<float4*>(&ring.y[yb][0][0] + rown[s]) = fma4(v.d, v.p, one, v.q);
      }
    }
  };

  // Warm-up: the queue's planes below the first one loaded into the ring (zb - R .. zb - 1, the
  // mirror planes above a free surface among them) straight from memory; the ring's planes zb ..
  // zb + R through it.
  float4 Q[2 * R + 1];
#pragma unroll
  for (int i = 0; i < R; ++i) Q[i] = own_ok ? queue_value<R, true>(p, f, zb - R + i, own) : zero;
#pragma unroll
  for (int i = 0; i <= R; ++i) {
    Loaded v[S::kSlots];
    load(zb + i, v);
    put(v, i, 0);
    __syncthreads();
    if (i < R) Q[R + i] = *reinterpret_cast<const float4*>(&ring.y[0][ty][4 * tx]);
    __syncthreads();
  }
  // Y of plane zb + R is in buffer 0; plane zb + R + i + 1 goes to buffer (i + 1) % 2.

  int k = 0;   // ring slot of the output plane
  int yb = 0;  // Y buffer of plane z + R
  for (int z = zb; z < ze; ++z) {
    const bool more = z + 1 < ze;
    const int64_t at = static_cast<int64_t>(z) * sz + own;
    float4 pp = zero, qp = zero, vv = zero;
    if (own_ok) {
      pp = cuda::ld_stream4(f.p_prev + at);
      qp = cuda::ld_stream4(f.q_prev + at);
      vv = cuda::ld_ro4(f.vdt2 + at);
    }
    Loaded hn[S::kSlots];
    if (more) load(z + R + 1, hn);
    Q[2 * R] = *reinterpret_cast<const float4*>(&ring.y[yb][ty][4 * tx]);

    const float* centre = &ring.x[k][ty + R][S::kRP + 4 * tx];
    const float4 c = *reinterpret_cast<const float4*>(centre);
    float xs[4 + 2 * S::kRP];
#pragma unroll
    for (int j = 0; j < (4 + 2 * S::kRP) / 4; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(centre - S::kRP + 4 * j);
#pragma unroll
      for (int l = 0; l < 4; ++l) xs[4 * j + l] = lane(v, l);
    }
    float h0[4], hz[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) h0[l] = hz[l] = 0.0f;
#pragma unroll
    for (int kk = 1; kk <= R; ++kk) {
      const float4 up = *reinterpret_cast<const float4*>(centre + kk * S::kW);
      const float4 dn = *reinterpret_cast<const float4*>(centre - kk * S::kW);
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        const float cl = lane(c, l), ql = lane(Q[R], l);
        h0[l] += p.wx[kk] * (xs[S::kRP + l + kk] - 2.0f * cl + xs[S::kRP + l - kk]);
        h0[l] += p.wy[kk] * (lane(up, l) - 2.0f * cl + lane(dn, l));
        hz[l] += p.wz[kk] * (lane(Q[R + kk], l) - 2.0f * ql + lane(Q[R - kk], l));
      }
    }
    if (mask) {
      const float gz = p.sponge.on ? cuda::sponge_axis(p.sponge, 0, z) : 0.0f;
      const float4 pc = *reinterpret_cast<const float4*>(&ring.p[k][ty][4 * tx]);
      const float4 qc = *reinterpret_cast<const float4*>(&ring.q[k][ty][4 * tx]);
      float4 pn, qn;
      float d2p[4], d2q[4];
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        const float v = lane(vv, l);
        d2p[l] = v * h0[l];
        d2q[l] = v * hz[l];
        lane(pn, l) = cuda::leapfrog(p.sponge.on, gz + gxy[l], lane(pc, l), lane(pp, l), v, h0[l]);
        lane(qn, l) = cuda::leapfrog(p.sponge.on, gz + gxy[l], lane(qc, l), lane(qp, l), v, hz[l]);
      }
      cuda::store4(f.p_next + at, pn, mask);
      cuda::store4(f.q_next + at, qn, mask);
      if constexpr (kImage) cuda::image4(im, at, d2p, pc, mask, &d2q);
    }
    // Plane z + R + 1 into the slot after the newest (not the output plane's, not read here).
    if (more) put(hn, k + R + 1 >= Ring::kPlanes ? k + R + 1 - Ring::kPlanes : k + R + 1, yb ^ 1);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) Q[i] = Q[i + 1];
    k = k + 1 == Ring::kPlanes ? 0 : k + 1;
    yb ^= 1;
  }
}

// The forward kernel reading the medium in precision p (not fp32).
template <int R>
const void* compact_kernel(ModelPrecision p, bool diag) {
  return cuda::compact_kernel(p, diag, [](auto m, auto d) {
    return reinterpret_cast<const void*>(
        &vti_smem_regqueue_kernel<R, false, false, decltype(d)::value, decltype(m)::value>);
  });
}

template <int R, bool kT>
void launch(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  using S = VtiShape<R>;
  const VtiFields f{a.prev[0], a.cur[0],        a.next[0],    a.prev[1],   a.cur[1],
                    a.next[1], a.medium[kVdt2], a.medium[kE], a.medium[kD]};
  for (const void* ptr : {static_cast<const void*>(f.p_prev), static_cast<const void*>(f.p_cur),
                          static_cast<const void*>(f.q_prev), static_cast<const void*>(f.q_cur),
                          static_cast<const void*>(f.vdt2), static_cast<const void*>(f.E),
                          static_cast<const void*>(f.D)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("vti smem_regqueue: field pointers must be 16-byte aligned");
  VtiParams<R> p{};
  p.l = s.layout;
  for (int ax = 0; ax < 3; ++ax) {
    p.begin[ax] = s.begin[ax];
    p.end[ax] = s.end[ax];
  }
  p.surface = s.surface;
  p.free_surface = s.free_surface;
  const cuda::TileGrid tg = cuda::tile_grid(s, S::kTX, S::kTY);
  p.x_base = tg.x_base;
  p.tiles_x = tg.tiles_x;
  const int tiles_y = tg.tiles_y;
  const int nzu = s.end[0] - s.begin[0];
  const auto w = second_derivative_weights(R);
  float* c[3] = {p.wz, p.wy, p.wx};
  for (int ax = 0; ax < 3; ++ax) {
    c[ax][0] = 0.0f;
    for (int k = 1; k <= R; ++k) c[ax][k] = static_cast<float>(w[k] / (s.h[ax] * s.h[ax]));
  }
  p.sponge = cuda::SpongeParams::from(s);
  const void* kernel = reinterpret_cast<const void*>(&vti_smem_regqueue_kernel<R, false, false>);
  cuda::DiagAccum* acc = a.diag;
  size_t smem = 0;
  if constexpr (!kT) {
    if (a.compact.on()) {
      for (int k : {kVdt2, kE, kD})
        if (reinterpret_cast<uintptr_t>(a.compact.code[k]) % 8 != 0)
          throw std::invalid_argument("vti smem_regqueue: compact medium must be 8-byte aligned");
      kernel = compact_kernel<R>(a.compact.precision, acc != nullptr);
    } else if (acc) {
      kernel = reinterpret_cast<const void*>(&vti_smem_regqueue_kernel<R, false, false, true>);
    }
  } else {
    // The ring kernel reduces nothing: the diagnostics of this step's p by the separate kernel.
    if (acc) cuda::launch_diagnostics(f.p_cur, s, acc, static_cast<cudaStream_t>(ctx.stream));
    smem = sizeof(VtiRing<R>);
    kernel = a.imaging.on() ? reinterpret_cast<const void*>(&vti_ring_transposed_kernel<R, true>)
                            : reinterpret_cast<const void*>(&vti_ring_transposed_kernel<R, false>);
  }
  // Warm-up of a chunk: the 2R queue planes (a quarter of a step's traffic each); transposed, R
  // planes of four arrays and R of three.
  const int slots = cuda::resident_blocks(ctx.device, kernel, S::kThreads, smem);
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, (kT ? 1.75 : 0.5) * R + 1);
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  FusedImaging im = a.imaging;
  CompactMediumView cm = a.compact;
  void* args_fwd[] = {&p, const_cast<VtiFields*>(&f), &im, &acc, &cm};
  void* args_t[] = {&p, const_cast<VtiFields*>(&f), &im};
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(S::kThreads), kT ? args_t : args_fwd, smem, st));
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void register_vti_smem_regqueue(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kVti, R, "smem_regqueue",
        "z-marching VTI: p (X = E p + D q transposed) through a 64x16 xy tile in shared memory, q "
        "(Y = D p + q) through a z register queue, p and q marched together");
    v.min_compute_capability = 70;
    v.can_implement = &cuda::can_implement_vector_zmarch;
    v.forward = &launch<R, false>;
    v.transposed = &launch<R, true>;
    v.fuses_imaging = true;
    v.fuses_diagnostics = true;     // forward; the transposed launch runs the separate reduction
    v.reads_compact_medium = true;  // forward
    v.preference = cuda::tuning::kPreferenceVtiSmemRegqueue;
    t.push_back(v);
  });
}

}  // namespace seisfd
