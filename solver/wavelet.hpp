// Source time functions sampled at the propagation dt.
#pragma once
#include <string>
#include <vector>

#include "solver/config.hpp"

namespace seisfd {

// A (1 - 2 pi^2 f^2 tau^2) exp(-pi^2 f^2 tau^2), tau = t - delay.
double ricker(double t, double peak_frequency, double delay, double amplitude = 1.0);

// Samples read from a text file: one value per line, '#' starts a comment. Errors name the
// file and line.
std::vector<double> read_wavelet_file(const std::string& path);

// Band-limited resampling (Lanczos-windowed sinc, 8 lobes) from interval dt_in to dt_out,
// nt_out samples starting at t = 0; samples past the end of the input are zero.
std::vector<double> resample(const std::vector<double>& in, double dt_in, double dt_out,
                             int nt_out);

// The configured wavelet at dt, nt samples.
std::vector<double> make_wavelet(const SourceConfig& s, double dt, int nt);

// Highest significant frequency: 2.5 x peak for a Ricker; for sampled wavelets, the highest
// frequency whose amplitude spectrum exceeds 1% of its maximum.
double max_frequency(const SourceConfig& s, const std::vector<double>& wavelet, double dt);

}  // namespace seisfd
