#include "kernels/cuda/field_ops.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda/check.hpp"

namespace seisfd::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void inject_kernel(float* field, InjectionView v, int n) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= v.ncells) return;
  float acc = 0.0f;
  for (int64_t e = v.cell_offset[c]; e < v.cell_offset[c + 1]; ++e)
    acc += v.coef[e] * v.traces[static_cast<int64_t>(v.point[e]) * v.nt + n];
  field[v.cell[c]] += acc;
}

// One warp per point; lanes stride over the point's cells, then a shuffle reduction.
__global__ void record_kernel(const float* __restrict__ field, RecordingView v, int sample) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= v.npoints) return;
  float acc = 0.0f;
  for (int64_t k = v.offset[warp] + lane; k < v.offset[warp + 1]; k += 32)
    acc += v.weight[k] * field[v.index[k]];
#pragma unroll
  for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
  if (lane == 0) v.out[static_cast<int64_t>(warp) * v.nt + sample] = acc;
}

__global__ void free_surface_kernel(float* f, Layout l, int surface, int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= l.nx) return;
  f[l.idx(surface, y, x)] = 0.0f;
  for (int k = 1; k <= radius; ++k) f[l.idx(surface - k, y, x)] = -f[l.idx(surface + k, y, x)];
}

__global__ void diag_reset_kernel(DiagAccum* a) {
  a->sum_sq = 0.0;
  a->max_abs_bits = 0u;
  a->nonfinite = 0ull;
  a->first_nonfinite = ~0ull;
}

// Grid-stride over the updated region; block reduction in shared memory, one atomic per block.
__global__ void diagnostics_kernel(const float* __restrict__ f, Layout l, int z0, int y0, int x0,
                                   int nz, int ny, int nx, DiagAccum* acc) {
  __shared__ double s_sum[kThreads];
  __shared__ float s_max[kThreads];
  __shared__ unsigned long long s_bad[kThreads];
  __shared__ unsigned long long s_first[kThreads];
  double sum = 0.0;
  float mx = 0.0f;
  unsigned long long bad = 0, first = ~0ull;
  const int64_t total = static_cast<int64_t>(nz) * ny * nx;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(t % nx);
    const int y = static_cast<int>((t / nx) % ny);
    const int z = static_cast<int>(t / (static_cast<int64_t>(nx) * ny));
    const int64_t i = l.idx(z0 + z, y0 + y, x0 + x);
    const float v = f[i];
    if (!isfinite(v)) {
      ++bad;
      first = min(first, static_cast<unsigned long long>(i));
    } else {
      sum += static_cast<double>(v) * v;
      mx = fmaxf(mx, fabsf(v));
    }
  }
  s_sum[threadIdx.x] = sum;
  s_max[threadIdx.x] = mx;
  s_bad[threadIdx.x] = bad;
  s_first[threadIdx.x] = first;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s_sum[threadIdx.x] += s_sum[threadIdx.x + w];
      s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + w]);
      s_bad[threadIdx.x] += s_bad[threadIdx.x + w];
      s_first[threadIdx.x] = min(s_first[threadIdx.x], s_first[threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&acc->sum_sq, s_sum[0]);
    atomicMax(&acc->max_abs_bits, __float_as_uint(s_max[0]));
    if (s_bad[0] > 0) {
      atomicAdd(&acc->nonfinite, s_bad[0]);
      atomicMin(&acc->first_nonfinite, s_first[0]);
    }
  }
}

__global__ void gather_box_kernel(const float* __restrict__ f, Layout l, int lz, int ly, int lx,
                                  int nz, int ny, int nx, int dz, int dy, int dx,
                                  float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  const int z = blockIdx.z;
  if (x >= nx) return;
  out[(static_cast<int64_t>(z) * ny + y) * nx + x] =
      f[l.idx(lz + z * dz, ly + y * dy, lx + x * dx)];
}

}  // namespace

void launch_inject(float* field, const InjectionView& v, int n, cudaStream_t s) {
  if (v.ncells == 0) return;
  inject_kernel<<<(v.ncells + kThreads - 1) / kThreads, kThreads, 0, s>>>(field, v, n);
  CUDA_CHECK_LAUNCH();
}

void launch_record(const float* field, const RecordingView& v, int sample, cudaStream_t s) {
  if (v.npoints == 0) return;
  const int64_t threads = static_cast<int64_t>(v.npoints) * 32;
  record_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      field, v, sample);
  CUDA_CHECK_LAUNCH();
}

void launch_free_surface(float* field, const Layout& l, int surface, int radius, cudaStream_t s) {
  free_surface_kernel<<<dim3((l.nx + 127) / 128, l.ny), 128, 0, s>>>(field, l, surface, radius);
  CUDA_CHECK_LAUNCH();
}

void launch_diag_reset(DiagAccum* acc, cudaStream_t s) {
  diag_reset_kernel<<<1, 1, 0, s>>>(acc);
  CUDA_CHECK_LAUNCH();
}

void launch_diagnostics(const float* field, const StepSpec& sp, DiagAccum* acc, cudaStream_t s) {
  const int nz = sp.end[0] - sp.begin[0], ny = sp.end[1] - sp.begin[1],
            nx = sp.end[2] - sp.begin[2];
  const int64_t total = static_cast<int64_t>(nz) * ny * nx;
  const int blocks = static_cast<int>(std::min<int64_t>((total + kThreads - 1) / kThreads, 1024));
  diagnostics_kernel<<<blocks, kThreads, 0, s>>>(field, sp.layout, sp.begin[0], sp.begin[1],
                                                 sp.begin[2], nz, ny, nx, acc);
  CUDA_CHECK_LAUNCH();
}

void launch_gather_box(const float* field, const Layout& l, const int lo[3], const int n[3],
                       const int dec[3], float* out, cudaStream_t s) {
  const dim3 grid((n[2] + 127) / 128, n[1], n[0]);
  gather_box_kernel<<<grid, 128, 0, s>>>(field, l, lo[0], lo[1], lo[2], n[0], n[1], n[2], dec[0],
                                         dec[1], dec[2], out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda
