// CPU reference of the pseudo-acoustic VTI/TTI update (kernels/anisotropy.hpp, DESIGN.md §4),
// templated on the real type. It shares only the FD weights with the kernels.
//
// Discretization. The rotated operator H_z = sum_ij d_i (n_i n_j d_j) is split into
//   diagonal terms   d_i (a_i d_i f),  a_i = n_i^2, as the symmetric narrow form
//       sum_k w_k [ (a_c + a_{c+k})/2 (f_{c+k} - f_c) - (a_{c-k} + a_c)/2 (f_c - f_{c-k}) ] / h^2
//     (w_k: the order-2R second-derivative weights; for constant a it is a times the plain
//     second-derivative stencil, exactly), and
//   cross terms      sum_{i != j} D1_i (n_i n_j D1_j f)  (D1: order-2R first derivative),
//     computed as g_i = n_i sum_{j != i} n_j t_j, t = D1 f, then sum_i D1_i g_i.
// Both are symmetric matrices (D1 is antisymmetric on the zero-extended grid), so H_z and
// H_0 = lap - H_z are self-adjoint, as DESIGN.md §4 asks. The split instead of the fully
// first-derivative form d_i(n_i (n . D1 f)) makes H_z exactly the narrow d_zz stencil when
// theta = 0, so TTI at theta = 0 is the VTI fast path (H_z = d_zz, H_0 = d_xx + d_yy) to
// rounding, and no spurious high-wavenumber z part is left in H_0. For a constant axis both
// pieces are negative semidefinite and lap - H_z is too (the narrow stencil's symbol bounds the
// squared first-derivative symbol), which is what stability needs.
//
// Update of one step, with C = (v dt)^2, g the sponge term:
//   forward (X = p, Y = q):  fp = E H_0 X + D H_z Y,  fq = D H_0 X + H_z Y
//   adjoint (X = E p~ + D q~, Y = D p~ + q~):  fp = H_0 X,  fq = H_z Y
//   next = (2 cur - (1 - g) prev + C f) / (1 + g)  for p and q.
// The adjoint is the transposed update (A^T = [[H_0 E, H_0 D], [H_z D, H_z]]) after the
// substitution eta = C mu of solver/operators.hpp.
//
// Free surface: p and q (and X, Y in adjoint mode) are odd mirrors above the surface row; the
// axis parameters in the mirror rows hold the reflected axis (n_x, n_y, -n_z), and the cross
// intermediates g are mirrored as a reflected medium gives them (g_x, g_y odd, g_z even, g_x =
// g_y = 0 on the surface row). Then H restricted to the odd fields is still symmetric.
#pragma once
#include <cmath>
#include <vector>

#include "kernels/reference/acoustic.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::reference {

template <class T>
struct AnisoWeights {
  LaplacianWeights<T> lap;
  T w2[3][kMaxRadius + 1] = {};  // w_k / h^2 per axis (z, y, x); index 0 unused
  T w1[3][kMaxRadius + 1] = {};  // b_k / h per axis
  explicit AnisoWeights(const StepSpec& s) : lap(s) {
    const auto a = second_derivative_weights(s.radius);
    const auto b = first_derivative_weights(s.radius);
    for (int ax = 0; ax < 3; ++ax)
      for (int k = 1; k <= s.radius; ++k) {
        w2[ax][k] = static_cast<T>(a[k] / (s.h[ax] * s.h[ax]));
        w1[ax][k] = static_cast<T>(b[k] / s.h[ax]);
      }
  }
};

// Per-cell pointwise parameters over the layout.
template <class T>
struct AnisoCoefs {
  std::vector<T> vdt2, E, D;
  std::vector<T> n[3];  // TTI: axis components (z, y, x); empty for VTI
  std::vector<T> a[3];  // TTI: n_i^2
};

inline int64_t axis_stride(const Layout& l, int ax) {
  return ax == 0 ? l.sz : ax == 1 ? l.sy : 1;
}
inline int axis_extent(const Layout& l, int ax) {
  return ax == 0 ? l.nz : ax == 1 ? l.ny : l.nx;
}

