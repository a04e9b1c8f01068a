// The exact coefficients of a medium (kernels/medium.hpp), on the host's threads.
#include "kernels/medium.hpp"

#include <cmath>

namespace seisfd {

template <class T>
void exact_medium_coefficients(const Medium& m, const StepSpec& s, double dt,
                               std::vector<T> (&out)[kMaxMediumArrays]) {
  const int count = traits(m.physics).medium_arrays;
  const Layout& l = s.layout;
  const int64_t n = l.size();
  for (int a = 0; a < kMaxMediumArrays; ++a) out[a].clear();
  // On huge pages where Linux offers them: the CPU engine runs on these arrays (huge_pages.hpp).
  for (int a = 0; a < count; ++a) assign_huge(out[a], static_cast<size_t>(n), T(0));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    out[kVdt2][i] = static_cast<T>(vdt_squared(m.velocity[i], dt));
    if (count > 1) {
      out[kE][i] = static_cast<T>(1.0 + 2.0 * static_cast<double>(m.epsilon[i]));
      out[kD][i] = static_cast<T>(std::sqrt(1.0 + 2.0 * static_cast<double>(m.delta[i])));
    }
    if (count > 3) {
      int z, y, x;
      l.coords(i, z, y, x);
      int64_t src = i;
      bool flip = false;
      if (s.free_surface && z < s.surface && 2 * s.surface - z < l.nz) {
        src = l.idx(2 * s.surface - z, y, x);
        flip = true;
      }
      double nx, ny, nz;
      symmetry_axis(m.theta[src], m.phi[src], nx, ny, nz);
      out[kAxisZ][i] = static_cast<T>(flip ? -nz : nz);
      out[kAxisY][i] = static_cast<T>(ny);
      out[kAxisX][i] = static_cast<T>(nx);
    }
  }
}

template void exact_medium_coefficients<float>(const Medium&, const StepSpec&, double,
                                               std::vector<float> (&)[kMaxMediumArrays]);
template void exact_medium_coefficients<double>(const Medium&, const StepSpec&, double,
                                                std::vector<double> (&)[kMaxMediumArrays]);

}  // namespace seisfd
