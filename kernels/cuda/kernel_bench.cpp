#include "kernels/kernel_bench.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/stream_probe.hpp"
#include "kernels/fd_coefficients.hpp"
#include "kernels/reference/acoustic.hpp"

namespace seisfd::bench {
namespace {

using cuda::DeviceBuffer;

// (v dt)^2 at `fraction` of the leapfrog stability bound of the spec's stencil.
float stable_vdt2(const StepSpec& s, double fraction) {
  double lambda = 0;
  for (int a = 0; a < 3; ++a)
    lambda += second_derivative_spectral_radius(s.radius) / (s.h[a] * s.h[a]);
  return static_cast<float>(fraction * 4.0 / lambda);
}

bool in_region(const StepSpec& s, int z, int y, int x) {
  return z >= s.begin[0] && z < s.end[0] && y >= s.begin[1] && y < s.end[1] && x >= s.begin[2] &&
         x < s.end[2];
}

constexpr uint32_t kPoison = 0x7fc0dead;  // a quiet NaN no arithmetic produces

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class Launch>
Timing time_loop(int steps, int repeats, int warmup, cudaStream_t st, Launch&& launch) {
  for (int i = 0; i < warmup; ++i) launch();
  CUDA_CHECK(cudaStreamSynchronize(st));
  cuda::Event e0, e1;
  Timing t;
  for (int r = 0; r < repeats; ++r) {
    e0.record(st);
    for (int i = 0; i < steps; ++i) launch();
    e1.record(st);
    t.ms_per_step.push_back(e1.since(e0) / steps);
  }
  t.median_ms = median(t.ms_per_step);
  return t;
}

}  // namespace

VerifyResult verify_variant(const KernelVariant& v, const StepSpec& spec, int steps, uint32_t seed,
                            double tolerance) {
  VerifyResult res;
  const std::string why = v.can_implement(spec, current_device().compute_capability);
  if (!why.empty()) {
    res.message = "cannot run this spec: " + why;
    return res;
  }
  const Layout& l = spec.layout;
  const size_t n = static_cast<size_t>(l.size());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), f(0.5f, 1.0f);
  const float vmax = stable_vdt2(spec, 0.9);
  std::vector<float> prev(n), cur(n), vdt2(n);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = u(rng);
    cur[i] = u(rng);
    vdt2[i] = vmax * f(rng);
  }
  float poison;
  std::memcpy(&poison, &kPoison, sizeof poison);
  std::vector<float> next(n, poison);

  cuda::Stream st;
  DeviceBuffer<float> da(n), db(n), dn(n), dv(n);
  da.upload(prev, st.get());
  db.upload(cur, st.get());
  dn.upload(next, st.get());
  dv.upload(vdt2, st.get());
  v.launch(spec, {da.get(), db.get(), dn.get(), dv.get()}, st.get());
  std::vector<float> g;
  dn.download(g, st.get());
  reference::acoustic_step<float>(spec, prev.data(), cur.data(), next.data(), vdt2.data());

  // Step 1: every region cell written, nothing outside it.
  int64_t unwritten = 0, stray = 0;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int64_t i = l.idx(z, y, x);
        uint32_t bits;
        std::memcpy(&bits, &g[i], sizeof bits);
        if (in_region(spec, z, y, x)) {
          unwritten += bits == kPoison;
        } else {
          stray += bits != kPoison;
          g[i] = next[i] = cur[i];  // defined values for the next steps, the same on both
        }
      }
  if (unwritten || stray) {
    res.message = "first step: " + std::to_string(unwritten) + " region cells not written, " +
                  std::to_string(stray) + " cells outside the region written";
    return res;
  }
  // Steps 2..steps in place (next aliases prev), as the engine runs them.
  dn.upload(g, st.get());
  float* a = db.get();  // oldest
  float* b = dn.get();  // newest
  std::vector<float>& ra = cur;
  std::vector<float>& rb = next;
  for (int k = 1; k < steps; ++k) {
    v.launch(spec, {a, b, a, dv.get()}, st.get());
    std::swap(a, b);
    reference::acoustic_step<float>(spec, ra.data(), rb.data(), ra.data(), vdt2.data());
    std::swap(ra, rb);
  }
  st.synchronize();
  std::vector<float> out(n);
  CUDA_CHECK(cudaMemcpy(out.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  int64_t nonfinite = 0, changed_outside = 0;
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int64_t i = l.idx(z, y, x);
        if (in_region(spec, z, y, x)) {
          if (!std::isfinite(out[i])) ++nonfinite;
          const double d = static_cast<double>(out[i]) - rb[i];
          num += d * d;
          den += static_cast<double>(rb[i]) * rb[i];
        } else {
          changed_outside += std::memcmp(&out[i], &rb[i], sizeof(float)) != 0;
        }
      }
  res.rel_l2 = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
  if (nonfinite || changed_outside) {
    res.message = "after " + std::to_string(steps) + " steps: " + std::to_string(nonfinite) +
                  " non-finite region cells, " + std::to_string(changed_outside) +
                  " cells outside the region changed";
    return res;
  }
  if (!(res.rel_l2 <= tolerance)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "relative L2 %.3e after %d steps exceeds %.1e", res.rel_l2,
                  steps, tolerance);
    res.message = buf;
    return res;
  }
  res.ok = true;
  return res;
}

