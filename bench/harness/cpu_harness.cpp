#include "bench/harness/cpu_harness.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/fd_coefficients.hpp"
#include "kernels/propagation.hpp"
#include "kernels/reference/cpu_engine.hpp"
#include "kernels/huge_pages.hpp"

namespace seisfd::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Times `fn()` (one step) `steps` times per repeat after `warmup` calls.
template <class F>
Timing time_steps(F&& fn, int steps, int repeats, int warmup) {
  for (int i = 0; i < warmup; ++i) fn();
  Timing t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) fn();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    t.ms_per_step.push_back(ms / steps);
  }
  std::vector<double> s = t.ms_per_step;
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  t.median_ms = s[s.size() / 2];
  return t;
}

// a[0] = 0.5 (a[0] + ... + a[K-1]), K = 2..6 arrays: K - 1 read, one read and written in place.
template <int K>
void stream_pass_k(float* const* a, int64_t n) {
  float* const w = a[0];
  const float* r[K];
  for (int k = 0; k < K; ++k) r[k] = a[k];
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float s = w[i];
    for (int k = 1; k < K; ++k) s += r[k][i];
    w[i] = 0.5f * s;
  }
}

void stream_pass(float* const* a, int k, int64_t n) {
  switch (k) {
    case 2:
      return stream_pass_k<2>(a, n);
    case 3:
      return stream_pass_k<3>(a, n);
    case 4:
      return stream_pass_k<4>(a, n);
    case 5:
      return stream_pass_k<5>(a, n);
    case 6:
      return stream_pass_k<6>(a, n);
    default:
      throw std::invalid_argument("stream ceiling: unsupported pattern");
  }
}

}  // namespace

Medium bench_medium(const StepSpec& s, Physics kind) {
  const Layout& l = s.layout;
  Medium m;
  m.physics = kind;
  const size_t n = static_cast<size_t>(l.size());
  m.velocity.assign(n, 0.0f);
  if (kind != Physics::kAcoustic) {
    m.epsilon.assign(n, 0.0f);
    m.delta.assign(n, 0.0f);
  }
  if (kind == Physics::kTti) {
    m.theta.assign(n, 0.0f);
    m.phi.assign(n, 0.0f);
  }
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int64_t i = l.idx(z, y, x);
        m.velocity[i] = static_cast<float>(1800.0 + 300.0 * std::sin(0.11 * x + 0.07 * z));
        if (kind == Physics::kAcoustic) continue;
        const double eps = 0.2 + 0.1 * std::sin(0.19 * x - 0.13 * y + 0.1 * z);
        m.epsilon[i] = static_cast<float>(eps);
        m.delta[i] = static_cast<float>(eps - 0.1 - 0.05 * std::cos(0.17 * y + 0.09 * z));
        if (kind == Physics::kTti) {
          m.theta[i] =
              static_cast<float>((30.0 + 25.0 * std::sin(0.12 * x + 0.2 * z)) * M_PI / 180);
          m.phi[i] =
              static_cast<float>((180.0 + 175.0 * std::cos(0.09 * x - 0.15 * y)) * M_PI / 180);
        }
      }
  return m;
}

DeviceSummary current_cpu() {
  DeviceSummary d;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      d.name = line.substr(line.find(':') + 2);
      break;
    }
  if (d.name.empty()) d.name = "cpu";
  d.multiprocessors = omp_get_max_threads();
  d.name += " (" + std::to_string(d.multiprocessors) + " threads)";
  return d;
}

double bench_dt(const StepSpec& spec) {
  double lambda = 0;
  for (int a = 0; a < 3; ++a)
    lambda += second_derivative_spectral_radius(spec.radius) / (spec.h[a] * spec.h[a]);
  return 0.5 * 2.0 / (2100.0 * std::sqrt(1.6) * std::sqrt(lambda));
}

