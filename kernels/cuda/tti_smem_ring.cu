// tti/oN/smem_ring: the registry entries of the z-marching TTI kernel
// (kernels/cuda/tti_smem_ring.cuh says how it works, tti_smem_ring_launch.cuh launches it).
#include <vector>

#include "kernels/cuda/tti_smem_ring_launch.cuh"

namespace seisfd {

void register_tti_smem_ring(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    t.push_back(tti_smem_ring_entry<R, 1>(
        "smem_ring",
        "z-marching TTI: p and q (X, Y transposed) through a shared-memory ring of 2R+2 planes "
        "of a 32-wide xy tile, the cross-term intermediates on the tile and its halo in shared "
        "memory, D1_z of g_z scattered into register queues; one pass, 48 B a cell",
        cuda::tuning::kPreferenceTtiSmemRing));
  });
}

}  // namespace seisfd
