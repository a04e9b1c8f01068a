#include "kernels/cuda/acoustic_tma_ring.hpp"

#include <cuda.h>          // CUtensorMap and its enums (types only: libcuda is not linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/driver_entry.hpp"
#include "kernels/cuda/stencil_common.cuh"

namespace seisfd {
namespace {

constexpr size_t round_up(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}

// Tile 64 x TY cells, a thread per 4 consecutive x cells (16-byte shared-memory reads, 16-byte
// global stores). The cur box is (TY + 2R) rows of 64 + 2 RP floats; the x halo RP is R rounded
// up to 4 floats so that box rows stay 16-byte multiples (a TMA requirement) and float4-aligned.
// Two ways to feed the register queue:
//  - deep ring (Split = false): the cur box of plane z+R is loaded once; its centre enters the
//    queue when it lands and the box stays in the ring until step z+R uses its halo. Shared
//    memory: R + kAhead + 1 cur boxes, kAhead + 1 pairs of own tiles (prev, (v dt)^2).
//  - split (Split = true): the cur box of plane z and the own tile of cur at z+R are separate
//    copies of the same group, as smem_regqueue does it (the box centre is read twice from L2).
//    Shared memory: kAhead + 1 stages of a cur box and three own tiles.
// Plus kAhead + 2 mbarriers.
constexpr int halo_x(int R) {
  return (R + 3) / 4 * 4;
}
constexpr size_t cbox_stride(int R, int TY) {
  return round_up(size_t{4} * (64 + 2 * halo_x(R)) * (TY + 2 * R), 128);
}
// `ahead`: planes issued ahead of the one computed; groups = ahead + 1.
constexpr size_t ring_smem(int R, int TY, bool split, int ahead) {
  return (split ? ahead + 1 : R + ahead + 1) * cbox_stride(R, TY) +
         (split ? 3 : 2) * (ahead + 1) * size_t{4} * 64 * TY + (ahead + 2) * 8;
}
// Fits an H100/H200 SM (228 KB, 1 KB reserved per block; 227 KB per block at most).
constexpr bool ring_fits(int R, int TY, int blocks, bool split, int ahead) {
  return ring_smem(R, TY, split, ahead) <= 232448 &&
         blocks * (ring_smem(R, TY, split, ahead) + 1024) <= 233472;
}

template <int R, int TY, int MinBlocks, bool Split, int Ahead>
struct TmaShape {
  static constexpr bool kSplit = Split;
  static constexpr int kR = R;
  static constexpr int kTX = 64;
  static constexpr int kTY = TY;
  static constexpr int kTX4 = kTX / 4;
  static constexpr int kThreads = kTX4 * TY;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kRP = halo_x(R);
  static constexpr int kW = kTX + 2 * kRP;  // box row, floats
  static constexpr int kH = TY + 2 * R;     // box rows
  static constexpr int kAhead = Ahead;
  static constexpr int kGroups = Ahead + 1;
  static constexpr int kCStages = Split ? kGroups : R + kAhead + 1;
  static constexpr unsigned kCBytes = kW * kH * 4;
  static constexpr unsigned kOwnBytes = kTX * TY * 4;
  static constexpr size_t kCStride = cbox_stride(R, TY);
  static constexpr size_t kQOff = kCStages * kCStride;  // own tiles of cur at z+R (split)
  static constexpr size_t kPOff = kQOff + (Split ? kGroups * size_t{kOwnBytes} : 0);
  static constexpr size_t kVOff = kPOff + kGroups * size_t{kOwnBytes};
  static constexpr size_t kBarOff = kVOff + kGroups * size_t{kOwnBytes};
  static constexpr size_t kSmem = kBarOff + (kGroups + 1) * 8;
  static_assert(kSmem == ring_smem(R, TY, Split, Ahead), "shared-memory layout");
};

template <int R>
struct TmaParams {
  Layout l;
  int begin[3], end[3];
  int x_base;   // x of the first tile: begin[2] rounded down to 32
  int tiles_x;  // tiles per row of tiles
  int zchunk;   // planes per block
  cuda::StencilWeights<R> w;
  cuda::SpongeParams sponge;
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}
// Makes the initialised barriers visible to the async proxy (the TMA unit) and other threads.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// The producer's arrival: one arrive plus the bytes the barrier's phase must still receive.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  const uint32_t a = smem_u32(bar);
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(a), "r"(parity)
        : "memory");
  } while (!done);
}
// One box of a 3D tensor map at (x, y, z) into shared memory, completing on `bar`. Parts of the
// box outside the tensor are filled with zeros (and still counted in the transaction bytes).
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar, int x,
                                            int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Step g (plane z = zb + g) needs: the cur box of z (its halo: xy neighbours), the own cells of
