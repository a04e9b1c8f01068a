// acoustic/oN/naive: one thread per cell, every neighbour read from global memory. The
// correctness baseline and the throughput floor the fast variants are measured against.
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_naive(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_naive(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
