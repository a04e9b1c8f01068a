// The CPU backend's CPML correction by rows: the arithmetic of kernels/reference/cpml.hpp, in
// the same order on the same tables (so bit for bit the same values), restructured so that the
// compiler vectorises it. The reference visits the slab cell by cell and asks, for every cell
// and every neighbour, whether the neighbour's psi lies in a layer; here
//   - z and y slabs: a row of x cells shares its slab index, so which neighbours exist, their
//     psi rows and a, b are decided once a row (a missing neighbour reads a row of zeros), and
//     the x loop is unit stride in the field, psi and zeta;
//   - x slab: each layer of a row is a run of contiguous cells; the psi of the run and R cells
//     either side (zero outside the layers) is gathered once into a padded buffer, and the x
//     loop reads its neighbours from there.
// Axes one after another as in the reference, so a cell in two layers gets both corrections in
// the same order. The CPU engine uses these for every variant but "reference".
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/blocked.hpp"
#include "kernels/reference/cpml.hpp"

namespace seisfd::cpu {

namespace cpml_detail {

// fn(std::bool_constant<b>{}).
template <class F>
void with_bool(bool b, F&& fn) {
  if (b)
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

// fn(bz, by) for every row of axis ax's slab, the rows shared among the threads.
template <class F>
void for_rows(const CpmlSlab& sl, F&& fn) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int bz = 0; bz < sl.dims[0]; ++bz)
    for (int by = 0; by < sl.dims[1]; ++by) fn(bz, by);
}

// The x slab's two runs of a row: fn(first box x, first grid x, cells).
template <class F>
void for_x_runs(const CpmlSlab& sl, F&& fn) {
  if (sl.wlo > 0) fn(0, sl.lo_first, sl.wlo);
  if (sl.whi > 0) fn(sl.wlo, sl.hi_first, sl.whi);
}

// What a pass reads of axis ax's layers.
template <class T>
struct AxisTables {
  const CpmlSlab& sl;
  int64_t st;                // the grid's stride along the axis
  const T *w1, *w2, *A, *B;  // D1 and D2 weights; a, b along the axis
};

// fn(std::integral_constant<int, R>, ax, tables) for the axes with layers, z, y, x in turn.
template <class T, class F>
void for_cpml_axes(const reference::CpmlLayers<T>& L, F&& fn) {
  with_radius(L.spec().radius, [&](auto r) {
    for (int ax = 0; ax < 3; ++ax)
      if (L.on(ax))
        fn(r, ax, AxisTables<T>{L.slab(ax), L.stride(ax), L.d1(ax), L.d2(ax), L.a(ax), L.b(ax)});
  });
}

}  // namespace cpml_detail

// psi_d = b psi_d + a D1_d src[d] on every slab cell (reference::CpmlLayers::update_psi).
template <class T>
void cpml_update_psi(const reference::CpmlLayers<T>& L, reference::CpmlMemory<T>& mem,
                     const T* const src[3]) {
  using namespace cpml_detail;
  const Layout& lay = L.spec().layout;
  for_cpml_axes(L, [&](auto r, int ax, const AxisTables<T>& t) {
    constexpr int R = decltype(r)::value;
    const int64_t st = t.st;
    const T *const w1 = t.w1, *const A = t.A, *const B = t.B;
    const T* const cur = src[ax];
    T* const psi = mem.psi[ax].data();
    // n cells from grid index i and box index k; a, b at [j] (stride ja along the run).
    auto run = [&](int64_t i, int64_t k, int n, int j, int ja) {
#pragma omp simd
      for (int x = 0; x < n; ++x) {
        T d1 = 0;
        for (int m = 1; m <= R; ++m) d1 += w1[m] * (cur[i + x + m * st] - cur[i + x - m * st]);
        psi[k + x] = B[j + ja * x] * psi[k + x] + A[j + ja * x] * d1;
      }
    };
    for_rows(t.sl, [&](int bz, int by) {
      const int z = t.sl.grid(0, bz), y = t.sl.grid(1, by);
      const int64_t k0 = t.sl.at(bz, by, 0);
      if (ax == 2)
        for_x_runs(t.sl, [&](int bx, int x, int n) { run(lay.idx(z, y, x), k0 + bx, n, x, 1); });
      else
        run(lay.idx(z, y, t.sl.begin[2]), k0, t.sl.dims[2], ax == 0 ? z : y, 0);
    });
  });
}

