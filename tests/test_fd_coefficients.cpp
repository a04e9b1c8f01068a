// The FD weights, the one thing the CPU reference and the kernels share, checked on
// polynomials: exact up to the design degree, and not beyond it (so the order is exactly 2R).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/fd_coefficients.hpp"

namespace seisfd {
namespace {

class Weights : public ::testing::TestWithParam<int> {};

// Second derivative of x^p at 0 on unit spacing, from the stencil.
double d2_of_power(const std::vector<double>& a, int p) {
  double s = p == 0 ? a[0] : 0.0;
  for (size_t k = 1; k < a.size(); ++k) s += a[k] * (std::pow(k, p) + std::pow(-double(k), p));
  return s;
}

double d1_of_power(const std::vector<double>& b, int p) {
  double s = 0.0;
  for (size_t k = 1; k < b.size(); ++k) s += b[k] * (std::pow(k, p) - std::pow(-double(k), p));
  return s;
}

TEST_P(Weights, SecondDerivativeExactToDesignDegree) {
  const int R = GetParam();
  const auto a = second_derivative_weights(R);
  ASSERT_EQ(a.size(), size_t(R + 1));
  // Exact for every polynomial of degree <= 2R + 1 (odd powers vanish by symmetry).
  for (int p = 0; p <= 2 * R + 1; ++p)
    EXPECT_NEAR(d2_of_power(a, p), p == 2 ? 2.0 : 0.0, 1e-9 * std::pow(R, p)) << "degree " << p;
  // Not exact at degree 2R + 2: the truncation error term is there, so the order is 2R.
  const int q = 2 * R + 2;
  EXPECT_GT(std::fabs(d2_of_power(a, q)), 1e-3) << "degree " << q;
}

TEST_P(Weights, FirstDerivativeExactToDesignDegree) {
  const int R = GetParam();
  const auto b = first_derivative_weights(R);
  for (int p = 0; p <= 2 * R; ++p)
    EXPECT_NEAR(d1_of_power(b, p), p == 1 ? 1.0 : 0.0, 1e-9 * std::pow(R, p)) << "degree " << p;
  EXPECT_GT(std::fabs(d1_of_power(b, 2 * R + 1)), 1e-3);
}

// The stability bound uses |a0| + 2 sum |a_k|; it must equal the largest magnitude of the
// stencil's symbol -(a0 + 2 sum a_k cos(k theta)), reached at theta = pi.
TEST_P(Weights, SpectralRadiusIsSymbolMaximum) {
  const int R = GetParam();
  const auto a = second_derivative_weights(R);
  double mx = 0;
  for (int i = 0; i <= 2000; ++i) {
    const double th = M_PI * i / 2000;
    double s = a[0];
    for (int k = 1; k <= R; ++k) s += 2 * a[k] * std::cos(k * th);
    mx = std::max(mx, -s);
  }
  EXPECT_NEAR(second_derivative_spectral_radius(R), mx, 1e-12 * mx);
}

INSTANTIATE_TEST_SUITE_P(Radius, Weights, ::testing::Range(1, kMaxRadius + 1),
                         [](const auto& i) { return "order" + std::to_string(2 * i.param); });

TEST(Weights, KnownOrder2And4) {
  const auto a2 = second_derivative_weights(1);
  EXPECT_DOUBLE_EQ(a2[0], -2.0);
  EXPECT_DOUBLE_EQ(a2[1], 1.0);
  const auto a4 = second_derivative_weights(2);
  EXPECT_NEAR(a4[0], -5.0 / 2.0, 1e-15);
  EXPECT_NEAR(a4[1], 4.0 / 3.0, 1e-15);
  EXPECT_NEAR(a4[2], -1.0 / 12.0, 1e-15);
  EXPECT_THROW(second_derivative_weights(0), std::invalid_argument);
  EXPECT_THROW(second_derivative_weights(9), std::invalid_argument);
}

}  // namespace
}  // namespace seisfd