// cur at z + R (the new end of the register queue), prev and (v dt)^2 of z.
// Deep ring: group g = the cur box of z + R and the own tiles of prev and (v dt)^2 at z, on
// barrier g % kGroups; the cur boxes of zb .. zb+R-1 come in a warm-up group on barrier kGroups.
// Ring slots: cur box of plane zb + i in slot i % kCStages, own tiles of group g in slot
// g % kGroups. Split: group g = the cur box of z, the own tile of cur at z + R, prev and
// (v dt)^2 at z, all in stage g % kGroups. Either way group g + kAhead is issued at the top of
// step g, after the barrier that ends step g - 1: the slots it overwrites held plane zb + g - 1
// (deep ring) or group g - 1 (split), whose last readers are in step g - 1.
template <class S>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks)
    acoustic_tma_ring_kernel(const TmaParams<S::kR> p, const __grid_constant__ CUtensorMap map_cur,
                             const __grid_constant__ CUtensorMap map_prev,
                             const __grid_constant__ CUtensorMap map_vdt2,
                             const __grid_constant__ CUtensorMap map_own,
                             const float* __restrict__ cur, float* next) {
  constexpr int R = S::kR;
  extern __shared__ __align__(128) unsigned char smem[];
  float* const cbox = reinterpret_cast<float*>(smem);
  float* const qown = reinterpret_cast<float*>(smem + S::kQOff);
  float* const pown = reinterpret_cast<float*>(smem + S::kPOff);
  float* const vown = reinterpret_cast<float*>(smem + S::kVOff);
  uint64_t* const bar = reinterpret_cast<uint64_t*>(smem + S::kBarOff);
  constexpr int kCStride = static_cast<int>(S::kCStride / 4);  // floats
  constexpr int kOwnStride = S::kTX * S::kTY;

  const int t = threadIdx.x;
  const int tx = t % S::kTX4, ty = t / S::kTX4;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  const int gx = x0 + 4 * tx, gy = y0 + ty;
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;  // gx % 4 == 0, sy % 32 == 0: gx + 3 < sy
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;
  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }
  const int own_box = (ty + R) * S::kW + S::kRP + 4 * tx;  // own cells in a cur box
  const int own_tile = ty * S::kTX + 4 * tx;               // own cells in an own tile

  const bool producer = t == 0;
  auto issue_group = [&](int g) {
    uint64_t* b = &bar[g % S::kGroups];
    const int og = (g % S::kGroups) * kOwnStride;
    if constexpr (S::kSplit) {
      mbar_arrive_expect_tx(b, S::kCBytes + 3 * S::kOwnBytes);
      tma_load_3d(cbox + (g % S::kGroups) * kCStride, &map_cur, b, x0 - S::kRP, y0 - R, zb + g);
      tma_load_3d(qown + og, &map_own, b, x0, y0, zb + g + R);
    } else {
      mbar_arrive_expect_tx(b, S::kCBytes + 2 * S::kOwnBytes);
      tma_load_3d(cbox + ((g + R) % S::kCStages) * kCStride, &map_cur, b, x0 - S::kRP, y0 - R,
                  zb + g + R);
    }
    tma_load_3d(pown + og, &map_prev, b, x0, y0, zb + g);
    tma_load_3d(vown + og, &map_vdt2, b, x0, y0, zb + g);
  };

  if (producer) {
    prefetch_map(&map_cur);
    if (S::kSplit) prefetch_map(&map_own);
    prefetch_map(&map_prev);
    prefetch_map(&map_vdt2);
#pragma unroll
    for (int i = 0; i <= S::kGroups; ++i) mbar_init(&bar[i], 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (producer) {
    if (!S::kSplit) {
      uint64_t* wb = &bar[S::kGroups];
      mbar_arrive_expect_tx(wb, R * S::kCBytes);
      for (int i = 0; i < R; ++i)
        tma_load_3d(cbox + i * kCStride, &map_cur, wb, x0 - S::kRP, y0 - R, zb + i);
    }
    for (int g = 0; g < S::kAhead && zb + g < ze; ++g) issue_group(g);
  }

  // Queue at the top of step z: own cells of planes z-R .. z+R-1; planes zb-R .. zb-1 (split:
  // zb-R .. zb+R-1) come from global memory, zb .. zb+R-1 from the warm-up boxes.
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 q[2 * R + 1];
  {
    constexpr int kFromGlobal = S::kSplit ? 2 * R : R;
    const float* c0 = cur + (zb - R) * sz + own;
#pragma unroll
    for (int i = 0; i < kFromGlobal; ++i) q[i] = own_ok ? cuda::ld_ro4(c0 + i * sz) : zero;
  }
  if (!S::kSplit) {
    mbar_wait(&bar[S::kGroups], 0);
#pragma unroll
    for (int i = 0; i < R; ++i)
      q[R + i] = *reinterpret_cast<const float4*>(cbox + i * kCStride + own_box);
  }

  for (int g = 0, z = zb; z < ze; ++g, ++z) {
    __syncthreads();  // step g - 1 is done everywhere: its ring slots may be overwritten
    if (producer && z + S::kAhead < ze) issue_group(g + S::kAhead);
    mbar_wait(&bar[g % S::kGroups], (g / S::kGroups) & 1);

    const float* cz = cbox + (g % S::kCStages) * kCStride;  // plane z with its halo
    const int og = (g % S::kGroups) * kOwnStride + own_tile;
    if constexpr (S::kSplit)
      q[2 * R] = *reinterpret_cast<const float4*>(qown + og);
    else
      q[2 * R] =
          *reinterpret_cast<const float4*>(cbox + ((g + R) % S::kCStages) * kCStride + own_box);
    const float4 pv = *reinterpret_cast<const float4*>(pown + og);
    const float4 vv = *reinterpret_cast<const float4*>(vown + og);

    float xs[4 + 2 * S::kRP];
    cuda::x_row4<S::kRP>(xs, cz + (ty + R) * S::kW, tx, q[R]);
    float lap[4];
    cuda::laplacian4<R, S::kRP>(lap, p.w, q, xs, cz + own_box, S::kW);
    if (mask) {
      const float4 o = cuda::leapfrog4(p.sponge, z, gxy, q[R], pv, vv, lap);
      cuda::store4(next + z * sz + own, o, mask);
    }
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
  }
}

// ---- host side ------------------------------------------------------------------------------

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

// Tensor maps by (pointer, layout, box). A map is a pure function of these, so an entry never
// goes stale (a freed and reallocated buffer at the same address with the same layout encodes
// the same map). The engine rotates prev/cur/next among three buffers and the bench and tests
// among two or three, so a few entries cover a run; the cache is bounded and drops its oldest
// entry when full. Graph capture records the map by value in the kernel node's parameters, so a
// replay never reads this cache.
class TensorMapCache {
 public:
  CUtensorMap get(const float* ptr, const Layout& l, int box_w, int box_h,
                  CUtensorMapL2promotion promo) {
    const Key key{ptr, l.nz, l.ny, l.nx, l.sy, l.sz, box_w, box_h, static_cast<int>(promo)};
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : entries_)
      if (e.key == key) return e.map;
    Entry e{key, encode(ptr, l, box_w, box_h, promo)};
    if (entries_.size() >= kCapacity) entries_.erase(entries_.begin());
    entries_.push_back(e);
    return e.map;
  }

 private:
  using Key = std::tuple<const float*, int, int, int, int64_t, int64_t, int, int, int>;
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

// L2 promotion of the TMA reads (the granule L2 fetches from DRAM per miss). Tuning knob for
// bench sweeps, not a user setting: SEISFD_TMA_RING_L2_PROMOTION = none|64|128|256.
CUtensorMapL2promotion l2_promotion() {
  static const CUtensorMapL2promotion p = [] {
    const char* e = std::getenv("SEISFD_TMA_RING_L2_PROMOTION");
    const std::string v = e && *e ? e : "256";
    if (v == "none") return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    if (v == "64") return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    if (v == "128") return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    if (v == "256") return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    throw std::invalid_argument("SEISFD_TMA_RING_L2_PROMOTION: '" + v +
                                "' is not one of none, 64, 128, 256");
  }();
  return p;
}

// Per kernel instantiation, once: the dynamic shared-memory limit and the resident blocks.
template <class S>
int prepare_kernel() {
  static const int slots = [] {
    const void* k = reinterpret_cast<const void*>(&acoustic_tma_ring_kernel<S>);
    CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(S::kSmem)));
    return cuda::resident_blocks(k, S::kThreads, S::kSmem);
  }();
  return slots;
}

