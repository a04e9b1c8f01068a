// CPU reference of the pseudo-acoustic VTI/TTI update (kernels/medium.hpp, docs/physics.md §4),
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
// H_0 = lap - H_z are self-adjoint, as the adjoint needs (docs/physics.md §4, §7). The split
// instead of the fully first-derivative form d_i(n_i (n . D1 f)) makes H_z exactly the narrow d_zz
// stencil when theta = 0, so TTI at theta = 0 is the VTI fast path (H_z = d_zz, H_0 = d_xx + d_yy)
// to rounding, and no spurious high-wavenumber z part is left in H_0. For a constant axis both
// pieces are negative semidefinite and lap - H_z is too (the narrow stencil's symbol bounds the
// squared first-derivative symbol), which is what stability needs.
//
// Update of one step, with C = (v dt)^2, g the sponge term:
//   forward (X = p, Y = q):  fp = E H_0 X + D H_z Y,  fq = D H_0 X + H_z Y
//   adjoint (X = E p~ + D q~, Y = D p~ + q~):  fp = H_0 X,  fq = H_z Y
//   next = (2 cur - (1 - g) prev + C f) / (1 + g)  for p and q.
// The adjoint is the transposed update (A^T = [[H_0 E, H_0 D], [H_z D, H_z]]) after the
// substitution eta = C mu of kernels/propagation.hpp (apply_adjoint).
//
// The nested operator (StepSpec::tti_operator = kNested) writes every term, the diagonal ones too,
// as nested first derivatives: H_z f = sum_i D1_i g_i with g_i = n_i (n . D1 f), D1 now of order R
// (R/2 pairs), so that D1 D1 reaches R cells as the Laplacian does and a decomposed run's halo of
// R still holds every value read. It is symmetric for the same reason and negative semidefinite
// for a constant axis (its symbol -(n . k1)^2 with |k1|^2 bounded by the narrow Laplacian's),
// so H_0 = lap - H_z is too; at theta = 0 H_z is the wide D1_z D1_z rather than the narrow d_zz
// (the z Nyquist wavenumber is then seen by H_0 instead: Devito's centred TTI kernel, whose
// discretization this is, behaves the same). About a third of the narrow form's arithmetic.
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
  T w1[3][kMaxRadius + 1] = {};  // b_k / h per axis, the cross terms' (s.cross_radius() pairs)
  explicit AnisoWeights(const StepSpec& s) : lap(s) {
    const auto a = second_derivative_weights(s.radius);
    const auto b = first_derivative_weights(s.cross_radius());
    for (int ax = 0; ax < 3; ++ax) {
      for (int k = 1; k <= s.radius; ++k) w2[ax][k] = static_cast<T>(a[k] / (s.h[ax] * s.h[ax]));
      for (int k = 1; k <= s.cross_radius(); ++k) w1[ax][k] = static_cast<T>(b[k] / s.h[ax]);
    }
  }
};

// Per-cell pointwise parameters over the layout.
template <class T>
struct MediumCoefs {
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
// array are zero): n_a sum_{b != a} n_b t_b (narrow), n_a (n . t) (nested), t = D1 f.
template <class T>
void cross_intermediates(const StepSpec& s, const AnisoWeights<T>& w, const MediumCoefs<T>& c,
                         const T* f, T* const g[3]) {
  const Layout& l = s.layout;
  const int R = s.cross_radius();
  const bool nested = s.tti_operator == TtiOperator::kNested;
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
        if (nested) {
          const T along = nz * t[0] + ny * t[1] + nx * t[2];
          g[0][i] = nz * along;
          g[1][i] = ny * along;
          g[2][i] = nx * along;
          continue;
        }
        // n_i sum_{j != i} n_j t_j, summed without the i term (no cancellation when n ~ e_i).
        g[0][i] = nz * (ny * t[1] + nx * t[2]);
        g[1][i] = ny * (nz * t[0] + nx * t[2]);
        g[2][i] = nx * (nz * t[0] + ny * t[1]);
      }
}

