// tti/oN/smem_nested: the nested TTI operator in one z-marching pass fed by TMA, orders 4, 8, 12
// and 16; the kernel and its launch are in tti_smem_nested.cuh, compiled here with the default
// policy (kernels/cuda/tuning.hpp: TtiNestedDefault).
#include <string>
#include <vector>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/cuda/tti_smem_nested.cuh"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

template <int R, bool kT>
void launch_tti_smem_nested(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  cuda::tti_nested::launch<R, cuda::tuning::TtiNestedDefault<R>, kT>(s, a, ctx);
}

std::string can_implement_tti_smem_nested(const StepSpec& s, int compute_capability) {
  if (s.tti_operator != TtiOperator::kNested)
    return "implements physics.tti_operator = \"nested\" only";
  if (s.end[0] - s.begin[0] <= 0) return "an empty region";
  if (s.end[1] - s.begin[1] > 65535 * 8) return "more than 524280 rows";
  if (compute_capability < 90)
    return "needs compute capability 9.0 (cp.async.bulk.tensor, mbarrier transaction counts)";
  std::string why = cuda::check_vector_layout(s);  // also makes TMA's strides 128-byte multiples
  if (why.empty()) why = cuda::can_implement_aniso_naive(s, compute_capability);
  return why;
}

}  // namespace

void register_tti_smem_nested(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R % 2 == 0) {
      KernelVariant v = cuda::variant_entry(
          Physics::kTti, R, "smem_nested",
          "TTI, nested operator: one z-marching pass fed by TMA (a ring of R + 2 planes with "
          "halos, the axis and the tile's medium and old levels, an iteration ahead on "
          "mbarriers), the intermediates of the tile's cells and of RC around it computed "
          "once, g_z and the Laplacian's z column in register queues");
      v.min_compute_capability = 90;
      v.can_implement = &can_implement_tti_smem_nested;
      v.forward = &launch_tti_smem_nested<R, false>;
      v.transposed = &launch_tti_smem_nested<R, true>;
      v.scratch_arrays = 0;
      v.transposed_scratch_arrays = 2;  // X, Y
      v.preference = cuda::tuning::kPreferenceTtiSmemNested;
      t.push_back(v);
    }
  });
}

}  // namespace seisfd
