// tti/oN/smem_ring: the launches and the registry entries of the z-marching TTI kernel
// (kernels/cuda/tti_smem_ring.cuh says how it works).
#include <vector>

#include "kernels/cuda/tti_smem_ring_launch.cuh"

namespace seisfd {

namespace {

template <int R, bool kT>
void launch(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  tti_smem_ring_launch<R, 1, kT>(s, a, ctx, "tti smem_ring");
}

}  // namespace

void register_tti_smem_ring(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kTti, R, "smem_ring",
        "z-marching TTI: p and q (X, Y transposed) through a shared-memory ring of 2R+2 planes "
        "of a 32-wide xy tile, the cross-term intermediates on the tile and its halo in shared "
        "memory, D1_z of g_z scattered into register queues; one pass, 48 B a cell");
    v.min_compute_capability = 80;  // cp.async
    v.can_implement = &cuda::can_implement_vector_zmarch;
    v.forward = &launch<R, false>;
    v.transposed = &launch<R, true>;
    v.scratch_arrays = 0;
    v.transposed_scratch_arrays = 2;  // X, Y
    v.fuses_imaging = true;
    v.fuses_diagnostics = true;     // forward; the transposed launch runs the separate reduction
    v.reads_compact_medium = true;  // forward
    v.preference = cuda::tuning::kPreferenceTtiSmemRing;
    t.push_back(v);
  });
}

}  // namespace seisfd
