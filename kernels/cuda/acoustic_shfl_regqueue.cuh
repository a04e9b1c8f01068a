// acoustic/oN/shfl_regqueue: z-marching like smem_regqueue (z neighbours in a register queue,
// one new plane loaded per z step), with the x neighbours taken from a warp-shuffle register
// cache: a warp owns one 128-cell row segment (4 cells per lane, 16-byte accesses) and gets its
// x neighbours from the neighbouring lanes with __shfl_sync; the 2 x R halo cells of the row
// segment sit in the registers of the edge lanes. y neighbours come from the other warps' rows
// through a shared-memory tile without x halo columns. Plane loads (y halo rows, x halo of each
// row, own cells of cur at z+R, prev, (v dt)^2) go by 16-byte cp.async into a 3-stage ring two
// planes ahead, as in smem_regqueue.
// The kernels and the launch for any policy of kernels/cuda/tuning.hpp; the library compiles
// ShflRegqueueDefault (acoustic_shfl_regqueue.cu), bench/sweep the others.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/diag_reduce.cuh"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/imaging_fused.cuh"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/registry.hpp"

namespace seisfd::cuda::shfl_regqueue {

// Tile: 128 x kTY cells. Warp w owns row y0 + w, lane l its cells x0 + 4l .. x0 + 4l + 3; tile
// x origins are multiples of 32 floats (128-byte aligned rows). The x halo of a row is rounded
// up to kSide float4s per side; lanes 0 .. kSide-1 hold the right halo (x0 + 128 + 4l), lanes
// 32 - kSide .. 31 the left one (x0 - kRP + 4 (l - 32 + kSide)), so that one shuffle per value
// serves the interior lanes and the wrap-around lanes alike (see x_neighbours).
template <int R, int TY>
struct ShflShape {
  static constexpr int kTX = 128;
  static constexpr int kTY = TY;  // rows = warps per block
  static constexpr int kThreads = 32 * kTY;
  static constexpr int kRP = (R + 3) / 4 * 4;
  static constexpr int kSide = kRP / 4;
  static constexpr int kH = kTY + 2 * R;  // shared rows: R above, kTY own, R below
  static constexpr int kYHalo4 = 2 * R * (kTX / 4);
  static constexpr int kSlots = (kYHalo4 + kThreads - 1) / kThreads;
};

template <int R>
struct ShflParams {
  Layout l;
  int begin[3], end[3];
  int x_base;   // x of the first tile: begin[2] rounded down to 32
  int tiles_x;  // tiles per row of tiles
  int zchunk;   // planes per block
  cuda::StencilWeights<R> w;
  cuda::SpongeParams sponge;
};

constexpr int kAhead = 2;  // planes in flight ahead of the one computed
constexpr int kStages = kAhead + 1;

template <int R, int TY>
struct ShflSmem {
  using S = ShflShape<R, TY>;
  float rows[kStages][S::kH][S::kTX];  // y halo rows (loaded) and own rows (stored from queues)
  float own[kStages][S::kTY][S::kTX];  // cur at z + R
  float prv[kStages][S::kTY][S::kTX];
  float vel[kStages][S::kTY][S::kTX];
  float4 xh[kStages][S::kTY][2 * S::kSide];  // x halo of each row, read back by its own lane
};

// xs[kRP + p] = cur at x = gx + p for p in [-R, 4 + R) (other entries unused): the own float4
// m, and from the lanes s = 1 .. kSide away the elements the stencil needs. A lane sends its
// halo register h instead of m to the lanes that wrap around the warp.
template <int R, int RP>
__device__ __forceinline__ void x_neighbours(float (&xs)[4 + 2 * RP], const float4& m,
                                             const float4& h, int ln) {
#pragma unroll
  for (int l = 0; l < 4; ++l) xs[RP + l] = cuda::lane(m, l);
#pragma unroll
  for (int s = 1; s <= RP / 4; ++s) {
    const bool right_halo = ln < s;       // read by lane ln + 32 - s: past the segment's end
    const bool left_halo = ln >= 32 - s;  // read by lane ln - 32 + s: before its start
    const int from_right = (ln + s) & 31, from_left = (ln - s) & 31;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (4 * s + e <= 3 + R)  // right neighbour p = 4 s + e
        xs[RP + 4 * s + e] =
            __shfl_sync(0xffffffffu, right_halo ? cuda::lane(h, e) : cuda::lane(m, e), from_right);
      if (e - 4 * s >= -R)  // left neighbour p = e - 4 s
        xs[RP + e - 4 * s] =
            __shfl_sync(0xffffffffu, left_halo ? cuda::lane(h, e) : cuda::lane(m, e), from_left);
    }
  }
}

