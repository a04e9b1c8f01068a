#include "kernels/cuda/field_ops.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/diag_reduce.cuh"

namespace seisfd::cuda {
namespace {

constexpr int kThreads = 256;

// The step number comes from the device counter, so a captured graph replays any chunk.
__global__ void inject_kernel(float* field, float* field2, InjectionView v, const int* step,
                              int offset) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = *step + offset;
  if (c >= v.ncells || n >= v.nt) return;
  float acc = 0.0f;
  for (int64_t e = v.cell_offset[c]; e < v.cell_offset[c + 1]; ++e)
    acc += v.coef[e] * v.traces[static_cast<int64_t>(v.point[e]) * v.nt + n];
  field[v.cell[c]] += acc;
  if (field2) field2[v.cell[c]] += acc;
}

// One warp per point; lanes stride over the point's cells, then a shuffle reduction.
__global__ void record_kernel(const float* __restrict__ field, const float* __restrict__ field2,
                              RecordingView v, const int* step, int offset) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const int sample = *step + offset;
  if (warp >= v.npoints || sample >= v.nt) return;
  float acc = 0.0f;
  for (int64_t k = v.offset[warp] + lane; k < v.offset[warp + 1]; k += 32) {
    const int64_t i = v.index[k];
    acc += v.weight[k] * (field2 ? field[i] + field2[i] : field[i]);
  }
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

__global__ void set_step_kernel(int* step, int value) {
  *step = value;
}

__global__ void advance_step_kernel(int* step, int by) {
  *step += by;
}

__device__ void zero_totals(DiagAccum* a) {
  a->sum_sq = 0.0;
  a->max_abs_bits = 0u;
  a->nonfinite = 0ull;
  a->first_nonfinite = ~0ull;
}

__global__ void diag_reset_kernel(DiagAccum* a, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) zero_totals(a + i);
}

__global__ void diag_publish_kernel(DiagRing* ring, DiagAccum* acc, int count, int* step, int by) {
  for (int i = 0; i < count; ++i) {
    const unsigned k = ring->published + 1u;
    DiagAccum* o = ring->slots + (k - 1u) % ring->size;
    *o = acc[i];
    o->published = k;
    ring->published = k;
    zero_totals(acc + i);
  }
  if (step) *step += by;
}

// Blocks stride over the x rows of the updated region and threads along each row (no 64-bit
// division per cell); block reduction with one atomic per block and quantity (diag_reduce.cuh).
__global__ void diagnostics_kernel(const float* __restrict__ f, Layout l, int z0, int y0, int x0,
                                   int nz, int ny, int nx, DiagAccum* acc) {
  DiagPartial part;
  const int rows = nz * ny;
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t row = l.idx(z0 + r / ny, y0 + r % ny, x0);
    for (int x = threadIdx.x; x < nx; x += blockDim.x) part.add(f[row + x], row + x);
  }
  block_commit<kThreads>(part, acc);
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

// Boxes by value: box b covers elements [start[b], start[b + 1]) of the concatenation.
struct BoxList {
  int count;
  int64_t start[kMaxBoxes + 1];
  int lo[kMaxBoxes][3];
  int ny[kMaxBoxes], nx[kMaxBoxes];
};

// kGather: out[k] = field[cell of element k]; else field[cell of element k] = in[k].
template <bool kGather>
__global__ void boxes_kernel(float* field, Layout l, BoxList b, float* buf) {
  const int64_t total = b.start[b.count];
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int j = 0;
    while (k >= b.start[j + 1]) ++j;
    const int64_t r = k - b.start[j];
    const int x = static_cast<int>(r % b.nx[j]);
    const int64_t zy = r / b.nx[j];
    const int y = static_cast<int>(zy % b.ny[j]), z = static_cast<int>(zy / b.ny[j]);
    const int64_t i = l.idx(b.lo[j][0] + z, b.lo[j][1] + y, b.lo[j][2] + x);
    if constexpr (kGather)
      buf[k] = field[i];
    else
      field[i] = buf[k];
  }
}

BoxList box_list(const std::vector<Box>& boxes) {
  if (boxes.size() > static_cast<size_t>(kMaxBoxes))
    throw std::invalid_argument("boxes: " + std::to_string(boxes.size()) + " boxes, at most " +
                                std::to_string(kMaxBoxes) + " in one launch");
  BoxList b{};
  b.count = static_cast<int>(boxes.size());
  for (int j = 0; j < b.count; ++j) {
    const Box& x = boxes[j];
    b.start[j + 1] = b.start[j] + x.cells();
    for (int a = 0; a < 3; ++a) b.lo[j][a] = x.lo[a];
    b.ny[j] = std::max(1, x.hi[1] - x.lo[1]);
    b.nx[j] = std::max(1, x.hi[2] - x.lo[2]);
  }
  return b;
}

