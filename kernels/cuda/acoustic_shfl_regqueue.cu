#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/acoustic_shfl_regqueue.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

template <int R>
using Policy = cuda::tuning::ShflRegqueueDefault<R>;

template <int R>
void launch_acoustic_shfl_regqueue(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  cuda::shfl_regqueue::launch<R, Policy<R>>(s, a, ctx);
}

}  // namespace

void register_acoustic_shfl_regqueue(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kAcoustic, R, "shfl_regqueue",
        "z-marching like smem_regqueue, but x neighbours by __shfl_sync from a warp-shuffle "
        "register cache (a warp owns a 128-cell row, its x halo in edge lanes); y neighbours "
        "through a shared-memory tile without x halo; cp.async plane ring 2 ahead");
    v.min_compute_capability = 70;
    v.can_implement = &cuda::can_implement_vector_zmarch;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_shfl_regqueue<R>;
    v.fuses_diagnostics = Policy<R>::kFusesDiagnostics;
    v.fuses_imaging = true;
    v.preference = cuda::tuning::kPreferenceShflRegqueue;
    t.push_back(v);
  });
}

}  // namespace seisfd
