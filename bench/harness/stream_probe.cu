#include <cuda_runtime.h>

#include <stdexcept>

#include "kernels/cuda/check.hpp"
#include "bench/harness/stream_probe.hpp"

namespace seisfd::bench {
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

// Reads kReads arrays and writes two, every value used: p' = 2 p - p_prev + c (E p + D q),
// q' = 2 q - q_prev + c (D p + q) (+ the angles folded in for TTI), per float4 lane.
template <int kReads>
struct StreamArgs {
  const float4* in[kReads];
  float4* out[2];
};

template <int kReads>
__global__ void __launch_bounds__(kStreamThreads)
    aniso_stream_kernel(int64_t n4, const StreamArgs<kReads> a) {
  const int64_t base =
      static_cast<int64_t>(blockIdx.x) * kStreamThreads * kStreamPerThread + threadIdx.x;
  float4 v[kStreamPerThread][kReads];
#pragma unroll
  for (int k = 0; k < kStreamPerThread; ++k) {
    const int64_t i = base + k * kStreamThreads;
    if (i < n4) {
      v[k][0] = __ldcs(a.in[0] + i);  // read once, then overwritten: streaming
      v[k][1] = __ldcs(a.in[1] + i);
#pragma unroll
      for (int r = 2; r < kReads; ++r) v[k][r] = __ldg(a.in[r] + i);
    }
  }
#pragma unroll
  for (int k = 0; k < kStreamPerThread; ++k) {
    const int64_t i = base + k * kStreamThreads;
    if (i >= n4) continue;
    float4 op, oq;
    const float* pp = &v[k][0].x;  // p previous
    const float* qp = &v[k][1].x;  // q previous
    const float* pc = &v[k][2].x;
    const float* qc = &v[k][3].x;
    const float* c = &v[k][4].x;
    const float* e = &v[k][5].x;
    const float* d = &v[k][6].x;
    float* po = &op.x;
    float* qo = &oq.x;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float hp = e[j] * pc[j] + d[j] * qc[j];
      float hq = d[j] * pc[j] + qc[j];
      if constexpr (kReads == 9) {
        const float t = (&v[k][7].x)[j], f = (&v[k][8].x)[j];
        hp += t * qc[j];
        hq += f * pc[j];
      }
      po[j] = 2.0f * pc[j] - pp[j] + c[j] * hp;
      qo[j] = 2.0f * qc[j] - qp[j] + c[j] * hq;
    }
    __stcs(a.out[0] + i, op);
    __stcs(a.out[1] + i, oq);
  }
}

template <int kReads>
void launch_aniso_stream_n(int64_t n, const float* const* in, float* const out[2],
                           cudaStream_t st) {
  StreamArgs<kReads> a;
  for (int r = 0; r < kReads; ++r) a.in[r] = reinterpret_cast<const float4*>(in[r]);
  for (int w = 0; w < 2; ++w) a.out[w] = reinterpret_cast<float4*>(out[w]);
  const int64_t n4 = n / 4;
  const int64_t per_block = int64_t{kStreamThreads} * kStreamPerThread;
  const int64_t blocks = (n4 + per_block - 1) / per_block;
  aniso_stream_kernel<kReads><<<static_cast<unsigned>(blocks), kStreamThreads, 0, st>>>(n4, a);
  CUDA_CHECK_LAUNCH();
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

void launch_aniso_stream(int64_t n, int reads, const float* const* in, float* const out[2],
                         void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  if (reads == 7)
    launch_aniso_stream_n<7>(n, in, out, st);
  else if (reads == 9)
    launch_aniso_stream_n<9>(n, in, out, st);
  else
    throw std::invalid_argument("launch_aniso_stream: reads must be 7 (VTI) or 9 (TTI)");
}

}  // namespace seisfd::bench
