// The pseudo-acoustic anisotropic media (VTI, TTI) as every backend takes them: per-cell
// parameters over the layout, and the pointwise coefficients derived from them. DESIGN.md §4.
//
// The coupled system (Zhang, Zhang & Zhang 2011), m = 1/v^2, E = 1 + 2 eps, D = sqrt(1 + 2 delta):
//   m p_tt = E H_0 p + D H_z q,    m q_tt = D H_0 p + H_z q,
// with the symmetry axis n = (sin theta cos phi, sin theta sin phi, cos theta) in (x, y, z),
// theta measured from vertical (z down) and phi the azimuth from +x towards +y.
// H_z = div(n n^T grad) and H_0 = lap - H_z, both discretized as symmetric (self-adjoint)
// operators; kernels/reference/anisotropic.hpp says how.
// Sources inject into p and q alike; receivers record p.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace seisfd {

enum class AnisoKind { kVti, kTti };

inline const char* aniso_name(AnisoKind k) {
  return k == AnisoKind::kVti ? "vti" : "tti";
}

// One value per cell of the layout (padding included), like the acoustic velocity. Angles in
// radians. theta and phi are ignored (may be empty) for VTI.
struct AnisoModel {
  AnisoKind kind = AnisoKind::kVti;
  std::vector<float> velocity, epsilon, delta, theta, phi;
};

// Cells with delta > epsilon make the p/q system grow exponentially (the product of its two
// eigenvalues changes sign); engines refuse such models and the solver clamps them first.
inline int64_t count_delta_above_epsilon(const AnisoModel& m) {
  int64_t n = 0;
  for (size_t i = 0; i < m.epsilon.size(); ++i)
    if (m.delta[i] > m.epsilon[i]) ++n;
  return n;
}

// The symmetry axis of one cell, in (x, y, z).
inline void symmetry_axis(double theta, double phi, double& nx, double& ny, double& nz) {
  nx = std::sin(theta) * std::cos(phi);
  ny = std::sin(theta) * std::sin(phi);
  nz = std::cos(theta);
}

}  // namespace seisfd
