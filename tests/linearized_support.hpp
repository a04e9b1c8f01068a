// The small heterogeneous shot of the Born and migration tests (test_linearized.cpp,
// test_gpu_imaging.cpp): a problem per physics and boundary, random perturbations on the
// updated region.
#pragma once
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "solver/linearized.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/support.hpp"

namespace seisfd::test {

using Maker = std::function<std::unique_ptr<Engine>(const StepSpec&, const Medium&, double)>;

struct Case {
  const char* name;
  Physics physics;
  BoundaryConfig boundary;
};

// A small heterogeneous shot: two sources, four receivers, 120 steps.
struct ShotProblem {
  Problem p;
  Medium medium;
  ShotOperator shot;
};

inline ShotProblem problem(const Case& c, int nt = 121, int order = 8) {
  ShotProblem s{homogeneous(cube_grid(20, 16, 14, 10.0), c.boundary, order, 2000.0, 0.9), {}, {}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Layout& l = s.p.spec.layout;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        s.p.velocity[l.idx(z, y, x)] =
            static_cast<float>(1800.0 + 300.0 * std::sin(0.3 * x + 0.2 * z) * std::cos(0.25 * y));
  s.medium = s.p.medium();
  if (c.physics != Physics::kAcoustic)
    s.medium = make_aniso_model(s.p, smooth_random_case(c.physics, rng));
  s.p.dt = 0.8 * stability_limit(2100.0 * std::sqrt(1.6), 4, s.p.spec.h);
  s.shot.dt = s.p.dt;
  s.shot.nt = nt;
  s.shot.sources = make_points(s.p.grid, s.p.spec, {{61.3, 73.7, 40.2}, {130.0, 50.0, 90.0}},
                               PointInterp::kSinc, PointRole::kSource);
  s.shot.receivers = make_points(
      s.p.grid, s.p.spec,
      {{5.5, 10.0, 0.0}, {101.0, 55.0, 4.0}, {180.0, 140.0, 120.0}, {120.4, 90.1, 70.7}},
      PointInterp::kSinc, PointRole::kReceiver);
  SourceConfig sc;
  sc.frequency = 20;
  const auto w = make_wavelet(sc, s.p.dt, nt);
  s.shot.wavelet = w;
  for (double v : w) s.shot.wavelet.push_back(0.7 * v);  // the second source, weaker
  return s;
}

// Random values on the updated region, zero elsewhere.
inline std::vector<float> random_region(const StepSpec& sp, std::mt19937& rng, double scale) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<float> v(static_cast<size_t>(sp.layout.size()), 0.0f);
  for (int z = sp.begin[0]; z < sp.end[0]; ++z)
    for (int y = sp.begin[1]; y < sp.end[1]; ++y)
      for (int x = sp.begin[2]; x < sp.end[2]; ++x)
        v[sp.layout.idx(z, y, x)] = static_cast<float>(scale * g(rng));
  return v;
}

inline double dot(const std::vector<float>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

inline const Case kCases[] = {
    {"acoustic_sponge", Physics::kAcoustic, test::sponge(5)},
    {"acoustic_freesurf", Physics::kAcoustic, test::sponge(5, true)},
    {"acoustic_none", Physics::kAcoustic, test::no_boundary()},
    {"vti_sponge_freesurf", Physics::kVti, test::sponge(5, true)},
    {"vti_none", Physics::kVti, test::no_boundary()},
    {"tti_sponge", Physics::kTti, test::sponge(5)},
    {"tti_freesurf", Physics::kTti, test::sponge(5, true)},
};

// The physical domain: no absorbing layer damps there (what the boundary strategy rebuilds).
inline Box physical_region(const StepSpec& spec) {
  Box region;
  for (int a = 0; a < 3; ++a) {
    region.lo[a] = spec.sponge.phys_lo[a];
    region.hi[a] = spec.sponge.phys_hi[a] + 1;
  }
  return region;
}

// An array's values on a box.
inline std::vector<double> on_box(const std::vector<double>& all, const Layout& l, const Box& b) {
  std::vector<double> out;
  for (int z = b.lo[0]; z < b.hi[0]; ++z)
    for (int y = b.lo[1]; y < b.hi[1]; ++y)
      for (int x = b.lo[2]; x < b.hi[2]; ++x) out.push_back(all[l.idx(z, y, x)]);
  return out;
}

}  // namespace seisfd::test
