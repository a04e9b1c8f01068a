// The CPU backend's register-queue acoustic update (variant acoustic/oN/regqueue): the discrete
// update of kernels/reference/acoustic.hpp,
//   next = (2 cur - (1 - g) prev + C lap cur) / (1 + g),   C = (v dt)^2,
// computed as A (2 cur - B prev + C lap cur) with the row tables of kernels/cpu/zmarch.hpp, in
// explicit vectors (kernels/cpu/simd.hpp), traversed as zmarch.hpp describes. kZPlanes rows (same
// y, consecutive z) at a time, in two sweeps along x through a scratch row per plane that stays in
// the L1 cache:
//   1. z: the z column of cur (kZPlanes + 2R vectors) is loaded once and serves the z stencils of
//      all kZPlanes rows (a register queue as the GPU kernels' in z); the c0 and z terms to the
//      scratch;
//   2. a plane at a time, y and x and the update: the x neighbours are lane shifts of the aligned
//      vectors at x - W, x, x + W (one new load a vector, where unaligned loads would split a
//      cache line 2R times).
// One sweep doing all of it (as this kernel did first) needs some 25 row pointers at once, and
// x86-64 has 16 general registers: GCC kept most of them, and the weights, on the stack and
// reloaded them every vector; the sweeps need about half as many (bench/NOTES.md).
// The rows kPrefetchRows ahead of those that first come from memory (cur's leading planes in
// sweep 1, prev and C in sweep 2) are prefetched: the hardware prefetchers follow a few streams.
// FMA contraction is on for this kernel's file (kernels/CMakeLists.txt): it differs from the
// reference by rounding (tests: 1e-5 in fp32 after 500 steps). `next` may alias `prev` (each
// cell reads prev only at itself).
#pragma once
#include <chrono>
#include <cstdint>
#include <iterator>
#include <vector>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/simd.hpp"
#include "kernels/cpu/zmarch.hpp"
#include "kernels/wall_clock.hpp"

namespace seisfd::cpu {

// Planes a pass updates together. Measured in a stand-alone copy of the one-sweep loop (2 cores
// of an AMD EPYC with AVX-512, order 8, 209^3 cells, 16-row y blocks, Gcells/s, best of 4): 1
// plane 2.3, 2 planes 2.8, 4 planes 2.4-2.9, 8 planes 1.8 (register spills); with the sweeps on 2
// cores of an AVX2 AMD EPYC (`seisfd bench`, 161^3 + sponge 20): 1 plane 1.49, 2 planes
// 1.53-1.55, 4 planes 1.34-1.37 (three sweeps, y apart).
inline constexpr int kZPlanes = 2;
// Rows ahead that the prefetches reach. Measured as above (4 planes): none 2.5, 1 row 2.2-2.4,
// 2 rows 2.8-2.9, 4 rows 2.6-2.7, 8 rows 2.3.
inline constexpr int kPrefetchRows = 2;

// The weights as whole vectors (each lane the same value), kept in memory: the FMAs read them as
// memory operands where no register is free.
template <class T, int R>
struct VecWeights {
  using V = typename Simd<T>::V;
  V c0, cz[R + 1], cy[R + 1], cx[R + 1];
  explicit VecWeights(const Weights<T, R>& w) {
    c0 = Simd<T>::broadcast(w.c0);
    for (int k = 0; k <= R; ++k) {
      cz[k] = Simd<T>::broadcast(w.cz[k]);
      cy[k] = Simd<T>::broadcast(w.cy[k]);
      cx[k] = Simd<T>::broadcast(w.cx[k]);
    }
  }
};

template <class T>
struct AcousticArgs {
  const T* cur;
  const T* prev;
  T* next;
  const T* vdt2;
  int64_t sz, sy;
};

// kZ rows from row (z, y) (index `row`), x cells [xa, xb), in the two sweeps of the header; ab:
// the damping tables of the kZ rows (A at [x], B at [x + b_off]); acc: kZ scratch rows, aligned
// to a vector, holding element x - x0 (x0: xa rounded down to the fields' vector).
template <class T, int R, int kZ>
SEISFD_CPU_INLINE void acoustic_rows(const VecWeights<T, R>& w, const AcousticArgs<T>& a,
                                     int64_t row, int xa, int xb, const T* const* ab, int b_off,
                                     T* const* acc) {
  using S = Simd<T>;
  using V = typename S::V;
  constexpr int W = S::kLanes;
  const int64_t sz = a.sz, sy = a.sy;
  const T* const c = a.cur + row;
  const int x0 = xa - vector_offset(c + xa);
  for (int x = x0; x < xb; x += W) {
    V q[kZ + 2 * R];
    static_for<0, kZ + 2 * R>([&](auto j)
                                  SEISFD_UNROLLED { q[j] = S::load(c + x + (j - R) * sz); });
    static_for<0, kZ>([&](auto u) SEISFD_UNROLLED {
      __builtin_prefetch(c + x + (u + R) * sz + kPrefetchRows * sy);
      V lz = w.c0 * q[u + R];
      static_for<1, R + 1>([&](auto k)
                               SEISFD_UNROLLED { lz += w.cz[k] * (q[u + R + k] + q[u + R - k]); });
      S::store(acc[u] + (x - x0), lz);
    });
  }
  for (int u = 0; u < kZ; ++u) {
    const T* cu = c + u * sz;
    const T* au = acc[u] - x0;
    const T* A = ab[u];
    const T* B = ab[u] + b_off;
    const T* pv = a.prev + row + u * sz;
    const T* vd = a.vdt2 + row + u * sz;
    T* nx = a.next + row + u * sz;
    V lo = S::load(cu + x0 - W), mid = S::load(cu + x0);
    for (int x = x0; x < xb; x += W) {
      const V hi = S::load(cu + x + W);
      __builtin_prefetch(pv + x + kPrefetchRows * sy);
      __builtin_prefetch(vd + x + kPrefetchRows * sy);
      V lx = S::load(au + x), ly = V{};
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        ly += w.cy[k] * (S::load(cu + x + k * sy) + S::load(cu + x - k * sy));
      });
      lx += ly;
      static_for<1, R + 1>([&](auto k) SEISFD_UNROLLED {
        lx += w.cx[k] * (S::template window<k>(mid, hi) + S::template window<W - k>(lo, mid));
      });
      const V r =
          S::load(A + x) * (T(2) * mid - S::load(B + x) * S::load(pv + x) + S::load(vd + x) * lx);
      S::store_range(nx + x, r, x, xa, xb);
      lo = mid;
      mid = hi;
    }
  }
}

