// Timing a variant's update with device events: what kernel.variant = "auto" measures
// (autotune.cpp) and what `seisfd bench` reports. Plain C++.
#pragma once
#include <algorithm>
#include <vector>

#include "kernels/cuda/buffer.hpp"
#include "kernels/exec.hpp"
#include "kernels/registry.hpp"

namespace seisfd::cuda {

struct Timing {
  std::vector<double> ms_per_step;  // one per repeat
  double median_ms = 0;             // median over repeats, milliseconds per step
};

// `repeats` timed loops of `steps` calls of launch() each (enqueueing work on `stream`), after
// `warmup` untimed calls, timed with events on the stream.
template <class Launch>
Timing time_launches(int steps, int repeats, int warmup, void* stream, Launch&& launch) {
  const auto st = static_cast<cudaStream_t>(stream);
  for (int i = 0; i < warmup; ++i) launch();
  CUDA_CHECK(cudaStreamSynchronize(st));
  Event e0, e1;
  Timing t;
  for (int r = 0; r < repeats; ++r) {
    e0.record(st);
    for (int i = 0; i < steps; ++i) launch();
    e1.record(st);
    t.ms_per_step.push_back(e1.since(e0) / steps);
  }
  std::vector<double> v = t.ms_per_step;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  t.median_ms = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return t;
}

// (v dt)^2 at `fraction` of the leapfrog stability bound of the spec's stencil.
float stable_vdt2(const StepSpec& spec, double fraction);

// `repeats` timed loops of `steps` forward launches of `variant` each (after `warmup`
// launches), with events on ctx.stream, the levels rotated in place as the engine does. The
// wavefields hold hashed values (a wavefield everywhere), or zeros with zero_fields (the field
// ahead of the wavefront, where a run from a point source starts: some variants run at another
// speed there); the medium holds values in the ranges of real media. Throws CudaError where the
// device refuses a launch.
Timing time_update(const KernelVariant& variant, const StepSpec& spec, int steps, int repeats,
                   int warmup, bool zero_fields, const ExecContext& ctx);

// What else a timed update does: the transposed launch (the adjoint's), and the imaging of a
// migration at every step (docs/migration.md §3): fused into the update (the cross-correlation
// alone, or with the illumination and the zero-lag image), or the separate passes of an engine
// whose variant does not fuse (a copy of the oldest level before the update, a correlation
// pass per field after it).
enum class TimedImaging { kNone, kFusedCross, kFusedAll, kSeparateCross };
struct UpdateTimingOptions {
  bool zero_fields = false;
  // Not fp32: the forward launch of a variant that reads_compact_medium gets the medium's values
  // as codes of this precision too (kernels/model_precision.hpp).
  ModelPrecision model = ModelPrecision::kFp32;
  bool transposed = false;
  TimedImaging imaging = TimedImaging::kNone;
  // Every array in compressible memory (kernel.compressible), as an engine that asks for it.
  bool compressible = false;
};
Timing time_update(const KernelVariant& variant, const StepSpec& spec, int steps, int repeats,
                   int warmup, const UpdateTimingOptions& options, const ExecContext& ctx);

}  // namespace seisfd::cuda
