// Field read-outs shared by the CPU engines (acoustic and anisotropic): the strided sub-box
// copy and the diagnostics reduction over the updated region.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/engine.hpp"

namespace seisfd::reference {

// f on the strided sub-box [lo, hi) with stride dec (z, y, x), into out in C order.
template <class T, class U>
void gather_box(const Layout& l, const T* f, const int lo[3], const int hi[3], const int dec[3],
                std::vector<U>& out) {
  const int nz = (hi[0] - lo[0] + dec[0] - 1) / dec[0];
  const int ny = (hi[1] - lo[1] + dec[1] - 1) / dec[1];
  const int nx = (hi[2] - lo[2] + dec[2] - 1) / dec[2];
  out.resize(static_cast<size_t>(nz) * ny * nx);
#pragma omp parallel for collapse(2)
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        out[(static_cast<size_t>(z) * ny + y) * nx + x] =
            static_cast<U>(f[l.idx(lo[0] + z * dec[0], lo[1] + y * dec[1], lo[2] + x * dec[2])]);
}

// Sum of squares, max |f| and the non-finite cells of f over the updated region.
template <class T>
Diagnostics field_diagnostics(const StepSpec& s, const T* f) {
  const Layout& l = s.layout;
  double sum = 0, mx = 0;
  int64_t bad = 0, first = -1;
#pragma omp parallel for collapse(2) reduction(+ : sum, bad) reduction(max : mx)
  for (int z = s.begin[0]; z < s.end[0]; ++z)
    for (int y = s.begin[1]; y < s.end[1]; ++y)
      for (int x = s.begin[2]; x < s.end[2]; ++x) {
        const double v = static_cast<double>(f[l.idx(z, y, x)]);
        if (!std::isfinite(v)) {
          ++bad;
          continue;
        }
        sum += v * v;
        mx = std::max(mx, std::fabs(v));
      }
  if (bad > 0) {  // the first of the cells counted, in the same region
    for (int z = s.begin[0]; z < s.end[0] && first < 0; ++z)
      for (int y = s.begin[1]; y < s.end[1] && first < 0; ++y)
        for (int x = s.begin[2]; x < s.end[2] && first < 0; ++x)
          if (!std::isfinite(static_cast<double>(f[l.idx(z, y, x)]))) first = l.idx(z, y, x);
  }
  return {sum, mx, bad, first};
}

}  // namespace seisfd::reference
