// Migration against the geology it images (docs/migration.md): reflected data of a two-layer
// medium (the full data minus the data of the upper medium alone: the direct wave removed by
// modelling it in the correct velocity), migrated with the correct upper velocity, puts the
// reflector within a cell of the interface across the illuminated aperture: a flat reflector and
// one dipping at 25 degrees. Under a tilted anisotropic layer, the TTI migration puts it there
// and the isotropic one measurably higher. CPU fp32, thin 3D slabs (ny small) so that the runs
// stay short.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <functional>

#include "kernels/reference/cpu_engine.hpp"
#include "solver/linearized.hpp"
#include "solver/model_ops.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/support.hpp"

namespace seisfd {
namespace {

constexpr double kH = 10.0, kV0 = 2000.0, kV1 = 2600.0, kF = 14.0;
constexpr int kNx = 90, kNy = 4, kNz = 60;

struct Slab {
  test::Problem p;
  std::vector<Shot> shots;
  int nt = 0;
};

Slab slab(const std::vector<double>& shot_x, double seconds = 0.62) {
  Slab s{
      test::homogeneous(test::cube_grid(kNx, kNy, kNz, kH), test::sponge(12), 8, kV1, 0.8), {}, 0};
  s.nt = static_cast<int>(seconds / s.p.dt) + 1;
  for (double sx : shot_x) {
    Shot shot;
    shot.index = static_cast<int>(s.shots.size());
    shot.source = {sx, 15.0, 20.0};
    for (int i = 0; i < kNx; i += 2) shot.receivers.push_back({i * kH, 15.0, 20.0});
    s.shots.push_back(shot);
  }
  return s;
}

ShotOperator op(const Slab& s, const Shot& shot) {
  ShotOperator o;
  o.sources =
      make_points(s.p.grid, s.p.spec, {shot.source}, PointInterp::kSinc, PointRole::kSource);
  o.receivers =
      make_points(s.p.grid, s.p.spec, shot.receivers, PointInterp::kSinc, PointRole::kReceiver);
  SourceConfig sc;
  sc.frequency = kF;
  o.wavelet = make_wavelet(sc, s.p.dt, s.nt);
  o.nt = s.nt;
  o.dt = s.p.dt;
  return o;
}

// The medium with velocity v(x, z) (physical metres), anisotropy from `aniso` when given.
Medium medium(const Slab& s, const std::function<double(double, double)>& v, Physics ph,
              const std::function<void(double, double, double&, double&, double&)>& aniso = {}) {
  Medium m;
  m.physics = ph;
  const Layout& l = s.p.spec.layout;
  const auto n = static_cast<size_t>(l.size());
  m.velocity.assign(n, 0.0f);
  if (ph != Physics::kAcoustic) {
    m.epsilon.assign(n, 0.0f);
    m.delta.assign(n, 0.0f);
  }
  if (ph == Physics::kTti) {
    m.theta.assign(n, 0.0f);
    m.phi.assign(n, 0.0f);
  }
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const double xm = (x - s.p.grid.offset(2)) * kH, zm = (z - s.p.grid.offset(0)) * kH;
        const size_t i = l.idx(z, y, x);
        m.velocity[i] = static_cast<float>(v(xm, zm));
        if (aniso) {
          double e = 0, d = 0, t = 0;
          aniso(xm, zm, e, d, t);
          m.epsilon[i] = static_cast<float>(e);
          m.delta[i] = static_cast<float>(d);
          if (ph == Physics::kTti) m.theta[i] = static_cast<float>(t * M_PI / 180.0);
        }
      }
  return m;
}

// The stacked, source-illumination-normalised image (physical grid) of the reflected data of
// `truth` (minus the data of `upper`), migrated in `migration`. The normalisation undoes the
// source field's spreading, which would otherwise tilt each reflection's image towards the
// surface.
std::vector<double> image(const Slab& s, const Medium& truth, const Medium& upper,
                          const Medium& migration) {
  auto et = reference::make_cpu_engine(s.p.spec, truth, s.p.dt, false);
  auto eu = reference::make_cpu_engine(s.p.spec, upper, s.p.dt, false);
  auto em = reference::make_cpu_engine(s.p.spec, migration, s.p.dt, false);
  auto cc = em->make_array(ArrayKind::kDevice), il = em->make_array(ArrayKind::kDevice);
  const ImagingSteps steps{s.nt, 2};
  auto store = make_storage({StorageKind::kStore}, *em, steps, Box{}, 0);
  for (const Shot& shot : s.shots) {
    const ShotOperator o = op(s, shot);
    auto d = apply_forward(*et, o.sources, o.wavelet, o.receivers, o.nt);
    const auto direct = apply_forward(*eu, o.sources, o.wavelet, o.receivers, o.nt);
    for (size_t k = 0; k < d.size(); ++k) d[k] -= direct[k];
    ShotImages im;
    im.crosscorrelation = cc.get();
    im.illumination = il.get();
    migrate(*em, o, d, *store, steps, im);
  }
  std::vector<double> img = layout_to_physical(s.p.grid, cc->download());
  const std::vector<double> light = layout_to_physical(s.p.grid, il->download());
  const double top = *std::max_element(light.begin(), light.end());
  for (size_t k = 0; k < img.size(); ++k) img[k] /= light[k] + 0.01 * top;
  return img;
}

// The depth (cells, fractional) of a reflector in column x of slice y, searched in [z0, z1).
// A velocity step reflects the wavelet itself, and the adjoint maps it to what the Born
// operator's normal operator BᵀB makes of a step in m: the depth integral of its point-spread
// function, which is symmetric about the scatterer with zero mean (the data have no zero
// frequency). That integral is antisymmetric about the interface: two lobes of opposite sign,
// the interface at the zero crossing between them. Found as the largest |image| in the window,
// the largest lobe of the other sign within 5 cells of it, and the crossing between the two
// (linear between the cells on either side).
double reflector_depth(const std::vector<double>& img, int x, int z0, int z1) {
  const int y = kNy / 2;
  z0 = std::max(z0, 0);
  z1 = std::min(z1, kNz);
  const auto at = [&](int z) { return img[(static_cast<size_t>(z) * kNy + y) * kNx + x]; };
  int a = z0;
  for (int z = z0; z < z1; ++z)
    if (std::fabs(at(z)) > std::fabs(at(a))) a = z;
  int b = -1;
  for (int z = std::max(z0, a - 5); z < std::min(z1, a + 6); ++z)
    if (at(z) * at(a) < 0 && (b < 0 || std::fabs(at(z)) > std::fabs(at(b)))) b = z;
  if (b < 0) return a;  // no lobe of the other sign: not the image of an interface
  const int lo = std::min(a, b), hi = std::max(a, b);
  for (int z = lo; z < hi; ++z)
    if (at(z) * at(z + 1) <= 0) return z + at(z) / (at(z) - at(z + 1));
  return a;
}

// Migrates the reflected data of an interface at depth(x) metres under a medium of kV0 (kV1
// below) with the correct upper velocity; the reflector is found in every other column of
// [x0, x1] (cells) within a cell of the discrete model's interface (between the last cell
// above it and the first below, cell centres at whole multiples of the spacing).
void reflector_in_place(const char* label, const std::vector<double>& shot_x,
                        const std::function<double(double)>& depth, int x0, int x1) {
  const Slab s = slab(shot_x);
  const auto truth = [&](double x, double z) { return z < depth(x) ? kV0 : kV1; };
  const auto v0 = [&](double, double) { return kV0; };
  const Medium up = medium(s, v0, Physics::kAcoustic);
  const auto img = image(s, medium(s, truth, Physics::kAcoustic), up, up);
  double worst = 0;
  int checked = 0;
  for (int x = x0; x <= x1; x += 2) {
    const double want = std::ceil(depth(x * kH) / kH) - 0.5;
    ASSERT_TRUE(want > 16 && want < kNz - 8) << "column " << x;
    const double got =
        reflector_depth(img, x, static_cast<int>(want) - 10, static_cast<int>(want) + 11);
    worst = std::max(worst, std::fabs(got - want));
    ++checked;
    EXPECT_LE(std::fabs(got - want), 1.0)
        << "column " << x << ": peak at " << got << " cells, interface at " << want;
  }
  std::printf("[migration] %-15s worst peak offset %.2f cells over %d columns\n", label, worst,
              checked);
}

// Three shots; the aperture between the outer ones.
TEST(Migration, FlatReflectorAtItsDepth) {
  reflector_in_place(
      "flat", {250.0, 450.0, 650.0}, [](double) { return 350.0; }, 25, 65);
}

// A dipping interface needs a denser shot line: the swings of each shot's image cancel only in
// the stack. The columns end at 63: at the deep end (column 65) the reflections leave the spread
// updip and a swing outweighs the reflector's image.
TEST(Migration, DippingReflectorAtItsDepth) {
  const double dip = std::tan(25.0 * M_PI / 180.0);
  reflector_in_place(
      "dipping 25 deg", {150.0, 250.0, 350.0, 450.0, 550.0, 650.0, 750.0},
      [&](double x) { return 240.0 + dip * (x - 250.0); }, 25, 63);
}

// A reflector under a tilted TTI layer (epsilon 0.3, delta 0.1, tilt 40 degrees, from 60 m down
// to the reflector at 320 m; isotropic above it, where the source and the receivers are, so
// that the point source sends no pseudo-acoustic shear artefact): imaged at its depth with the
// TTI model, and more than a cell too shallow with the isotropic model of the same velocity
// along the symmetry axis (the tilted layer is faster along the vertical by about 7%: the
// isotropic migration puts the reflector about 20 m, two cells, too high). One shot; the
// columns within 70 m of it.
TEST(Migration, TtiReflectorNeedsTheTtiModel) {
  const Slab s = slab({450.0}, 0.5);
  const double zr = 320.0;
  const auto v = [&](double, double z) { return z < zr ? kV0 : kV1; };
  const auto v0 = [&](double, double) { return kV0; };
  const auto layer = [&](double, double z, double& e, double& d, double& t) {
    if (z >= 60.0 && z < zr) {
      e = 0.3;
      d = 0.1;
      t = 40.0;
    }
  };
  const Medium truth = medium(s, v, Physics::kTti, layer);
  const Medium upper_tti = medium(s, v0, Physics::kTti, layer);
  const Medium upper_iso = medium(s, v0, Physics::kTti);  // eps = delta = 0: isotropic
  const double want = std::ceil(zr / kH) - 0.5;
  double off[2] = {0, 0};
  int k = 0;
  for (const Medium* mig : {&upper_tti, &upper_iso}) {
    const auto img = image(s, truth, upper_tti, *mig);
    double sum = 0;
    int n = 0;
    for (int x = 38; x <= 52; x += 2, ++n)
      sum +=
          reflector_depth(img, x, static_cast<int>(want) - 10, static_cast<int>(want) + 11) - want;
    off[k++] = sum / n;
  }
  std::printf(
      "[migration] tti reflector at %.1f cells: mean offset %.2f cells (tti model), "
      "%.2f cells (isotropic)\n",
      want, off[0], off[1]);
  EXPECT_LE(std::fabs(off[0]), 1.0);
  EXPECT_LT(off[1], -1.0);
}

}  // namespace
}  // namespace seisfd

