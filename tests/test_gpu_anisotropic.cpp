// Every registered VTI/TTI variant against the CPU reference (fp64) after 500 steps, on a
// heterogeneous tilted medium with sponge and free surface; and the naive throughput at 512^3
// order 8 when SEISFD_ANISO_BENCH=1. Skips visibly without a device, fails under
// SEISFD_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "kernels/cuda_backend.hpp"
#include "kernels/reference/aniso_engine.hpp"
#include "kernels/registry.hpp"
#include "solver/operators.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

std::vector<std::string> aniso_variant_names() {
  std::vector<std::string> n;
  for (const auto& v : kernel_registry())
    if (v.physics == "vti" || v.physics == "tti") n.push_back(v.name);
  return n;
}

// eps - delta between 0.1 and 0.2 (shale-like). With eps close to delta the p/q system has a
// near-null family of slow (shear-artefact) modes in which fp32 rounding accumulates without
// propagating away: measured on the CPU itself (fp32 vs fp64, this problem, orders 4/8/14),
// 0.8-1.9e-5 with eps - delta ~ 0.015, 0.6-1.2e-5 at ~0.06, 0.4-0.6e-5 at ~0.15 (acoustic:
// 0.2-0.6e-5). The GPU is held to the 1e-5 of tol::kCpuGpuL2 against the fp64 reference.
test::AnisoCase smooth_case(AnisoKind kind) {
  test::AnisoCase c;
  c.kind = kind;
  c.epsilon = [](int z, int y, int x) {
    return 0.15 + 0.1 * std::sin(0.21 * x + 0.13 * y - 0.1 * z);
  };
  c.delta = [c](int z, int y, int x) {
    return c.epsilon(z, y, x) - 0.15 - 0.05 * std::cos(0.17 * x - 0.11 * z + 0.3 * y);
  };
  c.theta = [](int z, int y, int x) {
    return 30.0 + 25.0 * std::sin(0.12 * x + 0.2 * z + 0.05 * y);
  };
  c.phi = [](int z, int y, int x) {
    return 180.0 + 170.0 * std::cos(0.09 * x - 0.15 * y + 0.07 * z);
  };
  return c;
}

class GpuAniso : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuAniso);

// The shared problem: 500 steps on a heterogeneous tilted medium with sponge and free surface.
struct AnisoShot {
  test::Problem p;
  AnisoModel m;
  SparsePoints S, R;
  std::vector<double> w;
  int nt = 501;
};

AnisoShot aniso_shot(AnisoKind kind, int order) {
  AnisoShot s{test::homogeneous(test::cube_grid(36, 30, 28, 10.0), test::sponge(16, true), order,
                                2000.0, 0.9)};
  test::Problem& p = s.p;
  const Layout& l = p.grid.layout();
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x)
        p.velocity[l.idx(z, y, x)] =
            static_cast<float>(1800.0 + 400.0 * std::sin(0.1 * x + 0.07 * z));
  p.dt = 0.9 * stability_limit(2200.0 * std::sqrt(1.5), order / 2, p.spec.h);
  s.m = test::make_aniso_model(p, smooth_case(kind));
  SourceConfig sc;
  sc.frequency = 16;
  s.S = make_points(p.grid, p.spec, {{170.3, 150.2, 90.7}}, PointInterp::kSinc, PointRole::kSource);
  s.R = make_points(
      p.grid, p.spec,
      {{100.0, 100.0, 60.0}, {250.5, 200.0, 150.0}, {200.0, 100.5, 200.0}, {120.0, 220.0, 120.0}},
      PointInterp::kSinc, PointRole::kReceiver);
  s.w = make_wavelet(sc, p.dt, s.nt);
  return s;
}

TEST_P(GpuAniso, MatchesCpuReferenceAfter500Steps) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  AnisoShot s = aniso_shot(v->physics == "tti" ? AnisoKind::kTti : AnisoKind::kVti, v->order);
  reference::AnisoCpuEngine<double> cpu(s.p.spec, s.m, s.p.dt);
  const auto ref = apply_forward(cpu, s.S, s.w, s.R, s.nt);
  auto gpu = make_cuda_aniso_engine(s.p.spec, s.m, s.p.dt, v->name, 0);
  const auto got = apply_forward(*gpu, s.S, s.w, s.R, s.nt);
  const double err = test::rel_l2(got, ref);
  std::printf("[gpu-aniso] %-18s 500 steps, traces relative L2 vs cpu fp64 %.2e\n", v->name.c_str(),
              err);
  EXPECT_LE(err, tol::kCpuGpuL2);
  // The read-outs (device-side box copy and reduction) agree with the CPU engine's.
  const Diagnostics a = gpu->diagnostics(), b = cpu.diagnostics();
  EXPECT_NEAR(a.sum_sq, b.sum_sq, 1e-4 * b.sum_sq);
  EXPECT_NEAR(a.max_abs, b.max_abs, 1e-4 * b.max_abs);
  EXPECT_EQ(a.nonfinite, 0);
  const int lo[3] = {0, 0, 0};
  const int hi[3] = {s.p.spec.layout.nz, s.p.spec.layout.ny, s.p.spec.layout.nx};
  const int dec[3] = {1, 1, 1};
  std::vector<float> fg, fc;
  gpu->copy_field(lo, hi, dec, fg);
  cpu.copy_field(lo, hi, dec, fc);
  EXPECT_LE(test::rel_l2(std::vector<double>(fg.begin(), fg.end()),
                         std::vector<double>(fc.begin(), fc.end())),
            1e-4);
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuAniso, ::testing::ValuesIn(aniso_variant_names()),
                         [](const auto& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == '/') c = '_';
                           return n;
                         });