// Rows per y block: candidates for BlockTuner (zmarch.hpp), the first the default. Measured on 2
// cores of an AVX2 AMD EPYC (`seisfd bench`, order 8, + sponge 20, Gcells/s; three sweeps, y
// apart): at 161^3 16 rows 1.47-1.50, 32 rows 1.55, 64 rows 1.47-1.50; at 256^3 1.31-1.32, 1.37,
// 1.51-1.53.
inline constexpr int kAcousticBlockY[] = {kTargetBlockY, 2 * kTargetBlockY, kTargetBlockY / 2};

template <class T>
void acoustic_regqueue(const StepSpec& s, RowDamping<T>& damping, const T* prev,
                       const T* __restrict cur, T* next, const T* __restrict vdt2) {
  damping.prepare(vector_offset(cur));
  static BlockTuner tuner({std::begin(kAcousticBlockY), std::end(kAcousticBlockY)});
  const int threads = omp_get_max_threads();
  const int target = tuner.pick(s, threads);
  const auto t0 = std::chrono::steady_clock::now();
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const VecWeights<T, R> w{Weights<T, R>(s)};
    const AcousticArgs<T> a{cur, prev, next, vdt2, s.layout.sz, s.layout.sy};
    const int xa = s.begin[2], xb = s.end[2];
    const int b_off = damping.b_offset();
    const int acc_stride = scratch_stride<T>(xa, xb);
    for_yz_blocks(
        s,
        [&](int y0, int y1, int za, int ze) {
          thread_local std::vector<T> buf, scratch;
          buf.resize(static_cast<size_t>(kZPlanes) * damping.buffer_size());
          T* const first = scratch_rows(scratch, kZPlanes, acc_stride);
          T* acc[kZPlanes];
          for (int u = 0; u < kZPlanes; ++u) acc[u] = first + u * acc_stride;
          int z = za;
          for (; z + kZPlanes <= ze; z += kZPlanes)
            for (int y = y0; y < y1; ++y) {
              const T* ab[kZPlanes];
              for (int u = 0; u < kZPlanes; ++u)
                ab[u] = damping.row(z + u, y, buf.data() + u * damping.buffer_size());
              acoustic_rows<T, R, kZPlanes>(w, a, s.layout.idx(z, y, 0), xa, xb, ab, b_off, acc);
            }
          for (; z < ze; ++z)
            for (int y = y0; y < y1; ++y) {
              const T* ab[1] = {damping.row(z, y, buf.data())};
              acoustic_rows<T, R, 1>(w, a, s.layout.idx(z, y, 0), xa, xb, ab, b_off, acc);
            }
        },
        target);
  });
  tuner.report(s, threads, target, seconds_since(t0));
}

}  // namespace seisfd::cpu
