// acoustic/oN/cluster_dsmem: the z-march of smem_regqueue (64x16 xy tile, z neighbours in a
// register queue, plane loads by cp.async into a 3-stage shared-memory ring two planes ahead),
// run in thread-block clusters of consecutive y tiles. Each block pushes the edge rows of its
// own tile into its cluster neighbours' rings through distributed shared memory, so a y halo
// is loaded from global memory only at cluster edges; one split cluster barrier per plane.
// Needs compute capability 9.0 (plain sm_90: barrier.cluster, mapa, st.shared::cluster).
// The kernel and the launch for any policy of kernels/cuda/tuning.hpp; the library compiles
// ClusterDsmemDefault (acoustic_cluster_dsmem.cu), bench/sweep the others.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/registry.hpp"

namespace seisfd::cuda::cluster_dsmem {

// The tile of smem_regqueue: 64 x 16 cells, a thread per 4 consecutive x cells (16-byte
// accesses), tile x origins multiples of 32 floats, x halo rounded up to 4 floats (kRP).
// Tiles are numbered y-fastest (tile = by + tiles_y * bx), and a cluster is kClusterBlocks
// consecutive tile numbers, so the blocks of a cluster are y neighbours except where the numbering
// wraps to the next column of tiles (there, as at the cluster's ends, the y halo comes from global
// memory). The last cluster may hold phantom blocks past the last tile: they load and store
// nothing and only take part in the cluster barriers.
template <int R>
struct CdShape {
  static constexpr int kTX = 64;
  static constexpr int kTY = 16;
  static constexpr int kTX4 = kTX / 4;
  static constexpr int kThreads = kTX4 * kTY;
  static constexpr int kRP = (R + 3) / 4 * 4;
  static constexpr int kSide = kRP / 4;     // float4s of x halo on each side of a row
  static constexpr int kW = kTX + 2 * kRP;  // shared row, floats
  static constexpr int kH = kTY + 2 * R;    // shared rows
  static constexpr int kRows4 = R * kTX4;   // float4s of R rows of the tile's width
  // Global halo jobs: R rows above and R below (tile width, no corners: the stencil is a star),
  // kSide float4s each side of the kTY rows. The y rows supplied by a neighbour are skipped.
  static constexpr int kHalo4 = 2 * kRows4 + kTY * 2 * kSide;
  static constexpr int kSlots = (kHalo4 + kThreads - 1) / kThreads;
  static_assert(R <= kTY / 2, "a thread pushes its row to at most one neighbour");
};

constexpr int kAhead = 2;  // planes in flight ahead of the one computed
constexpr int kStages = kAhead + 1;

template <int R>
struct CdParams {
  Layout l;
  int begin[3], end[3];
  int x_base;   // x of the first tile column: begin[2] rounded down to 32
  int tiles_y;  // tiles per column (y)
  int tiles;    // real tiles per z chunk (tiles_x * tiles_y); blockIdx.x >= tiles is a phantom
  int zchunk;   // planes per block
  cuda::StencilWeights<R> w;
  cuda::SpongeParams sponge;
};

template <int R>
struct CdSmem {
  using S = CdShape<R>;
  float halo[kStages][S::kH][S::kW];   // centre plane with its halo (neighbours push y rows)
  float own[kStages][S::kTY][S::kTX];  // cur at z + R, own cells
  float prv[kStages][S::kTY][S::kTX];
  float vel[kStages][S::kTY][S::kTX];
  unsigned long long full[kStages];  // st.async pushes: the neighbours' rows of a stage landed
};

// Cluster primitives (PTX ISA 7.8/8.0, sm_90). Every thread of the cluster executes each
// barrier, in the same order, and warp-uniformly (.aligned).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_blocks() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_release() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait_acquire() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// The shared::cluster address of this block's shared variable `p` in block `rank`.
__device__ __forceinline__ unsigned map_to_rank(const void* p, unsigned rank) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
__device__ __forceinline__ void st_cluster4(unsigned addr, float4 v) {
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(v.x),
               "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}
// Asynchronous remote store (PTX 8.1, sm_90): completes 16 bytes of transaction on the mbarrier
// `bar` of the block that holds `addr`; no fence on the storing thread.
__device__ __forceinline__ void st_async4(unsigned addr, float4 v, unsigned bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
      "[%5];\n" ::"r"(addr),
      "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(a), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n .reg .b64 state;\n"
      " mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(a),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void mbar_wait_parity(unsigned long long* bar, unsigned parity) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{\n .reg .pred done;\n"
      "WAIT_%=:\n"
      " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra WAIT_%=;\n}\n" ::"r"(a),
      "r"(parity)
      : "memory");
}

// One step of plane z (as in smem_regqueue's cp.async kernel), with this order per plane:
//   wait for the own cp.async group of plane z; cluster wait (kAsync: then the mbarrier of the
//   stage, by one warp); block barrier (everyone's cp.async data and the neighbours' rows of
//   plane z are visible, and the stage of plane z-1 is free); store the own cells of plane z+1
//   into the local stage and push the edge rows of plane z+1 into the neighbours' stages;
//   cluster arrive; issue the copies of plane z+2; compute plane z.
// The arrive sits before the compute so that the barrier's latency hides behind it. Safety of
// the pushes: a push of plane z+1 into a neighbour's stage (z+1) mod 3 happens after this
// block passed the cluster wait of step z, which needs the neighbour's arrive of step z-1; that
// arrive follows the neighbour's compute of plane z-2, the last reader of that stage. Neighbours
// are thus at most one plane apart, and a 3-stage ring suffices. Pushed rows and cp.async
// halo rows never overlap (a row set comes from global only where no neighbour pushes it).
// kAsync = false: the pushes are plain st.shared::cluster, made visible by the release of the
// cluster arrive (a fence: it waits for the thread's earlier memory operations).
// kAsync = true: the pushes are st.async, which complete their bytes on the receiving block's
// mbarrier full[stage]; the receiver waits on it (expect_tx posted by one of its threads), and
// the cluster barrier, arrived relaxed (no fence), only keeps the blocks within a plane of each
// other for the ring's reuse: a block's reads of a stage are consumed by its compute before the
// block barrier that precedes its next arrive, and a neighbour writes that stage again only
// after the wait that this arrive completes.
template <int R, bool kAsync>
__global__ void __launch_bounds__(CdShape<R>::kThreads, 2)
    acoustic_cluster_dsmem_kernel(const CdParams<R> p, const float* prev,
                                  const float* __restrict__ cur, float* next,
                                  const float* __restrict__ vdt2) {
  using S = CdShape<R>;
  using cuda::lane;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  CdSmem<R>& sm = *reinterpret_cast<CdSmem<R>*>(smem_raw);
  if (kAsync && threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) mbar_init(&sm.full[s], 1);
    fence_mbar_init();  // visible to the cluster before the first push (after the wait below)
  }
  // No block may write a neighbour's shared memory before that neighbour is running: this
  // arrive is matched by the wait before the first push.
  cluster_arrive_relaxed();

