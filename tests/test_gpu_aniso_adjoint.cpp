// The anisotropic variants on the smooth random media of the CPU dot tests: the GPU adjoint (dot
// test in fp32, and F* against the CPU adjoint in fp64) for VTI and TTI at orders 4 to 16, every
// fast variant's forward and transposed updates on odd shapes and on grids smaller than a tile
// (small enough for racecheck). Skips visibly without a device, fails under
// SEISFD_REQUIRE_GPU=1. The forward updates on the shared tilted problem: test_gpu_anisotropic.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

#include "kernels/cuda_backend.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "kernels/registry.hpp"
#include "kernels/propagation.hpp"
#include "solver/time_loop.hpp"
#include "solver/wavelet.hpp"
#include "tests/aniso_support.hpp"
#include "tests/gpu_skip.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

// A grid of nx x ny x nz cells of 10 m with boundary b, velocities uniform in 1500-3000 m/s and
// the smooth random anisotropy of the CPU dot tests (both drawn from rng), dt at 0.9 of the
// stability bound of the fastest medium that anisotropy allows.
struct RandomAniso {
  test::Problem p;
  Medium m;
};

RandomAniso random_aniso(Physics kind, int nx, int ny, int nz, const BoundaryConfig& b, int order,
                         std::mt19937& rng) {
  auto p = test::homogeneous(test::cube_grid(nx, ny, nz, 10.0), b, order, 2000.0, 0.9);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto& x : p.velocity) x = static_cast<float>(1500.0 + 1500.0 * u(rng));
  Medium m = test::make_aniso_model(p, test::smooth_random_case(kind, rng));
  p.dt = 0.9 * stability_limit(3000.0 * std::sqrt(1.6), order / 2, p.spec.h);
  return {std::move(p), std::move(m)};
}

// The GPU adjoint: <F s, d> = <s, F* d> with both operators on the device in fp32 (injection
// and recording included), and F* d against the CPU engine's transposed update in fp64, on the
// smooth random media of the CPU dot tests.
//
// Two data vectors. Pure noise d makes <F s, d> a sum with cancellation: here |F s| |d| is 40 to
// 100 times |<F s, d>|, and that factor multiplies the fp32 rounding of each side (1-2e-5
// against fp64 for the CPU fp32 engine and the GPU alike, vti o16: CPU fp32 6.3e-6, GPU 2.0e-5
// relative mismatch). So the asserted dot test takes d = F s + noise of the same energy: the
// identity holds for every d, the noise keeps d generic, and the mismatch measures the
// adjoint's rounding rather than the cancellation. The pure-noise mismatch is printed with its
// cancellation factor.
struct GpuDotCase {
  Physics kind;
  int order;
  bool free_surface;  // sponge + free surface, else no boundary
  const char* technique = "naive";
  // Compact: the forward launch reads the codes, the transposed one the fp32 copy of the same
  // values (kernels/model_precision.hpp); the CPU engine runs the same rounded model.
  ModelPrecision model = ModelPrecision::kFp32;
  TtiOperator op = TtiOperator::kNarrow;
};

class GpuAnisoAdjoint : public ::testing::TestWithParam<GpuDotCase> {};

TEST_P(GpuAnisoAdjoint, DotTestAndMatchesCpuAdjoint) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const GpuDotCase dc = GetParam();
  const BoundaryConfig b = dc.free_surface ? test::sponge(5, true) : test::no_boundary();
  std::mt19937 rng(17 + dc.order);
  auto [p, medium] = random_aniso(dc.kind, 22, 18, 16, b, dc.order, rng);
  p.spec.tti_operator = dc.op;
  Medium m = medium;
  m.precision = dc.model;
  const int nt = 150;
  const std::vector<Vec3> src{{61.3, 83.7, 40.2}, {150.0, 60.0, 100.0}};
  const std::vector<Vec3> rec{
      {5.5, 10.0, 0.0}, {101.0, 55.0, 4.0}, {200.0, 170.0, 150.0}, {120.4, 90.1, 70.7}};
  const auto S = make_points(p.grid, p.spec, src, PointInterp::kSinc, PointRole::kSource);
  const auto R = make_points(p.grid, p.spec, rec, PointInterp::kSinc, PointRole::kReceiver);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> sv(src.size() * nt), noise(rec.size() * nt);
  for (auto& x : sv) x = g(rng);
  for (auto& x : noise) x = g(rng);
  const std::string name =
      std::string(to_string(dc.kind)) + "/o" + std::to_string(dc.order) + "/" + dc.technique;
  // One engine for the forward and both adjoints.
  auto gpu = make_cuda_engine(p.spec, m, p.dt, test::variant(name));
  const auto Fs = apply_forward(*gpu, S, sv, R, nt);
  const double rms = std::sqrt(test::dot(Fs, Fs) / static_cast<double>(Fs.size()));
  std::vector<double> mixed(Fs.size());
  for (size_t k = 0; k < Fs.size(); ++k) mixed[k] = Fs[k] + rms * noise[k];
  double rel[2], cancel[2];
  std::vector<double> Ftd[2];
  const std::vector<double>* data[2] = {&mixed, &noise};
  for (int k = 0; k < 2; ++k) {
    Ftd[k] = apply_adjoint(*gpu, R, *data[k], S, nt);
    const double lhs = test::dot(Fs, *data[k]), rhs = test::dot(sv, Ftd[k]);
    rel[k] = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
    cancel[k] = std::sqrt(test::dot(Fs, Fs) * test::dot(*data[k], *data[k])) / std::fabs(lhs);
    EXPECT_GT(std::fabs(lhs), 0.0);
  }
  reference::CpuEngine<double> cpu(p.spec, m, p.dt);
  const double vs_cpu = test::rel_l2(Ftd[1], apply_adjoint(cpu, R, noise, S, nt));
  std::printf(
      "[gpu-aniso-adjoint] %-14s %-9s %-7s dot test d = Fs + noise %.2e (cancellation %.1f), "
      "d = noise %.2e (cancellation %.1f); F*(noise) vs cpu fp64 %.2e\n",
      name.c_str(), dc.free_surface ? "sponge+fs" : "none", to_string(dc.model), rel[0], cancel[0],
      rel[1], cancel[1], vs_cpu);
  EXPECT_LE(rel[0], tol::kDotFp32);
  EXPECT_LE(vs_cpu, tol::kCpuGpuL2);
}

