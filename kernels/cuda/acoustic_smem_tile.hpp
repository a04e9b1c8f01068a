// acoustic/oN/smem_tile: a 32 x 8 xy tile with its halo in shared memory per plane (x and y
// neighbours from shared memory), z neighbours read from global memory through L1/L2; each
// block walks a few planes. Scalar accesses, so any x alignment and row padding works.
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_smem_tile(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_smem_tile(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
