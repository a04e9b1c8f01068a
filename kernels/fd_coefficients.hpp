// Central finite-difference weights. Shared by the CPU reference and every GPU kernel; they
// are the one thing the two share, and they are tested on polynomials (tests/test_fd_coefficients).
#pragma once
#include <vector>

namespace seisfd {

constexpr int kMaxRadius = 8;  // space orders 2..16

// Weights a_0..a_R of the order-2R central second derivative on unit spacing:
// f''(0) ~ a_0 f(0) + sum_k a_k (f(k) + f(-k)).
std::vector<double> second_derivative_weights(int radius);

// Weights b_1..b_R (index 0 unused, = 0) of the order-2R central first derivative on unit
// spacing: f'(0) ~ sum_k b_k (f(k) - f(-k)).
std::vector<double> first_derivative_weights(int radius);

// lambda_max of the 1D second-derivative stencil on unit spacing: |a_0| + 2 sum |a_k|.
double second_derivative_spectral_radius(int radius);

}  // namespace seisfd
