// Born modelling and migration (solver/linearized.hpp, docs/migration.md §2-§4): the dot test
// <B dm, d> = <dm, B^T d> for every physics with sponge, none and the free surface, in fp64 and
// fp32 (and on the GPU when one is present); the gradient (Taylor) test of J(m) = 1/2 |F(m) -
// d|^2 whose gradient is B^T (F(m) - d); every source-wavefield storage strategy giving the same
// image; and the reconstruction of the boundary strategy against the stored field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "solver/linearized.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/linearized_support.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

using test::Case;
using test::dot;
using test::kCases;
using test::Maker;
using test::problem;
using test::random_region;
using test::ShotProblem;

// |<B dm, d> - <dm, B^T d>| / max: dm random on the region (a few percent of m), d = B dm +
// noise of the same size (no cancellation in <B dm, d>).
double born_dot(const Case& c, const Maker& make) {
  ShotProblem s = problem(c);
  auto e = make(s.p.spec, s.medium, s.p.dt);
  std::mt19937 rng(5);
  const double m0 = 1.0 / (2000.0 * 2000.0);
  auto dm = e->make_array(ArrayKind::kDevice);
  const std::vector<float> dmv = random_region(s.p.spec, rng, 0.03 * m0);
  dm->upload(dmv);
  const std::vector<double> Bdm = born(*e, s.shot, *dm);
  double rms = 0;
  for (double v : Bdm) rms += v * v;
  rms = std::sqrt(rms / Bdm.size());
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> d(Bdm.size());
  for (size_t k = 0; k < d.size(); ++k) d[k] = Bdm[k] + rms * g(rng);
  auto image = e->make_array(ArrayKind::kDevice);
  const ImagingSteps steps{s.shot.nt, 1};
  auto storage = make_storage({StorageKind::kStore}, *e, steps, Box{}, 0);
  ShotImages im;
  im.crosscorrelation = image.get();
  migrate(*e, s.shot, d, *storage, steps, im);
  const double lhs = test::dot(Bdm, d), rhs = dot(dmv, image->download());
  const double rel = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
  std::printf("[born dot] %-24s %-10s <B dm, d> = %.12e  <dm, B^T d> = %.12e  relative %.2e\n",
              c.name, e->name().c_str(), lhs, rhs, rel);
  EXPECT_GT(std::fabs(lhs), 0.0);
  return rel;
}

class BornDot : public ::testing::TestWithParam<Case> {};

TEST_P(BornDot, Fp64) {
  EXPECT_LE(
      born_dot(GetParam(), [](const StepSpec& s, const Medium& m,
                              double dt) { return reference::make_cpu_engine(s, m, dt, true); }),
      tol::kDotFp64);
}

TEST_P(BornDot, Fp32) {
  EXPECT_LE(
      born_dot(GetParam(), [](const StepSpec& s, const Medium& m,
                              double dt) { return reference::make_cpu_engine(s, m, dt, false); }),
      tol::kDotFp32);
}

TEST_P(BornDot, GpuFp32) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  EXPECT_LE(born_dot(GetParam(),
                     [](const StepSpec& s, const Medium& m, double dt) {
                       return make_cuda_engine(s, m, dt, test::variant("auto"));
                     }),
            tol::kDotFp32);
}

INSTANTIATE_TEST_SUITE_P(Physics, BornDot, ::testing::ValuesIn(kCases),
                         [](const auto& i) { return std::string(i.param.name); });

