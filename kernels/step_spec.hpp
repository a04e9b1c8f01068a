// What one time step of a propagator needs to know about the grid, independent of the
// backend: the layout, the stencil radius, the updated region, the sponge and the free
// surface. Every backend (CPU reference, CUDA variants) takes this same description and
// derives its own coefficients from it, so the two never share arithmetic helpers.
#pragma once
#include "kernels/fd_coefficients.hpp"
#include "kernels/layout.hpp"

namespace seisfd {

// Axis order everywhere in this struct: 0 = z, 1 = y, 2 = x.
struct SpongeSpec {
  int phys_lo[3] = {0, 0, 0};   // first physical cell index (computational)
  int phys_hi[3] = {0, 0, 0};   // last physical cell index (computational)
  int width_lo[3] = {0, 0, 0};  // absorbing cells below phys_lo (0: no layer on that face)
  int width_hi[3] = {0, 0, 0};  // absorbing cells above phys_hi
  double damp[3] = {0, 0, 0};   // eta_max * dt / 2 for each axis (0: sponge off)
};

// Convolutional PML (docs/physics.md §5.2; Pasalic & McGarry 2010, second-order form, kappa = 1).
// Along an axis with absorbing layers, at distance r = d / W into the layer (d = 1..W cells
// past the last physical cell): damping d(r) = d0 r^N, frequency shift alpha(r) =
// alpha_max (1 - r), and the recursive-convolution coefficients b = exp(-(d + alpha) dt),
// a = d / (d + alpha) (b - 1). The geometry (which cells are layers) is SpongeSpec's.
struct CpmlSpec {
  double d0[3] = {0, 0, 0};  // d_max per axis (z, y, x), 1/s (0: no CPML on that axis)
  double alpha_max = 0;      // complex-frequency shift at the inner edge of the layer, 1/s
  double power = 2;          // profile exponent N
  double dt = 0;             // the time step the coefficients are for
  int start = 0;  // undamped layer cells before the profile (0 in runs; tests/test_cpml_tti.cpp)
};

// How TTI's rotated operator H_z = sum_ij d_i (n_i n_j d_j) is discretized (docs/physics.md §4;
// kernels/reference/anisotropic.hpp writes both out):
//   kNarrow  the diagonal terms as narrow second derivatives and the cross terms as nested first
//            derivatives, all of the run's order: exact VTI at theta = 0 (the default);
//   kNested  every term as nested first derivatives of half the run's order (radius / 2 pairs
//            each, so the pair reaches as far as the Laplacian): about a third of the arithmetic,
//            the discretization of Devito's centred TTI kernel; orders 4, 8, 12 and 16.
enum class TtiOperator { kNarrow, kNested };

inline const char* to_string(TtiOperator o) {
  return o == TtiOperator::kNested ? "nested" : "narrow";
}

struct StepSpec {
  Layout layout;
  int radius = 4;            // order / 2
  double h[3] = {1, 1, 1};   // spacing (z, y, x), m
  int begin[3] = {0, 0, 0};  // updated region [begin, end) per axis (z, y, x)
  int end[3] = {0, 0, 0};
  SpongeSpec sponge;          // absorbing-layer geometry; damping when damp > 0
  CpmlSpec cpml;              // CPML on the same layers when d0 > 0 (then damp = 0)
  bool free_surface = false;  // pressure release at z index `surface`, mirrored above
  int surface = 0;
  TtiOperator tti_operator = TtiOperator::kNarrow;  // read by TTI updates only

  // Pairs of the first-derivative stencils of TTI's cross terms.
  int cross_radius() const { return tti_operator == TtiOperator::kNested ? radius / 2 : radius; }
  // Whether the TTI operator has a discretization at this radius (nested: an even one).
  bool tti_operator_fits() const { return tti_operator == TtiOperator::kNarrow || radius % 2 == 0; }
  bool sponge_on() const { return sponge.damp[0] > 0 || sponge.damp[1] > 0 || sponge.damp[2] > 0; }
  bool cpml_on() const { return cpml.d0[0] > 0 || cpml.d0[1] > 0 || cpml.d0[2] > 0; }
  long long updated_cells() const {
    return 1LL * (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
  }
};

// The damping term g = dt/2 * eta at a cell; eta is the sum over axes of a quadratic profile
// eta_max (d / W)^2, d the distance in cells past the last physical cell (1..W).
// Written once here in double for host-side setup (injection coefficients, energy); the CPU
// reference and the kernels compute it themselves from the same spec.
inline double sponge_g(const SpongeSpec& s, int z, int y, int x) {
  const int i[3] = {z, y, x};
  double g = 0;
  for (int a = 0; a < 3; ++a) {
    int d = 0, w = 1;
    if (i[a] < s.phys_lo[a] && s.width_lo[a] > 0) {
      d = s.phys_lo[a] - i[a];
      w = s.width_lo[a];
    } else if (i[a] > s.phys_hi[a] && s.width_hi[a] > 0) {
      d = i[a] - s.phys_hi[a];
      w = s.width_hi[a];
    }
    const double r = static_cast<double>(d) / w;
    g += s.damp[a] * r * r;
  }
  return g;
}

// (v dt)^2 for one cell, computed in double; each backend rounds it to its own real type.
inline double vdt_squared(float velocity, double dt) {
  const double vdt = static_cast<double>(velocity) * dt;
  return vdt * vdt;
}

// The factor an injected unit sample is multiplied by at cell i: the source term of the
// discrete update, (v dt)^2 / (1 + g). Both backends use it, so injection is exactly the
// transpose of recording (kernels/propagation.hpp, docs/physics.md §6).
inline double injection_factor(const StepSpec& s, int64_t i, double vdt2) {
  if (!s.sponge_on()) return vdt2;
  int z, y, x;
  s.layout.coords(i, z, y, x);
  return vdt2 / (1.0 + sponge_g(s.sponge, z, y, x));
}

}  // namespace seisfd