template <class S>
void run(const StepSpec& s, const AcousticFields& f, cudaStream_t stream) {
  constexpr int R = S::kR;
  TmaParams<R> p{};
  p.l = s.layout;
  for (int a = 0; a < 3; ++a) {
    p.begin[a] = s.begin[a];
    p.end[a] = s.end[a];
  }
  p.x_base = s.begin[2] / 32 * 32;
  p.tiles_x = (s.end[2] - p.x_base + S::kTX - 1) / S::kTX;
  const int tiles_y = (s.end[1] - s.begin[1] + S::kTY - 1) / S::kTY;
  const int nzu = s.end[0] - s.begin[0];
  const int slots = prepare_kernel<S>();
  // Warm-up of a chunk: R cur boxes (~1.7 plane-loads of a step each at R = 4) and R queue loads.
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, 0.6 * R + 1);
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  TensorMapCache& c = map_cache();
  const CUtensorMapL2promotion promo = l2_promotion();
  const CUtensorMap mc = c.get(f.cur, s.layout, S::kW, S::kH, promo);
  const CUtensorMap mp = c.get(f.prev, s.layout, S::kTX, S::kTY, promo);
  const CUtensorMap mv = c.get(f.vdt2, s.layout, S::kTX, S::kTY, promo);
  // Split: the own tile of cur at z+R (64 x TY box); unused by the deep ring.
  const CUtensorMap mo = S::kSplit ? c.get(f.cur, s.layout, S::kTX, S::kTY, promo) : mp;
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  acoustic_tma_ring_kernel<S>
      <<<grid, S::kThreads, S::kSmem, stream>>>(p, mc, mp, mv, mo, f.cur, f.next);
  CUDA_CHECK_LAUNCH();
}

