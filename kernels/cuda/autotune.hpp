// kernel.variant = "auto": the fastest runnable variant for the physics, order, grid shape and
// device, measured with the benchmark's timing (timing.hpp: device events, in-place
// rotation) on hashed and on all-zero wavefields (the two ends of a run from a point source;
// ranked by the mean time), and cached, so a run on the same device and shape measures nothing.
//
// The cache is a text file, one line per (device, physics, order, shape, candidates) key with
// the chosen variant and each candidate's Gcells/s: $SEISFD_AUTOTUNE_CACHE if set, else
// $XDG_CACHE_HOME/seisfd/autotune.tsv, else ~/.cache/seisfd/autotune.tsv. SEISFD_AUTOTUNE=0
// skips measuring (the registry's order of preference decides). Plain C++.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

struct VariantChoice {
  const KernelVariant* variant = nullptr;
  // How it was chosen: "named in the config", "only candidate", "measured", "cached (<file>)",
  // "preference order (SEISFD_AUTOTUNE=0)".
  std::string how;
  std::vector<std::pair<std::string, double>> gcells;  // per candidate, where measured or cached
};

// Resolves `requested` (a name or "auto") on `device`, whose name and compute capability are
// given (measuring on a stream of its own there). Throws std::invalid_argument as
// resolve_variant does.
VariantChoice choose_variant(const std::string& requested, Physics physics, int order,
                             const StepSpec& spec, int device, const std::string& device_name,
                             int cc);

// choose_variant, and for "auto" the choice kept: choose_variant in this process answers the same
// (device, physics, order, shape, candidates) with it, neither reading the cache nor measuring
// (kernels/cuda_backend.hpp's cuda_choose_variant_ahead: ranks sharing a GPU measure in turn).
VariantChoice choose_variant_ahead(const std::string& requested, Physics physics, int order,
                                   const StepSpec& spec, int device, const std::string& device_name,
                                   int cc);

// "measured: a 181.2, b 179.9 Gcells/s" and the like, for the run report.
std::string describe(const VariantChoice& c);

// kernel.compressible = "auto": whether `variant`'s update runs at least as fast (within 2%)
// with its arrays in compressible memory as in plain memory on `device`, timed as the variants
// are (hashed and all-zero wavefields, the mean time) and cached under its own key. Compression
// saves DRAM bytes where the fields are zero, but the hardware's compression resources can
// thrash: on an H200, a 768^3 TTI run with every array compressible ran at 0.56 of its plain
// rate (bench/NOTES.md). With `keep`, the answer is kept as choose_variant_ahead keeps a
// variant. SEISFD_AUTOTUNE=0: compress, unmeasured. Where measuring fails (the compressible
// arrays cannot be made or a launch on them fails), plain memory, and `how` says why.
struct CompressionChoice {
  bool compress = true;
  std::string how;  // "measured: compressed 30.3, plain 53.8 Gcells/s" and the like
};
CompressionChoice choose_compression(const KernelVariant& variant, const StepSpec& spec, int device,
                                     const std::string& device_name, bool keep);

}  // namespace seisfd::cuda