// The gradient of J(m) = 1/2 |F(m) - d|^2 is B(m)^T (F(m) - d): the Taylor remainders of
// J(m + h dm) fall as h without the gradient term and as h^2 with it, over 5 halvings (fp64;
// acoustic and TTI with a sponge).
TEST(BornGradient, TaylorRemaindersFallWithSlopesOneAndTwo) {
  for (const Case& c : {kCases[0], kCases[5]}) {
    SCOPED_TRACE(c.name);
    ShotProblem s = problem(c, 101);
    const auto make = [&](const std::vector<float>& dm_cells, double h) {
      Medium m = s.medium;
      for (size_t i = 0; i < m.velocity.size(); ++i) {
        const double mi = 1.0 / (double(m.velocity[i]) * m.velocity[i]) + h * dm_cells[i];
        m.velocity[i] = static_cast<float>(1.0 / std::sqrt(mi));
      }
      return reference::make_cpu_engine(s.p.spec, m, s.p.dt, true);
    };
    std::mt19937 rng(3);
    const double m0 = 1.0 / (2000.0 * 2000.0);
    const std::vector<float> zero(static_cast<size_t>(s.p.spec.layout.size()), 0.0f);
    // Observed data from a model 5% off, smoothly.
    std::vector<float> off(zero.size());
    const Layout& l = s.p.spec.layout;
    for (int z = 0; z < l.nz; ++z)
      for (int y = 0; y < l.ny; ++y)
        for (int x = 0; x < l.nx; ++x)
          off[l.idx(z, y, x)] = static_cast<float>(0.05 * m0 * std::cos(0.2 * x - 0.15 * z));
    const auto d_obs =
        apply_forward(*make(off, 1.0), s.shot.sources, s.shot.wavelet, s.shot.receivers, s.shot.nt);
    auto e0 = make(zero, 0.0);
    const auto f0 = apply_forward(*e0, s.shot.sources, s.shot.wavelet, s.shot.receivers, s.shot.nt);
    std::vector<double> resid(f0.size());
    double J0 = 0;
    for (size_t k = 0; k < f0.size(); ++k) {
      resid[k] = f0[k] - d_obs[k];
      J0 += 0.5 * resid[k] * resid[k];
    }
    auto grad = e0->make_array(ArrayKind::kDevice);
    const ImagingSteps steps{s.shot.nt, 1};
    auto storage = make_storage({StorageKind::kStore}, *e0, steps, Box{}, 0);
    ShotImages im;
    im.crosscorrelation = grad.get();
    migrate(*e0, s.shot, resid, *storage, steps, im);
    const std::vector<float> dm = random_region(s.p.spec, rng, 0.02 * m0);
    const double gdm = dot(dm, grad->download());
    std::vector<double> hs, r1, r2;
    // h small enough that the linear term dominates the first remainder (at h = 1 the h^2 term
    // is as large), over 5 halvings.
    for (double h = 0.25; h > 0.007; h /= 2) {
      const auto fh =
          apply_forward(*make(dm, h), s.shot.sources, s.shot.wavelet, s.shot.receivers, s.shot.nt);
      double Jh = 0;
      for (size_t k = 0; k < fh.size(); ++k) Jh += 0.5 * (fh[k] - d_obs[k]) * (fh[k] - d_obs[k]);
      hs.push_back(h);
      r1.push_back(std::fabs(Jh - J0));
      r2.push_back(std::fabs(Jh - J0 - h * gdm));
      std::printf("[taylor] %-16s h %.4f  |J(m+h dm) - J(m)| %.4e  ... - h <g, dm>| %.4e\n", c.name,
                  h, r1.back(), r2.back());
    }
    const double s1 = test::loglog_slope(hs, r1), s2 = test::loglog_slope(hs, r2);
    std::printf("[taylor] %-16s slopes %.3f (expect 1) and %.3f (expect 2)\n", c.name, s1, s2);
    EXPECT_NEAR(s1, 1.0, 0.1);
    EXPECT_NEAR(s2, 2.0, 0.1);
  }
}

// Every storage strategy gives the same image. In fp64 they agree to rounding (1e-10): each is
// exact. In fp32, store, host and checkpoint keep or recompute the very same values (0
// difference); the boundary strategy's backward run of the update adds its own rounding, which
// grows with the steps reconstructed (measured 2.7e-6 after 160 steps); fp16 storage its
// rounding of the kept field (measured 4e-4 .. 8e-4).
template <class T>
void every_strategy_same_image(const Case& c) {
  SCOPED_TRACE(std::string(c.name) + (sizeof(T) == 8 ? " fp64" : " fp32"));
  ShotProblem s = problem(c, 161);
  auto e = reference::make_cpu_engine(s.p.spec, s.medium, s.p.dt, sizeof(T) == 8);
  std::mt19937 rng(8);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> d(static_cast<size_t>(s.shot.receivers.count()) * s.shot.nt);
  for (auto& x : d) x = g(rng) * 1e-6;
  const ImagingSteps steps{s.shot.nt, 2};
  const Box region = test::physical_region(s.p.spec);  // no layer damps there
  const double exact = sizeof(T) == 8 ? 1e-10 : 0.0;
  std::vector<double> ref;
  for (const auto& [kind, precision, checkpoints, tol] :
       {std::tuple{StorageKind::kStore, StorePrecision::kFp32, 0, 0.0},
        std::tuple{StorageKind::kHost, StorePrecision::kFp32, 0, exact},
        std::tuple{StorageKind::kCheckpoint, StorePrecision::kFp32, 6, exact},
        std::tuple{StorageKind::kBoundary, StorePrecision::kFp32, 0, sizeof(T) == 8 ? 1e-10 : 1e-5},
        std::tuple{StorageKind::kStore, StorePrecision::kFp16, 0, 2e-3}}) {
    auto storage = make_storage({kind, precision, checkpoints}, *e, steps, region, s.p.spec.radius);
    auto cc = e->make_array(ArrayKind::kDevice), il = e->make_array(ArrayKind::kDevice);
    ShotImages im;
    im.crosscorrelation = cc.get();
    im.illumination = il.get();
    migrate(*e, s.shot, d, *storage, steps, im);
    // Compared over the region the boundary strategy reconstructs.
    const std::vector<double> img = test::on_box(cc->download(), s.p.spec.layout, region);
    if (ref.empty()) {
      ref = img;
      continue;
    }
    const double err = test::rel_l2(img, ref);
    std::printf("[storage] %-20s %s %-10s %s: image vs store fp32 %.2e, forward steps %lld\n",
                c.name, sizeof(T) == 8 ? "fp64" : "fp32", to_string(kind), to_string(precision),
                err, storage->forward_steps());
    EXPECT_LE(err, tol) << to_string(kind) << " " << to_string(precision);
  }
}

