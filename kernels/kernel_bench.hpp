// Measuring registry variants: correctness against the CPU reference on a given spec, kernel
// timing with device events, and the two reference rates of DESIGN.md §6 (the acoustic
// streaming ceiling and the device-to-device copy). Plain C++; used by `seisfd bench` and the
// variant tests. In a build without CUDA every function throws std::runtime_error.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::bench {

// A cube of `interior` physical cells per axis with a sponge of `sponge` cells on all six faces
// and a ghost halo of `radius`, spacing h: the shape `seisfd bench` times (the solver's grid
// for boundary.type = sponge without free surface; damping 0.05 per axis at the outer face).
inline StepSpec make_cube_spec(int interior, int sponge, int radius, double h = 10.0) {
  const int n = interior + 2 * sponge + 2 * radius;
  StepSpec s;
  s.layout = Layout::make(n, n, n);
  s.radius = radius;
  for (int a = 0; a < 3; ++a) {
    s.h[a] = h;
    s.begin[a] = radius;
    s.end[a] = n - radius;
    s.sponge.phys_lo[a] = radius + sponge;
    s.sponge.phys_hi[a] = radius + sponge + interior - 1;
    s.sponge.width_lo[a] = s.sponge.width_hi[a] = sponge;
    s.sponge.damp[a] = sponge > 0 ? 0.05 : 0.0;
  }
  return s;
}

// DESIGN.md §6: minimal bytes moved per cell and step, fp32: acoustic 16 (read p[n-1], p[n],
// (v dt)^2; write p[n+1]), VTI 36 (p and q at two levels, (v dt)^2, E, D; write p and q), TTI 44
// (also the two tilt angles). Throws std::invalid_argument for another physics.
inline double minimal_bytes_per_cell(const std::string& physics) {
  if (physics == "acoustic") return 16;
  if (physics == "vti") return 36;
  if (physics == "tti") return 44;
  throw std::invalid_argument("minimal_bytes_per_cell: unknown physics '" + physics + "'");
}

struct VerifyResult {
  bool ok = false;
  double rel_l2 = 0;    // relative L2 of the field over the updated region, after all steps
  std::string message;  // why it failed (empty when ok)
};

// Acoustic: runs `steps` steps of `variant` and of the fp32 CPU reference
// (reference::acoustic_step) from the same random fields and (v dt)^2, and compares. The first
// step writes into a separate buffer filled with a NaN pattern: every cell of the region must be
// written and no cell outside it; the following steps alias next with prev, as the engine does.
// VTI/TTI: a point source in a heterogeneous tilted medium, the CUDA engine with this variant
// against the fp32 CPU engine, p compared over the region after `steps` x 10 steps.
VerifyResult verify_variant(const KernelVariant& variant, const StepSpec& spec, int steps,
                            uint32_t seed, double tolerance);

struct Timing {
  std::vector<double> ms_per_step;  // one per repeat
  double median_ms = 0;             // median over repeats, milliseconds per step
};

// `repeats` timed loops of `steps` launches each (after `warmup` launches), with events.
// Acoustic: the wavefields hold hashed values (a wavefield everywhere), or zeros with
// zero_fields (the field ahead of the wavefront, where a run from a point source starts; some
// variants run at another speed there).
Timing time_variant(const KernelVariant& variant, const StepSpec& spec, int steps, int repeats,
                    int warmup, bool zero_fields = false);
// The streaming kernel of the physics' access pattern (minimal_bytes_per_cell) over
// spec.layout.cells() cells, timed the same way.
Timing time_stream_ceiling(const StepSpec& spec, const std::string& physics, int steps, int repeats,
                           int warmup);
// Device-to-device copy of `bytes`: bytes read + written per second, median of `repeats`, GB/s.
double copy_bandwidth_gbps(size_t bytes, int repeats);

struct DeviceSummary {
  std::string name;
  int compute_capability = 0;
  int multiprocessors = 0;
  double memory_clock_mhz = 0;
  int bus_width_bits = 0;
  size_t free_bytes = 0;
};
DeviceSummary current_device();

}  // namespace seisfd::bench
