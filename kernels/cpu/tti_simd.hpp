// The CPU backend's explicit-vector TTI update (variant tti/oN/simd): the discrete update of
// kernels/reference/anisotropic.hpp for tti = true, its two passes in explicit vectors
// (kernels/cpu/simd.hpp), interleaved plane by plane in each y block marched through z
// (kernels/cpu/zmarch.hpp): before plane z is updated, pass 1 computes plane z + R into a ring
// of 2R + 1 planes per thread (CrossRing), so the intermediates never go to memory.
//   1. the cross intermediates g_a = n_a sum_{b != a} n_b D1_b f of X and of Y. Only what pass 2
//      reads is computed, and none of it needs a bounds check: pass 2 reads g_a along axis a
//      only (d_a g_a), at cells inside the other two axes' halo, so the halo planes of z need
//      g_z alone (from D1_y, D1_x: inside the array), the halo rows of y need g_y alone, and
//      the halo cells of x need g_x, which has no D1_x term. The reference computes every g of
//      every cell with zero reads beyond the array; the values pass 2 reads are the same. g_z
//      and g_y at the halo cells of x (read by no one) hold what D1_x makes of the neighbouring
//      row's cells. Above a free surface g_z is the reference's mirror (the only g read there).
//   2. H_z of X and Y together (the axis' squares a_i and their sums are loaded once for both),
//      H_0 X = lap X - H_z X, the forward or adjoint forces and the leapfrog of p and q, damping
//      as A (2 cur - B prev + C f) with zmarch.hpp's row tables; in sweeps along the row through
//      scratch rows in L1, each sweep with few row pointers live (as acoustic_regqueue.hpp).
// The nested operator (StepSpec::tti_operator, reference/anisotropic.hpp): pass 1 writes g_a =
// n_a (n . D1 f) with D1 of R/2 pairs, for the cells within R/2 of the updated region (every read
// inside the array); pass 2 has no narrow terms, only the Laplacian of X and the cross terms.
// FMA contraction is on (cpu_kernels.hpp): the result differs from the reference by rounding.
// pn, qn may alias the previous levels they overwrite.
#pragma once
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/simd.hpp"
#include "kernels/cpu/tti_blocked.hpp"
#include "kernels/cpu/zmarch.hpp"
#include "kernels/huge_pages.hpp"
#include "kernels/wall_clock.hpp"

namespace seisfd::cpu {

template <class T>
struct TtiArgs {
  const T *X, *Y, *pc, *qc;
  T *pn, *qn;
  const T *E, *D, *V;
  const T *n[3], *a[3];
  int64_t st[3];
};

// Prefetch distance in rows (kPrefetchRows of acoustic_regqueue.hpp is the acoustic's). Measured
// on 2 cores (order 8, 161^3 + sponge 20) with the intermediates still in whole-volume arrays:
// pass 2 took 34.5 ms a step without prefetches, 28.4 ms with them 2 rows ahead.
inline constexpr int kTtiPrefetchRows = 2;

// Rows per y block (the target of zmarch.hpp's make_tiles). Pass 1 computes the block's rows
// and R either side (g_y is read along y), so short blocks repeat work; the ring of a 51-row
// block, 2.9 MB at 224-cell rows, outgrows the L2 cache but not the L3. Measured on 2 cores of
// an AMD EPYC (order 8, 161^3 + sponge 20, Gcells/s): 13-row blocks 0.197, 26 rows 0.217, 51
// rows 0.250-0.258, 101 rows 0.238-0.263. On 2 cores of an Intel Xeon (2 MB of L2 a core, its
// L3 farther) the 17-row blocks are the fastest (bench/NOTES.md), so the kernel measures which
// of kTtiBlockY, a half and a quarter of it a grid runs fastest at (BlockTuner).
inline constexpr int kTtiBlockY = 64;

// Which intermediates a row of pass 1 needs (see the header).
enum CrossNeeds { kCrossAll, kCrossZ, kCrossY };

// The intermediates of X and Y of one y block, for the 2R + 1 planes around the one being
// updated: a ring of planes, each with the block's rows and R more on either side (g_y is read
// along y), each row indexed by x as the layout's. Per thread, so that it stays in the core's
// cache: the whole-volume arrays of the blocked kernel cost 72 bytes a cell of memory traffic.
template <class T>
class CrossRing {
 public:
  void reset(int planes, int y_lo, int rows, int64_t sy) {
    planes_ = planes;
    y_lo_ = y_lo;
    rows_ = rows;
    sy_ = sy;
    // Two vectors of margin either side: the masked lanes of a row's first and last vectors
    // read up to a vector and R cells beyond it.
    const size_t n = static_cast<size_t>(planes) * 6 * rows * sy + 4 * Simd<T>::kLanes;
    if (data_.size() < n) assign_huge(data_, n, T(0));
  }
  // Row y of plane z of g_a of field f (0: X, 1: Y).
  T* row(int f, int a, int z, int y) {
    const int slot = z % planes_;
    return data_.data() + 2 * Simd<T>::kLanes +
           ((static_cast<int64_t>(slot) * 6 + f * 3 + a) * rows_ + (y - y_lo_)) * sy_;
  }