  const unsigned rank = cluster_rank();
  const unsigned nblocks = cluster_blocks();
  const int t = threadIdx.x;
  const int tx = t % S::kTX4, ty = t / S::kTX4;
  const int tile = blockIdx.x;
  const bool real = tile < p.tiles;
  const int by = tile % p.tiles_y, bx = tile / p.tiles_y;
  const bool has_up = real && rank > 0 && by > 0;  // block tile-1 is the y neighbour above
  const bool has_dn = real && rank + 1 < nblocks && by + 1 < p.tiles_y && tile + 1 < p.tiles;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  // The thread's own 4 cells: loaded when inside the array, stored when inside the region.
  const int gx = x0 + 4 * tx, gy = y0 + ty;
  const bool own_ok = real && gy < p.l.ny && gx < p.l.nx;
  const int own = own_ok ? gy * sy + gx : 0;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (real && gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  // Global halo float4s this thread loads each plane: shared offset, in-plane offset, needed.
  // Halo cells outside the array are only read by cells outside the region: skipped.
  int hsm[S::kSlots], hoff[S::kSlots];
  bool hok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    int j = t + s * S::kThreads, row = 0, col = 0;
    bool need = j < S::kHalo4;
    if (j < S::kRows4) {
      row = j / S::kTX4;
      col = S::kSide + j % S::kTX4;
      need = !has_up;
    } else if (j < 2 * S::kRows4) {
      j -= S::kRows4;
      row = R + S::kTY + j / S::kTX4;
      col = S::kSide + j % S::kTX4;
      need = !has_dn;
    } else {
      j -= 2 * S::kRows4;
      row = R + j / (2 * S::kSide);
      const int c = j % (2 * S::kSide);
      col = c < S::kSide ? c : S::kTX4 + c;
    }
    const int hy = y0 - R + row, hx = x0 - S::kRP + 4 * col;
    hok[s] = need && real && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    hsm[s] = row * S::kW + 4 * col;
    hoff[s] = hok[s] ? hy * sy + hx : 0;
  }
  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }
  const int own_sm = ty * S::kTX + 4 * tx;

  // Where this thread's own cells go in a neighbour's ring (stage 0; stages are kStageBytes
  // apart): the top R rows are the bottom halo rows of the block above, the bottom R rows the
  // top halo rows of the block below.
  constexpr unsigned kStageBytes = sizeof(float) * S::kH * S::kW;
  bool push = false;
  unsigned push_addr = 0, push_bar = 0;
  if (ty < R && has_up) {
    push = true;
    push_addr = map_to_rank(&sm.halo[0][R + S::kTY + ty][S::kRP + 4 * tx], rank - 1);
    if (kAsync) push_bar = map_to_rank(&sm.full[0], rank - 1);
  } else if (ty >= S::kTY - R && has_dn) {
    push = true;
    push_addr = map_to_rank(&sm.halo[0][ty - (S::kTY - R)][S::kRP + 4 * tx], rank + 1);
    if (kAsync) push_bar = map_to_rank(&sm.full[0], rank + 1);
  }
  // Bytes the neighbours push into each stage of this block (kAsync).
  const unsigned expect_bytes = (has_up ? R * S::kTX * 4u : 0u) + (has_dn ? R * S::kTX * 4u : 0u);

  auto issue = [&](int z, int st) {
    if (z < ze) {
      const int64_t pl = z * sz;
#pragma unroll
      for (int s = 0; s < S::kSlots; ++s)
        if (hok[s]) cuda::cp_async16(&sm.halo[st][0][0] + hsm[s], cur + pl + hoff[s]);
      if (own_ok) {
        cuda::cp_async16(&sm.own[st][0][0] + own_sm, cur + pl + R * sz + own);
        cuda::cp_async16(&sm.prv[st][0][0] + own_sm, prev + pl + own);
        cuda::cp_async16(&sm.vel[st][0][0] + own_sm, vdt2 + pl + own);
      }
    }
    cuda::cp_async_commit();
  };
  // The own cells of a plane into the local stage st, and the edge rows to the neighbour.
  auto publish = [&](const float4& v, int st) {
    *reinterpret_cast<float4*>(&sm.halo[st][ty + R][S::kRP + 4 * tx]) = v;
    if (push) {
      if (kAsync)
        st_async4(push_addr + st * kStageBytes, v, push_bar + st * 8u);
      else
        st_cluster4(push_addr + st * kStageBytes, v);
    }
  };

  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 q[2 * R + 1];
  {
    const float* c0 = cur + (zb - R) * sz + own;
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = own_ok ? cuda::ld_ro4(c0 + i * sz) : zero;
  }
