#include "fd_coefficients.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace seisfd {
namespace {

void check_radius(int radius) {
  if (radius < 1 || radius > kMaxRadius)
    throw std::invalid_argument("FD radius " + std::to_string(radius) + " outside 1.." +
                                std::to_string(kMaxRadius));
}

// (R!)^2 / ((R-k)! (R+k)!) computed as a running product to stay exact in double.
double factorial_ratio(int radius, int k) {
  double r = 1.0;
  for (int j = 1; j <= k; ++j) r *= static_cast<double>(radius - j + 1) / (radius + j);
  return r;
}

}  // namespace

// Closed forms of the maximal-order central stencils (Fornberg 1988, the limit of his
// recursion for equispaced symmetric nodes):
//   a_k = 2 (-1)^(k+1) (R!)^2 / (k^2 (R-k)! (R+k)!),  a_0 = -2 sum a_k
//   b_k =   (-1)^(k+1) (R!)^2 / (k   (R-k)! (R+k)!)
std::vector<double> second_derivative_weights(int radius) {
  check_radius(radius);
  std::vector<double> a(radius + 1, 0.0);
  double sum = 0.0;
  for (int k = 1; k <= radius; ++k) {
    const double sign = (k % 2 == 1) ? 1.0 : -1.0;
    a[k] = 2.0 * sign * factorial_ratio(radius, k) / (static_cast<double>(k) * k);
    sum += a[k];
  }
  a[0] = -2.0 * sum;
  return a;
}

std::vector<double> first_derivative_weights(int radius) {
  check_radius(radius);
  std::vector<double> b(radius + 1, 0.0);
  for (int k = 1; k <= radius; ++k) {
    const double sign = (k % 2 == 1) ? 1.0 : -1.0;
    b[k] = sign * factorial_ratio(radius, k) / k;
  }
  return b;
}

double second_derivative_spectral_radius(int radius) {
  const auto a = second_derivative_weights(radius);
  double s = std::fabs(a[0]);
  for (int k = 1; k <= radius; ++k) s += 2.0 * std::fabs(a[k]);
  return s;
}

}  // namespace seisfd
