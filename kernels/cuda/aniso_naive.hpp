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

// The transposed update of apply_adjoint (kernels/reference/anisotropic.hpp): the stencils act
// on x = E p + D q and y = D p + q (the engine's pre-pass, zero outside the updated region and
// mirrored above a free surface), fp = H_0 x, fq = H_z y, and the leapfrog advances f's p and q.
template <int R>
void launch_vti_naive_transposed(const StepSpec& spec, const AnisoFields& f, const float* x,
                                 const float* y, void* stream);
template <int R>
void launch_tti_naive_transposed(const StepSpec& spec, const AnisoFields& f, const float* x,
                                 const float* y, void* stream);

// CPML specs are accepted: its boundary kernels (kernels/cuda/cpml.cu) run around the update.
std::string can_implement_aniso_naive(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
