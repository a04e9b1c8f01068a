// The CPU backend's fast acoustic update (variant acoustic/oN/blocked): the discrete update of
// kernels/reference/acoustic.hpp,
//   next = (2 cur - (1 - g) prev + C lap cur) / (1 + g),   C = (v dt)^2,
// traversed and vectorised as kernels/cpu/blocked.hpp describes. `next` may alias `prev` (each
// cell reads prev only at itself; the loops carry no dependence).
#pragma once
#include <cstdint>

#include "kernels/cpu/blocked.hpp"
#include "kernels/reference/acoustic.hpp"

namespace seisfd::cpu {

template <class T, int R>
struct Weights {
  T c0, cz[R + 1], cy[R + 1], cx[R + 1];
  explicit Weights(const StepSpec& s) {
    const reference::LaplacianWeights<T> w(s);
    c0 = w.c0;
    for (int k = 0; k <= R; ++k) {
      cz[k] = w.c[0][k];
      cy[k] = w.c[1][k];
      cx[k] = w.c[2][k];
    }
  }
};

// The Laplacian at c[x] (c: a row's first cell), summed as the reference sums it.
template <class T, int R>
SEISFD_CPU_INLINE T laplacian(const Weights<T, R>& w, const T* __restrict c, int x, int64_t sz,
                              int64_t sy) {
  T lap = w.c0 * c[x];
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) {
    lap += w.cz[k] * (c[x + k * sz] + c[x - k * sz]);
    lap += w.cy[k] * (c[x + k * sy] + c[x - k * sy]);
    lap += w.cx[k] * (c[x + k] + c[x - k]);
  }
  return lap;
}

template <class T>
void acoustic_blocked(const StepSpec& s, const SpongeTables* sponge, const T* prev,
                      const T* __restrict cur, T* next, const T* __restrict vdt2) {
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const Weights<T, R> w(s);
    const int64_t sz = s.layout.sz, sy = s.layout.sy;
    const double* gx = sponge ? sponge->g[2].data() : nullptr;
    for_rows(
        s, sponge,
        [&](int64_t row, int a, int b) {
          const T* c = cur + row;
          const T* p = prev + row;
          const T* v = vdt2 + row;
          T* n = next + row;
#pragma omp simd
          for (int x = a; x < b; ++x)
            n[x] = T(2) * c[x] - p[x] + v[x] * laplacian<T, R>(w, c, x, sz, sy);
        },
        [&](int64_t row, int a, int b, double gzy) {
          const T* c = cur + row;
          const T* p = prev + row;
          const T* v = vdt2 + row;
          T* n = next + row;
#pragma omp simd
          for (int x = a; x < b; ++x) {
            const T g = static_cast<T>(gzy + gx[x]);
            n[x] = (T(2) * c[x] - (T(1) - g) * p[x] + v[x] * laplacian<T, R>(w, c, x, sz, sy)) /
                   (T(1) + g);
          }
        });
  });
}

}  // namespace seisfd::cpu