INSTANTIATE_TEST_SUITE_P(
    Orders, GpuAnisoAdjoint,
    ::testing::Values(
        GpuDotCase{Physics::kVti, 4, false}, GpuDotCase{Physics::kVti, 8, true},
        GpuDotCase{Physics::kVti, 16, false}, GpuDotCase{Physics::kTti, 4, true},
        GpuDotCase{Physics::kTti, 8, false}, GpuDotCase{Physics::kTti, 8, true},
        GpuDotCase{Physics::kTti, 16, true}, GpuDotCase{Physics::kVti, 4, true, "smem_regqueue"},
        GpuDotCase{Physics::kVti, 8, true, "smem_regqueue"},
        GpuDotCase{Physics::kVti, 8, false, "smem_regqueue"},
        GpuDotCase{Physics::kVti, 16, true, "smem_regqueue"},
        GpuDotCase{Physics::kTti, 4, true, "smem_ring"},
        GpuDotCase{Physics::kTti, 8, true, "smem_ring"},
        GpuDotCase{Physics::kTti, 8, false, "smem_ring"},
        GpuDotCase{Physics::kTti, 16, true, "smem_ring"},
        GpuDotCase{Physics::kTti, 4, false, "smem_ring_y2"},
        GpuDotCase{Physics::kTti, 6, true, "smem_ring_y2"},
        GpuDotCase{Physics::kVti, 8, true, "smem_regqueue", ModelPrecision::kFp16},
        GpuDotCase{Physics::kVti, 4, false, "smem_regqueue", ModelPrecision::kFixed16},
        GpuDotCase{Physics::kTti, 8, true, "smem_ring", ModelPrecision::kFp16},
        GpuDotCase{Physics::kTti, 16, false, "smem_ring", ModelPrecision::kFixed16},
        GpuDotCase{Physics::kTti, 4, true, "smem_ring", ModelPrecision::kBf16},
        GpuDotCase{Physics::kTti, 4, false, "naive", ModelPrecision::kFp32, TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 8, true, "naive", ModelPrecision::kFp32, TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 16, true, "naive", ModelPrecision::kFp32, TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 4, false, "smem_nested", ModelPrecision::kFp32,
                   TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 8, true, "smem_nested", ModelPrecision::kFp32,
                   TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 8, false, "smem_nested", ModelPrecision::kFp32,
                   TtiOperator::kNested},
        GpuDotCase{Physics::kTti, 16, true, "smem_nested", ModelPrecision::kFp32,
                   TtiOperator::kNested}),
    [](const auto& i) {
      return std::string(to_string(i.param.kind)) + "_o" + std::to_string(i.param.order) +
             (i.param.free_surface ? "_freesurf" : "_none") + "_" + i.param.technique +
             (i.param.model == ModelPrecision::kFp32
                  ? ""
                  : std::string("_") + to_string(i.param.model)) +
             (i.param.op == TtiOperator::kNested ? "_nested" : "");
    });

// The transposed launch of every fast anisotropic variant against the naive variant's on odd
// shapes (several x tiles and y tiles, z chunks, sponge and free surface, none): F* of the same
// data through each, the CPU's fp64 adjoint as the judge of both.
class GpuAnisoTransposedShapes : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuAnisoTransposedShapes);

