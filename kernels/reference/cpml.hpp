// CPU reference of the CPML correction (kernels/cpml.hpp has the equations), written directly
// from them and templated on the real type. One step is
//   update_psi(cur); plain update of next; correct(cur, vdt2, next)
// where the plain update is acoustic_step with the sponge off. The VTI engine uses the
// coupled form: update_psi(src) with src[d] the field axis d's term differentiates, and
// correct(src, vdt2, next_p, wp, next_q, wq) adding vdt2 w[d] c_d to both fields.
#pragma once
#include <array>
#include <vector>

#include "kernels/cpml.hpp"
#include "kernels/fd_coefficients.hpp"

namespace seisfd::reference {

// The memory variables of one propagation: psi and zeta on each axis' slab (empty where the
// axis has no layers).
template <class T>
struct CpmlMemory {
  std::vector<T> psi[3], zeta[3];
};

template <class T>
class CpmlLayers {
 public:
  explicit CpmlLayers(const StepSpec& s) : s_(s) {
    const auto w1 = first_derivative_weights(s.radius);
    const auto w2 = second_derivative_weights(s.radius);
    for (int ax = 0; ax < 3; ++ax) {
      on_[ax] = s.cpml.d0[ax] > 0;
      slab_[ax] = CpmlSlab::make(s, ax);
      if (!on_[ax]) continue;
      std::vector<double> a, b;
      cpml_profile(s, ax, a, b);
      a_[ax].assign(a.begin(), a.end());
      b_[ax].assign(b.begin(), b.end());
      for (int k = 0; k <= s.radius; ++k) {
        d1_[ax][k] = static_cast<T>(w1[k] / s.h[ax]);
        d2_[ax][k] = static_cast<T>(w2[k] / (s.h[ax] * s.h[ax]));
      }
    }
  }

  // Zeroed memory variables for a new propagation.
  CpmlMemory<T> make_memory() const {
    CpmlMemory<T> m;
    for (int ax = 0; ax < 3; ++ax)
      if (on_[ax]) {
        m.psi[ax].assign(slab_[ax].size(), T(0));
        m.zeta[ax].assign(slab_[ax].size(), T(0));
      }
    return m;
  }

  // psi_d[n] = b psi_d[n-1] + a D1_d src[d], on every slab cell.
  void update_psi(CpmlMemory<T>& mem, const T* const src[3]) const {
    for (int ax = 0; ax < 3; ++ax)
      if (on_[ax])
        for_slab(ax, [&](int64_t k, int64_t i, int j) {
          const T* cur = src[ax];
          const int64_t st = stride(ax);
          T d1 = 0;
          for (int m = 1; m <= s_.radius; ++m)
            d1 += d1_[ax][m] * (cur[i + m * st] - cur[i - m * st]);
          mem.psi[ax][k] = b_[ax][j] * mem.psi[ax][k] + a_[ax][j] * d1;
        });
  }

  // zeta_d[n] = b zeta_d[n-1] + a (D2_d src[d] + D1_d psi_d); c_d = D1_d psi_d + zeta_d;
  // next_a += vdt2 wa[d] c_d and, when next_b is not null, next_b += vdt2 wb[d] c_d (per-cell
  // weights; a null weight is 1). Axes one after another, so a cell in two layers gets both
  // corrections in a fixed order.
  void correct(CpmlMemory<T>& mem, const T* const src[3], const T* vdt2, T* next_a,
               const T* const wa[3], T* next_b, const T* const wb[3]) const {
    for (int ax = 0; ax < 3; ++ax)
      if (on_[ax])
        for_slab(ax, [&](int64_t k, int64_t i, int j) {
          const T* cur = src[ax];
          const int64_t st = stride(ax);
          const CpmlSlab& sl = slab_[ax];
          const T* psi = mem.psi[ax].data();
          const int kl = sl.local(j);
          T d2 = d2_[ax][0] * cur[i], dpsi = 0;
          for (int m = 1; m <= s_.radius; ++m) {
            d2 += d2_[ax][m] * (cur[i + m * st] + cur[i - m * st]);
            const int up = sl.local(j + m), dn = sl.local(j - m);
            const T pu = up >= 0 ? psi[k + (up - kl) * sl.stride()] : T(0);
            const T pd = dn >= 0 ? psi[k + (dn - kl) * sl.stride()] : T(0);
            dpsi += d1_[ax][m] * (pu - pd);
          }
          T& z = mem.zeta[ax][k];
          z = b_[ax][j] * z + a_[ax][j] * (d2 + dpsi);
          const T c = vdt2[i] * (dpsi + z);
          next_a[i] += wa[ax] ? wa[ax][i] * c : c;
          if (next_b) next_b[i] += wb[ax] ? wb[ax][i] * c : c;
        });
  }

  int64_t aux_cells() const { return cpml_aux_cells(s_); }

  // The tables, for the CPU backend's vectorised rows (kernels/cpu/cpml_rows.hpp).
  const StepSpec& spec() const { return s_; }
  bool on(int ax) const { return on_[ax]; }
  const CpmlSlab& slab(int ax) const { return slab_[ax]; }
  const T* a(int ax) const { return a_[ax].data(); }
  const T* b(int ax) const { return b_[ax].data(); }
  const T* d1(int ax) const { return d1_[ax]; }
  const T* d2(int ax) const { return d2_[ax]; }
  // The grid's stride along axis ax.
  int64_t stride(int ax) const { return ax == 0 ? s_.layout.sz : ax == 1 ? s_.layout.sy : 1; }

 private:
  // f(box index, grid index, index along the slab axis) for every cell of axis ax's slab.
  template <class F>
  void for_slab(int ax, F&& f) const {
    const CpmlSlab& sl = slab_[ax];
#pragma omp parallel for collapse(2) schedule(static)
    for (int bz = 0; bz < sl.dims[0]; ++bz)
      for (int by = 0; by < sl.dims[1]; ++by)
        for (int bx = 0; bx < sl.dims[2]; ++bx) {
          int c[3] = {bz, by, bx};
          for (int a = 0; a < 3; ++a) c[a] = sl.grid(a, c[a]);
          f(sl.at(bz, by, bx), s_.layout.idx(c[0], c[1], c[2]), c[ax]);
        }
  }

  StepSpec s_;
  bool on_[3] = {false, false, false};
  CpmlSlab slab_[3];
  std::vector<T> a_[3], b_[3];
  T d1_[3][kMaxRadius + 1] = {}, d2_[3][kMaxRadius + 1] = {};
};

}  // namespace seisfd::reference
