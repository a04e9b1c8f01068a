// vti/oN/naive and tti/oN/naive: one thread per cell, every neighbour from global memory; the
// correctness baseline and the throughput floor for the anisotropic physics. The arithmetic is
// that of kernels/reference/anisotropic.hpp (the VTI fast path; TTI with the symmetric narrow
// diagonal terms and the first-derivative cross terms through the g intermediates).
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_vti_naive(const StepSpec& spec, const AnisoFields& f, void* stream);
template <int R>
void launch_tti_naive(const StepSpec& spec, const AnisoFields& f, void* stream);

std::string can_implement_aniso_naive(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