#pragma unroll
  for (int d = 0; d < kAhead; ++d) issue(zb + d, d);
  cluster_wait_acquire();  // every block of the cluster is running
  publish(q[R], 0);
  if (kAsync)
    cluster_arrive_relaxed();
  else
    cluster_arrive_release();

  // kAsync = false: the result of plane z is stored in step z+1, after that step's cluster
  // arrive, whose release waits until this thread's earlier stores are performed (seen on H100
  // as the top stall, "membar", when the store of plane z came just before the arrive of step
  // z+1). kAsync = true has no fence: the result is stored as soon as it is computed.
  float4 out = zero;
  auto store = [&](int z, const float4& o) {
    float* dst = next + z * sz + own;
    if (mask == 15) {
      cuda::st_stream4(dst, o);
    } else {
#pragma unroll
      for (int l = 0; l < 4; ++l)
        if (mask & (1 << l)) dst[l] = lane(o, l);
    }
  };
  int st = 0;  // stage of plane z
  for (int z = zb; z < ze; ++z) {
    cuda::cp_async_wait<kAhead - 1>();  // this thread's copies of plane z have landed
    cluster_wait_acquire();  // kAsync = false: the neighbours' rows of plane z have landed
    if (kAsync) {
      // One warp waits (acquire); the block barrier below passes the ordering on.
      if (t < 32) {
        if (t == 0) mbar_arrive_expect_tx(&sm.full[st], expect_bytes);
        mbar_wait_parity(&sm.full[st], ((z - zb) / kStages) & 1);  // they have landed
      }
    }
    __syncthreads();  // everyone's copies have; the stage of plane z-1 is free
    const int st1 = st + 1 == kStages ? 0 : st + 1;

    q[2 * R] = *reinterpret_cast<const float4*>(&sm.own[st][0][0] + own_sm);
    const float4 pv = *reinterpret_cast<const float4*>(&sm.prv[st][0][0] + own_sm);
    const float4 vv = *reinterpret_cast<const float4*>(&sm.vel[st][0][0] + own_sm);
    if (z + 1 < ze) publish(q[R + 1], st1);
    if (kAsync)
      cluster_arrive_relaxed();
    else
      cluster_arrive_release();
    issue(z + kAhead, st1 + 1 == kStages ? 0 : st1 + 1);
    if (!kAsync && mask && z > zb) store(z - 1, out);

    float xs[4 + 2 * S::kRP];
    cuda::x_row4<S::kRP>(xs, &sm.halo[st][ty + R][0], tx, q[R]);
    float lap[4];
    cuda::laplacian4<R, S::kRP>(lap, p.w, q, xs, &sm.halo[st][ty + R][S::kRP + 4 * tx], S::kW);
    if (mask) {
      out = cuda::leapfrog4(p.sponge, z, gxy, q[R], pv, vv, lap);
      if (kAsync) store(z, out);
    }
    st = st1;
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
  }
  if (!kAsync && mask) store(ze - 1, out);
  // Matches the last arrive: no block leaves while a neighbour may still write into it.
  cluster_wait_acquire();
  cuda::cp_async_wait<0>();
}

