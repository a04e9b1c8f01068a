#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/acoustic_smem_regqueue.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

template <int R>
using Policy = cuda::tuning::SmemRegqueueDefault<R>;

template <int R>
void launch_acoustic_smem_regqueue(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  cuda::smem_regqueue::launch<R, Policy<R>>(s, a, ctx);
}

}  // namespace

void register_acoustic_smem_regqueue(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kAcoustic, R, "smem_regqueue",
        "z-marching: 64x16 xy tile in shared memory, z neighbours in a register queue, planes "
        "loaded 2 ahead by 16-byte cp.async into a shared-memory ring");
    v.min_compute_capability = 70;
    v.can_implement = &cuda::can_implement_vector_zmarch;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_smem_regqueue<R>;
    v.fuses_diagnostics = Policy<R>::kFusesDiagnostics;
    v.fuses_imaging = Policy<R>::kAsync;
    v.preference = cuda::tuning::kPreferenceSmemRegqueue;
    t.push_back(v);
  });
}

}  // namespace seisfd
