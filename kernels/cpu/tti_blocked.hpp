// The CPU backend's fast TTI update (variant tti/oN/blocked): the discrete update of
// kernels/reference/anisotropic.hpp for tti = true, in its two passes:
//   1. the cross intermediates g_a = n_a sum_{b != a} n_b D1_b f of X and of Y over every cell
//      of the layout (zero beyond the array): the cells at least R from every face in
//      vectorised rows, the shell of width R cell by cell with the bounds checks; mirrored
//      above a free surface as the reference mirrors them;
//   2. H_z of X and Y (the narrow diagonal terms d_a (n_a^2 d_a f) plus the divergence of g),
//      H_0 X = lap X - H_z X, the forward or adjoint forces and the leapfrog of p and q, over
//      the updated region, traversed as kernels/cpu/blocked.hpp describes.
// Both passes sum in the reference's order. pn, qn may alias the previous levels.
#pragma once
#include <cstdint>

#include "kernels/cpu/acoustic_blocked.hpp"
#include "kernels/cpu/blocked.hpp"
#include "kernels/reference/anisotropic.hpp"

namespace seisfd::cpu {

template <class T, int R>
struct TtiWeights {
  T w1[3][R + 1], w2[3][R + 1];
  Weights<T, R> lap;
  TtiWeights(const reference::AnisoWeights<T>& w, const StepSpec& s) : lap(s) {
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k <= R; ++k) {
        w1[a][k] = w.w1[a][k];
        w2[a][k] = w.w2[a][k];
      }
  }
};

// g of field f at cell x of a row whose cells all have their +-R neighbours in the array.
template <class T, int R>
SEISFD_CPU_INLINE void cross_at(const TtiWeights<T, R>& w, const T* __restrict f,
                                const T* __restrict nz, const T* __restrict ny,
                                const T* __restrict nx, int x, int64_t sz, int64_t sy, T& g0, T& g1,
                                T& g2) {
  T t0 = 0, t1 = 0, t2 = 0;
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) t0 += w.w1[0][k] * (f[x + k * sz] - f[x - k * sz]);
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) t1 += w.w1[1][k] * (f[x + k * sy] - f[x - k * sy]);
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) t2 += w.w1[2][k] * (f[x + k] - f[x - k]);
  g0 = nz[x] * (ny[x] * t1 + nx[x] * t2);
  g1 = ny[x] * (nz[x] * t0 + nx[x] * t2);
  g2 = nx[x] * (nz[x] * t0 + ny[x] * t1);
}

// The same at any cell, reads beyond the array taken as zero (the shell of width R).
template <class T, int R>
inline void cross_at_checked(const TtiWeights<T, R>& w, const Layout& l, const T* f,
                             const reference::MediumCoefs<T>& c, int z, int y, int x,
                             T* const g[3]) {
  const int at[3] = {z, y, x};
  const int n[3] = {l.nz, l.ny, l.nx};
  const int64_t st[3] = {l.sz, l.sy, 1};
  const int64_t i = l.idx(z, y, x);
  T t[3];
  for (int a = 0; a < 3; ++a) {
    T acc = 0;
    for (int k = 1; k <= R; ++k) {
      const T fp = at[a] + k < n[a] ? f[i + k * st[a]] : T(0);
      const T fm = at[a] - k >= 0 ? f[i - k * st[a]] : T(0);
      acc += w.w1[a][k] * (fp - fm);
    }
    t[a] = acc;
  }
  const T nzv = c.n[0][i], nyv = c.n[1][i], nxv = c.n[2][i];
  g[0][i] = nzv * (nyv * t[1] + nxv * t[2]);
  g[1][i] = nyv * (nzv * t[0] + nxv * t[2]);
  g[2][i] = nxv * (nzv * t[0] + nyv * t[1]);
}

template <class T, int R>
void cross_blocked(const StepSpec& s, const TtiWeights<T, R>& w, const reference::MediumCoefs<T>& c,
                   const T* f, T* const g[3]) {
  const Layout& l = s.layout;
  // The inner box through the blocked traversal (no damping: the sponge tables are not used).
  StepSpec inner = s;
  for (int a = 0; a < 3; ++a) {
    const int n = a == 0 ? l.nz : a == 1 ? l.ny : l.nx;
    inner.begin[a] = R;
    inner.end[a] = std::max(R, n - R);
  }
  inner.sponge.damp[0] = inner.sponge.damp[1] = inner.sponge.damp[2] = 0;
  const T *nz = c.n[0].data(), *ny = c.n[1].data(), *nx = c.n[2].data();
  auto rows = [&](int64_t row, int a, int b) {
    const T* fr = f + row;
    const T *zr = nz + row, *yr = ny + row, *xr = nx + row;
    T *g0 = g[0] + row, *g1 = g[1] + row, *g2 = g[2] + row;
#pragma omp simd
    for (int x = a; x < b; ++x)
      cross_at<T, R>(w, fr, zr, yr, xr, x, l.sz, l.sy, g0[x], g1[x], g2[x]);
  };
  for_rows(inner, nullptr, rows, [](int64_t, int, int, double) {});
  // The shell: every cell with a coordinate within R of a face.
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y) {
      const bool edge_row = z < R || z >= l.nz - R || y < R || y >= l.ny - R;
      // A row of the inner box has its first and last R cells in the shell; an edge row all.
      const int skip_from = edge_row ? l.nx : std::min(R, l.nx);
      const int skip_to = edge_row ? l.nx : std::max(skip_from, l.nx - R);
      for (int x = 0; x < skip_from; ++x) cross_at_checked<T, R>(w, l, f, c, z, y, x, g);
      for (int x = skip_to; x < l.nx; ++x) cross_at_checked<T, R>(w, l, f, c, z, y, x, g);
    }
}

// H_z f at cell x of a row (pointers at the row's first cell; ga: g of f), as reference::tti_hz.
template <class T, int R>
SEISFD_CPU_INLINE T hz_at(const TtiWeights<T, R>& w, const T* __restrict f,
                          const T* const* __restrict a, const T* const* __restrict ga, int x,
                          const int64_t st[3]) {
  T acc = 0;
#pragma GCC unroll 3
  for (int ax = 0; ax < 3; ++ax) {
    const int64_t s_ = st[ax];
    const T* aa = a[ax];
    const T fc = f[x], ac = aa[x];
    T ws = 0;
#pragma GCC unroll 16
    for (int k = 1; k <= R; ++k) {
      const int64_t o = k * s_;
      ws += w.w2[ax][k] * ((ac + aa[x + o]) * (f[x + o] - fc) - (aa[x - o] + ac) * (fc - f[x - o]));
    }
    acc += T(0.5) * ws;
    const T* gg = ga[ax];
    T d = 0;
#pragma GCC unroll 16
    for (int k = 1; k <= R; ++k) d += w.w1[ax][k] * (gg[x + k * s_] - gg[x - k * s_]);
    acc += d;
  }
  return acc;
}

template <class T>
void tti_blocked(const StepSpec& s, const SpongeTables* sponge,
                 const reference::AnisoWeights<T>& weights, const reference::MediumCoefs<T>& c,
                 bool adjoint, const T* X, const T* Y, const T* pc, const T* qc, T* pn, T* qn,
                 T* const g[6]) {
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const TtiWeights<T, R> w(weights, s);
    T* const* gx = g;
    T* const* gy = g + 3;
    cross_blocked<T, R>(s, w, c, X, gx);
    cross_blocked<T, R>(s, w, c, Y, gy);
    if (s.free_surface) {
      reference::mirror_intermediates(s, gx);
      reference::mirror_intermediates(s, gy);
    }
    const Layout& l = s.layout;
    const int64_t st[3] = {l.sz, l.sy, 1};
    const double* gtab = sponge ? sponge->g[2].data() : nullptr;
    const T *E = c.E.data(), *D = c.D.data(), *V = c.vdt2.data();
    auto run = [&](auto adj, auto damp) {
      constexpr bool kAdj = decltype(adj)::value;
      constexpr bool kDamp = decltype(damp)::value;
      return [&, st](int64_t row, int a, int b, double gzy = 0.0) {
        const T *x_ = X + row, *y_ = Y + row;
        const T* ar[3] = {c.a[0].data() + row, c.a[1].data() + row, c.a[2].data() + row};
        const T* gxr[3] = {gx[0] + row, gx[1] + row, gx[2] + row};
        const T* gyr[3] = {gy[0] + row, gy[1] + row, gy[2] + row};
        const T *e = E + row, *d = D + row, *v = V + row, *p = pc + row, *q = qc + row;
        T *np = pn + row, *nq = qn + row;
#pragma omp simd
        for (int x = a; x < b; ++x) {
          const T hzx = hz_at<T, R>(w, x_, ar, gxr, x, st);
          const T hzy = hz_at<T, R>(w, y_, ar, gyr, x, st);
          const T h0x = laplacian<T, R>(w.lap, x_, x, st[0], st[1]) - hzx;
          T fp, fq;
          if constexpr (kAdj) {
            fp = h0x;
            fq = hzy;
          } else {
            fp = e[x] * h0x + d[x] * hzy;
            fq = d[x] * h0x + hzy;
          }
          if constexpr (!kDamp) {
            np[x] = T(2) * p[x] - np[x] + v[x] * fp;
            nq[x] = T(2) * q[x] - nq[x] + v[x] * fq;
          } else {
            const T gs = static_cast<T>(gzy + gtab[x]);
            np[x] = (T(2) * p[x] - (T(1) - gs) * np[x] + v[x] * fp) / (T(1) + gs);
            nq[x] = (T(2) * q[x] - (T(1) - gs) * nq[x] + v[x] * fq) / (T(1) + gs);
          }
        }
      };
    };
    if (adjoint)
      for_rows(s, sponge, run(std::true_type{}, std::false_type{}),
               run(std::true_type{}, std::true_type{}));
    else
      for_rows(s, sponge, run(std::false_type{}, std::false_type{}),
               run(std::false_type{}, std::true_type{}));
  });
}

}  // namespace seisfd::cpu