 private:
  std::vector<T> data_;
  int planes_ = 1, y_lo_ = 0, rows_ = 0;
  int64_t sy_ = 0;
};

// Pass 1 over row `row` of the layout (all x): the intermediates of field f into out[a][x]; RC
// pairs in D1 (R narrow, R/2 nested).
template <class T, int R, int RC, bool kNested, CrossNeeds kNeed>
SEISFD_CPU_INLINE void cross_row(const TtiWeights<T, R>& w, const TtiArgs<T>& a, const T* f,
                                 T* const out[3], int64_t row, int nx) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.st[0], sy = a.st[1];
  const T* fr = f + row;
  const int x0 = -vector_offset(fr);
  for (int x = x0; x < nx; x += W) {
    // What the next rows of this plane read first (the plane is new to the cache: pass 1
    // reaches it before pass 2 does).
    const int64_t ahead = row + x + kTtiPrefetchRows * sy;
    __builtin_prefetch(f + ahead + RC * sy);
    if constexpr (kNested || kNeed != kCrossZ) __builtin_prefetch(f + ahead + RC * sz);
    for (const T* p : {a.n[0], a.n[1], a.n[2]}) __builtin_prefetch(p + ahead);
    V t0{}, t1{}, t2{};
    if constexpr (kNested) {
      static_for<1, RC + 1>([&](auto k) SEISFD_UNROLLED {
        t0 += w.w1[0][k] * (S::load(fr + x + k * sz) - S::load(fr + x - k * sz));
        t1 += w.w1[1][k] * (S::load(fr + x + k * sy) - S::load(fr + x - k * sy));
        t2 += w.w1[2][k] * (S::load(fr + x + k) - S::load(fr + x - k));
      });
      const int64_t i = row + x;
      const V nz = S::load(a.n[0] + i), ny = S::load(a.n[1] + i), nxv = S::load(a.n[2] + i);
      const V along = nz * t0 + ny * t1 + nxv * t2;
      S::store_range(out[0] + x, nz * along, x, 0, nx);
      S::store_range(out[1] + x, ny * along, x, 0, nx);
      S::store_range(out[2] + x, nxv * along, x, 0, nx);
      continue;
    }
    static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
      if constexpr (kNeed != kCrossZ)
        t0 += w.w1[0][k] * (S::load(fr + x + k * sz) - S::load(fr + x - k * sz));
      if constexpr (kNeed != kCrossY)
        t1 += w.w1[1][k] * (S::load(fr + x + k * sy) - S::load(fr + x - k * sy));
      t2 += w.w1[2][k] * (S::load(fr + x + k) - S::load(fr + x - k));
    });
    const int64_t i = row + x;
    const V nz = S::load(a.n[0] + i), ny = S::load(a.n[1] + i), nxv = S::load(a.n[2] + i);
    // The products rounded and opaque to the optimiser, so that every g below is the same
    // operations whichever t a row leaves out: the products a row kind shares between two g's
    // would otherwise be fused into FMAs differently from another kind's, and a plane that is
    // another rank's halo would not give the bits it gives inside one rank's grid
    // (tests/mpi/decomposed_equal.py).
    V p0 = nz * t0, p1 = ny * t1, p2 = nxv * t2;
    opaque(p0);
    opaque(p1);
    opaque(p2);
    auto put = [&](T* dst, V v) SEISFD_UNROLLED { S::store_range(dst + x, v, x, 0, nx); };
    if constexpr (kNeed != kCrossY) put(out[0], nz * (p1 + p2));
    if constexpr (kNeed != kCrossZ) put(out[1], ny * (p0 + p2));
    if constexpr (kNeed == kCrossAll) put(out[2], nxv * (p0 + p1));
  }
}

