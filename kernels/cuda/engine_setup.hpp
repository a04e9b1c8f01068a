// What the CUDA engine factory decides before it allocates: the device (it exists and has the
// memory), the variant (named, or measured for "auto") and whether the arrays ask for
// compression (for "auto", measured with that variant); and what the run report then says about
// it. Plain C++.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kernels/compression.hpp"
#include "kernels/cuda/autotune.hpp"
#include "kernels/cuda_backend.hpp"

namespace seisfd::cuda {

struct EngineSetup {
  DeviceInfo device;
  VariantChoice choice;
  Compressible compressible = Compressible::kOff;
  bool compress = false;        // the arrays ask for generic compression
  std::string compression_how;  // kAuto where supported: how choose_compression decided
};

// Throws std::runtime_error (no such device, not enough free memory for `bytes`,
// kernel.compressible = on where unsupported) or std::invalid_argument (variant). Leaves the
// current device as it was.
EngineSetup prepare_engine(const StepSpec& spec, size_t bytes, const std::string& variant,
                           Physics physics, int device, Compressible compressible);

// The report's details of an engine made from `s` whose arrays got compression where `granted`
// (throws, as compression_outcome does, for kOn without it).
std::vector<std::pair<std::string, std::string>> engine_details(const EngineSetup& s, bool granted);

}  // namespace seisfd::cuda
