// Anisotropic media for tests: per-cell functions of the computational index (z, y, x),
// angles in degrees, sampled over a Problem's layout (padding cells get eps = delta = 0).
#pragma once
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/medium.hpp"
#include "tests/support.hpp"

namespace seisfd::test {

struct AnisoCase {
  using Field = std::function<double(int z, int y, int x)>;
  Physics kind = Physics::kVti;
  Field epsilon = [](int, int, int) { return 0.0; };
  Field delta = [](int, int, int) { return 0.0; };
  Field theta = [](int, int, int) { return 0.0; };  // degrees from vertical
  Field phi = [](int, int, int) { return 0.0; };    // degrees from +x towards +y
};

// The TTI operator a GPU variant runs in the registry-wide tests: the nested one for
// tti/oN/smem_nested, which implements only that, else the spec's own.
inline void operator_of(const std::string& technique, StepSpec& s) {
  if (technique == "smem_nested") s.tti_operator = TtiOperator::kNested;
}

// A homogeneous medium: the same eps, delta, tilt and azimuth (degrees) in every cell.
inline AnisoCase constant_case(Physics kind, double eps, double delta, double theta = 0.0,
                               double phi = 0.0) {
  AnisoCase c;
  c.kind = kind;
  c.epsilon = [=](int, int, int) { return eps; };
  c.delta = [=](int, int, int) { return delta; };
  c.theta = [=](int, int, int) { return theta; };
  c.phi = [=](int, int, int) { return phi; };
  return c;
}

// Each field is sampled over all cells in the order z, y, x, one field after the other.
inline Medium make_aniso_model(const Problem& p, const AnisoCase& c) {
  const Layout& l = p.grid.layout();
  Medium m;
  m.physics = c.kind;
  m.velocity = p.velocity;
  const size_t n = static_cast<size_t>(l.size());
  const auto sample = [&](const AnisoCase::Field& f, double scale) {
    std::vector<float> out(n, 0.0f);
    for (int z = 0; z < l.nz; ++z)
      for (int y = 0; y < l.ny; ++y)
        for (int x = 0; x < l.nx; ++x) out[l.idx(z, y, x)] = static_cast<float>(scale * f(z, y, x));
    return out;
  };
  m.epsilon = sample(c.epsilon, 1.0);
  m.delta = sample(c.delta, 1.0);
  if (c.kind == Physics::kTti) {
    m.theta = sample(c.theta, M_PI / 180.0);
    m.phi = sample(c.phi, M_PI / 180.0);
  }
  return m;
}

// Smooth random parameter fields, each a sum of `waves` random plane waves with wavenumber
// components in [-kmax, kmax] rad/cell, scaled into its range: eps in [0, eps_max], delta =
// eps - [0, gap_max] (so delta <= eps), theta in [0, theta_max] degrees, phi in [0, 360).
// The defaults are the dot tests' media (tests/test_anisotropic.cpp); (0.35, 0.25, 60, 0.4, 4)
// is its 20,000-step stability medium. Rougher axis fields (azimuth gradients near 1 rad/cell)
// make the TTI scheme itself unstable, with any boundary.
struct SmoothRandom {
  double eps_max = 0.3, gap_max = 0.2, theta_max = 70, kmax = 0.3;
  int waves = 3;
};

inline AnisoCase smooth_random_case(Physics kind, std::mt19937& rng, SmoothRandom o = {}) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto smooth = [&](double lo, double hi) {
    std::vector<double> k(3 * o.waves), ph(o.waves);
    for (auto& v : k) v = 2 * o.kmax * (u(rng) - 0.5);
    for (auto& v : ph) v = 2 * M_PI * u(rng);
    const int w = o.waves;
    return [=](int z, int y, int x) {
      double s = 0;
      for (int m = 0; m < w; ++m)
        s += std::sin(k[3 * m] * z + k[3 * m + 1] * y + k[3 * m + 2] * x + ph[m]);
      return lo + (hi - lo) * (0.5 + s / (2.0 * w));
    };
  };
  AnisoCase c;
  c.kind = kind;
  const auto eps = smooth(0.0, o.eps_max), gap = smooth(0.0, o.gap_max);
  c.epsilon = eps;
  c.delta = [=](int z, int y, int x) { return eps(z, y, x) - gap(z, y, x); };
  c.theta = smooth(0.0, o.theta_max);
  c.phi = smooth(0.0, 360.0);
  return c;
}

}  // namespace seisfd::test
