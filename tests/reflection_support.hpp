// Reflection from the x-high face, measured the same way for the acoustic (tests/test_cpml.cpp)
// and the anisotropic (tests/test_cpml_aniso.cpp) boundaries.
//
// Order 8, h = 10 m, Ricker 12 Hz. The source sits D = 11.5 cells inside the face's interface
// (the plane half a cell past the last physical cell). Receivers at the source's x and y,
// displaced along z by 2 D tan(theta), see the wave reflected at incidence theta.
//
// The run's domain has layers on all six faces. The reference run is the same problem with the
// physical domain longer in +x, so that nothing from its own x-high face comes back within the
// window; the other five faces are the same in both runs, so their reflections cancel in the
// difference, which is exactly what the x-high face sent back. Reflected energy is compared
// with the energy of the incident wave over the same path length: the reference run's trace at
// the mirror image of the receiver across the interface. The ratio in dB (10 log10 of
// energies) is the reflection coefficient's 20 log10.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "solver/config.hpp"

namespace seisfd::test::reflection {

constexpr double kH = 10, kF = 12;
constexpr int kOrder = 8;
constexpr int kNx = 40, kNy = 24, kNz = 64;
constexpr int kSrcX = 28, kSrcY = 12, kSrcZ = 8;
constexpr double kPlane = kNx - 0.5;  // interface, in physical cells
constexpr double kD = kPlane - kSrcX;

inline Vec3 source() {
  return {kSrcX * kH, kSrcY * kH, kSrcZ * kH};
}

// The traces [receivers][nt] of a run on a domain of nx physical cells in x (kNy, kNz in y, z).
using Traces =
    std::function<std::vector<double>(int nx, const std::vector<Vec3>& receivers, int nt)>;

// dB per angle. v_slow: the slowest velocity along the paths (sets the window: the reflection
// has passed the farthest receiver); v_fast: the fastest (the reference domain of nx_ref cells
// must keep its own x-high face's reflection out of the window). dt: the runs' time step.
inline std::vector<double> reflection_db(const std::vector<double>& angles, double v_slow,
                                         double v_fast, double dt, int nx_ref,
                                         const Traces& traces) {
  std::vector<Vec3> rec, mirror;
  double longest = 0;
  for (double a : angles) {
    const double dz = 2 * kD * std::tan(a * M_PI / 180);
    rec.push_back({kSrcX * kH, kSrcY * kH, (kSrcZ + dz) * kH});
    mirror.push_back({(2 * kPlane - kSrcX) * kH, kSrcY * kH, (kSrcZ + dz) * kH});
    longest = std::max(longest, std::hypot(2 * kD, dz) * kH);
  }
  // Path, wavelet delay and its length.
  const double tmax = longest / v_slow + 3.0 / kF;
  const int nt = static_cast<int>(tmax / dt) + 1;
  EXPECT_GT((nx_ref - kSrcX) * kH * 2, v_fast * tmax) << "reference domain too short";
  const auto run = traces(kNx, rec, nt);
  std::vector<Vec3> both = rec;
  both.insert(both.end(), mirror.begin(), mirror.end());
  const auto ref = traces(nx_ref, both, nt);
  std::vector<double> db;
  const size_t n = angles.size();
  for (size_t k = 0; k < n; ++k) {
    double er = 0, ei = 0;
    for (int t = 0; t < nt; ++t) {
      const double d = run[k * nt + t] - ref[k * nt + t];
      er += d * d;
      ei += ref[(n + k) * nt + t] * ref[(n + k) * nt + t];
    }
    db.push_back(10 * std::log10(er / ei));
  }
  return db;
}

}  // namespace seisfd::test::reflection
