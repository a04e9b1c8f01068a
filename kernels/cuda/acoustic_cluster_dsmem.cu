#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda/acoustic_cluster_dsmem.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace cuda::cluster_dsmem {

int resident_cluster_blocks(int device, const void* kernel, int cluster, cudaLaunchConfig_t cfg) {
  static std::mutex mu;
  static std::map<std::tuple<int, const void*, int>, int> slots_of;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(device, kernel, cluster);
  const auto it = slots_of.find(key);
  if (it != slots_of.end()) return it->second;
  int current = -1;
  CUDA_CHECK(cudaGetDevice(&current));
  if (current != device)
    throw std::logic_error("cluster_dsmem: launch for device " + std::to_string(device) +
                           " while device " + std::to_string(current) +
                           " is current (the caller must guard the device)");
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(cfg.dynamicSmemBytes)));
  cfg.gridDim = dim3(cluster, 1, 1);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  if (clusters < 1)
    throw std::runtime_error("cluster_dsmem: no cluster of " + std::to_string(cluster) +
                             " blocks with " + std::to_string(cfg.dynamicSmemBytes) +
                             " bytes of shared memory each fits on device " +
                             std::to_string(device));
  return slots_of[key] = clusters * cluster;
}

}  // namespace cuda::cluster_dsmem

namespace {

template <int R>
using Policy = cuda::tuning::ClusterDsmemDefault<R>;

template <int R>
void launch_acoustic_cluster_dsmem(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  cuda::cluster_dsmem::launch<R, Policy<R>>(s, a, ctx);
}

std::string can_implement_acoustic_cluster_dsmem(const StepSpec& s, int cc) {
  if (cc < 90) return "thread-block clusters need compute capability 9.0 or higher";
  return cuda::can_implement_vector_zmarch(s, cc);
}

}  // namespace

void register_acoustic_cluster_dsmem(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kAcoustic, R, "cluster_dsmem",
        "smem_regqueue's z-march in clusters of 2 y-adjacent blocks that push their edge rows "
        "into the neighbours' rings through distributed shared memory (y halo from global "
        "memory at cluster edges only)");
    v.min_compute_capability = 90;
    v.can_implement = &can_implement_acoustic_cluster_dsmem;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_cluster_dsmem<R>;
    v.preference = cuda::tuning::kPreferenceClusterDsmem;
    t.push_back(v);
  });
}

}  // namespace seisfd