// Pass 1 for plane z of the ring: rows [y_lo, y_hi) of the layout (the block and RC either side,
// clipped), each with what pass 2 reads of it; above a free surface the mirror of the plane
// below it (g_z even: the only one read there, pass 2 updating below the surface only).
template <class T, int R, int RC, bool kNested>
void cross_plane(const StepSpec& s, const TtiWeights<T, R>& w, const TtiArgs<T>& a,
                 CrossRing<T>& ring, int z, int y_lo, int y_hi) {
  const Layout& l = s.layout;
  if (s.free_surface && z < s.surface) {
    const int from = 2 * s.surface - z;
    for (int f = 0; f < 2; ++f)
      for (int y = y_lo; y < y_hi; ++y)
        std::copy(ring.row(f, 0, from, y), ring.row(f, 0, from, y) + l.nx, ring.row(f, 0, z, y));
    return;
  }
  const bool zh = z < R || z >= l.nz - R;
  for (int y = y_lo; y < y_hi; ++y) {
    const bool yh = y < R || y >= l.ny - R;
    if (zh && yh) continue;
    const int64_t row = l.idx(z, y, 0);
    for (int f = 0; f < 2; ++f) {
      const T* src = f == 0 ? a.X : a.Y;
      T* const out[3] = {ring.row(f, 0, z, y), ring.row(f, 1, z, y), ring.row(f, 2, z, y)};
      if (kNested)  // every g from every t (in the array: R - RC >= RC)
        cross_row<T, R, RC, true, kCrossAll>(w, a, src, out, row, l.nx);
      else if (zh)
        cross_row<T, R, RC, false, kCrossZ>(w, a, src, out, row, l.nx);
      else if (yh)
        cross_row<T, R, RC, false, kCrossY>(w, a, src, out, row, l.nx);
      else
        cross_row<T, R, RC, false, kCrossAll>(w, a, src, out, row, l.nx);
    }
  }
}

// Pass 2's weights as whole vectors in memory (FMAs read them as memory operands): w1, w2 per
// axis, the Laplacian's per axis (cl) and its centre.
template <class T, int R>
struct TtiVecWeights {
  using V = typename Simd<T>::V;
  V w1[3][R + 1], w2[3][R + 1], cl[3][R + 1], c0;
  explicit TtiVecWeights(const TtiWeights<T, R>& w) {
    using S = Simd<T>;
    for (int k = 0; k <= R; ++k) {
      for (int ax = 0; ax < 3; ++ax) {
        w1[ax][k] = S::broadcast(w.w1[ax][k]);
        w2[ax][k] = S::broadcast(w.w2[ax][k]);
      }
      cl[0][k] = S::broadcast(w.lap.cz[k]);
      cl[1][k] = S::broadcast(w.lap.cy[k]);
      cl[2][k] = S::broadcast(w.lap.cx[k]);
    }
    c0 = S::broadcast(w.lap.c0);
  }
};

