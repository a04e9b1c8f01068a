#include "solver/wavelet.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <sstream>

namespace seisfd {

double ricker(double t, double f, double delay, double amplitude) {
  const double a = M_PI * f * (t - delay);
  const double a2 = a * a;
  return amplitude * (1.0 - 2.0 * a2) * std::exp(-a2);
}

std::vector<double> read_wavelet_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError::input_file("source.file", "cannot open wavelet file '" + path + "'");
  std::vector<double> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    double v;
    if (!(ls >> v)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      throw ConfigError::input_file("source.file", "'" + line + "' is not a number", path, lineno);
    }
    std::string rest;
    if (ls >> rest)
      throw ConfigError::input_file("source.file", "expected one value per line, found more", path,
                                    lineno);
    if (!std::isfinite(v))
      throw ConfigError::input_file("source.file", "sample is not finite", path, lineno);
    out.push_back(v);
  }
  if (out.empty())
    throw ConfigError::input_file("source.file", "wavelet file '" + path + "' has no samples");
  return out;
}

namespace {

// The interpolation weight of input sample j for output position pos (in input samples): a
// sinc with 8 lobes under a sinc window, widened by `ratio` when decimating.
constexpr int kLobes = 8;
double resample_weight(double pos, int j, double ratio) {
  const double x = (pos - j) / ratio;
  if (std::fabs(x) >= kLobes) return 0.0;
  const double sinc = x == 0.0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
  const double win = x == 0.0 ? 1.0 : std::sin(M_PI * x / kLobes) / (M_PI * x / kLobes);
  return sinc * win / ratio;
}

}  // namespace

std::vector<double> resample(const std::vector<double>& in, double dt_in, double dt_out,
                             int nt_out) {
  std::vector<double> out(nt_out, 0.0);
  if (std::fabs(dt_in - dt_out) <= 1e-12 * dt_out) {
    for (int i = 0; i < nt_out && i < static_cast<int>(in.size()); ++i) out[i] = in[i];
    return out;
  }
  // When decimating, widen the kernel so it also low-passes to the new Nyquist.
  const double ratio = std::max(1.0, dt_out / dt_in);
  const double half = kLobes * ratio;
  const int nin = static_cast<int>(in.size());
  // Upsampling by a whole factor K (observed data onto the time step): output i sits at phase
  // i mod K between the same input samples, so the weights are worked out once per phase.
  const double up = dt_in / dt_out;
  const int K = static_cast<int>(std::lround(up));
  const bool phased = K >= 1 && K <= 4096 && std::fabs(up - K) <= 1e-9 * up;
  std::vector<std::vector<double>> table;
  std::vector<int> first;
  if (phased) {
    table.resize(K);
    first.resize(K);
    for (int r = 0; r < K; ++r) {
      const double pos = static_cast<double>(r) / K;
      first[r] = static_cast<int>(std::ceil(pos - half));
      for (int j = first[r]; j <= static_cast<int>(std::floor(pos + half)); ++j)
        table[r].push_back(resample_weight(pos, j, ratio));
    }
  }
  for (int i = 0; i < nt_out; ++i) {
    const double pos =
        phased ? static_cast<double>(i / K) + static_cast<double>(i % K) / K : i * dt_out / dt_in;
    if (pos > nin - 1 + half) break;
    double acc = 0.0;
    if (phased) {
      const int r = i % K, j0 = i / K + first[r];
      const std::vector<double>& w = table[r];
      const int lo = std::max(0, -j0), hi = std::min(static_cast<int>(w.size()), nin - j0);
      for (int t = lo; t < hi; ++t) acc += in[j0 + t] * w[t];
    } else {
      const int j0 = static_cast<int>(std::ceil(pos - half));
      const int j1 = static_cast<int>(std::floor(pos + half));
      for (int j = std::max(j0, 0); j <= std::min(j1, nin - 1); ++j)
        acc += in[j] * resample_weight(pos, j, ratio);
    }
    out[i] = acc;
  }
  return out;
}

std::vector<double> make_wavelet(const SourceConfig& s, double dt, int nt) {
  if (s.wavelet == WaveletType::kRicker) {
    const double delay = s.delay.value_or(1.5 / s.frequency);
    std::vector<double> w(nt);
    for (int i = 0; i < nt; ++i) w[i] = ricker(i * dt, s.frequency, delay, s.amplitude);
    return w;
  }
  auto w = resample(read_wavelet_file(s.file), s.file_dt, dt, nt);
  for (double& v : w) v *= s.amplitude;
  return w;
}

double max_frequency(const SourceConfig& s, const std::vector<double>& w, double dt) {
  if (s.wavelet == WaveletType::kRicker) return 2.5 * s.frequency;
  // Plain DFT on a zero-padded copy; wavelets are short, this runs once.
  const int n = static_cast<int>(std::min<size_t>(w.size(), 8192));
  const int nf = 512;
  const double fnyq = 0.5 / dt;
  std::vector<double> amp(nf);
  double amax = 0;
  for (int k = 0; k < nf; ++k) {
    const double f = fnyq * k / (nf - 1);
    std::complex<double> acc = 0;
    for (int i = 0; i < n; ++i) acc += w[i] * std::polar(1.0, -2.0 * M_PI * f * i * dt);
    amp[k] = std::abs(acc);
    amax = std::max(amax, amp[k]);
  }
  for (int k = nf - 1; k >= 0; --k)
    if (amp[k] > 0.01 * amax) return fnyq * k / (nf - 1);
  return 0.0;
}

}  // namespace seisfd
