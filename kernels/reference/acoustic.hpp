// CPU reference of the constant-density acoustic update (docs/physics.md §2), written directly from
// the equations, templated on the real type. It shares only the FD weights with the kernels.
//   next = (2 cur - (1 - g) prev + (v dt)^2 L_h cur) / (1 + g),   g = dt/2 eta (sponge)
// `next` may alias `prev` (each cell reads prev only at itself).
#pragma once
#include <cmath>
#include <vector>

#include "kernels/step_spec.hpp"

namespace seisfd::reference {

template <class T>
struct LaplacianWeights {
  T c0 = 0;                     // sum of the three centre weights
  T c[3][kMaxRadius + 1] = {};  // per axis (z, y, x): a_k / h^2
  explicit LaplacianWeights(const StepSpec& s) {
    const auto a = second_derivative_weights(s.radius);
    double centre = 0;
    for (int ax = 0; ax < 3; ++ax) {
      const double inv_h2 = 1.0 / (s.h[ax] * s.h[ax]);
      centre += a[0] * inv_h2;
      for (int k = 1; k <= s.radius; ++k) c[ax][k] = static_cast<T>(a[k] * inv_h2);
    }
    c0 = static_cast<T>(centre);
  }
};

template <class T>
inline T laplacian_at(const LaplacianWeights<T>& w, const Layout& l, int radius, const T* f,
                      int64_t i) {
  T lap = w.c0 * f[i];
  for (int k = 1; k <= radius; ++k) {
    lap += w.c[0][k] * (f[i + k * l.sz] + f[i - k * l.sz]);
    lap += w.c[1][k] * (f[i + k * l.sy] + f[i - k * l.sy]);
    lap += w.c[2][k] * (f[i + k] + f[i - k]);
  }
  return lap;
}

template <class T>
void acoustic_step(const StepSpec& s, const T* prev, const T* cur, T* next, const T* vdt2) {
  const LaplacianWeights<T> w(s);
  const Layout& l = s.layout;
  const bool sponge = s.sponge_on();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = s.begin[0]; z < s.end[0]; ++z) {
    for (int y = s.begin[1]; y < s.end[1]; ++y) {
      for (int x = s.begin[2]; x < s.end[2]; ++x) {
        const int64_t i = l.idx(z, y, x);
        const T lap = laplacian_at(w, l, s.radius, cur, i);
        if (!sponge) {
          next[i] = T(2) * cur[i] - prev[i] + vdt2[i] * lap;
        } else {
          const T g = static_cast<T>(sponge_g(s.sponge, z, y, x));
          next[i] = (T(2) * cur[i] - (T(1) - g) * prev[i] + vdt2[i] * lap) / (T(1) + g);
        }
      }
    }
  }
}

// Pressure release at z = surface: the surface row is zero and the R rows above it hold the
// odd mirror image of the R rows below, so the stencil sees p(-z) = -p(z).
template <class T>
void free_surface_mirror(const StepSpec& s, T* f) {
  const Layout& l = s.layout;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < l.ny; ++y) {
    for (int x = 0; x < l.nx; ++x) {
      f[l.idx(s.surface, y, x)] = T(0);
      for (int k = 1; k <= s.radius; ++k)
        f[l.idx(s.surface - k, y, x)] = -f[l.idx(s.surface + k, y, x)];
    }
  }
}

}  // namespace seisfd::reference
