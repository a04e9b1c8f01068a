// Dot test of the modelling operator F (wavelet -> traces, injection and interpolation
// included) against apply_adjoint: <F s, d> = <s, F* d> for random s and d.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "kernels/reference/cpu_engine.hpp"
#include "kernels/propagation.hpp"
#include "tests/support.hpp"
#include "tests/tolerances.hpp"

namespace seisfd {
namespace {

struct DotCase {
  const char* name;
  BoundaryConfig boundary;
  PointInterp interp;
  int order;
};

class DotTest : public ::testing::TestWithParam<DotCase> {};

template <class T>
double dot_mismatch(const DotCase& c, unsigned seed) {
  auto p = test::homogeneous(test::cube_grid(22, 18, 16, 10.0), c.boundary, c.order, 1800.0, 0.9);
  // A heterogeneous model so the (v dt)^2 / (1 + g) factors differ from cell to cell.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> vel(1500.f, 3000.f);
  for (auto& v : p.velocity) v = vel(rng);
  p.dt = 0.9 * stability_limit(3000.0, c.order / 2, p.spec.h);
  const int nt = 200;
  const std::vector<Vec3> src{{61.3, 83.7, 40.2}, {150.0, 60.0, 100.0}};  // off and on grid
  const std::vector<Vec3> rec{
      {5.5, 10.0, 0.0}, {101.0, 55.0, 4.0}, {200.0, 170.0, 150.0}, {120.4, 90.1, 70.7}};
  const auto S = make_points(p.grid, p.spec, src, c.interp, PointRole::kSource);
  const auto R = make_points(p.grid, p.spec, rec, c.interp, PointRole::kReceiver);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> s(src.size() * nt), d(rec.size() * nt);
  for (auto& x : s) x = g(rng);
  for (auto& x : d) x = g(rng);
  // One engine serves both directions.
  reference::CpuEngine<T> e(p.spec, acoustic_medium(p.velocity), p.dt);
  const auto Fs = apply_forward(e, S, s, R, nt);
  const auto Ftd = apply_adjoint(e, R, d, S, nt);
  const double lhs = test::dot(Fs, d), rhs = test::dot(s, Ftd);
  const double rel = std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
  std::printf("[dot] %-22s %s: <Fs,d> = %.15e  <s,F*d> = %.15e  relative %.2e\n", c.name,
              sizeof(T) == 8 ? "fp64" : "fp32", lhs, rhs, rel);
  EXPECT_GT(std::fabs(lhs), 0.0);
  return rel;
}

TEST_P(DotTest, Fp64) {
  EXPECT_LE(dot_mismatch<double>(GetParam(), 7), tol::kDotFp64);
}
TEST_P(DotTest, Fp32) {
  EXPECT_LE(dot_mismatch<float>(GetParam(), 11), tol::kDotFp32);
}

INSTANTIATE_TEST_SUITE_P(
    Operators, DotTest,
    ::testing::Values(DotCase{"none_sinc_o8", test::no_boundary(), PointInterp::kSinc, 8},
                      DotCase{"sponge_sinc_o8", test::sponge(6), PointInterp::kSinc, 8},
                      DotCase{"freesurf_sinc_o8", test::sponge(6, true), PointInterp::kSinc, 8},
                      DotCase{"freesurf_trilin_o4", test::sponge(5, true), PointInterp::kTrilinear,
                              4},
                      DotCase{"sponge_sinc_o16", test::sponge(6), PointInterp::kSinc, 16}),
    [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace seisfd