// Configurations: t<TY>b<MinBlocks>[a<Ahead>] (deep ring, tile 64 x TY, at least MinBlocks blocks
// per SM by launch bounds, planes issued Ahead ahead, 2 unless named) and s<TY>b<MinBlocks>
// (split, 2 ahead). Tuning knob for bench sweeps, not a user setting: SEISFD_TMA_RING_CONFIG.
// Measured on an H100 (80 GB HBM3), 2026-11-22, 512^3 + sponge 20, Gcells/s at orders
// 2 / 4 / 8 / 12 / 16 (streaming ceiling 194.5; smem_regqueue in the same runs - / 170 / 179.5 /
// 168.5 / 150.7); L2 promotion none / 128 / 256 changed nothing (within 0.3%):
//   t16b3     - / 144.9 / 153.8 / - / -      (DRAM reads 2.58 GB per o8 launch, minimum 2.17)
//   t16b2     147.2 / 145.0 / 169.4 / 160.7 / -   (2.30 GB)
//   t32b1     149.4 / 148.3 / 172.7 / 169.2 / 170.0 (2.26 GB)
//   t32b2     149.9 / 148.4 / - / - / -
//   t16b3a3   150.5 / 148.7 / - / - / -
//   t16b2a3   - / 149.6 / 160.2 / - / -
//   t32b1a3   - / 153.7 / 163.2 / 150.0 / -
//   s16b3     - / 141.0 / 144.0 / - / -      (2.81 GB)
//   s16b2     - / 141.1 / 165.8 / - / 133.9   (2.36 GB)
//   s32b1     - / 144.5 / 170.3 / - / 141.7   (2.29 GB)
// Order 6 and orders 10, 14 were not measured: they take the configuration of their neighbours.
template <int R>
const char* default_config() {
  return R <= 2 ? "t32b1a3" : "t32b1";
}

