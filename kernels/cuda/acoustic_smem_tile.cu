#include "kernels/cuda/acoustic_smem_tile.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stencil_common.cuh"

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

}  // namespace

template <int R>
void launch_acoustic_smem_tile(const StepSpec& s, const AcousticFields& f, void* stream) {
  TileParams<R> p{};
  p.l = s.layout;
  for (int a = 0; a < 3; ++a) {
    p.begin[a] = s.begin[a];
    p.end[a] = s.end[a];
  }
  p.w = cuda::StencilWeights<R>::from(s);
  p.sponge = cuda::SpongeParams::from(s);
  const dim3 block(kTX, kTY);
  const dim3 grid((s.end[2] - s.begin[2] + kTX - 1) / kTX, (s.end[1] - s.begin[1] + kTY - 1) / kTY,
                  (s.end[0] - s.begin[0] + kTZ - 1) / kTZ);
  acoustic_smem_tile_kernel<R>
      <<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(p, f.prev, f.cur, f.next, f.vdt2);
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

template void launch_acoustic_smem_tile<1>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<2>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<3>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<4>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<5>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<6>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<7>(const StepSpec&, const AcousticFields&, void*);
template void launch_acoustic_smem_tile<8>(const StepSpec&, const AcousticFields&, void*);

}  // namespace seisfd
