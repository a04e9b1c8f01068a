// tti/oN/smem_ring_y2: the z-marching TTI kernel of tti/oN/smem_ring
// (kernels/cuda/tti_smem_ring.cuh) with two cells a thread, adjacent in y: a 32 x 24 tile of 384
// threads (orders 2-6). The two cells' y stencils read the rows they share once, and the per-plane
// work of a thread (the barrier, the copies, the loop) is spread over two cells; the price is fewer
// warps a multiprocessor (12 instead of 16), each with twice the independent work. Measured faster
// than smem_ring at order 4 and not at order 8, where it is not registered (bench/NOTES.md).
#include <vector>

#include "kernels/cuda/tti_smem_ring_launch.cuh"

namespace seisfd {

void register_tti_smem_ring_y2(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R <= 3)
      t.push_back(tti_smem_ring_entry<R, 2>(
          "smem_ring_y2",
          "tti smem_ring with two cells a thread adjacent in y (their shared y neighbours loaded "
          "once, the per-plane work halved a cell), 384 threads a block; orders 2-6, reads the "
          "fp32 medium",
          cuda::tuning::kPreferenceTtiSmemRingY2));
  });
}

}  // namespace seisfd
