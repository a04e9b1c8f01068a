// Timing a variant's update with device events: what kernel.variant = "auto" measures
// (autotune.cpp) and what `seisfd bench` reports. Plain C++.
#pragma once
#include <vector>

#include "kernels/exec.hpp"
#include "kernels/registry.hpp"

namespace seisfd::cuda {

struct Timing {
  std::vector<double> ms_per_step;  // one per repeat
  double median_ms = 0;             // median over repeats, milliseconds per step
};

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

}  // namespace seisfd::cuda
