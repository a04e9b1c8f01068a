// acoustic/oN/shfl_regqueue: z-marching like smem_regqueue (z neighbours in a register queue,
// one new plane loaded per z step), with the x neighbours taken from a warp-shuffle register
// cache: a warp owns one 128-cell row segment (4 cells per lane, 16-byte accesses) and gets its
// x neighbours from the neighbouring lanes with __shfl_sync; the 2 x R halo cells of the row
// segment sit in the registers of the edge lanes. y neighbours come from the other warps' rows
// through a shared-memory tile without x halo columns. Plane loads (y halo rows, x halo of each
// row, own cells of cur at z+R, prev, (v dt)^2) go by 16-byte cp.async into a 3-stage ring two
// planes ahead, as in smem_regqueue.
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_shfl_regqueue(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_shfl_regqueue(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