// The imaging conditions' arithmetic on given stacks (docs/migration.md §5), written out here
// independently: the cross-correlation as it is, normalised by the illumination plus 1% of its
// largest value, and the inverse-scattering image as half the negative second-order Laplacian of
// the zero-lag correlation (zero beyond the edges).
TEST(ImagingConditions, AreTheFormulasOfTheDocs) {
  const int nz = 5, ny = 4, nx = 6;
  const double h[3] = {10.0, 12.5, 8.0};
  const size_t n = static_cast<size_t>(nz) * ny * nx;
  std::vector<float> cc(n), il(n), zl(n);
  for (size_t j = 0; j < n; ++j) {
    cc[j] = static_cast<float>(std::sin(0.7 * j) * 3.0);
    il[j] = static_cast<float>(1.0 + std::cos(0.3 * j) * 0.9);
    zl[j] = static_cast<float>(std::cos(1.1 * j) + 0.2 * j);
  }
  using seisfd::ImagingCondition;
  EXPECT_EQ(
      seisfd::imaging_condition(ImagingCondition::kCrossCorrelation, cc, il, zl, nz, ny, nx, h),
      cc);
  const auto norm =
      seisfd::imaging_condition(ImagingCondition::kNormalized, cc, il, zl, nz, ny, nx, h);
  const double il_max = *std::max_element(il.begin(), il.end());
  ASSERT_EQ(norm.size(), n);
  for (size_t j = 0; j < n; ++j)
    EXPECT_FLOAT_EQ(norm[j], static_cast<float>(cc[j] / (il[j] + 0.01 * il_max))) << j;
  const auto inv =
      seisfd::imaging_condition(ImagingCondition::kInverseScattering, cc, {}, zl, nz, ny, nx, h);
  ASSERT_EQ(inv.size(), n);
  const auto at = [&](int z, int y, int x) -> double {
    if (z < 0 || z >= nz || y < 0 || y >= ny || x < 0 || x >= nx) return 0.0;
    return zl[(static_cast<size_t>(z) * ny + y) * nx + x];
  };
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const double c = at(z, y, x);
        const double lap = (at(z + 1, y, x) - 2 * c + at(z - 1, y, x)) / (h[0] * h[0]) +
                           (at(z, y + 1, x) - 2 * c + at(z, y - 1, x)) / (h[1] * h[1]) +
                           (at(z, y, x + 1) - 2 * c + at(z, y, x - 1)) / (h[2] * h[2]);
        EXPECT_NEAR(inv[(static_cast<size_t>(z) * ny + y) * nx + x], -0.5 * lap,
                    1e-5 * (1 + std::fabs(lap)))
            << z << " " << y << " " << x;
      }
}
