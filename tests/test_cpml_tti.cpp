// CPML for TTI through the layer's medium, on the CPU reference (kernels/cpml.hpp records the
// study and its numbers): the axis turned to vertical across an undamped transition zone
// (tests/tti_layer_support.hpp), then VTI's CPML over the rest of the layer. Stable over
// 20,000 steps on random tilts with eps - delta up to 0.3, exact at tilt 0, but the transition
// itself reflects -45 to -32 dB at a tilt of 30 degrees and -37 to -26 dB at 45 (issue target:
// -40 dB), so boundary.type = "cpml" stays refused for TTI; only the CPU engine accepts TTI with
// CPML, and only where the damped layers are vertical. The DISABLED_ study tests rerun any
// variant: TAPER, BEGIN, START, TARGET (0 tilt only, 1 elliptic, 2 isotropic), COSINE, TILT,
// PHI, EPS and DELTA (percent), WIDTH, CELLS, GAP (percent), STEPS, SEED in the environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "kernels/cpml.hpp"
#include "kernels/propagation.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/reflection_support.hpp"
#include "tests/support.hpp"
#include "tests/tti_layer_support.hpp"

namespace seisfd {
namespace {

using namespace test::reflection;
using test::LayerTaper;

// The layer of the study: 12 undamped cells in which the tilt falls to 0 (cosine), then the CPML
// profile over the last 8 of the 20 cells.
struct Layer {
  LayerTaper taper{0, 12, test::LayerTarget::kTiltOnly, true};
  int start = 12;
};

int env_int(const char* n, int d) {
  const char* s = std::getenv(n);
  return s ? std::atoi(s) : d;
}

Layer env_layer() {
  Layer l;
  l.taper.begin = env_int("BEGIN", l.taper.begin);
  l.taper.cells = env_int("TAPER", l.taper.cells);
  l.taper.target = static_cast<test::LayerTarget>(env_int("TARGET", 0));
  l.taper.cosine = env_int("COSINE", 1) != 0;
  l.start = env_int("START", l.start);
  return l;
}

// ---------------------------------------------------------------------------------------------
// Reflection from the x-high face (tests/reflection_support.hpp), a homogeneous TTI medium of
// vertical velocity 2000 m/s with the axis tilted by theta in the x-z plane (phi = 0: the tilt
// faces the absorbing face), as tests/test_cpml_aniso.cpp measures VTI.
constexpr double kV = 2000;
constexpr int kNxRef = 92;

std::vector<double> measure(double theta, double phi, const BoundaryConfig& b, const Layer& lay,
                            const std::vector<double>& angles, double eps, double delta) {
  const double h[3] = {kH, kH, kH};
  const double vmax = kV * std::sqrt(1 + 2 * eps);
  const double dt = 0.9 * stability_limit(vmax, kOrder / 2, h);
  auto traces = [&](int nx, const std::vector<Vec3>& rec, int nt) {
    auto p = test::homogeneous(test::cube_grid(nx, kNy, kNz, kH), b, kOrder, kV, 0, dt);
    p.spec = make_step_spec(p.grid, b, kV, p.dt, 0.0, vmax);
    test::damp_after(p.spec, lay.start, b.width);
    Medium m =
        test::make_aniso_model(p, test::constant_case(Physics::kTti, eps, delta, theta, phi));
    if (p.spec.cpml_on()) test::taper_layer_medium(m, p.spec, lay.taper);
    SourceConfig sc;
    sc.frequency = kF;
    const auto w = make_wavelet(sc, p.dt, nt);
    const auto s = make_points(p.grid, p.spec, {source()}, PointInterp::kSinc, PointRole::kSource);
    const auto r = make_points(p.grid, p.spec, rec, PointInterp::kSinc, PointRole::kReceiver);
    reference::CpuEngine<float> e(p.spec, m, p.dt);
    return apply_forward(e, s, w, r, nt);
  };
  const auto db = reflection_db(angles, kV, vmax, dt, kNxRef, traces);
  std::printf(
      "[tti layer reflection] tilt %2.0f phi %3.0f eps %.2f delta %.2f %s %d (begin %d taper %d "
      "target %d cosine %d start %d):",
      theta, phi, eps, delta, to_string(b.type), b.width, lay.taper.begin, lay.taper.cells,
      static_cast<int>(lay.taper.target), lay.taper.cosine ? 1 : 0, lay.start);
  for (size_t k = 0; k < angles.size(); ++k) std::printf(" %2.0f deg %6.1f", angles[k], db[k]);
  std::printf("\n");
  std::fflush(stdout);
  return db;
}

const std::vector<double> kAngles{0, 15, 30, 45, 60};

// Tilt 0: the layer is VTI's CPML over 8 cells after 12 undamped ones, the targets met
// (measured -86 to -72 dB). Tilted: the transition's own reflection, measured -45 to -32 dB at
// 30 degrees and -37 to -26 dB at 45 (worst at 60 degrees incidence), short of the -40 dB target;
// the bounds below hold those levels, so a taper or a damping profile that broke fails (the
// sharper 8-cell taper already reflects -22 dB).
TEST(TtiCpmlLayer, ReflectionOfTheVerticalLayer) {
  const Layer lay;
  for (double theta : {0.0, 30.0, 45.0}) {
    SCOPED_TRACE(theta);
    const auto db = measure(theta, 0, test::cpml(20, kF), lay, kAngles, 0.2, 0.1);
    for (size_t k = 0; k < kAngles.size(); ++k) {
      EXPECT_LE(db[k], theta == 0 ? -60.0 : -24.0) << kAngles[k] << " deg";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Stability: the layer on all six faces at Courant 0.9 of the anisotropic bound, on a smooth
// random medium (eps up to 0.35, eps - delta up to gap, tilt up to 60 degrees, any azimuth);
// the energy of p falls once the wave has left and does not grow afterwards.
struct Run {
  int width, cells, steps;
  double gap;
  Layer layer;
  double decay = 1e-5;  // the second half's largest energy below this fraction of the peak
};

void stability_run(const Run& r) {
  constexpr int kEvery = 100;
  const double v = 2000, f = 25;
  const BoundaryConfig b = test::cpml(r.width, f);
  auto p = test::homogeneous(test::cube_grid(r.cells, r.cells, r.cells, 10.0), b, 8, v, 0.9);
  const double vmax = v * std::sqrt(1 + 2 * 0.35);
  p.dt = 0.9 * stability_limit(vmax, 4, p.spec.h);
  p.spec = make_step_spec(p.grid, b, v, p.dt, 0.0, vmax);
  test::damp_after(p.spec, r.layer.start, r.width);
  std::mt19937 rng(env_int("SEED", 17));
  const test::AnisoCase c = test::smooth_random_case(Physics::kTti, rng, {0.35, r.gap, 60, 0.4, 4});
  Medium m = test::make_aniso_model(p, c);
  test::taper_layer_medium(m, p.spec, r.layer.taper);
  reference::CpuEngine<float> e(p.spec, m, p.dt);
  Propagation prop(e);
  SourceConfig sc;
  sc.frequency = f;
  const int nt_src = static_cast<int>(3.0 / f / p.dt) + 1;
  const double mid = r.cells * 10.0 / 2;
  prop.set_injection(make_points(p.grid, p.spec, {{mid + 2.3, mid - 3.1, mid + 1.7}},
                                 PointInterp::kSinc, PointRole::kSource),
                     make_wavelet(sc, p.dt, nt_src), nt_src);
  std::vector<double> energy;
  for (int n = 0; n < r.steps; n += kEvery) {
    prop.steps(n, n + kEvery);
    energy.push_back(prop.diagnostics().sum_sq);
    if (!std::isfinite(energy.back()) || energy.back() > 1e6 * energy.front()) break;
  }
  const double peak = *std::max_element(energy.begin(), energy.end());
  const size_t half = energy.size() / 2;
  const double late = *std::max_element(energy.begin() + half, energy.end());
  std::printf(
      "[tti layer stability] width %d (begin %d taper %d target %d start %d), eps - delta up to "
      "%.2f, %zu00 steps: peak %.3e, at step 1000 %.3e, at step %zu00 %.3e, max over the second "
      "half %.3e, final %.3e\n",
      r.width, r.layer.taper.begin, r.layer.taper.cells, static_cast<int>(r.layer.taper.target),
      r.layer.start, r.gap, energy.size(), peak, energy.size() > 9 ? energy[9] : 0.0, half,
      energy[half - 1], late, energy.back());
  std::fflush(stdout);
  for (double x : energy) EXPECT_TRUE(std::isfinite(x));
  EXPECT_EQ(energy.size() * kEvery, static_cast<size_t>(r.steps)) << "stopped: grew by 1e6";
  EXPECT_LT(late, r.decay * peak) << "energy over the second half";
  // The slow shear artefact mode comes back late from the far side, a bump of a few percent.
  EXPECT_LE(late, 1.5 * energy[half - 1]) << "grew during the second half";
  EXPECT_LE(energy.back(), energy[half - 1]) << "late-time growth";
}

// The study's layer (20 cells: 12 undamped with the tilt tapered, 8 damped), 20,000 steps,
// eps - delta up to 0.3 (measured: peak 1.7e-3, 4.4e-11 at step 10,000, at most 4.6e-11 after,
// 1.8e-13 at the end).
TEST(TtiCpmlLayer, Stable20000StepsOnRandomTilts) {
  stability_run({20, 12, 20000, 0.3, Layer{}});
}

// The same construction at the size CI affords: 10 cells (6 tapered, 4 damped), 3,000 steps
// (measured: 5e-4 of the peak over the second half, falling); a tilted damped cell grows by 1e6
// within 300 steps.
TEST(TtiCpmlLayer, StableOnRandomTiltsShort) {
  Layer l;
  l.taper.cells = 6;
  l.start = 6;
  stability_run({10, 12, 3000, 0.3, l, 2e-3});
}

// The CPU engine takes TTI with CPML only where the damped layers are vertical; anything else,
// and every other engine, refuses it with the one-line reason (kernels/medium.hpp).
TEST(TtiCpmlLayer, TiltedDampedLayerIsRefused) {
  auto p = test::homogeneous(test::cube_grid(10, 10, 10, 10.0), test::cpml(6, 20), 4, 2000, 0.5);
  const test::AnisoCase c = test::constant_case(Physics::kTti, 0.2, 0.1, 30.0);
  try {
    reference::CpuEngine<float> e(p.spec, test::make_aniso_model(p, c), p.dt);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("use \"sponge\""), std::string::npos) << what;
    EXPECT_NE(what.find("cells with a tilted axis in the layers"), std::string::npos) << what;
  }
  // Vertical past 3 undamped cells: accepted.
  test::damp_after(p.spec, 3, 6);
  Medium m = test::make_aniso_model(p, c);
  test::taper_layer_medium(m, p.spec, LayerTaper{0, 2, test::LayerTarget::kTiltOnly, true});
  EXPECT_NO_THROW(reference::CpuEngine<float>(p.spec, m, p.dt));
}

// ---------------------------------------------------------------------------------------------
// The study, for any variant (see the header comment); not run by ctest.
TEST(TtiCpmlStudy, DISABLED_Reflection) {
  const Layer lay = env_layer();
  std::vector<double> tilts{0, 30, 45};
  if (std::getenv("TILT")) tilts = {static_cast<double>(env_int("TILT", 45))};
  const double eps = env_int("EPS", 20) / 100.0, delta = env_int("DELTA", 10) / 100.0;
  for (double theta : tilts)
    measure(theta, env_int("PHI", 0), test::cpml(env_int("WIDTH", 20), kF), lay, kAngles, eps,
            delta);
}

TEST(TtiCpmlStudy, DISABLED_SpongeReflection) {
  for (double theta : {0.0, 30.0, 45.0})
    measure(theta, 0, test::sponge(20), Layer{}, kAngles, 0.2, 0.1);
}

TEST(TtiCpmlStudy, DISABLED_Stability) {
  stability_run({env_int("WIDTH", 20), env_int("CELLS", 12), env_int("STEPS", 20000),
                 env_int("GAP", 30) / 100.0, env_layer(), 1e-5});
}

}  // namespace
}  // namespace seisfd
