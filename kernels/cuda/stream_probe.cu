#include <cuda_runtime.h>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/stream_probe.hpp"

namespace seisfd::cuda {
namespace {

constexpr int kStreamThreads = 256;
constexpr int kStreamPerThread = 2;  // float4s per array per thread, loads issued together

__global__ void __launch_bounds__(kStreamThreads)
    acoustic_stream_kernel(int64_t n4, const float4* prev, const float4* __restrict__ cur,
                           float4* next, const float4* __restrict__ vdt2) {
  const int64_t base =
      static_cast<int64_t>(blockIdx.x) * kStreamThreads * kStreamPerThread + threadIdx.x;
  float4 c[kStreamPerThread], p[kStreamPerThread], v[kStreamPerThread];
#pragma unroll
  for (int k = 0; k < kStreamPerThread; ++k) {
    const int64_t i = base + k * kStreamThreads;
    if (i < n4) {
      c[k] = __ldg(cur + i);
      p[k] = __ldcs(prev + i);
      v[k] = __ldg(vdt2 + i);
    }
  }
#pragma unroll
  for (int k = 0; k < kStreamPerThread; ++k) {
    const int64_t i = base + k * kStreamThreads;
    if (i < n4) {
      float4 o;
      o.x = 2.0f * c[k].x - p[k].x + v[k].x * c[k].x;
      o.y = 2.0f * c[k].y - p[k].y + v[k].y * c[k].y;
      o.z = 2.0f * c[k].z - p[k].z + v[k].z * c[k].z;
      o.w = 2.0f * c[k].w - p[k].w + v[k].w * c[k].w;
      __stcs(next + i, o);
    }
  }
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

void launch_acoustic_stream(int64_t n, const float* prev, const float* cur, float* next,
                            const float* vdt2, void* stream) {
  const int64_t n4 = n / 4;
  const int64_t per_block = int64_t{kStreamThreads} * kStreamPerThread;
  const int64_t blocks = (n4 + per_block - 1) / per_block;
  acoustic_stream_kernel<<<static_cast<unsigned>(blocks), kStreamThreads, 0,
                           static_cast<cudaStream_t>(stream)>>>(
      n4, reinterpret_cast<const float4*>(prev), reinterpret_cast<const float4*>(cur),
      reinterpret_cast<float4*>(next), reinterpret_cast<const float4*>(vdt2));
  CUDA_CHECK_LAUNCH();
}

void launch_fill_hash(float* p, int64_t n, uint32_t seed, float offset, float scale, void* stream) {
  fill_hash_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(p, n, seed, offset, scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace seisfd::cuda
