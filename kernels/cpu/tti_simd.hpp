// The CPU backend's explicit-vector TTI update (variant tti/oN/simd): the discrete update of
// kernels/reference/anisotropic.hpp for tti = true, in its two passes, both in 64-byte vectors
// (kernels/cpu/simd.hpp) over y blocks marched through z (kernels/cpu/zmarch.hpp):
//   1. the cross intermediates g_a = n_a sum_{b != a} n_b D1_b f of X and of Y. Only what pass 2
//      reads is computed, and none of it needs a bounds check: pass 2 reads g_a along axis a
//      only (d_a g_a), at cells inside the other two axes' halo, so the halo planes of z need
//      g_z alone (from D1_y, D1_x: inside the array), the halo rows of y need g_y alone, and
//      the halo cells of x need g_x, which has no D1_x term. The reference computes every g of
//      every cell with zero reads beyond the array; the values pass 2 reads are the same. g_z
//      and g_y at the halo cells of x (read by no one) hold what D1_x makes of the neighbouring
//      row's cells. Mirrored above a free surface as the reference mirrors them.
//   2. H_z of X and Y together (the axis' squares a_i and their sums are loaded once for both),
//      H_0 X = lap X - H_z X, the forward or adjoint forces and the leapfrog of p and q, damping
//      as A (2 cur - B prev + C f) with zmarch.hpp's row tables.
// FMA contraction is on (cpu_kernels.hpp): the result differs from the reference by rounding.
// pn, qn may alias the previous levels they overwrite.
#pragma once
#include <cstdint>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/simd.hpp"
#include "kernels/cpu/tti_blocked.hpp"
#include "kernels/cpu/zmarch.hpp"

namespace seisfd::cpu {

template <class T>
struct TtiArgs {
  const T *X, *Y, *pc, *qc;
  T *pn, *qn;
  const T *E, *D, *V;
  const T *n[3], *a[3];
  T* gx[3];  // intermediates of X
  T* gy[3];  // of Y
  int64_t st[3];
};

// Which intermediates a row of pass 1 needs (see the header).
enum CrossNeeds { kCrossAll, kCrossZ, kCrossY };

// Pass 1 over row `row` (all x), intermediates of field f into g.
template <class T, int R, CrossNeeds kNeed>
SEISFD_CPU_INLINE void cross_row(const TtiWeights<T, R>& w, const TtiArgs<T>& a, const T* f,
                                 T* const g[3], int64_t row, int nx) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.st[0], sy = a.st[1];
  const T* fr = f + row;
  const int x0 = -vector_offset(fr);
  for (int x = x0; x < nx; x += W) {
    V t0{}, t1{}, t2{};
    static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
      if constexpr (kNeed != kCrossZ)
        t0 += w.w1[0][k] * (S::load(fr + x + k * sz) - S::load(fr + x - k * sz));
      if constexpr (kNeed != kCrossY)
        t1 += w.w1[1][k] * (S::load(fr + x + k * sy) - S::load(fr + x - k * sy));
      t2 += w.w1[2][k] * (S::load(fr + x + k) - S::load(fr + x - k));
    });
    const int64_t i = row + x;
    const V nz = S::load(a.n[0] + i), ny = S::load(a.n[1] + i), nxv = S::load(a.n[2] + i);
    const int lo = std::max(0, -x), hi = std::min(W, nx - x);
    auto put = [&](T* dst, V v) SEISFD_UNROLLED {
      if (lo == 0 && hi == W)
        S::store(dst + i, v);
      else
        S::store_lanes(dst + i, v, lo, hi);
    };
    if constexpr (kNeed != kCrossY) put(g[0], nz * (ny * t1 + nxv * t2));
    if constexpr (kNeed != kCrossZ) put(g[1], ny * (nz * t0 + nxv * t2));
    if constexpr (kNeed == kCrossAll) put(g[2], nxv * (nz * t0 + ny * t1));
  }
}

template <class T, int R>
void cross_pass(const StepSpec& s, const TtiWeights<T, R>& w, const TtiArgs<T>& a) {
  const Layout& l = s.layout;
  StepSpec all = s;  // every row of the layout: y blocks over [0, ny), z over [0, nz)
  all.begin[0] = all.begin[1] = all.begin[2] = 0;
  all.end[0] = l.nz;
  all.end[1] = l.ny;
  all.end[2] = l.nx;
  for_y_blocks(all, [&](int y0, int y1) {
    for (int z = 0; z < l.nz; ++z) {
      const bool zh = z < R || z >= l.nz - R;
      for (int y = y0; y < y1; ++y) {
        const bool yh = y < R || y >= l.ny - R;
        const int64_t row = l.idx(z, y, 0);
        if (zh && yh) continue;
        for (int f = 0; f < 2; ++f) {
          const T* src = f == 0 ? a.X : a.Y;
          T* const* g = f == 0 ? a.gx : a.gy;
          if (zh)
            cross_row<T, R, kCrossZ>(w, a, src, g, row, l.nx);
          else if (yh)
            cross_row<T, R, kCrossY>(w, a, src, g, row, l.nx);
          else
            cross_row<T, R, kCrossAll>(w, a, src, g, row, l.nx);
        }
      }
    }
  });
}