Timing time_variant(const KernelVariant& v, const StepSpec& spec, int steps, int repeats,
                    int warmup) {
  const size_t n = static_cast<size_t>(spec.layout.size());
  cuda::Stream st;
  DeviceBuffer<float> a(n), b(n), vd(n);
  const float vmax = stable_vdt2(spec, 0.9);
  cuda::launch_fill_hash(a.get(), n, 1, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(b.get(), n, 2, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(vd.get(), n, 3, 0.75f * vmax, 0.25f * vmax, st.get());
  float* pa = a.get();
  float* pb = b.get();
  Timing t = time_loop(steps, repeats, warmup, st.get(), [&] {
    v.launch(spec, {pa, pb, pa, vd.get()}, st.get());
    std::swap(pa, pb);
  });
  CUDA_CHECK(cudaStreamSynchronize(st.get()));
  return t;
}

Timing time_stream_ceiling(const StepSpec& spec, int steps, int repeats, int warmup) {
  const size_t n = static_cast<size_t>(spec.layout.size());
  const int64_t cells = spec.layout.cells() / 4 * 4;
  cuda::Stream st;
  DeviceBuffer<float> a(n), b(n), vd(n);
  cuda::launch_fill_hash(a.get(), n, 1, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(b.get(), n, 2, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(vd.get(), n, 3, 0.01f, 0.005f, st.get());
  float* pa = a.get();
  float* pb = b.get();
  Timing t = time_loop(steps, repeats, warmup, st.get(), [&] {
    cuda::launch_acoustic_stream(cells, pa, pb, pa, vd.get(), st.get());
    std::swap(pa, pb);
  });
  CUDA_CHECK(cudaStreamSynchronize(st.get()));
  return t;
}

double copy_bandwidth_gbps(size_t bytes, int repeats) {
  cuda::Stream st;
  DeviceBuffer<char> a(bytes), b(bytes);
  CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, st.get()));
  const Timing t = time_loop(1, repeats, 3, st.get(), [&] {
    CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, st.get()));
  });
  return 2.0 * bytes / (t.median_ms * 1e-3) / 1e9;
}

DeviceSummary current_device() {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  DeviceSummary d;
  d.name = p.name;
  d.compute_capability = p.major * 10 + p.minor;
  d.multiprocessors = p.multiProcessorCount;
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev);
  d.memory_clock_mhz = clock_khz / 1000.0;
  d.bus_width_bits = p.memoryBusWidth;
  size_t total = 0;
  CUDA_CHECK(cudaMemGetInfo(&d.free_bytes, &total));
  return d;
}

}  // namespace seisfd::bench
