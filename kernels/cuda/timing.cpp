#include "kernels/cuda/timing.hpp"

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/fd_coefficients.hpp"

namespace seisfd::cuda {
float stable_vdt2(const StepSpec& s, double fraction) {
  double lambda = 0;
  for (int a = 0; a < 3; ++a)
    lambda += second_derivative_spectral_radius(s.radius) / (s.h[a] * s.h[a]);
  return static_cast<float>(fraction * 4.0 / lambda);
}

Timing time_update(const KernelVariant& v, const StepSpec& spec, int steps, int repeats, int warmup,
                   bool zero_fields, const ExecContext& ctx) {
  const DeviceGuard guard(ctx.device);
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  const size_t n = static_cast<size_t>(spec.layout.size());
  const PhysicsTraits& t = traits(v.physics);
  // Both levels of every field, the medium, the scratch.
  std::vector<DeviceBuffer<float>> buf;
  const int count = 2 * t.fields + t.medium_arrays + v.scratch_arrays;
  buf.reserve(count);
  for (int i = 0; i < count; ++i) buf.emplace_back(n);
  const float amp = zero_fields ? 0.0f : 1.0f;
  UpdateArgs a;
  float* lv[kMaxFields][2];
  for (int f = 0; f < t.fields; ++f)
    for (int k = 0; k < 2; ++k) {
      lv[f][k] = buf[2 * f + k].get();
      launch_fill_hash(lv[f][k], n, 1 + 2 * f + k, 0.0f, amp, st);
    }
  // Values in the ranges of real media: E >= D >= 1, a unit axis, (v dt)^2 stable for E.
  const float vmax = stable_vdt2(spec, 0.9) / (t.fields > 1 ? 1.6f : 1.0f);
  const float offset[kMaxMediumArrays] = {0.75f * vmax, 1.4f, 1.1f, 0.48f, 0.36f, 0.8f};
  const float scale[kMaxMediumArrays] = {0.25f * vmax, 0.2f, 0.05f, 0.0f, 0.0f, 0.0f};
  for (int m = 0; m < t.medium_arrays; ++m) {
    float* p = buf[2 * t.fields + m].get();
    launch_fill_hash(p, n, 10 + m, offset[m], scale[m], st);
    a.medium[m] = p;
  }
  for (int k = 0; k < v.scratch_arrays; ++k) {
    a.scratch[k] = buf[2 * t.fields + t.medium_arrays + k].get();
    buf[2 * t.fields + t.medium_arrays + k].zero(st);
  }
  auto launch = [&] {
    for (int f = 0; f < t.fields; ++f) {
      a.prev[f] = lv[f][0];
      a.cur[f] = lv[f][1];
      a.next[f] = lv[f][0];
    }
    v.forward(spec, a, ctx);
    for (int f = 0; f < t.fields; ++f) std::swap(lv[f][0], lv[f][1]);
  };
  const Timing out = time_launches(steps, repeats, warmup, ctx.stream, launch);
  CUDA_CHECK(cudaStreamSynchronize(st));
  return out;
}

}  // namespace seisfd::cuda
