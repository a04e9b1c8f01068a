// The layer medium of the TTI CPML study (tests/test_cpml_tti.cpp): inside the absorbing layers
// the symmetry axis is turned to vertical (and, as variants, the anisotropy reduced) across a
// transition zone, so that where the CPML damps the medium is VTI, whose corrections
// (kernels/cpml.hpp) are the exact stretched operator. A study, not a feature: the reflection of
// the transition itself misses the target at tilts of 30 and 45 degrees (kernels/cpml.hpp).
#pragma once
#include <algorithm>
#include <cmath>

#include "kernels/medium.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::test {

// What the layer's medium becomes past the transition.
enum class LayerTarget {
  kTiltOnly,   // the axis vertical, eps and delta kept (VTI)
  kElliptic,   // the axis vertical, eps lowered to delta
  kIsotropic,  // the axis vertical, eps and delta to 0
};

struct LayerTaper {
  int begin = 0;   // layer cells left as they are, counted from the physical domain
  int cells = 12;  // the transition: layer cells begin + 1 .. begin + cells
  LayerTarget target = LayerTarget::kTiltOnly;
  bool cosine = true;  // cosine ramp; false: linear
};

// 1 in the physical domain and the first `begin` layer cells, falling to 0 at depth
// begin + cells + 1 and beyond.
inline double layer_taper_weight(int d, const LayerTaper& t) {
  d -= t.begin;
  if (d <= 0) return 1.0;
  if (d > t.cells) return 0.0;
  const double r = static_cast<double>(d) / (t.cells + 1);
  return t.cosine ? 0.5 * (1.0 + std::cos(M_PI * r)) : 1.0 - r;
}

// The weight of a cell is the product of its weights along the axes with layers (corners and
// edges reach the target where any of their layers does). TTI media only.
inline void taper_layer_medium(Medium& m, const StepSpec& s, const LayerTaper& t) {
  const Layout& l = s.layout;
  const SpongeSpec& g = s.sponge;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int c[3] = {z, y, x};
        double w = 1.0;
        for (int a = 0; a < 3; ++a) {
          int d = 0;
          if (g.width_lo[a] > 0 && c[a] < g.phys_lo[a]) d = g.phys_lo[a] - c[a];
          if (g.width_hi[a] > 0 && c[a] > g.phys_hi[a]) d = c[a] - g.phys_hi[a];
          w *= layer_taper_weight(d, t);
        }
        if (w == 1.0) continue;
        const int64_t i = l.idx(z, y, x);
        m.theta[i] = static_cast<float>(w * m.theta[i]);
        const double e = m.epsilon[i], dl = m.delta[i];
        if (t.target == LayerTarget::kElliptic)
          m.epsilon[i] = static_cast<float>(dl + w * (e - dl));
        if (t.target == LayerTarget::kIsotropic) {
          m.epsilon[i] = static_cast<float>(w * e);
          m.delta[i] = static_cast<float>(std::min(w * dl, w * e));
        }
      }
}

// The CPML's damping profile moved past the transition: `start` undamped layer cells, d0 raised
// so the target reflection of the profile over the remaining cells is the plan's.
inline void damp_after(StepSpec& s, int start, int width) {
  if (!s.cpml_on() || start <= 0) return;
  s.cpml.start = start;
  for (double& d : s.cpml.d0) d *= static_cast<double>(width) / (width - start);
}

}  // namespace seisfd::test
