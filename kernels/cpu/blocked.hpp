// What the CPU backend's fast kernels (variants `*/oN/blocked`) share: the traversal and the
// absorbing layer's damping, written for the compiler to vectorise and for the caches.
//   - every row (z, y) is split into the x ranges where the sponge term is zero and those where
//     it is not: the kernels' inner loops are unit-stride, branch-free and `omp simd`, the
//     damping of the absorbing layer evaluated only in its own cells, from per-axis tables;
//   - cache blocking: OpenMP threads take tiles of (a run of z planes) x (a block of y rows) and
//     march through the tile's planes, so the 2R + 1 planes of a block's rows the z stencils
//     read stay in the core's L2 cache while they are reused.
// The kernels (acoustic_blocked.hpp, vti_blocked.hpp) take the space order as a template
// parameter (the neighbour loops unroll) and sum in the reference's order (kernels/reference/),
// so that they differ from it by rounding only (FMA contraction in -march builds).
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/step_spec.hpp"

// The per-cell functions the kernels call inside their `omp simd` loops: inlined always, or the
// loop cannot vectorise (a call per cell).
#define SEISFD_CPU_INLINE inline __attribute__((always_inline))

namespace seisfd::cpu {

// The sponge term g = dt/2 eta of each axis, per index (double: summed in the reference's
// order, ((g_z + g_y) + g_x), then rounded, it gives the reference's g exactly), and the x range
// [x_lo, x_hi) where g_x = 0.
struct SpongeTables {
  std::vector<double> g[3];
  int x_lo = 0, x_hi = 0;
  explicit SpongeTables(const StepSpec& s) {
    const Layout& l = s.layout;
    const int n[3] = {l.nz, l.ny, l.nx};
    for (int a = 0; a < 3; ++a) {
      g[a].assign(n[a], 0.0);
      for (int i = 0; i < n[a]; ++i) {
        int at[3] = {s.sponge.phys_lo[0], s.sponge.phys_lo[1], s.sponge.phys_lo[2]};
        at[a] = i;
        g[a][i] = sponge_g(s.sponge, at[0], at[1], at[2]);
      }
    }
    // The physical x range is one run of zeros; outside it g_x > 0 wherever the layer damps.
    x_lo = 0;
    while (x_lo < n[2] && g[2][x_lo] != 0.0) ++x_lo;
    x_hi = x_lo;
    while (x_hi < n[2] && g[2][x_hi] == 0.0) ++x_hi;
  }
};

// Rows of a y block per tile: (2R + 1) planes of kBlockY rows of a few hundred cells stay in L2.
inline constexpr int kBlockY = 16;

// Calls plain(row, a, b) for the undamped x ranges [a, b) and damped(row, a, b, g_zy) for the
// damped ones of every row of the updated region, row = l.idx(z, y, 0), tile by tile on the
// OpenMP threads. sponge: null when the spec does not damp.
template <class Plain, class Damped>
void for_rows(const StepSpec& s, const SpongeTables* sponge, Plain&& plain, Damped&& damped) {
  const Layout& l = s.layout;
  const SpongeTables* sp = s.sponge_on() ? sponge : nullptr;
  const int z0 = s.begin[0], y0 = s.begin[1], xa = s.begin[2], xb = s.end[2];
  const int nz = s.end[0] - z0, ny = s.end[1] - y0;
  if (nz <= 0 || ny <= 0 || xb <= xa) return;
  const int yblocks = (ny + kBlockY - 1) / kBlockY;
  // z runs: enough tiles for every thread to take about four, each run as long as possible.
  const int want = 4 * omp_get_max_threads();
  const int zruns = std::clamp((want + yblocks - 1) / yblocks, 1, nz);
  const int zlen = (nz + zruns - 1) / zruns;
#pragma omp parallel for collapse(2) schedule(static)
  for (int zr = 0; zr < zruns; ++zr)
    for (int yb = 0; yb < yblocks; ++yb) {
      const int za = z0 + zr * zlen, ze = std::min(za + zlen, z0 + nz);
      const int ya = y0 + yb * kBlockY, ye = std::min(ya + kBlockY, y0 + ny);
      for (int z = za; z < ze; ++z)
        for (int y = ya; y < ye; ++y) {
          const int64_t row = l.idx(z, y, 0);
          if (!sp) {
            plain(row, xa, xb);
            continue;
          }
          const double gzy = sp->g[0][z] + sp->g[1][y];
          if (gzy != 0.0) {
            damped(row, xa, xb, gzy);
            continue;
          }
          const int lo = std::clamp(sp->x_lo, xa, xb), hi = std::clamp(sp->x_hi, lo, xb);
          damped(row, xa, lo, gzy);
          plain(row, lo, hi);
          damped(row, hi, xb, gzy);
        }
    }
}

// Calls fn(std::integral_constant<int, R>{}) with R = radius (1..8): the lambda's
// `decltype(r)::value` is a constant the neighbour loops unroll over.
template <class F>
void with_radius(int radius, F&& fn) {
  switch (radius) {
    case 1:
      return fn(std::integral_constant<int, 1>{});
    case 2:
      return fn(std::integral_constant<int, 2>{});
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 4:
      return fn(std::integral_constant<int, 4>{});
    case 5:
      return fn(std::integral_constant<int, 5>{});
    case 6:
      return fn(std::integral_constant<int, 6>{});
    case 7:
      return fn(std::integral_constant<int, 7>{});
    case 8:
      return fn(std::integral_constant<int, 8>{});
  }
}

}  // namespace seisfd::cpu
