#include "solver/points.hpp"

#include <cmath>
#include <map>

namespace seisfd {
namespace {

// Modified Bessel function of the first kind, order 0 (power series; converges fast for the
// arguments a Kaiser window needs).
double bessel_i0(double x) {
  double sum = 1.0, term = 1.0;
  const double q = x * x / 4.0;
  for (int k = 1; k < 200; ++k) {
    term *= q / (static_cast<double>(k) * k);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}

double kaiser_sinc(double d) {
  if (std::fabs(d) >= kSincRadius) return 0.0;
  const double r = d / kSincRadius;
  const double window = bessel_i0(kKaiserB * std::sqrt(1.0 - r * r)) / bessel_i0(kKaiserB);
  const double sinc = d == 0.0 ? 1.0 : std::sin(M_PI * d) / (M_PI * d);
  return sinc * window;
}

}  // namespace

AxisWeights axis_weights(double f, PointInterp interp) {
  AxisWeights a;
  const double nearest = std::round(f);
  if (std::fabs(f - nearest) < 1e-9) {
    a.first = static_cast<int>(nearest);
    a.w = {1.0};
    return a;
  }
  const int base = static_cast<int>(std::floor(f));
  if (interp == PointInterp::kTrilinear) {
    const double t = f - base;
    a.first = base;
    a.w = {1.0 - t, t};
    return a;
  }
  a.first = base - kSincRadius + 1;
  double sum = 0.0;
  for (int i = 0; i < 2 * kSincRadius; ++i) {
    a.w.push_back(kaiser_sinc((a.first + i) - f));
    sum += a.w.back();
  }
  for (double& w : a.w) w /= sum;
  return a;
}

SparsePoints make_points(const SimGrid& grid, const StepSpec& spec,
                         const std::vector<Vec3>& positions, PointInterp interp, PointRole role) {
  return make_points(grid, spec, positions, interp, role, Subdomain::whole(spec), spec.layout);
}

SparsePoints make_points(const SimGrid& grid, const StepSpec& spec,
                         const std::vector<Vec3>& positions, PointInterp interp, PointRole role,
                         const Subdomain& sub, const Layout& local) {
  SparsePoints sp;
  int point = 0;
  const double scale = role == PointRole::kSource ? 1.0 / (spec.h[0] * spec.h[1] * spec.h[2]) : 1.0;
  for (const Vec3& p : positions) {
    const auto f = grid.to_index(p);
    AxisWeights ax[3];
    for (int a = 0; a < 3; ++a) ax[a] = axis_weights(f[a], interp);
    std::map<int64_t, double> cells;  // ordered: deterministic CSR
    for (size_t i = 0; i < ax[0].w.size(); ++i) {
      int z = ax[0].first + static_cast<int>(i);
      double sign = 1.0;
      if (spec.free_surface && z <= spec.surface) {
        if (z == spec.surface) continue;  // the surface row is held at zero
        z = 2 * spec.surface - z;         // odd mirror
        sign = -1.0;
      }
      if (z < spec.begin[0] || z >= spec.end[0]) continue;
      for (size_t j = 0; j < ax[1].w.size(); ++j) {
        const int y = ax[1].first + static_cast<int>(j);
        if (y < spec.begin[1] || y >= spec.end[1]) continue;
        for (size_t k = 0; k < ax[2].w.size(); ++k) {
          const int x = ax[2].first + static_cast<int>(k);
          if (x < spec.begin[2] || x >= spec.end[2] || !sub.owns(z, y, x)) continue;
          const auto c = sub.to_local(z, y, x);
          cells[local.idx(c[0], c[1], c[2])] += sign * scale * ax[0].w[i] * ax[1].w[j] * ax[2].w[k];
        }
      }
    }
    const size_t before = sp.index.size();
    for (const auto& [idx, w] : cells) {
      if (w == 0.0) continue;
      sp.index.push_back(idx);
      sp.weight.push_back(w);
    }
    const int id = point++;
    if (sp.index.size() == before && !sub.is_whole()) continue;  // another rank's point
    sp.offset.push_back(static_cast<int64_t>(sp.index.size()));
    sp.id.push_back(id);
  }
  return sp;
}

}  // namespace seisfd
