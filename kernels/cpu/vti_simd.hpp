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
// rows: 1.48 against 1.54 at 161^3, 1.32-1.34 against 1.27 at 256^3. Chosen by BlockTuner among
// 32, 64 and 16 rows (2026-11-29, the sweeps): 2-4% faster on 2 Zen 3 cores, 20-30% slower on 16
// Xeon cores (whose 16 blocks then split in z as well); not kept.
inline constexpr int kVtiBlockY = 32;

template <class T>
struct VtiArgs {
  const T *X, *Y, *pc, *qc;
  T *pn, *qn;
  const T *E, *D, *V;
  int64_t sz, sy;
};

// The weights as whole vectors in memory (FMAs read them as memory operands).
template <class T, int R>
struct VtiVecWeights {
  using V = typename Simd<T>::V;
  V wz[R + 1], wy[R + 1], wx[R + 1];
  explicit VtiVecWeights(const VtiWeights<T, R>& w) {
    for (int k = 0; k <= R; ++k) {
      wz[k] = Simd<T>::broadcast(w.wz[k]);
      wy[k] = Simd<T>::broadcast(w.wy[k]);
      wx[k] = Simd<T>::broadcast(w.wx[k]);
    }
  }
};

// kZ planes from row (z, y) (layout index `row`), x cells [xa, xb), in the header's three sweeps;
// ab: the damping tables of the kZ rows (A at [x], B at [x + b_off]); hz, h0: kZ scratch rows
// each, aligned to a vector, holding element x - x0 (x0: xa rounded down to the fields' vector).
template <class T, int R, int kZ, bool kAdj>
SEISFD_CPU_INLINE void vti_rows(const VtiVecWeights<T, R>& w, const VtiArgs<T>& a, int64_t row,
                                int xa, int xb, const T* const* ab, int b_off, T* const* hz,
                                T* const* h0) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.sz, sy = a.sy;
  const T* const yr = a.Y + row;
  const int x0 = xa - vector_offset(yr + xa);
  // 1. H_z Y of the kZ planes, from Y's z column.
  for (int x = x0; x < xb; x += W) {
    V q[kZ + 2 * R];
    static_for<0, kZ + 2 * R>([&](auto j)
                                  SEISFD_UNROLLED { q[j] = S::load(yr + x + (j - R) * sz); });
    static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
      __builtin_prefetch(yr + x + (u + R) * sz + kVtiPrefetchRows * sy);
      const V y2 = q[u + R] + q[u + R];
      V vz{};
      static_for<1, R + 1>(
          [&](auto k) SEISFD_UNROLLED { vz += w.wz[k] * ((q[u + R + k] + q[u + R - k]) - y2); });
      S::store(hz[u] + (x - x0), vz);
    });
  }
  for (int u = 0; u < kZ; ++u) {
    const int64_t r = row + u * sz;
    // 2. H_0 X of the plane: its x neighbours lane shifts, its y neighbours the plane's rows.
    const T* const xu = a.X + r;
    T* const hu = h0[u] - x0;
    V lo = S::load(xu + x0 - W), mid = S::load(xu + x0);
    for (int x = x0; x < xb; x += W) {
      const V hi = S::load(xu + x + W);
      __builtin_prefetch(xu + x + (kVtiPrefetchRows + R) * sy);
      const V x2 = mid + mid;
      V hx{}, hy{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        hx +=
            w.wx[k] * ((S::template window<k>(mid, hi) + S::template window<W - k>(lo, mid)) - x2);
        hy += w.wy[k] * ((S::load(xu + x + k * sy) + S::load(xu + x - k * sy)) - x2);
      });
      S::store(hu + x, hx + hy);
      lo = mid;
      mid = hi;
    }
    // 3. The forces and the leapfrog of p and q.
    const PqRow<T> pq{
        a.E + r,  a.D + r, a.V + r, kAdj ? a.pc + r : a.X + r, kAdj ? a.qc + r : a.Y + r,
        a.pn + r, a.qn + r};
    leapfrog_pq_row<T, kAdj, kVtiPrefetchRows>(h0[u], hz[u], pq, ab[u], ab[u] + b_off, x0, xa, xb,
                                               sy);
  }
}

template <class T, int R, bool kAdj>
void vti_simd_impl(const StepSpec& s, RowDamping<T>& damping, const VtiVecWeights<T, R>& w,
                   const VtiArgs<T>& a) {
  const int xa = s.begin[2], xb = s.end[2];
  const int b_off = damping.b_offset();
  const Layout& l = s.layout;
  const int stride = scratch_stride<T>(xa, xb);
  for_y_blocks(
      s,
      [&](int y0, int y1) {
        const int za = s.begin[0], ze = s.end[0];
        thread_local std::vector<T> buf, scratch;
        buf.resize(static_cast<size_t>(kVtiZPlanes) * damping.buffer_size());
        T* const first = scratch_rows(scratch, 2 * kVtiZPlanes, stride);
        T *hz[kVtiZPlanes], *h0[kVtiZPlanes];
        for (int u = 0; u < kVtiZPlanes; ++u) {
          hz[u] = first + u * stride;
          h0[u] = first + (kVtiZPlanes + u) * stride;
        }
        int z = za;
        for (; z + kVtiZPlanes <= ze; z += kVtiZPlanes)
          for (int y = y0; y < y1; ++y) {
            const T* ab[kVtiZPlanes];
            for (int u = 0; u < kVtiZPlanes; ++u)
              ab[u] = damping.row(z + u, y, buf.data() + u * damping.buffer_size());
            vti_rows<T, R, kVtiZPlanes, kAdj>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off, hz, h0);
          }
        for (; z < ze; ++z)
          for (int y = y0; y < y1; ++y) {
            const T* ab[1] = {damping.row(z, y, buf.data())};
            vti_rows<T, R, 1, kAdj>(w, a, l.idx(z, y, 0), xa, xb, ab, b_off, hz, h0);
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
    const VtiVecWeights<T, R> w{VtiWeights<T, R>(weights)};
    if (adjoint)
      vti_simd_impl<T, R, true>(s, damping, w, a);
    else
      vti_simd_impl<T, R, false>(s, damping, w, a);
  });
}

}  // namespace seisfd::cpu