// Pass 2 over cells [xa, xb) of row (z, y) (layout index `row`), in sweeps along the row through
// three scratch rows (acc: H_z X, H_z Y, lap X and then H_0 X; aligned to a vector, element
// x - x0 with x0 = xa rounded down to the fields' vector), each sweep with few row pointers live:
// the narrow terms of each axis (a, X, Y read along it), the cross terms of X and of Y (the ring's
// g_z planes, g_y rows, g_x row), then the forces and the leapfrog (zmarch.hpp). g: the ring; ab:
// the row's damping tables (A, B at + b_off). Nested (kNested): the first sweeps give lap X only,
// and the cross terms (RC pairs) are all of H_z.
template <class T, int R, int RC, bool kNested, bool kAdj>
SEISFD_CPU_INLINE void update_row(const TtiVecWeights<T, R>& w, const TtiArgs<T>& a,
                                  CrossRing<T>& g, int z, int y, int64_t row, int xa, int xb,
                                  const T* ab, int b_off, T* const* acc) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int x0 = xa - vector_offset(a.X + row + xa);
  T* const hx = acc[0] - x0;
  T* const hy = acc[1] - x0;
  T* const lp = acc[2] - x0;
  const int64_t ahead = row + kTtiPrefetchRows * a.st[1];
  // 1. The narrow terms along each axis: a_i (f_+ - f_c) - a_i (f_c - f_-) of X and Y, and the
  // Laplacian's of X.
  static_for<0, 3>([&](auto ax) SEISFD_UNROLLED {
    const int64_t st = a.st[ax];
    const T* const aa = a.a[ax] + row;
    const T* const fx = a.X + row;
    const T* const fy = a.Y + row;
    for (int x = x0; x < xb; x += W) {
      if constexpr (kNested) {
        const V xc = S::load(fx + x);
        V l{};
        static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
          l += w.cl[ax][k] * (S::load(fx + x + k * st) + S::load(fx + x - k * st));
        });
        if constexpr (ax == 0)
          S::store(lp + x, w.c0 * xc + l);
        else
          S::store(lp + x, S::load(lp + x) + l);
        continue;
      }
      if constexpr (ax == 0) __builtin_prefetch(a.a[0] + ahead + R * a.st[0] + x);
      if constexpr (ax == 1) __builtin_prefetch(a.a[1] + ahead + R * a.st[1] + x);
      if constexpr (ax == 2) __builtin_prefetch(a.a[2] + ahead + x);
      const V xc = S::load(fx + x), yc = S::load(fy + x), ac = S::load(aa + x);
      V wx{}, wy{}, l{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        const int64_t o = k * st;
        const V ap = ac + S::load(aa + x + o), am = S::load(aa + x - o) + ac;
        const V xp = S::load(fx + x + o), xm = S::load(fx + x - o);
        const V yp = S::load(fy + x + o), ym = S::load(fy + x - o);
        wx += w.w2[ax][k] * (ap * (xp - xc) - am * (xc - xm));
        wy += w.w2[ax][k] * (ap * (yp - yc) - am * (yc - ym));
        l += w.cl[ax][k] * (xp + xm);
      });
      if constexpr (ax == 0) {
        S::store(hx + x, T(0.5) * wx);
        S::store(hy + x, T(0.5) * wy);
        S::store(lp + x, w.c0 * xc + l);
      } else {
        S::store(hx + x, S::load(hx + x) + T(0.5) * wx);
        S::store(hy + x, S::load(hy + x) + T(0.5) * wy);
        S::store(lp + x, S::load(lp + x) + l);
      }
    }
  });
  // 2. The cross terms D1_a g_a of X, completing H_z X, of which H_0 X = lap X - H_z X goes to the
  // third row; of Y, completing H_z Y.
  static_for<0, 2>([&](auto f) SEISFD_UNROLLED {
    const T* gz[2 * RC + 1];
    for (int k = -RC; k <= RC; ++k) gz[RC + k] = g.row(f, 0, z + k, y);
    const T* const gy = g.row(f, 1, z, y);
    const T* const gx = g.row(f, 2, z, y);
    const int64_t sy = a.st[1];
    T* const h = f == 0 ? hx : hy;
    for (int x = x0; x < xb; x += W) {
      V dz{}, dy{}, dx{};
      static_for<1, RC + 1>([&](auto k) SEISFD_UNROLLED {
        dz += w.w1[0][k] * (S::load(gz[RC + k] + x) - S::load(gz[RC - k] + x));
        dy += w.w1[1][k] * (S::load(gy + x + k * sy) - S::load(gy + x - k * sy));
        dx += w.w1[2][k] * (S::load(gx + x + k) - S::load(gx + x - k));
      });
      V hzf = dz + (dy + dx);
      if constexpr (!kNested) hzf = S::load(h + x) + hzf;
      if constexpr (f == 0)
        S::store(lp + x, S::load(lp + x) - hzf);
      else
        S::store(h + x, hzf);
    }
  });
  // 3. The forces and the leapfrog of p and q.
  const PqRow<T> pq{a.E + row,  a.D + row,  a.V + row, a.pc + row,
                    a.qc + row, a.pn + row, a.qn + row};
  leapfrog_pq_row<T, kAdj, kTtiPrefetchRows>(acc[2], acc[1], pq, ab, ab + b_off, x0, xa, xb,
                                             a.st[1]);
}