// zeta_d = b zeta_d + a (D2_d src[d] + D1_d psi_d); c_d = D1_d psi_d + zeta_d; next_a +=
// vdt2 wa[d] c_d and, with next_b, next_b += vdt2 wb[d] c_d (reference::CpmlLayers::correct).
template <class T>
void cpml_correct(const reference::CpmlLayers<T>& L, reference::CpmlMemory<T>& mem,
                  const T* const src[3], const T* vdt2, T* next_a, const T* const wa[3], T* next_b,
                  const T* const wb[3]) {
  using namespace cpml_detail;
  const Layout& lay = L.spec().layout;
  for_cpml_axes(L, [&](auto r, int ax, const AxisTables<T>& t) {
    constexpr int R = decltype(r)::value;
    const int64_t st = t.st;
    const T *const w1 = t.w1, *const w2 = t.w2, *const A = t.A, *const B = t.B;
    const T* const cur = src[ax];
    const T* const psi = mem.psi[ax].data();
    T* const zeta = mem.zeta[ax].data();
    // What a missing neighbour's psi reads in the z and y slabs: the calling thread's row of
    // zeros, never written, only grown, so not reallocated step after step; the region's threads
    // read it through the pointer (by its name each would find its own).
    thread_local std::vector<T> zeros;
    if (zeros.size() < static_cast<size_t>(t.sl.dims[2])) zeros.resize(t.sl.dims[2], T(0));
    const T* const zero_row = zeros.data();
    with_bool(wa[ax] != nullptr, [&](auto has_wa) {
      with_bool(next_b != nullptr, [&](auto has_b) {
        with_bool(has_b && wb[ax] != nullptr, [&](auto has_wb) {
          const T* const wa_ax = wa[ax];
          const T* const wb_ax = has_b ? wb[ax] : nullptr;
          // n cells from grid index i and box index k; a, b at [j] (stride ja); the psi of
          // the neighbours m cells up and down at pu[m][x], pd[m][x].
          auto run = [&](int64_t i, int64_t k, int n, int j, int ja, const T* const pu[R + 1],
                         const T* const pd[R + 1]) {
#pragma omp simd
            for (int x = 0; x < n; ++x) {
              const int64_t c_i = i + x;
              T d2 = w2[0] * cur[c_i], dpsi = 0;
              for (int m = 1; m <= R; ++m) {
                d2 += w2[m] * (cur[c_i + m * st] + cur[c_i - m * st]);
                dpsi += w1[m] * (pu[m][x] - pd[m][x]);
              }
              T zt = zeta[k + x];
              zt = B[j + ja * x] * zt + A[j + ja * x] * (d2 + dpsi);
              zeta[k + x] = zt;
              const T c = vdt2[c_i] * (dpsi + zt);
              if constexpr (decltype(has_wa)::value)
                next_a[c_i] += wa_ax[c_i] * c;
              else
                next_a[c_i] += c;
              if constexpr (decltype(has_b)::value) {
                if constexpr (decltype(has_wb)::value)
                  next_b[c_i] += wb_ax[c_i] * c;
                else
                  next_b[c_i] += c;
              }
            }
          };
          if (ax == 2) {
            for_rows(t.sl, [&](int bz, int by) {
              const int z = t.sl.grid(0, bz), y = t.sl.grid(1, by);
              const int64_t k0 = t.sl.at(bz, by, 0);
              thread_local std::vector<T> pad;
              for_x_runs(t.sl, [&](int bx, int x, int n) {
                // pad[R + o]: the psi of grid x + o (o in [-R, n + R)), 0 outside the layers.
                pad.resize(static_cast<size_t>(n) + 2 * R);
                for (int o = -R; o < n + R; ++o) {
                  const int loc = t.sl.local(x + o);
                  pad[R + o] = loc >= 0 ? psi[k0 + loc] : T(0);
                }
                const T* pu[R + 1];
                const T* pd[R + 1];
                for (int m = 1; m <= R; ++m) {
                  pu[m] = pad.data() + R + m;
                  pd[m] = pad.data() + R - m;
                }
                run(lay.idx(z, y, x), k0 + bx, n, x, 1, pu, pd);
              });
            });
          } else {
            const int64_t ss = t.sl.stride();
            for_rows(t.sl, [&](int bz, int by) {
              const int z = t.sl.grid(0, bz), y = t.sl.grid(1, by);
              const int j = ax == 0 ? z : y;
              const int64_t k0 = t.sl.at(bz, by, 0);
              const int kl = t.sl.local(j);
              const T* pu[R + 1];
              const T* pd[R + 1];
              for (int m = 1; m <= R; ++m) {
                const int up = t.sl.local(j + m), dn = t.sl.local(j - m);
                pu[m] = up >= 0 ? psi + k0 + (up - kl) * ss : zero_row;
                pd[m] = dn >= 0 ? psi + k0 + (dn - kl) * ss : zero_row;
              }
              run(lay.idx(z, y, t.sl.begin[2]), k0, t.sl.dims[2], j, 0, pu, pd);
            });
          }
        });
      });
    });
  });
}

}  // namespace seisfd::cpu
