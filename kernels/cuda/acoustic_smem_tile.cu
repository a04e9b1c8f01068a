// acoustic/oN/smem_tile: a 32 x 8 xy tile with its halo in shared memory per plane (x and y
// neighbours from shared memory), z neighbours read from global memory through L1/L2; each
// block walks a few planes. Scalar accesses, so any x alignment and row padding works.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/stencil_common.cuh"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

constexpr int kTX = 32, kTY = 8, kTZ = 8;  // tile 32 x 8 cells, 8 planes per block

template <int R>
struct TileParams {
  Layout l;
  int begin[3], end[3];
  cuda::StencilWeights<R> w;
  cuda::SpongeParams sponge;
};

template <int R>
__global__ void __launch_bounds__(kTX* kTY)
    acoustic_smem_tile_kernel(const TileParams<R> p, const float* prev,
                              const float* __restrict__ cur, float* next,
                              const float* __restrict__ vdt2) {
  // Rows of kTX + 2R floats; a warp reads one row at consecutive addresses, and the halo fill
  // below walks the tile row-major with consecutive threads on consecutive words, so neither
  // conflicts on banks without padding.
  constexpr int kW = kTX + 2 * R, kH = kTY + 2 * R;
  __shared__ float tile[kH][kW];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kTX + tx;
  const int x0 = p.begin[2] + blockIdx.x * kTX, y0 = p.begin[1] + blockIdx.y * kTY;
  const int z0 = p.begin[0] + blockIdx.z * kTZ;
  const int x = x0 + tx, y = y0 + ty;
  const bool in = x < p.end[2] && y < p.end[1];
  const int64_t sz = p.l.sz, sy = p.l.sy;
  float gxy = 0;
  if (p.sponge.on) gxy = cuda::sponge_axis(p.sponge, 1, y) + cuda::sponge_axis(p.sponge, 2, x);
  for (int z = z0; z < min(z0 + kTZ, p.end[0]); ++z) {
    const float* pl = cur + z * sz;
    for (int j = t; j < kH * kW; j += kTX * kTY) {
      const int r = j / kW, c = j % kW;
      const int gy = y0 - R + r, gx = x0 - R + c;
      // Cells past the array are only read by cells outside the region.
      if (gy < p.l.ny && gx < p.l.nx) tile[r][c] = __ldg(pl + gy * sy + gx);
    }
    __syncthreads();
    if (in) {
      const int64_t i = z * sz + y * sy + x;
      const float c = tile[ty + R][tx + R];
      float lap = p.w.c0 * c;
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        lap += p.w.cz[k] * (__ldg(cur + i + k * sz) + __ldg(cur + i - k * sz));
        lap += p.w.cy[k] * (tile[ty + R + k][tx + R] + tile[ty + R - k][tx + R]);
        lap += p.w.cx[k] * (tile[ty + R][tx + R + k] + tile[ty + R][tx + R - k]);
      }
      const float g = p.sponge.on ? gxy + cuda::sponge_axis(p.sponge, 0, z) : 0.0f;
      next[i] = cuda::leapfrog(p.sponge.on, g, c, __ldcs(prev + i), __ldg(vdt2 + i), lap);
    }
    __syncthreads();
  }
}

template <int R>
void launch_acoustic_smem_tile(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  TileParams<R> p{};
  p.l = s.layout;
  for (int ax = 0; ax < 3; ++ax) {
    p.begin[ax] = s.begin[ax];
    p.end[ax] = s.end[ax];
  }
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  const dim3 block(kTX, kTY);
  const dim3 grid((s.end[2] - s.begin[2] + kTX - 1) / kTX, (s.end[1] - s.begin[1] + kTY - 1) / kTY,
                  (s.end[0] - s.begin[0] + kTZ - 1) / kTZ);
  acoustic_smem_tile_kernel<R><<<grid, block, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      p, a.prev[0], a.cur[0], a.next[0], a.medium[kVdt2]);
  CUDA_CHECK_LAUNCH();
}

std::string can_implement_acoustic_smem_tile(const StepSpec& s, int) {
  std::string why = cuda::check_region(s);
  if (why.empty() && (s.end[1] - s.begin[1] + kTY - 1) / kTY > 65535)
    return "more than 65535 y tiles";
  if (why.empty() && (s.end[0] - s.begin[0] + kTZ - 1) / kTZ > 65535)
    return "more than 65535 z blocks";
  return why;
}

}  // namespace

void register_acoustic_smem_tile(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(Physics::kAcoustic, R, "smem_tile",
                                          "32x8 xy tile with halo in shared memory per plane, z "
                                          "neighbours from global memory, scalar accesses");
    v.min_compute_capability = 70;
    v.can_implement = &can_implement_acoustic_smem_tile;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_smem_tile<R>;
    v.preference = cuda::tuning::kPreferenceSmemTile;
    t.push_back(v);
  });
}

}  // namespace seisfd