// Pass 2 over cells [xa, xb) of row `row`; ab: the row's damping tables (A, B at + b_off).
template <class T, int R, bool kAdj>
SEISFD_CPU_INLINE void update_row(const TtiWeights<T, R>& w, const TtiArgs<T>& a, int64_t row,
                                  int xa, int xb, const T* ab, int b_off) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int x0 = xa - vector_offset(a.X + row + xa);
  for (int x = x0; x < xb; x += W) {
    const int64_t i = row + x;
    const V xc = S::load(a.X + i), yc = S::load(a.Y + i);
    V hzx{}, hzy{}, lap = w.lap.c0 * xc;
    static_for<0, 3>([&](auto ax) SEISFD_UNROLLED {
      const int64_t st = a.st[ax];
      const T* aa = a.a[ax] + i;
      const T* fx = a.X + i;
      const T* fy = a.Y + i;
      const V ac = S::load(aa);
      V wx{}, wy{}, dx{}, dy{}, l{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        const int64_t o = k * st;
        const V ap = ac + S::load(aa + o), am = S::load(aa - o) + ac;
        const V xp = S::load(fx + o), xm = S::load(fx - o);
        const V yp = S::load(fy + o), ym = S::load(fy - o);
        wx += w.w2[ax][k] * (ap * (xp - xc) - am * (xc - xm));
        wy += w.w2[ax][k] * (ap * (yp - yc) - am * (yc - ym));
        dx += w.w1[ax][k] * (S::load(a.gx[ax] + i + o) - S::load(a.gx[ax] + i - o));
        dy += w.w1[ax][k] * (S::load(a.gy[ax] + i + o) - S::load(a.gy[ax] + i - o));
        const T cl = ax == 0 ? w.lap.cz[k] : ax == 1 ? w.lap.cy[k] : w.lap.cx[k];
        l += cl * (xp + xm);
      });
      hzx += T(0.5) * wx + dx;
      hzy += T(0.5) * wy + dy;
      lap += l;
    });
    const V h0x = lap - hzx;
    V fp, fq;
    if constexpr (kAdj) {
      fp = h0x;
      fq = hzy;
    } else {
      const V e = S::load(a.E + i), d = S::load(a.D + i);
      fp = e * h0x + d * hzy;
      fq = d * h0x + hzy;
    }
    const V A = S::load(ab + x), B = S::load(ab + b_off + x), v = S::load(a.V + i);
    const V np = A * (T(2) * S::load(a.pc + i) - B * S::load(a.pn + i) + v * fp);
    const V nq = A * (T(2) * S::load(a.qc + i) - B * S::load(a.qn + i) + v * fq);
    if (x >= xa && x + W <= xb) {
      S::store(a.pn + i, np);
      S::store(a.qn + i, nq);
    } else {
      const int lo = std::max(0, xa - x), hi = std::min(W, xb - x);
      S::store_lanes(a.pn + i, np, lo, hi);
      S::store_lanes(a.qn + i, nq, lo, hi);
    }
  }
}

template <class T>
void tti_simd(const StepSpec& s, RowDamping<T>& damping, const reference::AnisoWeights<T>& weights,
              const reference::MediumCoefs<T>& c, bool adjoint, const T* X, const T* Y, const T* pc,
              const T* qc, T* pn, T* qn, T* const g[6]) {
  damping.prepare(vector_offset(X));
  const Layout& l = s.layout;
  TtiArgs<T> a{
      X, Y, pc, qc, pn, qn, c.E.data(), c.D.data(), c.vdt2.data(), {}, {}, {}, {}, {l.sz, l.sy, 1}};
  for (int ax = 0; ax < 3; ++ax) {
    a.n[ax] = c.n[ax].data();
    a.a[ax] = c.a[ax].data();
    a.gx[ax] = g[ax];
    a.gy[ax] = g[3 + ax];
  }
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const TtiWeights<T, R> w(weights, s);
    cross_pass<T, R>(s, w, a);
    if (s.free_surface) {
      reference::mirror_intermediates(s, a.gx);
      reference::mirror_intermediates(s, a.gy);
    }
    const int za = s.begin[0], ze = s.end[0], xa = s.begin[2], xb = s.end[2];
    const int b_off = damping.b_offset();
    for_y_blocks(s, [&](int y0, int y1) {
      thread_local std::vector<T> buf;
      buf.resize(damping.buffer_size());
      for (int z = za; z < ze; ++z)
        for (int y = y0; y < y1; ++y) {
          const T* ab = damping.row(z, y, buf.data());
          if (adjoint)
            update_row<T, R, true>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off);
          else
            update_row<T, R, false>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off);
        }
    });
  });
}

}  // namespace seisfd::cpu