// kDiag: the kernel also reduces the diagnostics of cur over the region into acc (its own cells
// pass through the register queue anyway): no extra bytes, one block reduction at the end.
// kImage: the imaging epilogue of an adjoint imaging step (kernels/cuda/imaging_fused.cuh).
template <int R, int TY, int MinBlocks, bool kDiag, bool kImage = false>
__global__ void __launch_bounds__(ShflShape<R, TY>::kThreads, MinBlocks)
    acoustic_shfl_regqueue_kernel(const ShflParams<R> p, const float* prev,
                                  const float* __restrict__ cur, float* next,
                                  const float* __restrict__ vdt2, cuda::DiagAccum* acc,
                                  const FusedImaging im) {
  using S = ShflShape<R, TY>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  ShflSmem<R, TY>& sm = *reinterpret_cast<ShflSmem<R, TY>*>(smem_raw);

  const int t = threadIdx.x;
  const int ln = t & 31, ty = t >> 5;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  // Own 4 cells: loaded when inside the array (gx % 4 == 0 and sy % 32 == 0, so gx + 3 < sy),
  // stored when inside the region. Cells outside the array are only neighbours of cells
  // outside the region.
  const int gx = x0 + 4 * ln, gy = y0 + ty;
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  // The x halo float4 of this lane's row, if it holds one.
  const bool has_xh = ln < S::kSide || ln >= 32 - S::kSide;
  const int xh_slot = ln < S::kSide ? ln : S::kSide + ln - (32 - S::kSide);
  const int hx = ln < S::kSide ? x0 + S::kTX + 4 * ln : x0 - S::kRP + 4 * (ln - (32 - S::kSide));
  const bool xh_ok = has_xh && gy < p.l.ny && hx >= 0 && hx < p.l.nx;
  const int xh_off = xh_ok ? gy * sy + hx : 0;

  // y halo float4s this thread loads each plane: R rows above the tile, R below, no x halo.
  // Rows above y = 0 never occur (y0 >= begin >= R); rows past ny are skipped.
  int hsm[S::kSlots], hoff[S::kSlots];
  bool hok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    const int j = t + s * S::kThreads;
    const int r = j / (S::kTX / 4), col = j % (S::kTX / 4);
    const int row = r < R ? r : r + S::kTY;  // shared row
    const int yy = y0 - R + row, xx = x0 + 4 * col;
    hok[s] = j < S::kYHalo4 && yy < p.l.ny && xx < p.l.nx;
    hsm[s] = row * S::kTX + 4 * col;
    hoff[s] = hok[s] ? yy * sy + xx : 0;
  }

  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }
  const int own_sm = ty * S::kTX + 4 * ln;

  // Issues the copies of plane z into stage st and commits them as one group (an empty group
  // past the chunk's end, so that the group count per step stays uniform).
  auto issue = [&](int z, int st) {
    if (z < ze) {
      const int64_t pl = z * sz;
#pragma unroll
      for (int s = 0; s < S::kSlots; ++s)
        if (hok[s]) cuda::cp_async16(&sm.rows[st][0][0] + hsm[s], cur + pl + hoff[s]);
      if (xh_ok) cuda::cp_async16(&sm.xh[st][ty][xh_slot], cur + pl + xh_off);
      if (own_ok) {
        cuda::cp_async16(&sm.own[st][0][0] + own_sm, cur + pl + R * sz + own);
        cuda::cp_async16(&sm.prv[st][0][0] + own_sm, prev + pl + own);
        cuda::cp_async16(&sm.vel[st][0][0] + own_sm, vdt2 + pl + own);
      }
    }
    cuda::cp_async_commit();
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
  *reinterpret_cast<float4*>(&sm.rows[0][ty + R][4 * ln]) = q[R];

  cuda::DiagPartial diag;
  int st = 0;  // stage of plane z
  for (int z = zb; z < ze; ++z) {
    cuda::cp_async_wait<kAhead - 1>();  // this thread's copies of plane z have landed
    __syncthreads();                    // everyone's have, and stage st + kAhead is free again
    issue(z + kAhead, st + kAhead >= kStages ? st + kAhead - kStages : st + kAhead);

    q[2 * R] = *reinterpret_cast<const float4*>(&sm.own[st][0][0] + own_sm);
    const float4 pv = *reinterpret_cast<const float4*>(&sm.prv[st][0][0] + own_sm);
    const float4 vv = *reinterpret_cast<const float4*>(&sm.vel[st][0][0] + own_sm);
    const float4 h = xh_ok ? sm.xh[st][ty][xh_slot] : zero;

    float xs[4 + 2 * S::kRP];
    x_neighbours<R, S::kRP>(xs, q[R], h, ln);

    float lap[4];
    cuda::laplacian4<R, S::kRP>(lap, p.w, q, xs, &sm.rows[st][ty + R][4 * ln], S::kTX);
    if (mask) {
      const float4 o = cuda::leapfrog4(p.sponge, z, gxy, q[R], pv, vv, lap);
      cuda::store4(next + z * sz + own, o, mask);
      if constexpr (kDiag) diag.add4(q[R], mask, z * sz + own, acc);
      if constexpr (kImage) {
        float d2[4];
#pragma unroll
        for (int l = 0; l < 4; ++l) d2[l] = cuda::lane(vv, l) * lap[l];
        cuda::image4(im, z * sz + own, d2, q[R], mask);
      }
    }
    st = st + 1 == kStages ? 0 : st + 1;
    // Own cells of plane z+1 into its stage's own row (the copies target the halo rows).
    *reinterpret_cast<float4*>(&sm.rows[st][ty + R][4 * ln]) = q[R + 1];
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
  }
  cuda::cp_async_wait<0>();
  if constexpr (kDiag) cuda::block_commit<S::kThreads>(diag, acc);
}

// One update with policy P (tuning::ShflRegqueuePolicy). With args.diag set, a policy that
// fuses reduces the diagnostics of cur in the update kernel; another runs the separate
// reduction first.
template <int R, class P>
void launch(const StepSpec& s, const UpdateArgs& args, const ExecContext& ctx) {
  using S = ShflShape<R, P::kRows>;
  const float* prev = args.prev[0];
  const float* cur = args.cur[0];
  float* next = args.next[0];
  const float* vdt2 = args.medium[kVdt2];
  cuda::DiagAccum* acc = args.diag;
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  for (const void* ptr : {static_cast<const void*>(prev), static_cast<const void*>(cur),
                          static_cast<const void*>(next), static_cast<const void*>(vdt2)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("shfl_regqueue: field pointers must be 16-byte aligned");
  bool fused = false;
  const void* kernel = reinterpret_cast<const void*>(
      &acoustic_shfl_regqueue_kernel<R, P::kRows, P::kMinBlocks, false>);
  if constexpr (P::kFusesDiagnostics) {
    fused = acc != nullptr;
    if (fused)
      kernel = reinterpret_cast<const void*>(
          &acoustic_shfl_regqueue_kernel<R, P::kRows, P::kMinBlocks, true>);
  }
  if (args.imaging.on()) {
    if (acc) throw std::invalid_argument("shfl_regqueue: imaging and diagnostics in one launch");
    kernel = reinterpret_cast<const void*>(
        &acoustic_shfl_regqueue_kernel<R, P::kRows, P::kMinBlocks, false, true>);
  }
  const size_t smem = sizeof(ShflSmem<R, P::kRows>);
  if (acc && !fused) cuda::launch_diagnostics(cur, s, acc, stream);
  ShflParams<R> p{};
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
  const int slots = cuda::resident_blocks(ctx.device, kernel, S::kThreads, smem);
  // Warm-up of a chunk: 2R own-cell loads (a quarter of a step's traffic each) and a barrier.
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, 0.25 * (2 * R + 1) + 1);
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  FusedImaging im = args.imaging;
  void* kargs[] = {&p, &prev, &cur, &next, &vdt2, &acc, &im};
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(S::kThreads), kargs, smem, stream));
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda::shfl_regqueue