TEST(SourceStorage, EveryStrategyGivesTheSameImage) {
  for (const Case& c : {kCases[1], kCases[5]}) {
    every_strategy_same_image<double>(c);
    every_strategy_same_image<float>(c);
  }
}

// auto's choice (choose_storage) on numbers of the size `seisfd check` prints for rtm_salt.toml
// at 10 s (28 Mcells, 10001 steps: 1.3 s a propagation at ~215 Gcells/s; store 137 GB, more than
// a 128 GB device budget; host pins 137 GB at ~1 s a GiB; boundary keeps its strips on the
// device; checkpoint holds 94 states for 4 propagations). Without costs the order of preference
// decides (host); with them the least estimated time: boundary for a few shots, host once the
// pinning, paid once, is spread over enough of them; never a strategy that does not fit.
TEST(SourceStorage, AutoWeighsPinningAgainstPropagations) {
  const double gib = double(1ull << 30);
  const std::vector<StorageEstimate> opts = {
      {StorageKind::kStore, 137 * gib, 0, 2, 0},
      {StorageKind::kHost, 0.25 * gib, 137 * gib, 2, 0},
      {StorageKind::kBoundary, 57 * gib, 0, 3, 0, ArrayKind::kDevice},
      {StorageKind::kCheckpoint, 20 * gib, 0, 4, 94}};
  const double device = 128 * gib, host = 230 * gib;
  EXPECT_EQ(choose_storage(opts, device, host).kind, StorageKind::kHost);
  StorageCosts c;
  c.seconds_per_propagation = 1.3;
  c.pin_seconds_per_byte = 1.0 / gib;
  c.shots = 1;
  EXPECT_EQ(choose_storage(opts, device, host, &c).kind, StorageKind::kBoundary);
  EXPECT_NEAR(c.seconds(opts[1]), 2 * 1.3 + 137, 1e-9);
  c.shots = 200;  // 137 s of pinning against 200 propagations of 1.3 s saved
  EXPECT_EQ(choose_storage(opts, device, host, &c).kind, StorageKind::kHost);
  c.shots = 1;
  c.seconds_per_propagation = 0;  // nothing measured: the order of preference
  EXPECT_EQ(choose_storage(opts, device, host, &c).kind, StorageKind::kHost);
  // Only what fits: the boundary strips on the device need more than a 50 GiB budget, and
  // checkpoint is then the cheapest without pinning.
  c.seconds_per_propagation = 1.3;
  EXPECT_EQ(choose_storage(opts, 50 * gib, host, &c).kind, StorageKind::kCheckpoint);
  // Store, where it fits, is never beaten (the fewest propagations, nothing pinned).
  EXPECT_EQ(choose_storage(opts, 140 * gib, host, &c).kind, StorageKind::kStore);
  // Nothing fits: one message naming what each needs.
  try {
    choose_storage(opts, 1 * gib, 1 * gib, &c);
    ADD_FAILURE() << "no strategy fits, yet one was chosen";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint 20480 MiB device"), std::string::npos)
        << e.what();
  }
}

