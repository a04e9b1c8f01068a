// acoustic/oN/smem_regqueue: z-marching (Micikevicius 2009). A block owns an xy tile and walks a
// chunk of z planes; the centre plane with its xy halo sits in shared memory, the 2R+1 z values
// of the thread's own cells sit in a register queue, and one new plane is loaded per z step.
// The loads (halo, own cells of cur at z+R, prev, (v dt)^2) go by 16-byte cp.async into a
// 3-stage shared-memory ring two planes ahead (async policies), or through registers
// (staged policies, kept for comparison). The kernels and the launch for any policy of
// kernels/cuda/tuning.hpp; the library compiles SmemRegqueueDefault (acoustic_smem_regqueue.cu),
// bench/sweep the others.
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

namespace seisfd::cuda::smem_regqueue {

// Tile: 64 x 16 cells, a thread per 4 consecutive x cells (16-byte accesses); tile x origins
// are multiples of 32 floats so every row segment is 128-byte aligned. The x halo is rounded up
// to 4 floats (kRP) so that shared-memory rows stay 16-byte aligned.
template <int R>
struct RqShape {
  static constexpr int kTX = 64;
  static constexpr int kTY = 16;
  static constexpr int kTX4 = kTX / 4;
  static constexpr int kThreads = kTX4 * kTY;
  static constexpr int kRP = (R + 3) / 4 * 4;
  static constexpr int kW = kTX + 2 * kRP;  // shared row, floats
  static constexpr int kW4 = kW / 4;
  static constexpr int kH = kTY + 2 * R;  // shared rows
  // float4s of the halo ring: R rows above, R below, kRP columns each side of the kTY rows.
  static constexpr int kHalo4 = 2 * R * kW4 + kTY * 2 * (kRP / 4);
  static constexpr int kSlots = (kHalo4 + kThreads - 1) / kThreads;
};

template <int R>
struct RqParams {
  Layout l;
  int begin[3], end[3];
  int x_base;   // x of the first tile: begin[2] rounded down to 32
  int tiles_x;  // tiles per row of tiles
  int zchunk;   // planes per block
  cuda::StencilWeights<R> w;
  cuda::SpongeParams sponge;
};

// Ahead = 0: a step's own-cell, prev and (v dt)^2 loads are issued at its top and used at its
// end (fewest registers). Ahead = 1: they are issued one step earlier (twice the bytes in
// flight per thread, ~25 more registers at R = 4).
template <int R, int MinBlocks, int Ahead>
__global__ void __launch_bounds__(RqShape<R>::kThreads, MinBlocks)
    acoustic_smem_regqueue_kernel(const RqParams<R> p, const float* prev,
                                  const float* __restrict__ cur, float* next,
                                  const float* __restrict__ vdt2) {
  using S = RqShape<R>;
  __shared__ __align__(16) float tile[2][S::kH][S::kW];

  const int t = threadIdx.x;
  const int tx = t % S::kTX4, ty = t / S::kTX4;
  const int bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const int x0 = p.x_base + bx * S::kTX;
  const int y0 = p.begin[1] + by * S::kTY;
  const int zb = p.begin[0] + blockIdx.y * p.zchunk;
  const int ze = min(zb + p.zchunk, p.end[0]);
  const int64_t sz = p.l.sz;
  const int sy = static_cast<int>(p.l.sy);

  // The thread's own 4 cells: loaded when inside the array, stored when inside the region.
  const int gx = x0 + 4 * tx, gy = y0 + ty;
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;  // gx % 4 == 0 and sy % 32 == 0: gx + 3 < sy
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  // Halo float4s this thread loads each plane: shared offset, in-plane offset, in bounds.
  // Rows above y = 0 never occur (y0 >= begin >= R); columns outside [0, nx) and rows past ny
  // are only read by cells outside the region, so they are skipped.
  int hsm[S::kSlots], hoff[S::kSlots];
  bool hok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    int j = t + s * S::kThreads, row = 0, col = 0;
    hok[s] = j < S::kHalo4;
    if (j < R * S::kW4) {
      row = j / S::kW4;
      col = j % S::kW4;
    } else if (j < 2 * R * S::kW4) {
      j -= R * S::kW4;
      row = R + S::kTY + j / S::kW4;
      col = j % S::kW4;
    } else {
      j -= 2 * R * S::kW4;
      constexpr int side = S::kRP / 4;
      row = R + j / (2 * side);
      const int c = j % (2 * side);
      col = c < side ? c : S::kTX4 + c;
    }
    const int hy = y0 - R + row, hx = x0 - S::kRP + 4 * col;
    hok[s] = hok[s] && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
    hsm[s] = row * S::kW + 4 * col;
    hoff[s] = hok[s] ? hy * sy + hx : 0;
  }

  float gxy[4] = {0, 0, 0, 0};
  if (p.sponge.on) {
    const float g_y = cuda::sponge_axis(p.sponge, 1, gy);
#pragma unroll
    for (int l = 0; l < 4; ++l) gxy[l] = g_y + cuda::sponge_axis(p.sponge, 2, gx + l);
  }

  // Ahead = 0: the queue holds own cells of planes z-R .. z+R-1 at the top of step z; plane z+R
  // is loaded in step z and used last; prev and (v dt)^2 of plane z are loaded at the top of
  // step z and used at its end, their latency covered by the Laplacian and by the other warps.
  // Ahead = 1: the queue is full (z-R .. z+R) at the top of step z, as are pv and vv.
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 q[2 * R + 1];
  float4 pv = zero, vv = zero;
  {
    const float* c0 = cur + (zb - R) * sz + own;
#pragma unroll
    for (int i = 0; i < 2 * R + Ahead; ++i) q[i] = own_ok ? cuda::ld_ro4(c0 + i * sz) : zero;
    if (Ahead && own_ok) {
      pv = cuda::ld_stream4(prev + zb * sz + own);
      vv = cuda::ld_ro4(vdt2 + zb * sz + own);
    }
    const float* pl = cur + zb * sz;
#pragma unroll
    for (int s = 0; s < S::kSlots; ++s)
      if (hok[s]) *reinterpret_cast<float4*>(&tile[0][0][0] + hsm[s]) = cuda::ld_ro4(pl + hoff[s]);
    *reinterpret_cast<float4*>(&tile[0][ty + R][S::kRP + 4 * tx]) = q[R];
  }
  __syncthreads();

  int buf = 0;
  for (int z = zb; z < ze; ++z) {
    // All of this step's global loads first, so that they are in flight together.
    const bool more = z + 1 < ze;
    const int64_t plane = z * sz;
    float4 hn[S::kSlots];
    float4 nq = zero, np = zero, nv = zero;
    if (Ahead) {
      if (more && own_ok) {
        nq = cuda::ld_ro4(cur + plane + (R + 1) * sz + own);
        np = cuda::ld_stream4(prev + plane + sz + own);
        nv = cuda::ld_ro4(vdt2 + plane + sz + own);
      }
    } else if (own_ok) {
      q[2 * R] = cuda::ld_ro4(cur + plane + R * sz + own);
      pv = cuda::ld_stream4(prev + plane + own);
      vv = cuda::ld_ro4(vdt2 + plane + own);
    }
#pragma unroll
    for (int s = 0; s < S::kSlots; ++s)
      hn[s] = more && hok[s] ? cuda::ld_ro4(cur + plane + sz + hoff[s]) : zero;

    // x neighbours: kRP floats each side of the own 4, from the shared row.
    float xs[4 + 2 * S::kRP];
    cuda::x_row4<S::kRP>(xs, &tile[buf][ty + R][0], tx, q[R]);

    float lap[4];
    cuda::laplacian4<R, S::kRP>(lap, p.w, q, xs, &tile[buf][ty + R][S::kRP + 4 * tx], S::kW);

    if (mask) {
      const float4 o = cuda::leapfrog4(p.sponge, z, gxy, q[R], pv, vv, lap);
      cuda::store4(next + plane + own, o, mask);
    }

    if (more) {
      float* nt = &tile[buf ^ 1][0][0];
      *reinterpret_cast<float4*>(nt + (ty + R) * S::kW + S::kRP + 4 * tx) = q[R + 1];
#pragma unroll
      for (int s = 0; s < S::kSlots; ++s)
        if (hok[s]) *reinterpret_cast<float4*>(nt + hsm[s]) = hn[s];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
    if (Ahead) {
      q[2 * R] = nq;
      pv = np;
      vv = nv;
    }
    buf ^= 1;
  }
}

// The same z-march with the plane loads as cp.async (16-byte LDGSTS) into a ring of kStages
// shared-memory stages, kAhead planes ahead: the bytes in flight no longer need registers, so
// more of them are in flight per SM with fewer registers per thread. Per stage: the centre
// plane's halo ring (its own cells are stored from the queue), and the own cells of cur at
// z+R, of prev and of (v dt)^2, which each thread reads back itself (no barrier needed).
constexpr int kAhead = 2;
constexpr int kStages = kAhead + 1;

template <int R>
struct AsyncSmem {
  using S = RqShape<R>;
  float halo[kStages][S::kH][S::kW];
  float own[kStages][S::kTY][S::kTX];  // cur at z + R
  float prv[kStages][S::kTY][S::kTX];
  float vel[kStages][S::kTY][S::kTX];
};

// An imaging step's reads (kImage), staged: after AsyncSmem, each stage holds an array of the
// tile's cells for u (fp32, or fp16 in the first half of each thread's 16 bytes) and one for
// the old values of each image the step accumulates (cc, il, zl, those present), copied with
// the plane so that the epilogue's reads are not issued after the stencil with their latency
// exposed. ImageStage: in floats, a stage's size and each image's offset in it (u at 0), kernel
// parameters so that they cost no registers; stage 0: not staged.
struct ImageStage {
  int stage = 0;
  int cc = 0, il = 0, zl = 0;
};
template <int R>
ImageStage image_stage(const FusedImaging& im) {
  constexpr int slot = RqShape<R>::kTY * RqShape<R>::kTX;
  ImageStage g;
  int n = 1;
  if (im.cc) g.cc = slot * n++;
  if (im.il) g.il = slot * n++;
  if (im.zl) g.zl = slot * n++;
  g.stage = slot * n;
  return g;
}

// kDiag: the kernel also reduces the diagnostics of cur (the field it reads; its own cells are
// in the register queue anyway) over the region into acc: no extra bytes, a few flops per cell
// and one block reduction at the end. kImage: an imaging step (kernels/cuda/imaging_fused.cuh),
// its reads staged in shared memory with the plane where ist.stage > 0 (image_stage), read at
// the epilogue where it is 0.
template <int R, int MinBlocks, bool kDiag, bool kImage = false>
__global__ void __launch_bounds__(RqShape<R>::kThreads, MinBlocks)
    acoustic_smem_regqueue_async_kernel(const RqParams<R> p, const float* prev,
                                        const float* __restrict__ cur, float* next,
                                        const float* __restrict__ vdt2, cuda::DiagAccum* acc,
                                        const FusedImaging im, const ImageStage ist) {
  using S = RqShape<R>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  AsyncSmem<R>& sm = *reinterpret_cast<AsyncSmem<R>*>(smem_raw);
  // The staged imaging reads: u first, then cc, il, zl where present (ImageStage).
  float* const img = reinterpret_cast<float*>(smem_raw + sizeof(AsyncSmem<R>));

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
  const bool own_ok = gy < p.l.ny && gx < p.l.nx;
  const int own = gy * sy + gx;
  int mask = 0;
#pragma unroll
  for (int l = 0; l < 4; ++l)
    if (gy < p.end[1] && gx + l >= p.begin[2] && gx + l < p.end[2]) mask |= 1 << l;

  int hsm[S::kSlots], hoff[S::kSlots];
  bool hok[S::kSlots];
#pragma unroll
  for (int s = 0; s < S::kSlots; ++s) {
    int j = t + s * S::kThreads, row = 0, col = 0;
    hok[s] = j < S::kHalo4;
    if (j < R * S::kW4) {
      row = j / S::kW4;
      col = j % S::kW4;
    } else if (j < 2 * R * S::kW4) {
      j -= R * S::kW4;
      row = R + S::kTY + j / S::kW4;
      col = j % S::kW4;
    } else {
      j -= 2 * R * S::kW4;
      constexpr int side = S::kRP / 4;
      row = R + j / (2 * side);
      const int c = j % (2 * side);
      col = c < side ? c : S::kTX4 + c;
    }
    const int hy = y0 - R + row, hx = x0 - S::kRP + 4 * col;
    hok[s] = hok[s] && hy < p.l.ny && hx >= 0 && hx < p.l.nx;
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

  // Issues the copies of plane z into stage st and commits them as one group (an empty group
  // past the chunk's end, so that the group count per step stays uniform).
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
        if (kImage && ist.stage > 0) {
          float* const b = img + st * ist.stage + own_sm;
          if (im.u_half)
            cuda::cp_async8(b, static_cast<const __half*>(im.u[0]) + pl + own);
          else
            cuda::cp_async16(b, static_cast<const float*>(im.u[0]) + pl + own);
          if (im.cc) cuda::cp_async16(b + ist.cc, im.cc + pl + own);
          if (im.il) cuda::cp_async16(b + ist.il, im.il + pl + own);
          if (im.zl) cuda::cp_async16(b + ist.zl, im.zl + pl + own);
        }
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
  *reinterpret_cast<float4*>(&sm.halo[0][ty + R][S::kRP + 4 * tx]) = q[R];

  cuda::DiagPartial diag;
  int st = 0;  // stage of plane z
  for (int z = zb; z < ze; ++z) {
    cuda::cp_async_wait<kAhead - 1>();  // this thread's copies of plane z have landed
    __syncthreads();                    // everyone's have, and stage st + kAhead is free again
    issue(z + kAhead, st + kAhead >= kStages ? st + kAhead - kStages : st + kAhead);

    q[2 * R] = *reinterpret_cast<const float4*>(&sm.own[st][0][0] + own_sm);
    const float4 pv = *reinterpret_cast<const float4*>(&sm.prv[st][0][0] + own_sm);
    const float4 vv = *reinterpret_cast<const float4*>(&sm.vel[st][0][0] + own_sm);

    float xs[4 + 2 * S::kRP];
    cuda::x_row4<S::kRP>(xs, &sm.halo[st][ty + R][0], tx, q[R]);
    float lap[4];
    cuda::laplacian4<R, S::kRP>(lap, p.w, q, xs, &sm.halo[st][ty + R][S::kRP + 4 * tx], S::kW);
    if (mask) {
      const float4 o = cuda::leapfrog4(p.sponge, z, gxy, q[R], pv, vv, lap);
      cuda::store4(next + z * sz + own, o, mask);
      if constexpr (kDiag) diag.add4(q[R], mask, z * sz + own, acc);
      if constexpr (kImage) {
        float d2[4];
#pragma unroll
        for (int l = 0; l < 4; ++l) d2[l] = cuda::lane(vv, l) * lap[l];
        if (ist.stage > 0) {
          const float* const b = img + st * ist.stage + own_sm;
          const auto read = [&](int what) {
            if (what == cuda::kU0)
              return im.u_half ? cuda::half4_to_float4(*reinterpret_cast<const uint2*>(b))
                               : *reinterpret_cast<const float4*>(b);
            const int o = what == cuda::kCc ? ist.cc : what == cuda::kIl ? ist.il : ist.zl;
            return *reinterpret_cast<const float4*>(b + o);
          };
          cuda::image4_with(im, z * sz + own, d2, q[R], mask, read);
        } else {
          cuda::image4(im, z * sz + own, d2, q[R], mask);
        }
      }
    }
    st = st + 1 == kStages ? 0 : st + 1;
    // Own cells of plane z+1 into its stage (its halo copies target other addresses).
    *reinterpret_cast<float4*>(&sm.halo[st][ty + R][S::kRP + 4 * tx]) = q[R + 1];
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
  }
  cuda::cp_async_wait<0>();
  if constexpr (kDiag) cuda::block_commit<S::kThreads>(diag, acc);
}

// One update with policy P (tuning::SmemRegqueueStaged or SmemRegqueueAsync). With args.diag
// set, a policy that fuses reduces the diagnostics of cur in the update kernel; another runs the
// separate reduction first.
template <int R, class P>
void launch(const StepSpec& s, const UpdateArgs& args, const ExecContext& ctx) {
  static_assert(R <= P::kMaxRadius, "policy not compiled for this radius");
  using S = RqShape<R>;
  const float* prev = args.prev[0];
  const float* cur = args.cur[0];
  float* next = args.next[0];
  const float* vdt2 = args.medium[kVdt2];
  cuda::DiagAccum* acc = args.diag;
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  for (const void* ptr : {static_cast<const void*>(prev), static_cast<const void*>(cur),
                          static_cast<const void*>(next), static_cast<const void*>(vdt2)})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("smem_regqueue: field pointers must be 16-byte aligned");
  RqParams<R> p{};
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
  bool fused = false;
  const void* kernel = nullptr;
  size_t smem = 0;
  ImageStage ist;  // not staged
  if constexpr (P::kAsync) {
    smem = sizeof(AsyncSmem<R>);
    kernel = reinterpret_cast<const void*>(
        &acoustic_smem_regqueue_async_kernel<R, P::kMinBlocks, false>);
    if constexpr (P::kFusesDiagnostics) {
      fused = acc != nullptr;
      if (fused)
        kernel = reinterpret_cast<const void*>(
            &acoustic_smem_regqueue_async_kernel<R, P::kMinBlocks, true>);
    }
    if (args.imaging.on()) {
      if (acc) throw std::invalid_argument("smem_regqueue: imaging and diagnostics in one launch");
      kernel = reinterpret_cast<const void*>(
          &acoustic_smem_regqueue_async_kernel<R, P::kMinBlocks, false, true>);
      // Staged where the larger shared memory keeps as many blocks resident (at R = 4 with all
      // three images, 107 KB a block, two a multiprocessor on sm_90).
      const ImageStage g = image_stage<R>(args.imaging);
      const size_t staged = smem + sizeof(float) * kStages * g.stage;
      if (cuda::resident_blocks(ctx.device, kernel, S::kThreads, staged) >=
          cuda::resident_blocks(ctx.device, kernel, S::kThreads, smem)) {
        smem = staged;
        ist = g;
      }
    }
  } else {
    if (args.imaging.on())
      throw std::invalid_argument("smem_regqueue: the staged policy fuses no imaging");
    kernel =
        reinterpret_cast<const void*>(&acoustic_smem_regqueue_kernel<R, P::kMinBlocks, P::kAhead>);
  }
  if (acc && !fused) cuda::launch_diagnostics(cur, s, acc, stream);
  // Warm-up of a chunk: 2R+1 own-cell loads (a quarter of a step's traffic each) and a barrier.
  const int slots = cuda::resident_blocks(ctx.device, kernel, S::kThreads, smem);
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, 0.25 * (2 * R + 1) + 1);
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  FusedImaging im = args.imaging;
  void* args_async[] = {&p, &prev, &cur, &next, &vdt2, &acc, &im, &ist};
  void* args_staged[] = {&p, &prev, &cur, &next, &vdt2};
  void** kargs = P::kAsync ? args_async : args_staged;
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(S::kThreads), kargs, smem, stream));
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda::smem_regqueue
