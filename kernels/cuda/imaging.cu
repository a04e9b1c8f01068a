#include "kernels/cuda/imaging.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_guard.hpp"
#include "kernels/cuda/sponge.cuh"
#include "kernels/huge_pages.hpp"

namespace seisfd::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float load(ArrayRef a, int64_t i) {
  return a.half ? __half2float(static_cast<const __half*>(a.p)[i])
                : static_cast<const float*>(a.p)[i];
}
__device__ __forceinline__ void store(ArrayRef a, int64_t i, float v) {
  if (a.half)
    static_cast<__half*>(a.p)[i] = __float2half_rn(v);
  else
    static_cast<float*>(a.p)[i] = v;
}

// The updated region as a flat index space: blocks stride over x rows (no 64-bit division per
// cell), threads along each row.
struct Region {
  Layout l;
  int z0, y0, x0, nz, ny, nx;
  static Region of(const StepSpec& s) {
    return {s.layout,
            s.begin[0],
            s.begin[1],
            s.begin[2],
            s.end[0] - s.begin[0],
            s.end[1] - s.begin[1],
            s.end[2] - s.begin[2]};
  }
};

template <class Op>
__global__ void region_kernel(Region r, SpongeParams sp, Op op) {
  const int rows = r.nz * r.ny;
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    const int z = r.z0 + row / r.ny, y = r.y0 + row % r.ny;
    const int64_t base = r.l.idx(z, y, 0);
    for (int x = r.x0 + threadIdx.x; x < r.x0 + r.nx; x += blockDim.x)
      op(base + x, sp.on ? sp.g(z, y, x) : 0.0f);
  }
}

template <class Op>
void over_region(const StepSpec& spec, Op op, cudaStream_t s) {
  const Region r = Region::of(spec);
  if (static_cast<int64_t>(r.nz) * r.ny * r.nx == 0) return;
  const int blocks = std::min(r.nz * r.ny, 132 * 16);
  region_kernel<<<blocks, kThreads, 0, s>>>(r, SpongeParams::from(spec), op);
  CUDA_CHECK_LAUNCH();
}

__global__ void level_to_array_kernel(const float* __restrict__ level, ArrayRef out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store(out, i, level[i]);
}

__global__ void array_to_level_kernel(ArrayRef in, float* __restrict__ level, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    level[i] = load(in, i);
}

struct SecondDifference {
  const float* cur;
  const float* prev;
  ArrayRef older, weight, out;
  float scale;
  __device__ void operator()(int64_t i, float g) const {
    const float d2 = (1.0f + g) * cur[i] - 2.0f * prev[i] + (1.0f - g) * load(older, i);
    store(out, i, scale * (weight.p ? load(weight, i) : 1.0f) * d2);
  }
};

struct CorrelateSecondDifference {
  ArrayRef image, a;
  const float* cur;
  const float* prev;
  ArrayRef older;
  float scale;
  __device__ void operator()(int64_t i, float g) const {
    const float d2 = (1.0f + g) * cur[i] - 2.0f * prev[i] + (1.0f - g) * load(older, i);
    store(image, i, load(image, i) + scale * load(a, i) * d2);
  }
};

struct Correlate {
  ArrayRef image, a, b;
  float scale;
  __device__ void operator()(int64_t i, float) const {
    store(image, i, load(image, i) + scale * load(a, i) * load(b, i));
  }
};

struct InjectVolume {
  float* field;
  const float* vdt2;
  ArrayRef volume;
  __device__ void operator()(int64_t i, float g) const {
    field[i] += vdt2[i] / (1.0f + g) * load(volume, i);
  }
};

// One thread per injected cell, as the injection itself (kernels/cuda/field_ops.cu).
__global__ void correlate_injection_kernel(Layout l, int z0, int y0, int x0, int z1, int y1, int x1,
                                           SpongeParams sp, ArrayRef image, ArrayRef u,
                                           InjectionView v, const int* step, int offset,
                                           float scale) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = *step + offset;
  if (c >= v.ncells || n >= v.nt) return;
  const int64_t i = v.cell[c];
  int z, y, x;
  l.coords(i, z, y, x);
  if (z < z0 || z >= z1 || y < y0 || y >= y1 || x < x0 || x >= x1) return;
  float added = 0.0f;
  for (int64_t e = v.cell_offset[c]; e < v.cell_offset[c + 1]; ++e)
    added += v.coef[e] * v.traces[static_cast<int64_t>(v.point[e]) * v.nt + n];
  const float g = sp.on ? sp.g(z, y, x) : 0.0f;
  store(image, i, load(image, i) + scale * load(u, i) * (1.0f + g) * added);
}

unsigned flat_blocks(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 132 * 32));
}

}  // namespace

