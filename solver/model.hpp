// Velocity models: built on the physical grid from the config, then extended over the
// absorbing layers and halo by copying the nearest physical value (edge extension keeps the
// boundary transparent to the first order).
#pragma once
#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "solver/config.hpp"
#include "solver/grid.hpp"

namespace seisfd {

// The smallest and largest of some values; empty (lo > hi) when there are none.
struct ValueRange {
  float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity();
  static ValueRange of(const std::vector<float>& v) {
    if (v.empty()) return {};
    const auto [a, b] = std::minmax_element(v.begin(), v.end());
    return {*a, *b};
  }
  ValueRange with(const ValueRange& o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
};

struct VelocityModel {
  int nz = 0, ny = 0, nx = 0;
  std::vector<float> vp;  // [nz][ny][nx], m/s
  float vmin = 0, vmax = 0;
  // physics vti/tti: Thomsen eps and delta, tilt theta and azimuth phi (radians), same shape;
  // empty for acoustic (theta and phi empty for vti too).
  std::vector<float> epsilon, delta, theta, phi;
  float eps_max = 0;
  // Cells where delta > epsilon, lowered to delta = epsilon: the pseudo-acoustic p/q system
  // grows exponentially there (kernels/medium.hpp). make_plan reports the count.
  int64_t delta_clamped = 0;
  // The ranges of epsilon, delta (after the clamp), theta and phi (radians); empty where the
  // physics has no such parameter.
  ValueRange epsilon_range, delta_range, theta_range, phi_range;
};

// Throws ConfigError naming the model key for bad values (non-positive or non-finite cells
// with their index, wrong file shape).
VelocityModel build_model(const RunConfig& c);
// What build_model's checks and statistics say (vmin, vmax, eps_max, delta_clamped, the
// ranges) with no arrays: built and read kSummaryCells cells at a time, for `seisfd check`,
// whose memory then does not grow with the model (a SEG-Y model is still read whole).
constexpr size_t kSummaryCells = size_t(2) << 20;
VelocityModel summarize_model(const RunConfig& c);

// The salt demo: water layer, compacting sediments (velocity increasing with depth), and a
// salt body (4500 m/s) rising as a dome from the bottom of the model. Depends only on the
// grid, so any grid gets the same geology scaled to its extent.
float salt_demo_velocity(double x, double y, double z, const Vec3& lo, const Vec3& hi);

// The salt demo's anisotropy: shale-like sediments (eps 0.12 .. 0.24, delta 0.04 .. 0.1,
// increasing with depth), isotropic water and salt, and a symmetry axis normal to the layers,
// which dip away from the dome (tilt up to 40 degrees on its flanks, azimuth pointing away
// from its centre). Angles in degrees.
struct AnisoSample {
  double epsilon = 0, delta = 0, theta = 0, phi = 0;
};
AnisoSample salt_demo_anisotropy(double x, double y, double z, const Vec3& lo, const Vec3& hi);

std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m);
// Any field of the model's shape (epsilon, delta, theta, phi), extended the same way.
std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m,
                                    const std::vector<float>& field);
// The same over a layout `l` whose cell (0, 0, 0) is the grid's computational cell `at` (a
// rank's part of the grid, docs/parallel.md), without the whole grid's array.
std::vector<float> extend_to_layout(const SimGrid& grid, const VelocityModel& m,
                                    const std::vector<float>& field, const Layout& l,
                                    const std::array<int, 3>& at);

}  // namespace seisfd