template <bool kGather>
void launch_boxes(float* field, const Layout& l, const std::vector<Box>& boxes, float* buf,
                  cudaStream_t s) {
  const BoxList b = box_list(boxes);
  const int64_t total = b.start[b.count];
  if (total == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 132 * 16));
  boxes_kernel<kGather><<<blocks, 256, 0, s>>>(field, l, b, buf);
  CUDA_CHECK_LAUNCH();
}

__global__ void fill_hash_kernel(float* p, int64_t n, uint32_t seed, float offset, float scale) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ static_cast<uint32_t>(i >> 32) ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    p[i] = offset + scale * (static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}

}  // namespace

void launch_inject(float* field, float* field2, const InjectionView& v, const int* step, int offset,
                   cudaStream_t s) {
  if (v.ncells == 0) return;
  inject_kernel<<<(v.ncells + kThreads - 1) / kThreads, kThreads, 0, s>>>(field, field2, v, step,
                                                                          offset);
  CUDA_CHECK_LAUNCH();
}

void launch_record(const float* field, const float* field2, const RecordingView& v, const int* step,
                   int offset, cudaStream_t s) {
  if (v.npoints == 0) return;
  const int64_t threads = static_cast<int64_t>(v.npoints) * 32;
  record_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      field, field2, v, step, offset);
  CUDA_CHECK_LAUNCH();
}

void launch_set_step(int* step, int value, cudaStream_t s) {
  set_step_kernel<<<1, 1, 0, s>>>(step, value);
  CUDA_CHECK_LAUNCH();
}

void launch_advance_step(int* step, int by, cudaStream_t s) {
  advance_step_kernel<<<1, 1, 0, s>>>(step, by);
  CUDA_CHECK_LAUNCH();
}

void launch_free_surface(float* field, const Layout& l, int surface, int radius, cudaStream_t s) {
  free_surface_kernel<<<dim3((l.nx + 127) / 128, l.ny), 128, 0, s>>>(field, l, surface, radius);
  CUDA_CHECK_LAUNCH();
}

void launch_diag_reset(DiagAccum* acc, cudaStream_t s, int count) {
  diag_reset_kernel<<<1, 32, 0, s>>>(acc, count);
  CUDA_CHECK_LAUNCH();
}

void launch_diag_publish(DiagRing* ring, DiagAccum* acc, int count, cudaStream_t s, int* step,
                         int by) {
  diag_publish_kernel<<<1, 1, 0, s>>>(ring, acc, count, step, by);
  CUDA_CHECK_LAUNCH();
}

void launch_diagnostics(const float* field, const StepSpec& sp, DiagAccum* acc, cudaStream_t s) {
  const int nz = sp.end[0] - sp.begin[0], ny = sp.end[1] - sp.begin[1],
            nx = sp.end[2] - sp.begin[2];
  const int blocks = std::min(nz * ny, 132 * 16);
  diagnostics_kernel<<<blocks, kThreads, 0, s>>>(field, sp.layout, sp.begin[0], sp.begin[1],
                                                 sp.begin[2], nz, ny, nx, acc);
  CUDA_CHECK_LAUNCH();
}

void launch_gather_box(const float* field, const Layout& l, const int lo[3], const int n[3],
                       const int dec[3], float* out, cudaStream_t s) {
  if (static_cast<int64_t>(n[0]) * n[1] * n[2] == 0) return;
  const dim3 grid((n[2] + 127) / 128, n[1], n[0]);
  gather_box_kernel<<<grid, 128, 0, s>>>(field, l, lo[0], lo[1], lo[2], n[0], n[1], n[2], dec[0],
                                         dec[1], dec[2], out);
  CUDA_CHECK_LAUNCH();
}

void launch_gather_boxes(const float* field, const Layout& l, const std::vector<Box>& boxes,
                         float* out, cudaStream_t s) {
  launch_boxes<true>(const_cast<float*>(field), l, boxes, out, s);
}

void launch_scatter_boxes(float* field, const Layout& l, const std::vector<Box>& boxes,
                          const float* in, cudaStream_t s) {
  launch_boxes<false>(field, l, boxes, const_cast<float*>(in), s);
}

void launch_fill_hash(float* p, int64_t n, uint32_t seed, float offset, float scale, void* stream) {
  fill_hash_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(p, n, seed, offset, scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda
