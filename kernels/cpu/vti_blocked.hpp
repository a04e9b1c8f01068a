// The CPU backend's fast VTI update (variant vti/oN/blocked): the discrete update of
// kernels/reference/anisotropic.hpp for tti = false,
//   forward:  fp = E H_0 X + D H_z Y,  fq = D H_0 X + H_z Y   (X = p, Y = q)
//   adjoint:  fp = H_0 X,  fq = H_z Y   (X = E p + D q, Y = D p + q: the engine's scratch)
//   next = (2 cur - (1 - g) prev + C f) / (1 + g)  for p and q,
// with H_0 = d_xx + d_yy of X and H_z = d_zz of Y only (the reference computes both parts of
// both fields and keeps these), traversed and vectorised as kernels/cpu/blocked.hpp describes.
// pn, qn may alias the previous levels they overwrite.
#pragma once
#include <cstdint>

#include "kernels/cpu/blocked.hpp"
#include "kernels/reference/anisotropic.hpp"

namespace seisfd::cpu {

template <class T, int R>
struct VtiWeights {
  T wz[R + 1], wy[R + 1], wx[R + 1];
  explicit VtiWeights(const reference::AnisoWeights<T>& w) {
    for (int k = 0; k <= R; ++k) {
      wz[k] = w.w2[0][k];
      wy[k] = w.w2[1][k];
      wx[k] = w.w2[2][k];
    }
  }
};

// fp and fq at cell x of a row (pointers at the row's first cell).
template <class T, int R, bool kAdjoint>
SEISFD_CPU_INLINE void vti_forces(const VtiWeights<T, R>& w, const T* __restrict X,
                                  const T* __restrict Y, const T* __restrict E,
                                  const T* __restrict D, int x, int64_t sz, int64_t sy, T& fp,
                                  T& fq) {
  const T xc = X[x], yc = Y[x];
  T hx = 0, hy = 0, vz = 0;
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) {
    hx += w.wx[k] * (X[x + k] - T(2) * xc + X[x - k]);
    hy += w.wy[k] * (X[x + k * sy] - T(2) * xc + X[x - k * sy]);
    vz += w.wz[k] * (Y[x + k * sz] - T(2) * yc + Y[x - k * sz]);
  }
  const T h0 = hx + hy;
  if constexpr (kAdjoint) {
    fp = h0;
    fq = vz;
  } else {
    fp = E[x] * h0 + D[x] * vz;
    fq = D[x] * h0 + vz;
  }
}

template <class T>
void vti_blocked(const StepSpec& s, const SpongeTables* sponge,
                 const reference::AnisoWeights<T>& weights, const reference::MediumCoefs<T>& c,
                 bool adjoint, const T* X, const T* Y, const T* pc, const T* qc, T* pn, T* qn) {
  with_radius(s.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    const VtiWeights<T, R> w(weights);
    const int64_t sz = s.layout.sz, sy = s.layout.sy;
    const double* gx = sponge ? sponge->g[2].data() : nullptr;
    const T *E = c.E.data(), *D = c.D.data(), *V = c.vdt2.data();
    // The row loop for the forward or adjoint forces, undamped or damped (then gzy is the
    // sponge term of the row's z and y).
    auto row_loop = [&](auto adj, auto damp) {
      constexpr bool kAdj = decltype(adj)::value;
      constexpr bool kDamp = decltype(damp)::value;
      return [&](int64_t row, int a, int b, double gzy = 0.0) {
        const T *x_ = X + row, *y_ = Y + row, *e = E + row, *d = D + row, *v = V + row;
        const T *p = pc + row, *q = qc + row;
        T *np = pn + row, *nq = qn + row;
#pragma omp simd
        for (int x = a; x < b; ++x) {
          T fp, fq;
          vti_forces<T, R, kAdj>(w, x_, y_, e, d, x, sz, sy, fp, fq);
          if constexpr (!kDamp) {
            np[x] = T(2) * p[x] - np[x] + v[x] * fp;
            nq[x] = T(2) * q[x] - nq[x] + v[x] * fq;
          } else {
            const T g = static_cast<T>(gzy + gx[x]);
            np[x] = (T(2) * p[x] - (T(1) - g) * np[x] + v[x] * fp) / (T(1) + g);
            nq[x] = (T(2) * q[x] - (T(1) - g) * nq[x] + v[x] * fq) / (T(1) + g);
          }
        }
      };
    };
    if (adjoint)
      for_rows(s, sponge, row_loop(std::true_type{}, std::false_type{}),
               row_loop(std::true_type{}, std::true_type{}));
    else
      for_rows(s, sponge, row_loop(std::false_type{}, std::false_type{}),
               row_loop(std::false_type{}, std::true_type{}));
  });
}

}  // namespace seisfd::cpu