VerifyResult compare_engines(Engine& ref, Engine& test, const StepSpec& spec, int steps,
                             uint32_t seed, double tolerance) {
  const Layout& l = spec.layout;
  const int c[3] = {(spec.begin[0] + spec.end[0]) / 2, (spec.begin[1] + spec.end[1]) / 2,
                    (spec.begin[2] + spec.end[2]) / 2};
  const int nt = steps + 1;
  SparsePoints src, rec;
  src.index = {l.idx(c[0], c[1], c[2])};
  src.weight = {1.0 / (spec.h[0] * spec.h[1] * spec.h[2])};
  src.offset = {0, 1};
  rec.index = {l.idx(c[0] + 2, c[1] - 1, c[2] + 3)};
  rec.weight = {1.0};
  rec.offset = {0, 1};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> trace(nt);
  for (double& x : trace) x = u(rng);
  std::vector<float> a, b;
  const int dec[3] = {1, 1, 1};
  for (auto [e, out] : {std::pair{&ref, &a}, std::pair{&test, &b}}) {
    Propagation p(*e);
    p.set_injection(src, trace, nt);
    p.set_recording(rec, nt);
    p.steps(0, steps);
    p.copy_field(spec.begin, spec.end, dec, *out);
  }
  VerifyResult res;
  double num = 0, den = 0;
  int64_t nonfinite = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(b[i])) ++nonfinite;
    const double d = static_cast<double>(b[i]) - a[i];
    num += d * d;
    den += static_cast<double>(a[i]) * a[i];
  }
  res.rel_l2 = den > 0 ? std::sqrt(num / den) : INFINITY;
  char buf[160];
  if (nonfinite) {
    std::snprintf(buf, sizeof buf, "%lld non-finite cells after %d steps",
                  static_cast<long long>(nonfinite), steps);
    res.message = buf;
  } else if (!(res.rel_l2 <= tolerance)) {
    std::snprintf(buf, sizeof buf, "relative L2 %.3e after %d steps exceeds %.1e", res.rel_l2,
                  steps, tolerance);
    res.message = buf;
  } else {
    res.ok = true;
  }
  return res;
}

VerifyResult verify_cpu_variant(const cpu::CpuVariant& v, const StepSpec& spec, int steps,
                                uint32_t seed, double tolerance) {
  const Medium m = bench_medium(spec, v.physics);
  const double dt = bench_dt(spec);
  auto ref = reference::make_cpu_engine(spec, m, dt, false, "reference");
  auto fast = reference::make_cpu_engine(spec, m, dt, false, v.name);
  return compare_engines(*ref, *fast, spec, steps, seed, tolerance);
}

Timing time_cpu_variant(const cpu::CpuVariant& v, const StepSpec& spec, int steps, int repeats,
                        int warmup) {
  const Medium m = bench_medium(spec, v.physics);
  auto e = reference::make_cpu_engine(spec, m, bench_dt(spec), false, v.name);
  auto st = e->make_state();
  // Hashed values of a wavefield's size everywhere (no denormals, no zeros to skip).
  const Layout& l = spec.layout;
  const std::vector<Box> all = {Box{{0, 0, 0}, {l.nz, l.ny, l.nx}}};
  std::vector<float> h(static_cast<size_t>(l.cells()));
  for (int f = 0; f < traits(v.physics).fields; ++f)
    for (Level lv : {Level::kCurrent, Level::kPrevious}) {
      for (size_t i = 0; i < h.size(); ++i)
        h[i] = 1e-3f * static_cast<float>(((i * 2654435761u + 97u * f) >> 7) % 2001) - 1.0f;
      st->write_boxes(FieldRef{f, lv}, all, h);
    }
  StepIo io;
  int n = 0;
  return time_steps(
      [&] {
        e->advance(*st, n, n + 1, io);
        ++n;
      },
      steps, repeats, warmup);
}

Timing time_cpu_stream_ceiling(const StepSpec& spec, Physics physics, int steps, int repeats,
                               int warmup) {
  // The pattern: per field, both levels read and the new one written over the older (in place,
  // as the engines do: no extra read for the write); the coefficients read. Field f's pass
  // reads its share of the arrays and writes the first of them.
  const int fields = traits(physics).fields;
  const int reads = static_cast<int>(traits(physics).min_bytes_per_cell) / 4 - fields;
  const int64_t n = spec.layout.cells();
  std::vector<std::unique_ptr<float[]>> a(reads);
  for (auto& x : a) {  // on huge pages where the engine's arrays are (huge_pages.hpp)
    x.reset(new float[n]);
    advise_huge_pages(x.get(), static_cast<size_t>(n) * sizeof(float));
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    for (auto& x : a) x[i] = 1e-3f * static_cast<float>(i % 1000);
  std::vector<float*> p(reads);
  for (int k = 0; k < reads; ++k) p[k] = a[k].get();
  auto step = [&] {
    for (int f = 0; f < fields; ++f) {
      const int k0 = f * reads / fields, k1 = (f + 1) * reads / fields;
      stream_pass(p.data() + k0, k1 - k0, n);
    }
  };
  return time_steps(step, steps, repeats, warmup);
}

}  // namespace seisfd::bench