// The y blocks of one update, each marched through z: pass 1 RR = RC planes (nested) or R planes
// (narrow) ahead of pass 2, through the block's ring.
template <class T, int R, int RC, bool kNested>
void tti_simd_blocks(const StepSpec& s, RowDamping<T>& damping,
                     const reference::AnisoWeights<T>& weights, const TtiArgs<T>& a, bool adjoint,
                     int target) {
  constexpr int RR = kNested ? RC : R;  // how far pass 2 reads the intermediates
  const Layout& l = s.layout;
  const TtiWeights<T, R> w(weights, s);
  const TtiVecWeights<T, R> vw(w);
  const int xa = s.begin[2], xb = s.end[2];
  const int stride = scratch_stride<T>(xa, xb);
  const int b_off = damping.b_offset();
  for_yz_blocks(
      s,
      [&](int y0, int y1, int za, int ze) {
        thread_local std::vector<T> buf;
        thread_local CrossRing<T> ring;
        thread_local std::vector<T> scratch;
        buf.resize(damping.buffer_size());
        T* const first = scratch_rows(scratch, 3, stride);
        T* const acc[3] = {first, first + stride, first + 2 * stride};
        const int y_lo = std::max(0, y0 - RR), y_hi = std::min(l.ny, y1 + RR);
        ring.reset(2 * RR + 1, y0 - RR, y1 - y0 + 2 * RR, l.sy);
        // The planes below the first updated one's leading plane, in increasing z (a plane above
        // a free surface is the mirror of one below it, which comes first: fill those last).
        for (int z = za - RR; z < za + RR; ++z)
          if (!(s.free_surface && z < s.surface))
            cross_plane<T, R, RC, kNested>(s, w, a, ring, z, y_lo, y_hi);
        for (int z = za - RR; z < za + RR && s.free_surface; ++z)
          if (z < s.surface) cross_plane<T, R, RC, kNested>(s, w, a, ring, z, y_lo, y_hi);
        for (int z = za; z < ze; ++z) {
          cross_plane<T, R, RC, kNested>(s, w, a, ring, z + RR, y_lo, y_hi);
          for (int y = y0; y < y1; ++y) {
            const T* ab = damping.row(z, y, buf.data());
            if (adjoint)
              update_row<T, R, RC, kNested, true>(vw, a, ring, z, y, l.idx(z, y, 0), xa, xb, ab,
                                                  b_off, acc);
            else
              update_row<T, R, RC, kNested, false>(vw, a, ring, z, y, l.idx(z, y, 0), xa, xb, ab,
                                                   b_off, acc);
          }
        }
      },
      target);
}

template <class T>
void tti_simd(const StepSpec& s, RowDamping<T>& damping, const reference::AnisoWeights<T>& weights,
              const reference::MediumCoefs<T>& c, bool adjoint, const T* X, const T* Y, const T* pc,
              const T* qc, T* pn, T* qn) {
  damping.prepare(vector_offset(X));
  const Layout& l = s.layout;
  TtiArgs<T> a{
      X, Y, pc, qc, pn, qn, c.E.data(), c.D.data(), c.vdt2.data(), {}, {}, {l.sz, l.sy, 1}};
  for (int ax = 0; ax < 3; ++ax) {
    a.n[ax] = c.n[ax].data();
    a.a[ax] = c.a[ax].data();
  }
  static BlockTuner tuner({kTtiBlockY, kTtiBlockY / 2, kTtiBlockY / 4});
  const int threads = omp_get_max_threads();
  const int target = tuner.pick(s, threads);
  const auto t0 = std::chrono::steady_clock::now();
  const bool nested = s.tti_operator == TtiOperator::kNested;
  if (!s.tti_operator_fits())
    throw std::invalid_argument("tti/o" + std::to_string(2 * s.radius) +
                                "/simd: the nested TTI operator needs an order divisible by 4");
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R % 2 == 0) {
      if (nested) {
        tti_simd_blocks<T, R, R / 2, true>(s, damping, weights, a, adjoint, target);
        return;
      }
    }
    tti_simd_blocks<T, R, R, false>(s, damping, weights, a, adjoint, target);
  });
  tuner.report(s, threads, target, seconds_since(t0));
}

}  // namespace seisfd::cpu