CudaArray::CudaArray(ArrayKind kind, int64_t n, int device, cudaStream_t s)
    : CellArray(kind), n_(n), device_(device), stream_(s) {
  const DeviceGuard guard(device);
  switch (kind) {
    case ArrayKind::kDevice:
      f32_ = DeviceBuffer<float>(static_cast<size_t>(n));
      device_ptr_ = f32_.get();
      break;
    case ArrayKind::kDeviceHalf:
      f16_ = DeviceBuffer<uint16_t>(static_cast<size_t>(n));
      device_ptr_ = f16_.get();
      break;
    case ArrayKind::kHost:
      CUDA_CHECK(
          cudaHostAlloc(&host_, static_cast<size_t>(n) * sizeof(float), cudaHostAllocMapped));
      CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr_, host_, 0));
      break;
  }
  zero();
}

CudaArray::CudaArray(const float* external, int64_t n, int device, cudaStream_t s)
    : CellArray(ArrayKind::kDevice),
      n_(n),
      device_(device),
      stream_(s),
      device_ptr_(const_cast<float*>(external)) {}

CudaArray::~CudaArray() {
  cudaStreamSynchronize(stream_);  // destructors never throw
  if (host_) cudaFreeHost(host_);
}

void CudaArray::upload(const std::vector<float>& v) {
  if (static_cast<int64_t>(v.size()) != n_)
    throw std::invalid_argument("array upload: " + std::to_string(v.size()) + " values for " +
                                std::to_string(n_) + " cells");
  const DeviceGuard guard(device_);
  if (kind() == ArrayKind::kHost) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memcpy(host_, v.data(), v.size() * sizeof(float));
    return;
  }
  DeviceBuffer<float> staging(v.size());
  staging.upload(v, stream_);
  launch_level_to_array(staging.get(), ref(), n_, stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::vector<double> CudaArray::download() const {
  return widen(download_float());
}

std::vector<float> CudaArray::download_float() const {
  const DeviceGuard guard(device_);
  std::vector<float> f = huge_vector<float>(static_cast<size_t>(n_));
  if (kind() == ArrayKind::kHost) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memcpy(f.data(), host_, f.size() * sizeof(float));
  } else {
    DeviceBuffer<float> staging(f.size());
    launch_array_to_level(ref(), staging.get(), n_, stream_);
    staging.download(f, stream_);
  }
  return f;
}

void CudaArray::zero() {
  const DeviceGuard guard(device_);
  if (kind() == ArrayKind::kHost) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memset(host_, 0, static_cast<size_t>(n_) * sizeof(float));
  } else if (kind() == ArrayKind::kDeviceHalf) {
    f16_.zero(stream_);
  } else {
    f32_.zero(stream_);
  }
}

void launch_level_to_array(const float* level, ArrayRef out, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  level_to_array_kernel<<<flat_blocks(n), kThreads, 0, s>>>(level, out, n);
  CUDA_CHECK_LAUNCH();
}

void launch_array_to_level(ArrayRef in, float* level, int64_t n, cudaStream_t s) {
  if (n == 0) return;
  array_to_level_kernel<<<flat_blocks(n), kThreads, 0, s>>>(in, level, n);
  CUDA_CHECK_LAUNCH();
}

void launch_second_difference(const StepSpec& spec, const float* cur, const float* prev,
                              ArrayRef older, ArrayRef weight, float scale, ArrayRef out,
                              cudaStream_t s) {
  over_region(spec, SecondDifference{cur, prev, older, weight, out, scale}, s);
}

void launch_correlate_second_difference(const StepSpec& spec, ArrayRef image, ArrayRef a,
                                        const float* cur, const float* prev, ArrayRef older,
                                        float scale, cudaStream_t s) {
  over_region(spec, CorrelateSecondDifference{image, a, cur, prev, older, scale}, s);
}

void launch_correlate(const StepSpec& spec, ArrayRef image, ArrayRef a, ArrayRef b, float scale,
                      cudaStream_t s) {
  over_region(spec, Correlate{image, a, b, scale}, s);
}

void launch_correlate_injection(const StepSpec& spec, ArrayRef image, ArrayRef u,
                                const InjectionView& inj, const int* step, int offset, float scale,
                                cudaStream_t s) {
  if (inj.ncells == 0) return;
  correlate_injection_kernel<<<(inj.ncells + 127) / 128, 128, 0, s>>>(
      spec.layout, spec.begin[0], spec.begin[1], spec.begin[2], spec.end[0], spec.end[1],
      spec.end[2], SpongeParams::from(spec), image, u, inj, step, offset, scale);
  CUDA_CHECK_LAUNCH();
}

void launch_inject_volume(const StepSpec& spec, float* field, const float* vdt2, ArrayRef volume,
                          cudaStream_t s) {
  over_region(spec, InjectVolume{field, vdt2, volume}, s);
}

}  // namespace seisfd::cuda
