// acoustic/oN/tma_ring: the z-march of smem_regqueue with its plane loads done by the Tensor
// Memory Accelerator. Per z step one thread issues three `cp.async.bulk.tensor` copies: the
// whole xy tile (64 x 32 cells) of cur at z+R with its halo (corners included), and the tile's
// own cells of prev and (v dt)^2 at z. They land in a shared-memory ring, complete on an
// mbarrier (expect-tx) and are issued two planes (orders 2-4: three) ahead of the compute. The cur
// box of a plane stays in the ring for R+1 steps: its centre feeds the register queue (z
// neighbours) when it lands, its halo serves the xy stencil R steps later, so each cur cell is read
// from L2 once per block. The tensor maps are encoded on the host (cuTensorMapEncodeTiled through
// cudaGetDriverEntryPointByVersion: no libcuda link) and cached per (pointer, layout, box). Needs
// compute capability 9.0.
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_tma_ring(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_tma_ring(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