// Resident blocks of `kernel` in whole clusters of `cluster` blocks on `device` (the current
// one), `cfg` its launch configuration: worked out once per (device, kernel, cluster) and cached
// (acoustic_cluster_dsmem.cu); the first call also raises the kernel's dynamic shared-memory
// limit there. Throws if no cluster fits.
int resident_cluster_blocks(int device, const void* kernel, int cluster, cudaLaunchConfig_t cfg);

// One update with policy P (tuning::ClusterDsmemPolicy).
template <int R, class P>
void launch(const StepSpec& s, const UpdateArgs& args, const ExecContext& ctx) {
  using S = CdShape<R>;
  const float* prev = args.prev[0];
  const float* cur = args.cur[0];
  float* next = args.next[0];
  const float* vdt2 = args.medium[kVdt2];
  for (const void* ptr : {static_cast<const void*>(prev), static_cast<const void*>(cur),
                          static_cast<const void*>(next), static_cast<const void*>(vdt2)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("cluster_dsmem: field pointers must be 16-byte aligned");
  CdParams<R> p{};
  p.l = s.layout;
  for (int a = 0; a < 3; ++a) {
    p.begin[a] = s.begin[a];
    p.end[a] = s.end[a];
  }
  const cuda::TileGrid tg = cuda::tile_grid(s, S::kTX, S::kTY);
  p.x_base = tg.x_base;
  const int tiles_x = tg.tiles_x;
  p.tiles_y = tg.tiles_y;
  p.tiles = tiles_x * p.tiles_y;
  const int nzu = s.end[0] - s.begin[0];
  // One tile per column: no y neighbours, nothing to exchange. Fewer tiles than the policy's
  // size: one cluster, no phantoms.
  const int csize = p.tiles_y == 1 ? 1 : std::min(P::kClusterBlocks, p.tiles);
  const int blocks_x = (p.tiles + csize - 1) / csize * csize;

  auto* kernel = &acoustic_cluster_dsmem_kernel<R, P::kAsyncPush>;
  const size_t smem = sizeof(CdSmem<R>);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = csize;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.blockDim = dim3(S::kThreads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = static_cast<cudaStream_t>(ctx.stream);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  // Resident blocks in whole clusters: the z-chunk plan depends on them.
  const int slots =
      resident_cluster_blocks(ctx.device, reinterpret_cast<const void*>(kernel), csize, cfg);
  p.zchunk = cuda::plan_z_chunk(blocks_x, nzu, slots, 0.25 * (2 * R + 1) + 1);
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  cfg.gridDim = dim3(blocks_x, (nzu + p.zchunk - 1) / p.zchunk, 1);
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, p, prev, cur, next, vdt2));
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda::cluster_dsmem