// The reflected-medium mirror of g above the free surface (see the header comment).
template <class T>
void mirror_intermediates(const StepSpec& s, T* const g[3]) {
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

// H_z f at cell i for TTI, from the diagonal terms (narrow form only) and the cross
// intermediates g.
template <class T>
inline T tti_hz(const AnisoWeights<T>& w, const StepSpec& s, const MediumCoefs<T>& c, const T* f,
                T* const g[3], int64_t i) {
  T acc = 0;
  const int rc = s.cross_radius();
  for (int ax = 0; ax < 3; ++ax) {
    const int64_t st = axis_stride(s.layout, ax);
    if (s.tti_operator == TtiOperator::kNarrow)
      acc += weighted_second(w, ax, st, s.radius, c.a[ax].data(), f, i);
    T d = 0;
    for (int k = 1; k <= rc; ++k) d += w.w1[ax][k] * (g[ax][i + k * st] - g[ax][i - k * st]);
    acc += d;
  }
  return acc;
}

// One step of the p/q update (sponge included, CPML corrections outside), next overwriting
// prev in place: fp and fq from the fields the stencils act on (X, Y: p and q forward; the
// transposed fields of transposed_fields() in the adjoint), then the leapfrog for p and q.
// g[0..2] and g[3..5] receive the TTI cross intermediates of X and Y.
template <class T>
void aniso_update(const StepSpec& s, const AnisoWeights<T>& w, const MediumCoefs<T>& c, bool tti,
                  bool adjoint, const T* X, const T* Y, const T* pc, const T* qc, T* pn, T* qn,
                  T* const g[6]) {
  const Layout& l = s.layout;
  const int R = s.radius;
  T* const* gx = g;
  T* const* gy = g + 3;
  if (tti) {
    cross_intermediates(s, w, c, X, gx);
    cross_intermediates(s, w, c, Y, gy);
    if (s.free_surface) {
      mirror_intermediates(s, gx);
      mirror_intermediates(s, gy);
    }
  }
  const bool sponge = s.sponge_on();
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = s.begin[0]; z < s.end[0]; ++z)
    for (int y = s.begin[1]; y < s.end[1]; ++y)
      for (int x = s.begin[2]; x < s.end[2]; ++x) {
        const int64_t i = l.idx(z, y, x);
        T h0x, hzx, hzy;
        if (!tti) {
          T h0y;
          vti_parts(w, l, R, X, i, h0x, hzx);
          vti_parts(w, l, R, Y, i, h0y, hzy);
        } else {
          hzx = tti_hz(w, s, c, X, gx, i);
          hzy = tti_hz(w, s, c, Y, gy, i);
          h0x = laplacian_at(w.lap, l, R, X, i) - hzx;
        }
        T fp, fq;
        if (!adjoint) {
          fp = c.E[i] * h0x + c.D[i] * hzy;
          fq = c.D[i] * h0x + hzy;
        } else {
          fp = h0x;
          fq = hzy;
        }
        const T v = c.vdt2[i];
        if (!sponge) {
          pn[i] = T(2) * pc[i] - pn[i] + v * fp;
          qn[i] = T(2) * qc[i] - qn[i] + v * fq;
        } else {
          const T gs = static_cast<T>(sponge_g(s.sponge, z, y, x));
          pn[i] = (T(2) * pc[i] - (T(1) - gs) * pn[i] + v * fp) / (T(1) + gs);
          qn[i] = (T(2) * qc[i] - (T(1) - gs) * qn[i] + v * fq) / (T(1) + gs);
        }
      }
}

// The adjoint's stencil fields X = E p + D q and Y = D p + q over the whole layout (the halo
// too, which the stencils read: zero at the grid's edges, where p and q are, and a decomposed
// run's neighbours' cells between ranks), mirrored above a free surface.
template <class T>
void transposed_fields(const StepSpec& s, const MediumCoefs<T>& c, const T* p, const T* q, T* X,
                       T* Y) {
  const Layout& l = s.layout;
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int64_t i = l.idx(z, y, x);
        X[i] = c.E[i] * p[i] + c.D[i] * q[i];
        Y[i] = c.D[i] * p[i] + q[i];
      }
  if (s.free_surface) {
    free_surface_mirror(s, X);
    free_surface_mirror(s, Y);
  }
}

}  // namespace seisfd::reference
