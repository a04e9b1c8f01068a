#include "bench/harness/harness.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "bench/harness/cpu_harness.hpp"
#include "bench/harness/stream_probe.hpp"
#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/timing.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/fd_coefficients.hpp"
#include "kernels/medium.hpp"
#include "kernels/propagation.hpp"
#include "kernels/reference/acoustic.hpp"
#include "kernels/reference/cpu_engine.hpp"

namespace seisfd::bench {
namespace {

using cuda::DeviceBuffer;

bool in_region(const StepSpec& s, int z, int y, int x) {
  return z >= s.begin[0] && z < s.end[0] && y >= s.begin[1] && y < s.end[1] && x >= s.begin[2] &&
         x < s.end[2];
}

constexpr uint32_t kPoison = 0x7fc0dead;  // a quiet NaN no arithmetic produces

int current_device_id() {
  int d = 0;
  CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

UpdateArgs acoustic_args(const float* prev, const float* cur, float* next, const float* vdt2) {
  UpdateArgs a;
  a.prev[0] = prev;
  a.cur[0] = cur;
  a.next[0] = next;
  a.medium[kVdt2] = vdt2;
  return a;
}

template <class Launch>
Timing time_loop(int steps, int repeats, int warmup, cudaStream_t st, Launch&& launch) {
  const cuda::Timing t = cuda::time_launches(steps, repeats, warmup, st, launch);
  return {t.ms_per_step, t.median_ms};
}

std::string format_rel_l2(double rel, int steps, double tolerance) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "relative L2 %.3e after %d steps exceeds %.1e", rel, steps,
                tolerance);
  return buf;
}

VerifyResult verify_aniso_variant(const KernelVariant& v, const StepSpec& spec, int steps,
                                  uint32_t seed, double tolerance, ModelPrecision model) {
  Medium m = bench_medium(spec, v.physics);
  m.precision = model;
  const double dt = bench_dt(spec);
  auto cpu = reference::make_cpu_engine(spec, m, dt, false, "reference");
  CudaEngineOptions o;
  o.variant = v.name;
  o.entry = &v;  // v's launches (a sweep's policy), not only the registry's entry of that name
  auto gpu = make_cuda_engine(spec, m, dt, o);
  return compare_engines(*cpu, *gpu, spec, steps * 10, seed, tolerance);
}

}  // namespace

VerifyResult verify_variant(const KernelVariant& v, const StepSpec& spec, int steps, uint32_t seed,
                            double tolerance, ModelPrecision model) {
  VerifyResult res;
  const std::string why = v.can_implement(spec, current_device().compute_capability);
  if (!why.empty()) {
    res.message = "cannot run this spec: " + why;
    return res;
  }
  if (anisotropic(v.physics)) return verify_aniso_variant(v, spec, steps, seed, tolerance, model);
  const Layout& l = spec.layout;
  const size_t n = static_cast<size_t>(l.size());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), f(0.5f, 1.0f);
  const float vmax = cuda::stable_vdt2(spec, 0.9);
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
  const ExecContext ctx{current_device_id(), st.get()};
  v.forward(spec, acoustic_args(da.get(), db.get(), dn.get(), dv.get()), ctx);
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
    v.forward(spec, acoustic_args(a, b, a, dv.get()), ctx);
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
    res.message = format_rel_l2(res.rel_l2, steps, tolerance);
    return res;
  }
  res.ok = true;
  return res;
}

Timing time_variant(const KernelVariant& v, const StepSpec& spec, int steps, int repeats,
                    int warmup, bool zero_fields, ModelPrecision model) {
  cuda::Stream st;
  cuda::UpdateTimingOptions o;
  o.zero_fields = zero_fields;
  o.model = model;
  const cuda::Timing t =
      cuda::time_update(v, spec, steps, repeats, warmup, o, {current_device_id(), st.get()});
  return {t.ms_per_step, t.median_ms};
}

ImagingTiming time_imaging(const KernelVariant& v, const StepSpec& spec, int steps, int repeats,
                           int warmup) {
  cuda::Stream st;
  const ExecContext ctx{current_device_id(), st.get()};
  const auto ms = [&](cuda::TimedImaging im) {
    cuda::UpdateTimingOptions o;
    o.transposed = true;
    o.imaging = im;
    return cuda::time_update(v, spec, steps, repeats, warmup, o, ctx).median_ms;
  };
  ImagingTiming t;
  t.fused_cross_ms = t.fused_all_ms = NAN;
  t.adjoint_ms = ms(cuda::TimedImaging::kNone);
  if (v.fuses_imaging) {
    t.fused_cross_ms = ms(cuda::TimedImaging::kFusedCross);
    t.fused_all_ms = ms(cuda::TimedImaging::kFusedAll);
  }
  t.separate_cross_ms = ms(cuda::TimedImaging::kSeparateCross);
  return t;
}

Timing time_stream_ceiling(const StepSpec& spec, Physics physics, int steps, int repeats,
                           int warmup) {
  const size_t n = static_cast<size_t>(spec.layout.size());
  const int64_t cells = spec.layout.cells() / 4 * 4;
  if (anisotropic(physics)) {
    const int reads = physics == Physics::kTti ? 9 : 7;
    cuda::Stream st;
    std::vector<DeviceBuffer<float>> buf;
    buf.reserve(reads);
    for (int i = 0; i < reads; ++i) {
      buf.emplace_back(n);
      cuda::launch_fill_hash(buf.back().get(), n, 1 + i, i == 4 ? 0.01f : 0.0f,
                             i == 4 ? 0.005f : 1.0f, st.get());
    }
    std::vector<const float*> in(reads);
    for (int i = 0; i < reads; ++i) in[i] = buf[i].get();
    Timing t = time_loop(steps, repeats, warmup, st.get(), [&] {
      // in: p_prev, q_prev, p_cur, q_cur, c, E, D (, theta, phi); p and q next overwrite the
      // previous levels, then the levels swap, as the engine rotates them.
      float* const out[2] = {const_cast<float*>(in[0]), const_cast<float*>(in[1])};
      launch_aniso_stream(cells, reads, in.data(), out, st.get());
      std::swap(in[0], in[2]);
      std::swap(in[1], in[3]);
    });
    CUDA_CHECK(cudaStreamSynchronize(st.get()));
    return t;
  }
  cuda::Stream st;
  DeviceBuffer<float> a(n), b(n), vd(n);
  cuda::launch_fill_hash(a.get(), n, 1, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(b.get(), n, 2, 0.0f, 1.0f, st.get());
  cuda::launch_fill_hash(vd.get(), n, 3, 0.01f, 0.005f, st.get());
  float* pa = a.get();
  float* pb = b.get();
  Timing t = time_loop(steps, repeats, warmup, st.get(), [&] {
    launch_acoustic_stream(cells, pa, pb, pa, vd.get(), st.get());
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