template <int R, int TY, int B, bool Split, int A>
bool try_config(const std::string& name, const char* label, const StepSpec& s,
                const AcousticFields& f, cudaStream_t st) {
  if (name != label) return false;
  // Three blocks per SM cap the registers at 80: the queue of R > 5 would spill.
  if constexpr (ring_fits(R, TY, B, Split, A) && !(B >= 3 && R > 5) &&
                !(B >= 2 && TY > 16 && R > 2)) {
    run<TmaShape<R, TY, B, Split, A>>(s, f, st);
    return true;
  } else {
    throw std::invalid_argument(
        std::string("tma_ring: configuration ") + label + " does not fit order " +
        std::to_string(2 * R) + " (" + std::to_string(ring_smem(R, TY, Split, A)) +
        " B of shared memory x " + std::to_string(B) + " blocks per SM, or a spilling queue)");
  }
}

}  // namespace

template <int R>
void launch_acoustic_tma_ring(const StepSpec& s, const AcousticFields& f, void* stream) {
  for (const void* ptr : {static_cast<const void*>(f.prev), static_cast<const void*>(f.cur),
                          static_cast<const void*>(f.next), static_cast<const void*>(f.vdt2)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("tma_ring: field pointers must be 16-byte aligned (TMA)");
  static const std::string config = [] {
    const char* e = std::getenv("SEISFD_TMA_RING_CONFIG");
    return std::string(e && *e ? e : default_config<R>());
  }();
  const auto st = static_cast<cudaStream_t>(stream);
  if (try_config<R, 16, 3, false, 2>(config, "t16b3", s, f, st) ||
      try_config<R, 16, 2, false, 2>(config, "t16b2", s, f, st) ||
      try_config<R, 32, 1, false, 2>(config, "t32b1", s, f, st) ||
      try_config<R, 32, 2, false, 2>(config, "t32b2", s, f, st) ||
      try_config<R, 16, 3, false, 3>(config, "t16b3a3", s, f, st) ||
      try_config<R, 16, 2, false, 3>(config, "t16b2a3", s, f, st) ||
      try_config<R, 32, 1, false, 3>(config, "t32b1a3", s, f, st) ||
      try_config<R, 16, 3, true, 2>(config, "s16b3", s, f, st) ||
      try_config<R, 16, 2, true, 2>(config, "s16b2", s, f, st) ||
      try_config<R, 32, 1, true, 2>(config, "s32b1", s, f, st))
    return;
  throw std::invalid_argument(
      "SEISFD_TMA_RING_CONFIG: unknown configuration '" + config +
      "' (t16b3, t16b2, t32b1, t32b2, t16b3a3, t16b2a3, t32b1a3, s16b3, s16b2, s32b1)");
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

template void launch_acoustic_tma_ring<1>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<2>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<3>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<4>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<5>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<6>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<7>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_tma_ring<8>(const StepSpec&, const AcousticFields&, void*);

}  // namespace seisfd