// Host-only: the registry lists the anisotropic baselines for orders 4, 8, 12 and 16 with a
// launch function of their kind (CUDA builds).
TEST(AnisoRegistry, NaiveVariantsForEveryRequiredOrder) {
  if (!cuda_built()) GTEST_SKIP() << "built without CUDA";
  for (const char* phys : {"vti", "tti"})
    for (int order : {4, 8, 12, 16}) {
      const KernelVariant* v =
          find_variant(std::string(phys) + "/o" + std::to_string(order) + "/naive");
      ASSERT_NE(v, nullptr) << phys << " order " << order;
      EXPECT_NE(v->launch_aniso, nullptr);
      EXPECT_EQ(v->launch, nullptr);
    }
}

// Throughput at 512^3 + 20-cell sponge, order 8 (DESIGN.md §6: cells of the whole
// computational grid x steps / seconds, median of repeats). A measurement, not a test: disabled
// in ctest (a skip would be a silent pass), run by scripts/device_aniso.sh with
// --gtest_also_run_disabled_tests; appends "physics,variant,cells,gcells_per_s,..." to
// $SEISFD_ANISO_BENCH_CSV if set.
TEST(GpuAnisoBench, DISABLED_Naive512Order8) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const char* csv = std::getenv("SEISFD_ANISO_BENCH_CSV");
  const std::string device = cuda_devices()[0].name;
  for (AnisoKind kind : {AnisoKind::kVti, AnisoKind::kTti}) {
    auto p =
        test::homogeneous(test::cube_grid(512, 512, 512, 10.0), test::sponge(20), 8, 2000.0, 0.9);
    p.dt = 0.8 * stability_limit(2000.0 * std::sqrt(1.5), 4, p.spec.h);
    test::AnisoCase c;  // constants: the naive kernels' speed does not depend on the values
    c.kind = kind;
    c.epsilon = [](int, int, int) { return 0.2; };
    c.delta = [](int, int, int) { return 0.1; };
    c.theta = [](int, int, int) { return 30.0; };
    c.phi = [](int, int, int) { return 40.0; };
    const AnisoModel m = test::make_aniso_model(p, c);
    auto e = make_cuda_aniso_engine(p.spec, m, p.dt, std::string(aniso_name(kind)) + "/o8/naive");
    const auto S = make_points(p.grid, p.spec, {{2560.0, 2560.0, 2560.0}}, PointInterp::kSinc,
                               PointRole::kSource);
    SourceConfig sc;
    sc.frequency = 10;
    const int nt = 200;
    e->set_injection(S, make_wavelet(sc, p.dt, nt), nt);
    for (int n = 0; n < 5; ++n) e->step(n);  // warm-up
    e->synchronize();
    std::vector<double> rates;
    const int steps = 20;
    const double cells = static_cast<double>(p.grid.layout().cells());
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int n = 0; n < steps; ++n) e->step(5 + rep * steps + n);
      e->synchronize();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      rates.push_back(cells * steps / s / 1e9);
    }
    std::sort(rates.begin(), rates.end());
    const double med = rates[rates.size() / 2];
    // Streaming ceiling for the physics' minimal access pattern (DESIGN.md §6), computed from the
    // measured acoustic streaming ceiling on H200: 277 Gcells/s x 16 B = 4432 GB/s.
    const double bytes = kind == AnisoKind::kVti ? 36.0 : 44.0;
    const double ceiling = 277.0 * 16.0 / bytes;
    const Diagnostics d = e->diagnostics();
    std::printf(
        "[aniso-bench] %s/o8/naive on %s: %.1f Gcells/s (min %.1f, max %.1f), %.0f B/cell "
        "ceiling %.1f Gcells/s, fraction %.3f, grid %.1f Mcells, max|p| %.3e\n",
        aniso_name(kind), device.c_str(), med, rates.front(), rates.back(), bytes, ceiling,
        med / ceiling, cells / 1e6, d.max_abs);
    EXPECT_EQ(d.nonfinite, 0);
    EXPECT_GT(d.max_abs, 0.0);
    if (csv) {
      std::ofstream out(csv, std::ios::app);
      out << aniso_name(kind) << "/o8/naive," << device << "," << cells << "," << med << ","
          << rates.front() << "," << rates.back() << "," << bytes << "," << ceiling << ","
          << med / ceiling << "\n";
    }
  }
}

}  // namespace
}  // namespace seisfd