// Cross-term intermediates g[ax] of field f, over every cell of the layout (reads beyond the
// array are zero).
template <class T>
void cross_intermediates(const StepSpec& s, const AnisoWeights<T>& w, const AnisoCoefs<T>& c,
                         const T* f, T* g[3]) {
  const Layout& l = s.layout;
  const int R = s.radius;
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int at[3] = {z, y, x};
        const int64_t i = l.idx(z, y, x);
        T t[3];
        for (int ax = 0; ax < 3; ++ax) {
          const int64_t st = axis_stride(l, ax);
          const int n = axis_extent(l, ax);
          T acc = 0;
          for (int k = 1; k <= R; ++k) {
            const T fp = at[ax] + k < n ? f[i + k * st] : T(0);
            const T fm = at[ax] - k >= 0 ? f[i - k * st] : T(0);
            acc += w.w1[ax][k] * (fp - fm);
          }
          t[ax] = acc;
        }
        const T nz = c.n[0][i], ny = c.n[1][i], nx = c.n[2][i];
        // n_i sum_{j != i} n_j t_j, summed without the i term (no cancellation when n ~ e_i).
        g[0][i] = nz * (ny * t[1] + nx * t[2]);
        g[1][i] = ny * (nz * t[0] + nx * t[2]);
        g[2][i] = nx * (nz * t[0] + ny * t[1]);
      }
}

// The reflected-medium mirror of g above the free surface (see the header comment).
template <class T>
void mirror_intermediates(const StepSpec& s, T* g[3]) {
  const Layout& l = s.layout;
  for (int y = 0; y < l.ny; ++y)
    for (int x = 0; x < l.nx; ++x) {
      g[1][l.idx(s.surface, y, x)] = T(0);
      g[2][l.idx(s.surface, y, x)] = T(0);
      for (int k = 1; k <= s.radius; ++k) {
        const int64_t up = l.idx(s.surface - k, y, x), dn = l.idx(s.surface + k, y, x);
        g[0][up] = g[0][dn];
        g[1][up] = -g[1][dn];
        g[2][up] = -g[2][dn];
      }
    }
}

// d_ax (a d_ax f) at cell i, symmetric narrow form.
template <class T>
inline T weighted_second(const AnisoWeights<T>& w, int ax, int64_t st, int R, const T* a,
                         const T* f, int64_t i) {
  T acc = 0;
  const T fc = f[i], ac = a[i];
  for (int k = 1; k <= R; ++k) {
    const int64_t o = k * st;
    acc += w.w2[ax][k] * ((ac + a[i + o]) * (f[i + o] - fc) - (a[i - o] + ac) * (fc - f[i - o]));
  }
  return T(0.5) * acc;
}

// Horizontal (d_xx + d_yy) and vertical (d_zz) narrow second derivatives at cell i.
template <class T>
inline void vti_parts(const AnisoWeights<T>& w, const Layout& l, int R, const T* f, int64_t i,
                      T& h0, T& hz) {
  const T fc = f[i];
  T hx = 0, hy = 0, vz = 0;
  for (int k = 1; k <= R; ++k) {
    hx += w.w2[2][k] * (f[i + k] - T(2) * fc + f[i - k]);
    hy += w.w2[1][k] * (f[i + k * l.sy] - T(2) * fc + f[i - k * l.sy]);
    vz += w.w2[0][k] * (f[i + k * l.sz] - T(2) * fc + f[i - k * l.sz]);
  }
  h0 = hx + hy;
  hz = vz;
}

// H_z f at cell i for TTI, from the diagonal terms and the cross intermediates g.
template <class T>
inline T tti_hz(const AnisoWeights<T>& w, const Layout& l, int R, const AnisoCoefs<T>& c,
                const T* f, T* const g[3], int64_t i) {
  T acc = 0;
  for (int ax = 0; ax < 3; ++ax) {
    const int64_t st = axis_stride(l, ax);
    acc += weighted_second(w, ax, st, R, c.a[ax].data(), f, i);
    T d = 0;
    for (int k = 1; k <= R; ++k) d += w.w1[ax][k] * (g[ax][i + k * st] - g[ax][i - k * st]);
    acc += d;
  }
  return acc;
}

}  // namespace seisfd::reference
