#include "kernels/registry.hpp"

#include <stdexcept>

#if SEISFD_HAVE_CUDA
#include "kernels/cuda/acoustic_cluster_dsmem.hpp"
#include "kernels/cuda/acoustic_naive.hpp"
#include "kernels/cuda/acoustic_shfl_regqueue.hpp"
#include "kernels/cuda/acoustic_smem_regqueue.hpp"
#include "kernels/cuda/acoustic_smem_tile.hpp"
#include "kernels/cuda/acoustic_tma_ring.hpp"
#include "kernels/cuda/aniso_naive.hpp"
#endif

namespace seisfd {
namespace {

#if SEISFD_HAVE_CUDA
template <int R>
void add_acoustic_naive(std::vector<KernelVariant>& t) {
  t.push_back({"acoustic/o" + std::to_string(2 * R) + "/naive", "acoustic", 2 * R, "naive",
               "one thread per cell, all reads from global memory (the baseline)", 60,
               &can_implement_acoustic_naive, &launch_acoustic_naive<R>});
}

template <int R>
void add_acoustic_fast(std::vector<KernelVariant>& t) {
  const std::string o = "acoustic/o" + std::to_string(2 * R) + "/";
  t.push_back({o + "smem_regqueue", "acoustic", 2 * R, "smem_regqueue",
               "z-marching: 64x16 xy tile in shared memory, z neighbours in a register queue, "
               "planes loaded 2 ahead by 16-byte cp.async into a shared-memory ring",
               70, &can_implement_acoustic_smem_regqueue, &launch_acoustic_smem_regqueue<R>,
               nullptr, /*fuses_diagnostics=*/true});
  t.push_back({o + "cluster_dsmem", "acoustic", 2 * R, "cluster_dsmem",
               "smem_regqueue's z-march in clusters of 2 y-adjacent blocks that push their edge "
               "rows into the neighbours' rings through distributed shared memory (y halo from "
               "global memory at cluster edges only)",
               90, &can_implement_acoustic_cluster_dsmem, &launch_acoustic_cluster_dsmem<R>});
  t.push_back(
      {o + "shfl_regqueue", "acoustic", 2 * R, "shfl_regqueue",
       "z-marching like smem_regqueue, but x neighbours by __shfl_sync from a warp-shuffle "
       "register cache (a warp owns a 128-cell row, its x halo in edge lanes); y neighbours "
       "through a shared-memory tile without x halo; cp.async plane ring 2 ahead",
       70, &can_implement_acoustic_shfl_regqueue, &launch_acoustic_shfl_regqueue<R>, nullptr,
       /*fuses_diagnostics=*/true});
  t.push_back(
      {o + "tma_ring", "acoustic", 2 * R, "tma_ring",
       "z-marching like smem_regqueue, but each plane's 64x32 xy tile with its halo (corners "
       "included) and the own cells of prev and (v dt)^2 come by TMA (cp.async.bulk.tensor, "
       "__grid_constant__ tensor maps) into a shared-memory ring 2-3 planes ahead, completing on "
       "mbarriers; a box stays R+1 steps (queue, then halo)",
       90, &can_implement_acoustic_tma_ring, &launch_acoustic_tma_ring<R>});
  t.push_back({o + "smem_tile", "acoustic", 2 * R, "smem_tile",
               "32x8 xy tile with halo in shared memory per plane, z neighbours from global "
               "memory, scalar accesses",
               70, &can_implement_acoustic_smem_tile, &launch_acoustic_smem_tile<R>});
}

// The anisotropic baselines (issue 4): the throughput the fast TTI kernels start from.
template <int R>
void add_aniso_naive(std::vector<KernelVariant>& t) {
  const std::string o = "/o" + std::to_string(2 * R) + "/naive";
  KernelVariant vti{"vti" + o,
                    "vti",
                    2 * R,
                    "naive",
                    "VTI fast path (d_xx + d_yy, d_zz; no mixed derivatives), one thread per "
                    "cell, all reads from global memory",
                    60,
                    &can_implement_aniso_naive};
  vti.launch_aniso = &launch_vti_naive<R>;
  t.push_back(vti);
  KernelVariant tti{"tti" + o,
                    "tti",
                    2 * R,
                    "naive",
                    "TTI: a pass writing the 6 cross-term intermediates of p and q, then one "
                    "thread per cell for the update, all reads from global memory",
                    60,
                    &can_implement_aniso_naive};
  tti.launch_aniso = &launch_tti_naive<R>;
  t.push_back(tti);
}
#endif

std::vector<KernelVariant> make_registry() {
  std::vector<KernelVariant> t;
#if SEISFD_HAVE_CUDA
  add_acoustic_naive<1>(t);
  add_acoustic_fast<1>(t);
  add_acoustic_naive<2>(t);
  add_acoustic_fast<2>(t);
  add_acoustic_naive<3>(t);
  add_acoustic_fast<3>(t);
  add_acoustic_naive<4>(t);
  add_acoustic_fast<4>(t);
  add_acoustic_naive<5>(t);
  add_acoustic_fast<5>(t);
  add_acoustic_naive<6>(t);
  add_acoustic_fast<6>(t);
  add_acoustic_naive<7>(t);
  add_acoustic_fast<7>(t);
  add_acoustic_naive<8>(t);
  add_acoustic_fast<8>(t);
  add_aniso_naive<1>(t);
  add_aniso_naive<2>(t);
  add_aniso_naive<3>(t);
  add_aniso_naive<4>(t);
  add_aniso_naive<5>(t);
  add_aniso_naive<6>(t);
  add_aniso_naive<7>(t);
  add_aniso_naive<8>(t);
#endif
  return t;
}

// Order for "auto" where nothing is measured (SEISFD_AUTOTUNE=0, or a single candidate), and
// the order in which the autotuner lists candidates: fastest first at order 8, 512^3 + sponge
// (bench/NOTES.md). H100: shfl_regqueue 181, smem_regqueue 180, cluster_dsmem 174, tma_ring 173,
// naive 90, smem_tile 75 Gcells/s; at order 16 tma_ring leads (170 vs 151-163).
const char* const kTechniquePreference[] = {"shfl_regqueue", "smem_regqueue", "cluster_dsmem",
                                            "tma_ring",      "naive",         "smem_tile"};

}  // namespace

const std::vector<KernelVariant>& kernel_registry() {
  static const std::vector<KernelVariant> table = make_registry();
  return table;
}

const KernelVariant* find_variant(const std::string& name) {
  for (const auto& v : kernel_registry())
    if (v.name == name) return &v;
  return nullptr;
}

const KernelVariant& resolve_variant(const std::string& requested, const std::string& physics,
                                     int order, const StepSpec& spec, int cc) {
  if (kernel_registry().empty())
    throw std::invalid_argument(
        "kernel.variant: this build has no CUDA kernels (built without CUDA)");
  if (requested != "auto") {
    const KernelVariant* v = find_variant(requested);
    if (!v)
      throw std::invalid_argument("kernel.variant: unknown variant '" + requested +
                                  "' (see `seisfd kernels`)");
    if (v->physics != physics || v->order != order)
      throw std::invalid_argument("kernel.variant: '" + requested + "' is for " + v->physics +
                                  " order " + std::to_string(v->order) + ", the run needs " +
                                  physics + " order " + std::to_string(order));
    if (cc < v->min_compute_capability)
      throw std::invalid_argument("kernel.variant: '" + requested + "' needs compute capability " +
                                  std::to_string(v->min_compute_capability) + ", device has " +
                                  std::to_string(cc));
    const std::string why = v->can_implement(spec, cc);
    if (!why.empty()) throw std::invalid_argument("kernel.variant: '" + requested + "': " + why);
    return *v;
  }
  const auto candidates = runnable_variants(physics, order, spec, cc);
  if (candidates.empty())
    throw std::invalid_argument("kernel.variant: no registered variant runs " + physics +
                                " order " + std::to_string(order) + " on this device");
  return *candidates.front();
}

std::vector<const KernelVariant*> runnable_variants(const std::string& physics, int order,
                                                    const StepSpec& spec, int cc) {
  std::vector<const KernelVariant*> out;
  for (const char* tech : kTechniquePreference)
    for (const auto& v : kernel_registry())
      if (v.physics == physics && v.order == order && v.technique == tech &&
          cc >= v.min_compute_capability && v.can_implement(spec, cc).empty())
        out.push_back(&v);
  return out;
}

}  // namespace seisfd
