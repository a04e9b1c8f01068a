// The CPU backend's explicit-vector VTI update (variant vti/oN/simd): the discrete update of
// kernels/reference/anisotropic.hpp for tti = false,
//   forward:  fp = E H_0 X + D H_z Y,  fq = D H_0 X + H_z Y   (X = p, Y = q)
//   adjoint:  fp = H_0 X,  fq = H_z Y   (X = E p + D q, Y = D p + q: the engine's scratch)
//   next = A (2 cur - B prev + C f)  for p and q  (A = 1 / (1 + g), B = 1 - g, C = (v dt)^2),
// H_0 = d_xx + d_yy of X and H_z = d_zz of Y only, each as the reference's difference form
// sum_k w_k (f_{+k} + f_{-k} - 2 f_c), in explicit vectors (kernels/cpu/simd.hpp) traversed as
// kernels/cpu/zmarch.hpp describes (y blocks marched through z, damping from row tables).
// The two fields' stencils are disjoint, which sets the shape: per vector of x cells and
// kVtiZPlanes planes at once,
//   - the z column of Y (kVtiZPlanes + 2R vectors) is loaded once and serves the H_z of all the
//     planes (the register queue of acoustic_regqueue.hpp, on Y alone);
//   - X's x neighbours are lane shifts of the aligned vectors at x - W, x, x + W, its y
//     neighbours plain loads of the plane's rows (X is read in its own plane only: a y block
//     needs R rows of X either side and no planes of it above or below);
//   - the three axes accumulate separately; in the forward update cur is X and Y themselves
//     (their centre vectors are reused, not loaded again);
//   - the rows that first come from memory are prefetched kVtiPrefetchRows ahead: X's row
//     y + R of the plane, Y's plane z + R, and the pointwise streams (prev of p and q, E, D, C;
//     cur of p and q in the adjoint).
// FMA contraction is on (cpu_kernels.hpp): the result differs from the reference by rounding.
// A cell's value is the same expression wherever it sits (first or second plane of a pass,
// first or last vector of a row), so a decomposed run gives one rank's bits. pn, qn may alias
// the previous levels they overwrite.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/simd.hpp"
#include "kernels/cpu/vti_blocked.hpp"
#include "kernels/cpu/zmarch.hpp"

