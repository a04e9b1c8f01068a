// acoustic/oN/tma_ring: the z-march of smem_regqueue with its plane loads done by the Tensor
// Memory Accelerator. Per z step one thread issues three `cp.async.bulk.tensor` copies: the
// whole xy tile (64 x 32 cells) of cur at z+R with its halo (corners included), and the tile's
// own cells of prev and (v dt)^2 at z. They land in a shared-memory ring, complete on an
// mbarrier (expect-tx) and are issued two planes (orders 2-4: three) ahead of the compute. The cur
// box of a plane stays in the ring for R+1 steps: its centre feeds the register queue (z
// neighbours) when it lands, its halo serves the xy stencil R steps later, so each cur cell is read
// from L2 once per block. The tensor maps are encoded on the host (cuTensorMapEncodeTiled through
// cudaGetDriverEntryPointByVersion: no libcuda link; acoustic_tma_ring.cu) and cached. Needs
// compute capability 9.0.
// The kernel and the launch for any policy of kernels/cuda/tuning.hpp; the library compiles
// TmaRingDefault (acoustic_tma_ring.cu), bench/sweep the others.
#pragma once
#include <cuda.h>  // CUtensorMap (types only: libcuda is not linked)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/registry.hpp"

namespace seisfd::cuda::tma_ring {

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

// The tensor map of a 3D array of `l` at `ptr` with boxes of box_w x box_h x 1 floats, L2
// promotion `l2_promotion` bytes (0: none). Encoded once and cached (acoustic_tma_ring.cu).
CUtensorMap tensor_map(int device, const float* ptr, const Layout& l, int box_w, int box_h,
                       int l2_promotion);

template <class S>
constexpr bool shape_compiles() {
  // Three blocks per SM cap the registers at 80: the queue of R > 5 would spill.
  return ring_fits(S::kR, S::kTY, S::kMinBlocks, S::kSplit, S::kAhead) &&
         !(S::kMinBlocks >= 3 && S::kR > 5) && !(S::kMinBlocks >= 2 && S::kTY > 16 && S::kR > 2);
}

// The kernel shape of policy P (tuning::TmaRingPolicy) at radius R.
template <int R, class P>
using ShapeOf = TmaShape<R, P::kTileRows, P::kMinBlocks, P::kSplit, P::kAhead>;

// Whether policy P fits radius R: its ring in shared memory, its registers without spills.
template <int R, class P>
inline constexpr bool kFits = shape_compiles<ShapeOf<R, P>>();

template <int R, class P>
void launch(const StepSpec& s, const UpdateArgs& args, const ExecContext& ctx) {
  using S = ShapeOf<R, P>;
  static_assert(kFits<R, P>, "tma_ring: policy does not fit this order");
  const float* prev = args.prev[0];
  const float* cur = args.cur[0];
  float* next = args.next[0];
  const float* vdt2 = args.medium[kVdt2];
  for (const void* ptr : {static_cast<const void*>(prev), static_cast<const void*>(cur),
                          static_cast<const void*>(next), static_cast<const void*>(vdt2)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("tma_ring: field pointers must be 16-byte aligned (TMA)");
  TmaParams<R> p{};
  p.l = s.layout;
  for (int a = 0; a < 3; ++a) {
    p.begin[a] = s.begin[a];
    p.end[a] = s.end[a];
  }
  const cuda::TileGrid tg = cuda::tile_grid(s, S::kTX, S::kTY);
  p.x_base = tg.x_base;
  p.tiles_x = tg.tiles_x;
  const int tiles_y = tg.tiles_y;
  const int nzu = s.end[0] - s.begin[0];
  const int slots =
      cuda::resident_blocks(ctx.device, reinterpret_cast<const void*>(&acoustic_tma_ring_kernel<S>),
                            S::kThreads, S::kSmem);
  // Warm-up of a chunk: R cur boxes (~1.7 plane-loads of a step each at R = 4) and R queue loads.
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, 0.6 * R + 1);
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  const int dev = ctx.device, promo = P::kL2Promotion;
  const CUtensorMap mc = tensor_map(dev, cur, s.layout, S::kW, S::kH, promo);
  const CUtensorMap mp = tensor_map(dev, prev, s.layout, S::kTX, S::kTY, promo);
  const CUtensorMap mv = tensor_map(dev, vdt2, s.layout, S::kTX, S::kTY, promo);
  // Split: the own tile of cur at z+R (64 x TY box); unused by the deep ring.
  const CUtensorMap mo = S::kSplit ? tensor_map(dev, cur, s.layout, S::kTX, S::kTY, promo) : mp;
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  acoustic_tma_ring_kernel<S>
      <<<grid, S::kThreads, S::kSmem, static_cast<cudaStream_t>(ctx.stream)>>>(p, mc, mp, mv, mo,
                                                                               cur, next);
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda::tma_ring