TEST_P(GpuAnisoTransposedShapes, MatchesTheCpuAdjoint) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  struct Shape {
    int nx, ny, nz;
    BoundaryConfig b;
  };
  for (const Shape& sh :
       {Shape{71, 37, 23, test::sponge(5, true)}, Shape{45, 19, 41, test::no_boundary()},
        Shape{29, 53, 17, test::sponge(7)}}) {
    SCOPED_TRACE(std::to_string(sh.nx) + "x" + std::to_string(sh.ny) + "x" + std::to_string(sh.nz));
    std::mt19937 rng(5);
    auto [p, m] = random_aniso(v->physics, sh.nx, sh.ny, sh.nz, sh.b, v->order, rng);
    test::operator_of(v->technique, p.spec);
    const int nt = 80;
    const auto S =
        make_points(p.grid, p.spec, {{100.3, 83.7, 40.2}}, PointInterp::kSinc, PointRole::kSource);
    const auto Rp = make_points(p.grid, p.spec, {{5.5, 10.0, 0.0}, {150.0, 90.0, 80.0}},
                                PointInterp::kSinc, PointRole::kReceiver);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<double> d(2 * static_cast<size_t>(nt));
    for (auto& x : d) x = g(rng);
    auto gpu = make_cuda_engine(p.spec, m, p.dt, test::variant(v->name));
    reference::CpuEngine<double> cpu(p.spec, m, p.dt);
    const double err =
        test::rel_l2(apply_adjoint(*gpu, Rp, d, S, nt), apply_adjoint(cpu, Rp, d, S, nt));
    std::printf("[gpu-aniso-transposed] %-22s %3dx%3dx%3d F*(d) vs cpu fp64 %.2e\n",
                v->name.c_str(), sh.nx, sh.ny, sh.nz, err);
    EXPECT_LE(err, tol::kCpuGpuL2);
  }
}

std::vector<std::string> fast_aniso_names() {
  std::vector<std::string> n;
  for (const auto& v : kernel_registry())
    if (anisotropic(v.physics) && v.technique != "naive" && v.transposed) n.push_back(v.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuAnisoTransposedShapes,
                         ::testing::ValuesIn(fast_aniso_names()), test::VariantTestName());

// Every fast anisotropic variant on a grid smaller than one of its tiles in x and y and a few
// planes deep (sponge and free surface): a few steps of F and F* with random source and data
// against the CPU's fp64 engine; a variant that reads compact model storage also runs F with each
// compact precision against the CPU engine of the same rounded model. Small enough for
// compute-sanitizer's racecheck, which takes minutes a step on the larger shapes above.
class GpuAnisoSmallGrid : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuAnisoSmallGrid);

TEST_P(GpuAnisoSmallGrid, ForwardAndTransposedMatchTheCpu) {
  SEISFD_REQUIRE_DEVICE_OR_SKIP();
  const KernelVariant* v = find_variant(GetParam());
  ASSERT_NE(v, nullptr);
  std::mt19937 rng(23);
  auto [p, m] = random_aniso(v->physics, 21, 11, 7, test::sponge(3, true), v->order, rng);
  test::operator_of(v->technique, p.spec);
  const int nt = 6;
  const auto S =
      make_points(p.grid, p.spec, {{100.3, 50.7, 30.2}}, PointInterp::kSinc, PointRole::kSource);
  const auto Rp = make_points(p.grid, p.spec, {{60.5, 40.0, 20.0}, {150.0, 70.0, 50.0}},
                              PointInterp::kSinc, PointRole::kReceiver);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> sv(static_cast<size_t>(nt)), d(2 * static_cast<size_t>(nt));
  for (auto& x : sv) x = g(rng);
  for (auto& x : d) x = g(rng);
  auto gpu = make_cuda_engine(p.spec, m, p.dt, test::variant(v->name));
  reference::CpuEngine<double> cpu(p.spec, m, p.dt);
  const double fwd =
      test::rel_l2(apply_forward(*gpu, S, sv, Rp, nt), apply_forward(cpu, S, sv, Rp, nt));
  const double adj =
      test::rel_l2(apply_adjoint(*gpu, Rp, d, S, nt), apply_adjoint(cpu, Rp, d, S, nt));
  std::printf("[gpu-aniso-small] %-22s %d steps: F %.2e, F* %.2e vs cpu fp64\n", v->name.c_str(),
              nt, fwd, adj);
  EXPECT_LE(fwd, tol::kCpuGpuL2);
  EXPECT_LE(adj, tol::kCpuGpuL2);
  if (!v->reads_compact_medium) return;
  for (ModelPrecision mp :
       {ModelPrecision::kFp16, ModelPrecision::kBf16, ModelPrecision::kFixed16}) {
    Medium mc = m;
    mc.precision = mp;
    auto gpu_c = make_cuda_engine(p.spec, mc, p.dt, test::variant(v->name));
    reference::CpuEngine<double> cpu_c(p.spec, mc, p.dt);
    const double e =
        test::rel_l2(apply_forward(*gpu_c, S, sv, Rp, nt), apply_forward(cpu_c, S, sv, Rp, nt));
    std::printf("[gpu-aniso-small] %-22s %-7s %d steps: F %.2e vs cpu fp64 of the same model\n",
                v->name.c_str(), to_string(mp), nt, e);
    EXPECT_LE(e, tol::kCpuGpuL2) << to_string(mp);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuAnisoSmallGrid, ::testing::ValuesIn(fast_aniso_names()),
                         test::VariantTestName());

}  // namespace
}  // namespace seisfd