// The GPU migration against the CPU's, for every physics and storage strategy on the GPU (the
// CPU keeping the source field): images within 1e-5 over the region the boundary strategy
// reconstructs, and the Born data of one perturbation within 1e-5.
TEST(MigrationGpu, ImagesAndBornDataMatchTheCpu) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  for (const Case& c : {kCases[0], kCases[3], kCases[5], kCases[6]}) {
    SCOPED_TRACE(c.name);
    ShotProblem s = problem(c, 141);
    auto cpu = reference::make_cpu_engine(s.p.spec, s.medium, s.p.dt, false);
    auto gpu = make_cuda_engine(s.p.spec, s.medium, s.p.dt, test::variant("auto"));
    std::mt19937 rng(9);
    const double m0 = 1.0 / (2000.0 * 2000.0);
    const std::vector<float> dmv = random_region(s.p.spec, rng, 0.03 * m0);
    std::vector<double> born_data[2];
    int k = 0;
    for (Engine* e : {cpu.get(), gpu.get()}) {
      auto dm = e->make_array(ArrayKind::kDevice);
      dm->upload(dmv);
      born_data[k++] = born(*e, s.shot, *dm);
    }
    const double born_err = test::rel_l2(born_data[1], born_data[0]);
    EXPECT_LE(born_err, 1e-5) << "born data";
    const std::vector<double>& d = born_data[0];
    const ImagingSteps steps{s.shot.nt, 2};
    const Box region = test::physical_region(s.p.spec);  // no layer damps there
    const auto image = [&](Engine& e, StorageKind kind) {
      auto storage =
          make_storage({kind, StorePrecision::kFp32, 4}, e, steps, region, s.p.spec.radius);
      auto cc = e.make_array(ArrayKind::kDevice);
      ShotImages im;
      im.crosscorrelation = cc.get();
      migrate(e, s.shot, d, *storage, steps, im);
      return test::on_box(cc->download(), s.p.spec.layout, region);
    };
    const std::vector<double> ref = image(*cpu, StorageKind::kStore);
    for (StorageKind kind : {StorageKind::kStore, StorageKind::kHost, StorageKind::kBoundary,
                             StorageKind::kCheckpoint}) {
      const double err = test::rel_l2(image(*gpu, kind), ref);
      std::printf("[gpu migration] %-20s %-10s image vs cpu %.2e (born data %.2e)\n", c.name,
                  to_string(kind), err, born_err);
      EXPECT_LE(err, 1e-5) << to_string(kind);
    }
  }
}

// The boundary strategy's reconstruction, run backward over every step, against the field the
// forward run kept. The earliest fields, reconstructed last, carry the most rounding; they are
// also the smallest (u[1] is the source alone), so the error of each is measured against the
// largest field of the run. fp64 keeps the strips at full precision and retraces the forward
// run to rounding; fp32 accumulates the rounding of the backward steps.
template <class T>
void boundary_reconstructs(const Case& c, double tol) {
  SCOPED_TRACE(std::string(c.name) + (sizeof(T) == 8 ? " fp64" : " fp32"));
  ShotProblem s = problem(c, 201);
  auto e = reference::make_cpu_engine(s.p.spec, s.medium, s.p.dt, sizeof(T) == 8);
  const ImagingSteps steps{s.shot.nt, 1};
  const Box region = test::physical_region(s.p.spec);  // no layer damps there
  auto kept = make_storage({StorageKind::kStore}, *e, steps, region, 0);
  auto rebuilt = make_storage({StorageKind::kBoundary}, *e, steps, region, s.p.spec.radius);
  for (SourceStorage* st : {kept.get(), rebuilt.get()}) {
    Propagation src(*e);
    src.set_injection(s.shot.sources, s.shot.wavelet, s.shot.nt);
    st->forward(src, s.shot.sources, s.shot.wavelet);
  }
  const Layout& l = s.p.spec.layout;
  std::vector<double> diff(s.shot.nt, 0.0);
  double largest = 0;
  for (int m = s.shot.nt - 1; m >= 1; --m) {
    const auto a = kept->recall(m)[0]->download();
    const auto b = rebuilt->recall(m)[0]->download();
    double na = 0, nd = 0;
    for (int z = region.lo[0]; z < region.hi[0]; ++z)
      for (int y = region.lo[1]; y < region.hi[1]; ++y)
        for (int x = region.lo[2]; x < region.hi[2]; ++x) {
          const double va = a[l.idx(z, y, x)], vb = b[l.idx(z, y, x)];
          na += va * va;
          nd += (vb - va) * (vb - va);
        }
    largest = std::max(largest, std::sqrt(na));
    diff[m] = std::sqrt(nd);
  }
  ASSERT_GT(largest, 0.0);
  double worst = 0;
  for (int m = 1; m < s.shot.nt; ++m) worst = std::max(worst, diff[m] / largest);
  std::printf(
      "[storage] %-20s %s boundary reconstruction vs kept field: u[1] %.2e, worst over "
      "%d fields %.2e (of the largest field)\n",
      c.name, sizeof(T) == 8 ? "fp64" : "fp32", diff[1] / largest, s.shot.nt - 1, worst);
  EXPECT_LE(diff[1] / largest, tol) << "the earliest field";
  EXPECT_LE(worst, tol);
}

TEST(SourceStorage, BoundaryReconstructsTheStoredField) {
  for (const Case& c : {kCases[0], kCases[1], kCases[3]}) {
    boundary_reconstructs<double>(c, 1e-12);
    boundary_reconstructs<float>(c, 1e-5);
  }
}

}  // namespace
}  // namespace seisfd
