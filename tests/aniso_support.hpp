// Anisotropic media for tests: per-cell functions of the computational index (z, y, x),
// angles in degrees, sampled over a Problem's layout (padding cells get eps = delta = 0).
#pragma once
#include <cmath>
#include <functional>

#include "kernels/anisotropy.hpp"
#include "tests/support.hpp"

namespace seisfd::test {

struct AnisoCase {
  using Field = std::function<double(int z, int y, int x)>;
  AnisoKind kind = AnisoKind::kVti;
  Field epsilon = [](int, int, int) { return 0.0; };
  Field delta = [](int, int, int) { return 0.0; };
  Field theta = [](int, int, int) { return 0.0; };  // degrees from vertical
  Field phi = [](int, int, int) { return 0.0; };    // degrees from +x towards +y
};

// Each field is sampled over all cells in the order z, y, x, one field after the other.
inline AnisoModel make_aniso_model(const Problem& p, const AnisoCase& c) {
  const Layout& l = p.grid.layout();
  AnisoModel m;
  m.kind = c.kind;
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
  if (c.kind == AnisoKind::kTti) {
    m.theta = sample(c.theta, M_PI / 180.0);
    m.phi = sample(c.phi, M_PI / 180.0);
  }
  return m;
}

}  // namespace seisfd::test