namespace seisfd::cpu {

// Measured on 2 cores of an AMD EPYC (Zen 5), vti/o8/simd, 161^3 and 256^3 + sponge 20,
// Gcells/s, medians of runs in the same state of the shared machine's memory (bench/NOTES.md,
// 2026-11-27; the machine's spread is +-8%).
// Planes a pass updates together (the Y queue's loads a plane: (kZ + 2R) / kZ). 1 plane: within
// the spread of 2 (1.03-1.54 against 1.05-1.57 at 161^3).
inline constexpr int kVtiZPlanes = 2;
// Rows ahead that the prefetches reach: 1 row 1.18 against 1.16 at 161^3, 3 rows 1.08-1.11, 6
// rows 0.99.
inline constexpr int kVtiPrefetchRows = 2;
// Rows per y block (the target of zmarch.hpp's make_tiles): the block re-reads 2R rows of X
// from its neighbours; its L2 working set is Y's 2R + kZ planes of the block's rows. 64 and 100
// rows: 1.48 against 1.54 at 161^3, 1.32-1.34 against 1.27 at 256^3.
inline constexpr int kVtiBlockY = 32;

template <class T>
struct VtiArgs {
  const T *X, *Y, *pc, *qc;
  T *pn, *qn;
  const T *E, *D, *V;
  int64_t sz, sy;
};

// kZ planes from row (z, y) (layout index `row`), x cells [xa, xb); ab: the damping tables of the
// kZ rows (A at [x], B at [x + b_off]).
template <class T, int R, int kZ, bool kAdj>
SEISFD_CPU_INLINE void vti_rows(const VtiWeights<T, R>& w, const VtiArgs<T>& a, int64_t row, int xa,
                                int xb, const T* const* ab, int b_off) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.sz, sy = a.sy;
  const T* const xr = a.X + row;
  const T* const yr = a.Y + row;
  const int x0 = xa - vector_offset(xr + xa);
  V lo[kZ], mid[kZ];
  static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
    lo[u] = S::load(xr + u * sz + x0 - W);
    mid[u] = S::load(xr + u * sz + x0);
  });
  for (int x = x0; x < xb; x += W) {
    V q[kZ + 2 * R];
    static_for<0, kZ + 2 * R>([&](auto j)
                                  SEISFD_UNROLLED { q[j] = S::load(yr + x + (j - R) * sz); });
    static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
      const int64_t i = row + u * sz + x;
      const T* const xu = a.X + i;
      const V hi = S::load(xu + W);
      const int64_t ahead = i + kVtiPrefetchRows * sy;
      __builtin_prefetch(a.X + ahead + R * sy);
      __builtin_prefetch(a.Y + ahead + R * sz);
      for (const T* p : {static_cast<const T*>(a.pn), static_cast<const T*>(a.qn), a.V})
        __builtin_prefetch(p + ahead);
      if constexpr (kAdj) {
        __builtin_prefetch(a.pc + ahead);
        __builtin_prefetch(a.qc + ahead);
      } else {
        __builtin_prefetch(a.E + ahead);
        __builtin_prefetch(a.D + ahead);
      }
      const V xc = mid[u], yc = q[u + R];
      const V x2 = xc + xc, y2 = yc + yc;
      V hx{}, hy{}, vz{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        hx += w.wx[k] *
              ((S::template window<k>(mid[u], hi) + S::template window<W - k>(lo[u], mid[u])) - x2);
        hy += w.wy[k] * ((S::load(xu + k * sy) + S::load(xu - k * sy)) - x2);
        vz += w.wz[k] * ((q[u + R + k] + q[u + R - k]) - y2);
      });
      const V h0 = hx + hy;
      V fp, fq, pc, qc;
      if constexpr (kAdj) {
        fp = h0;
        fq = vz;
        pc = S::load(a.pc + i);
        qc = S::load(a.qc + i);
      } else {
        const V e = S::load(a.E + i), d = S::load(a.D + i);
        fp = e * h0 + d * vz;
        fq = d * h0 + vz;
        pc = xc;
        qc = yc;
      }
      const V A = S::load(ab[u] + x), B = S::load(ab[u] + b_off + x), v = S::load(a.V + i);
      const V np = A * (T(2) * pc - B * S::load(a.pn + i) + v * fp);
      const V nq = A * (T(2) * qc - B * S::load(a.qn + i) + v * fq);
      S::store_range(a.pn + i, np, x, xa, xb);
      S::store_range(a.qn + i, nq, x, xa, xb);
      lo[u] = mid[u];
      mid[u] = hi;
    });
  }
}

template <class T, int R, bool kAdj>
void vti_simd_impl(const StepSpec& s, RowDamping<T>& damping, const VtiWeights<T, R>& w,
                   const VtiArgs<T>& a) {
  const int za = s.begin[0], ze = s.end[0], xa = s.begin[2], xb = s.end[2];
  const int b_off = damping.b_offset();
  const Layout& l = s.layout;
  for_y_blocks(
      s,
      [&](int y0, int y1) {
        thread_local std::vector<T> buf;
        buf.resize(static_cast<size_t>(kVtiZPlanes) * damping.buffer_size());
        int z = za;
        for (; z + kVtiZPlanes <= ze; z += kVtiZPlanes)
          for (int y = y0; y < y1; ++y) {
            const T* ab[kVtiZPlanes];
            for (int u = 0; u < kVtiZPlanes; ++u)
              ab[u] = damping.row(z + u, y, buf.data() + u * damping.buffer_size());
            vti_rows<T, R, kVtiZPlanes, kAdj>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off);
          }
        for (; z < ze; ++z)
          for (int y = y0; y < y1; ++y) {
            const T* ab[1] = {damping.row(z, y, buf.data())};
            vti_rows<T, R, 1, kAdj>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off);
          }
      },
      kVtiBlockY);
}

template <class T>
void vti_simd(const StepSpec& s, RowDamping<T>& damping, const reference::AnisoWeights<T>& weights,
              const reference::MediumCoefs<T>& c, bool adjoint, const T* X, const T* Y, const T* pc,
              const T* qc, T* pn, T* qn) {
  damping.prepare(vector_offset(X));
  const VtiArgs<T> a{X,           Y,          pc, qc, pn, qn, c.E.data(), c.D.data(), c.vdt2.data(),
                     s.layout.sz, s.layout.sy};
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const VtiWeights<T, R> w(weights);
    if (adjoint)
      vti_simd_impl<T, R, true>(s, damping, w, a);
    else
      vti_simd_impl<T, R, false>(s, damping, w, a);
  });
}

}  // namespace seisfd::cpu
