#include "kernels/cuda/timing.hpp"

#include <random>
#include <stdexcept>
#include <string>

#include "kernels/cuda/buffer.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/imaging.hpp"
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
  UpdateTimingOptions o;
  o.zero_fields = zero_fields;
  return time_update(v, spec, steps, repeats, warmup, o, ctx);
}

Timing time_update(const KernelVariant& v, const StepSpec& spec, int steps, int repeats, int warmup,
                   const UpdateTimingOptions& o, const ExecContext& ctx) {
  const DeviceGuard guard(ctx.device);
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  const size_t n = static_cast<size_t>(spec.layout.size());
  const PhysicsTraits& t = traits(v.physics);
  const LaunchFn update = o.transposed ? v.transposed : v.forward;
  if (!update) throw std::invalid_argument(v.name + ": no transposed update");
  const bool fused = o.imaging == TimedImaging::kFusedCross || o.imaging == TimedImaging::kFusedAll;
  if (fused && !(o.transposed && v.fuses_imaging))
    throw std::invalid_argument(v.name + ": fuses no imaging into its transposed update");
  const int scratch = o.transposed ? v.transposed_scratch_arrays : v.scratch_arrays;
  // Both levels of every field, the medium, the scratch; imaging: the source field and the
  // older level per field, three images.
  const int imaging = o.imaging == TimedImaging::kNone ? 0 : 2 * t.fields + 3;
  std::vector<DeviceBuffer<float>> buf;
  const int count = 2 * t.fields + t.medium_arrays + scratch + imaging;
  buf.reserve(count);
  for (int i = 0; i < count; ++i) buf.emplace_back(n, o.compressible, ctx.device);
  const float amp = o.zero_fields ? 0.0f : 1.0f;
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
  int next_buf = 2 * t.fields;
  for (int m = 0; m < t.medium_arrays; ++m) {
    float* p = buf[next_buf++].get();
    launch_fill_hash(p, n, 10 + m, offset[m], scale[m], st);
    a.medium[m] = p;
  }
  // Compact: one plane of values in the same ranges encoded on the host, copied to every plane.
  std::vector<DeviceBuffer<uint16_t>> codes;
  if (o.model != ModelPrecision::kFp32 && !o.transposed && v.reads_compact_medium) {
    const Layout plane = Layout::make(1, spec.layout.ny, spec.layout.nx);
    std::mt19937 rng(10);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a.compact.precision = o.model;
    for (int m = 0; m < t.medium_arrays; ++m) {
      std::vector<float> val(static_cast<size_t>(plane.size()));
      for (float& x : val) x = offset[m] + scale[m] * u(rng);
      const CompactArray c = encode_array(o.model, val, plane);
      codes.emplace_back(n);
      for (int z = 0; z < spec.layout.nz; ++z)
        CUDA_CHECK(cudaMemcpyAsync(codes.back().get() + z * plane.size(), c.code.data(),
                                   c.code.size() * sizeof(uint16_t), cudaMemcpyHostToDevice, st));
      a.compact.code[m] = codes.back().get();
      a.compact.scale[m] = c.scale;
      a.compact.offset[m] = c.offset;
    }
    CUDA_CHECK(cudaStreamSynchronize(st));  // the host plane goes when this block ends
  }
  for (int k = 0; k < scratch; ++k) {
    a.scratch[k] = buf[next_buf].get();
    buf[next_buf++].zero(st);
  }
  float* u[kMaxFields] = {nullptr, nullptr};
  float* older[kMaxFields] = {nullptr, nullptr};
  float* img[3] = {nullptr, nullptr, nullptr};
  if (imaging) {
    for (int f = 0; f < t.fields; ++f) {
      u[f] = buf[next_buf++].get();
      launch_fill_hash(u[f], n, 20 + f, 0.0f, 1.0f, st);
      older[f] = buf[next_buf++].get();
    }
    for (float*& i : img) {
      i = buf[next_buf].get();
      buf[next_buf++].zero(st);
    }
  }
  if (fused) {
    for (int f = 0; f < t.fields; ++f) a.imaging.u[f] = u[f];
    a.imaging.cc = img[0];
    if (o.imaging == TimedImaging::kFusedAll) {
      a.imaging.il = img[1];
      a.imaging.zl = img[2];
    }
    a.imaging.cc_scale = 1e-3f;
    a.imaging.k = 1.0f;
  }
  auto launch = [&] {
    for (int f = 0; f < t.fields; ++f) {
      a.prev[f] = lv[f][0];
      a.cur[f] = lv[f][1];
      a.next[f] = lv[f][0];
    }
    const bool separate = o.imaging == TimedImaging::kSeparateCross;
    if (separate)
      for (int f = 0; f < t.fields; ++f) launch_level_to_array(lv[f][0], {older[f], false}, n, st);
    update(spec, a, ctx);
    if (separate)
      for (int f = 0; f < t.fields; ++f)
        launch_correlate_second_difference(spec, {img[0], false}, {u[f], false}, lv[f][0], lv[f][1],
                                           {older[f], false}, 1e-3f, st);
    for (int f = 0; f < t.fields; ++f) std::swap(lv[f][0], lv[f][1]);
  };
  const Timing out = time_launches(steps, repeats, warmup, ctx.stream, launch);
  CUDA_CHECK(cudaStreamSynchronize(st));
  return out;
}

}  // namespace seisfd::cuda
