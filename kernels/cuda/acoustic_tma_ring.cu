#include <cuda.h>          // CUtensorMap and its enums (types only: libcuda is not linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda/acoustic_tma_ring.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/driver_entry.hpp"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace cuda::tma_ring {
namespace {

using EncodeTiledFn = PFN_cuTensorMapEncodeTiled_v12000;

EncodeTiledFn encode_tiled() {
  static std::mutex mu;
  static EncodeTiledFn fn = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  cudaError_t e = cudaSuccess;
  if (!fn && !cuda::driver_entry_point("cuTensorMapEncodeTiled", 12000, fn, &e))
    throw std::runtime_error(
        "tma_ring: the driver does not provide cuTensorMapEncodeTiled (CUDA 12.0+ driver "
        "needed): " +
        std::string(cudaGetErrorString(e)));
  return fn;
}

// Tensor maps by (device, pointer, layout, box, L2 promotion). A map is a pure function of
// these, so an entry never goes stale (a freed and reallocated buffer at the same address with
// the same layout encodes the same map). An engine rotates prev/cur/next among three buffers and
// the bench and tests among two or three, so a few entries per device cover a run; the cache is
// bounded and drops its oldest entry when full. Graph capture records the map by value in the
// kernel node's parameters, so a replay never reads this cache.
class TensorMapCache {
 public:
  CUtensorMap get(int device, const float* ptr, const Layout& l, int box_w, int box_h,
                  CUtensorMapL2promotion promo) {
    const Key key{device, ptr, l.nz, l.ny, l.nx, l.sy, l.sz, box_w, box_h, static_cast<int>(promo)};
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : entries_)
      if (e.key == key) return e.map;
    Entry e{key, encode(ptr, l, box_w, box_h, promo)};
    if (entries_.size() >= kCapacity) entries_.erase(entries_.begin());
    entries_.push_back(e);
    return e.map;
  }

 private:
  using Key = std::tuple<int, const float*, int, int, int, int64_t, int64_t, int, int, int>;
  struct Entry {
    Key key;
    CUtensorMap map;
  };
  static constexpr size_t kCapacity = 32;

  static CUtensorMap encode(const float* ptr, const Layout& l, int box_w, int box_h,
                            CUtensorMapL2promotion promo) {
    CUtensorMap m;
    const cuuint64_t dims[3] = {static_cast<cuuint64_t>(l.nx), static_cast<cuuint64_t>(l.ny),
                                static_cast<cuuint64_t>(l.nz)};
    const cuuint64_t strides[2] = {static_cast<cuuint64_t>(l.sy) * 4,
                                   static_cast<cuuint64_t>(l.sz) * 4};
    const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_w), static_cast<cuuint32_t>(box_h), 1};
    const cuuint32_t elem[3] = {1, 1, 1};
    const CUresult r =
        encode_tiled()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(ptr), dims,
                       strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                       CU_TENSOR_MAP_SWIZZLE_NONE, promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
      throw std::runtime_error("tma_ring: cuTensorMapEncodeTiled failed (CUresult " +
                               std::to_string(static_cast<int>(r)) + ") for a " +
                               std::to_string(l.nz) + " x " + std::to_string(l.ny) + " x " +
                               std::to_string(l.nx) + " array, row stride " + std::to_string(l.sy) +
                               " floats");
    return m;
  }

  std::mutex mu_;
  std::vector<Entry> entries_;
};

TensorMapCache& map_cache() {
  static TensorMapCache c;
  return c;
}

CUtensorMapL2promotion promotion_of(int bytes) {
  switch (bytes) {
    case 0:
      return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    case 64:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 128:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    case 256:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  throw std::invalid_argument("tma_ring: L2 promotion " + std::to_string(bytes) +
                              " is not one of 0, 64, 128, 256 bytes");
}

}  // namespace

CUtensorMap tensor_map(int device, const float* ptr, const Layout& l, int box_w, int box_h,
                       int l2_promotion) {
  return map_cache().get(device, ptr, l, box_w, box_h, promotion_of(l2_promotion));
}

}  // namespace cuda::tma_ring

namespace {

template <int R>
using Policy = cuda::tuning::TmaRingDefault<R>;

template <int R>
void launch_acoustic_tma_ring(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  cuda::tma_ring::launch<R, Policy<R>>(s, a, ctx);
}

std::string can_implement_acoustic_tma_ring(const StepSpec& s, int compute_capability) {
  if (compute_capability < 90)
    return "needs compute capability 9.0 (cp.async.bulk.tensor, mbarrier transaction counts)";
  std::string why = cuda::check_region(s);
  if (why.empty())
    why = cuda::check_vector_layout(s);  // also makes TMA's strides 128-byte multiples
  if (!why.empty()) return why;
  const Layout& l = s.layout;
  // TMA: global extents below 2^32 (int coordinates here), strides below 2^40 bytes.
  if (static_cast<uint64_t>(l.sz) * l.nz * 4 >= (uint64_t{1} << 40))
    return "array over 2^40 bytes (TMA stride limit)";
  return {};
}

}  // namespace

void register_acoustic_tma_ring(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kAcoustic, R, "tma_ring",
        "z-marching like smem_regqueue, but each plane's 64x32 xy tile with its halo (corners "
        "included) and the own cells of prev and (v dt)^2 come by TMA (cp.async.bulk.tensor, "
        "__grid_constant__ tensor maps) into a shared-memory ring 2-3 planes ahead, completing "
        "on mbarriers; a box stays R+1 steps (queue, then halo)");
    v.min_compute_capability = 90;
    v.can_implement = &can_implement_acoustic_tma_ring;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_tma_ring<R>;
    v.preference = cuda::tuning::kPreferenceTmaRing;
    t.push_back(v);
  });
}

}  // namespace seisfd
