// The benchmark harness behind `seisfd bench` (not part of the production libraries): each
// registry variant verified against the CPU reference on a given spec, then timed with device
// events (kernels/cuda/timing.hpp, the timing kernel.variant = "auto" uses) against the two
// reference rates of docs/benchmarks.md §3: the streaming ceiling of the physics' access
// pattern and the device-to-device copy. Plain C++. In a build without CUDA every function
// throws std::runtime_error.
#pragma once
#include <cstdint>
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

struct VerifyResult {
  bool ok = false;
  double rel_l2 = 0;    // relative L2 of the field over the updated region, after all steps
  std::string message;  // why it failed (empty when ok)
};

// Acoustic: runs `steps` forward launches of `variant` and of the fp32 CPU reference
// (reference::acoustic_step) from the same random fields and (v dt)^2, and compares. The first
// launch writes into a separate buffer filled with a NaN pattern: every cell of the region must
// be written and no cell outside it; the following launches alias next with prev, as the
// engine does. VTI/TTI: a point source in a heterogeneous tilted medium, the CUDA engine with
// this variant against the fp32 CPU engine, p compared over the region after `steps` x 10
// steps.
// With `model` (VTI/TTI) both engines run the medium stored in that precision.
VerifyResult verify_variant(const KernelVariant& variant, const StepSpec& spec, int steps,
                            uint32_t seed, double tolerance,
                            ModelPrecision model = ModelPrecision::kFp32);

// Milliseconds per step of each repeat, and their median (kernels/cuda/timing.hpp's, in a
// header that needs no CUDA).
struct Timing {
  std::vector<double> ms_per_step;
  double median_ms = 0;
};

// kernels/cuda/timing.hpp's time_update on a stream of its own on the current device.
// `model`: the forward launch of a variant that reads_compact_medium reads the medium's codes.
Timing time_variant(const KernelVariant& variant, const StepSpec& spec, int steps, int repeats,
                    int warmup, bool zero_fields = false,
                    ModelPrecision model = ModelPrecision::kFp32);
// A migration's adjoint step timed like time_variant (docs/migration.md §3): the transposed
// update alone, with the cross-correlation fused into it, with the cross-correlation,
// illumination and zero-lag images fused, and with the separate passes an engine runs for a
// variant that does not fuse. Milliseconds per step (medians); NaN where the variant has no
// such launch.
struct ImagingTiming {
  double adjoint_ms = 0;
  double fused_cross_ms = 0, fused_all_ms = 0;
  double separate_cross_ms = 0;
};
ImagingTiming time_imaging(const KernelVariant& variant, const StepSpec& spec, int steps,
                           int repeats, int warmup);
// The streaming kernel of the physics' access pattern (traits(physics).min_bytes_per_cell)
// over spec.layout.cells() cells, timed the same way.
Timing time_stream_ceiling(const StepSpec& spec, Physics physics, int steps, int repeats,
                           int warmup);
// Device-to-device copy of `bytes`: bytes read + written per second, median of `repeats`, GB/s.
double copy_bandwidth_gbps(size_t bytes, int repeats);
// Copies of `bytes` between devices a and b (cudaMemcpyPeerAsync, medians of `repeats`): a to b
// alone, and a to b beside b to a (the sum of both directions), in GB/s; peer_access says
// whether the two address each other directly (NVLink or PCIe peer-to-peer) or the driver stages
// the copies through the host.
struct PeerBandwidth {
  bool peer_access = false;
  double one_way_gbps = 0, both_ways_gbps = 0;
};
PeerBandwidth peer_bandwidth(int a, int b, size_t bytes, int repeats);
// copy_bandwidth_gbps on `device` (the current device is left as it was).
double copy_bandwidth_on(int device, size_t bytes, int repeats);

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
