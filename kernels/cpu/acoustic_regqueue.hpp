// The CPU backend's register-queue acoustic update (variant acoustic/oN/regqueue): the discrete
// update of kernels/reference/acoustic.hpp,
//   next = (2 cur - (1 - g) prev + C lap cur) / (1 + g),   C = (v dt)^2,
// computed as A (2 cur - B prev + C lap cur) with the row tables of kernels/cpu/zmarch.hpp, in
// explicit vectors (kernels/cpu/simd.hpp), traversed as zmarch.hpp describes. Per vector
// of x cells and kZPlanes planes at once:
//   - the z column of cur (kZPlanes + 2R vectors) is loaded once and serves the z stencils of
//     all kZPlanes outputs (a register queue as the GPU kernels' in z);
//   - the x neighbours are lane shifts of the aligned vectors at x - W, x, x + W (one new load
//     a vector, where unaligned loads would split a cache line 2R times);
//   - the three axes accumulate separately (three dependency chains, not one of 3R steps);
//   - the rows PD ahead of the planes that first come from memory are prefetched (the hardware
//     prefetchers follow a few streams; a tile's pass reads 3 kZPlanes of them).
// FMA contraction is on for this kernel's file (kernels/CMakeLists.txt): it differs from the
// reference by rounding (tests: 1e-5 in fp32 after 500 steps). `next` may alias `prev` (each
// cell reads prev only at itself).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/simd.hpp"
#include "kernels/cpu/zmarch.hpp"

namespace seisfd::cpu {

// Planes a pass updates together. Measured in a stand-alone copy of this loop (2 cores of an
// AMD EPYC, order 8, 209^3 cells, 16-row y blocks, Gcells/s, best of 4): 1 plane 2.3, 2 planes
// 2.8, 4 planes 2.4-2.9, 8 planes 1.8 (register spills).
inline constexpr int kZPlanes = 2;
// Rows ahead that the prefetches reach. Measured as above (4 planes): none 2.5, 1 row 2.2-2.4,
// 2 rows 2.8-2.9, 4 rows 2.6-2.7, 8 rows 2.3.
inline constexpr int kPrefetchRows = 2;

template <class T>
struct AcousticArgs {
  const T* cur;
  const T* prev;
  T* next;
  const T* vdt2;
  int64_t sz, sy;
};

// kZ planes from row (z, y) (index `row`), x cells [xa, xb); ab: the damping tables of the kZ
// rows (A at [x], B at [x + b_off]).
template <class T, int R, int kZ>
SEISFD_CPU_INLINE void acoustic_rows(const Weights<T, R>& w, const AcousticArgs<T>& a, int64_t row,
                                     int xa, int xb, const T* const* ab, int b_off) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.sz, sy = a.sy;
  const T* const c = a.cur + row;
  const int x0 = xa - vector_offset(c + xa);
  V lo[kZ], mid[kZ];
  static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
    lo[u] = S::load(c + u * sz + x0 - W);
    mid[u] = S::load(c + u * sz + x0);
  });
  for (int x = x0; x < xb; x += W) {
    V q[kZ + 2 * R];
    static_for<0, kZ + 2 * R>([&](auto j) SEISFD_UNROLLED {
      if constexpr (j >= R && j < R + kZ)
        q[j] = mid[j - R];
      else
        q[j] = S::load(c + x + (j - R) * sz);
    });
    static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
      const T* cu = c + u * sz;
      const V hi = S::load(cu + x + W);
      __builtin_prefetch(cu + x + R * sz + kPrefetchRows * sy);
      __builtin_prefetch(a.prev + row + u * sz + x + kPrefetchRows * sy);
      __builtin_prefetch(a.vdt2 + row + u * sz + x + kPrefetchRows * sy);
      V lz = w.c0 * q[u + R], ly = V{}, lx = V{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        lz += w.cz[k] * (q[u + R + k] + q[u + R - k]);
        ly += w.cy[k] * (S::load(cu + x + k * sy) + S::load(cu + x - k * sy));
        lx += w.cx[k] *
              (S::template window<k>(mid[u], hi) + S::template window<W - k>(lo[u], mid[u]));
      });
      const V lap = lz + (ly + lx);
      const int64_t i = row + u * sz + x;
      const V r =
          S::load(ab[u] + x) * (T(2) * q[u + R] - S::load(ab[u] + b_off + x) * S::load(a.prev + i) +
                                S::load(a.vdt2 + i) * lap);
      S::store_range(a.next + i, r, x, xa, xb);
      lo[u] = mid[u];
      mid[u] = hi;
    });
  }
}

template <class T>
void acoustic_regqueue(const StepSpec& s, RowDamping<T>& damping, const T* prev,
                       const T* __restrict cur, T* next, const T* __restrict vdt2) {
  damping.prepare(vector_offset(cur));
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const Weights<T, R> w(s);
    const AcousticArgs<T> a{cur, prev, next, vdt2, s.layout.sz, s.layout.sy};
    const int za = s.begin[0], ze = s.end[0], xa = s.begin[2], xb = s.end[2];
    const int b_off = damping.b_offset();
    for_y_blocks(s, [&](int y0, int y1) {
      thread_local std::vector<T> buf;
      buf.resize(static_cast<size_t>(kZPlanes) * damping.buffer_size());
      int z = za;
      for (; z + kZPlanes <= ze; z += kZPlanes)
        for (int y = y0; y < y1; ++y) {
          const T* ab[kZPlanes];
          for (int u = 0; u < kZPlanes; ++u)
            ab[u] = damping.row(z + u, y, buf.data() + u * damping.buffer_size());
          acoustic_rows<T, R, kZPlanes>(w, a, s.layout.idx(z, y, 0), xa, xb, ab, b_off);
        }
      for (; z < ze; ++z)
        for (int y = y0; y < y1; ++y) {
          const T* ab[1] = {damping.row(z, y, buf.data())};
          acoustic_rows<T, R, 1>(w, a, s.layout.idx(z, y, 0), xa, xb, ab, b_off);
        }
    });
  });
}

}  // namespace seisfd::cpu
