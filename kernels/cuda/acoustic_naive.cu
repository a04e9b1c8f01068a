// acoustic/oN/naive: one thread per cell, every neighbour read from global memory. The
// correctness baseline and the throughput floor the fast variants are measured against.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/imaging_fused.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/sponge.cuh"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

template <int R>
struct NaiveParams {
  Layout l;
  int begin[3], end[3];
  float c0;
  float cz[R + 1], cy[R + 1], cx[R + 1];
  cuda::SpongeParams sponge;
};

// kImage: the imaging epilogue of an adjoint imaging step (kernels/cuda/imaging_fused.cuh).
template <int R, bool kImage>
__global__ void acoustic_naive_kernel(NaiveParams<R> p, const float* prev,
                                      const float* __restrict__ cur, float* next,
                                      const float* __restrict__ vdt2, const FusedImaging im) {
  const int x = p.begin[2] + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = p.begin[1] + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = p.begin[0] + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= p.end[2] || y >= p.end[1] || z >= p.end[0]) return;
  const int64_t i = p.l.idx(z, y, x);
  float lap = p.c0 * cur[i];
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    lap += p.cz[k] * (cur[i + k * p.l.sz] + cur[i - k * p.l.sz]);
    lap += p.cy[k] * (cur[i + k * p.l.sy] + cur[i - k * p.l.sy]);
    lap += p.cx[k] * (cur[i + k] + cur[i - k]);
  }
  const float c = cur[i];
  const float v = vdt2[i];
  if (!p.sponge.on) {
    next[i] = 2.0f * c - prev[i] + v * lap;
  } else {
    const float g = p.sponge.g(z, y, x);
    next[i] = (2.0f * c - (1.0f - g) * prev[i] + v * lap) / (1.0f + g);
  }
  if constexpr (kImage) cuda::image_cell(im, i, v * lap, 0.0f, c);
}

template <int R>
void launch_acoustic_naive(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  NaiveParams<R> p{};
  p.l = s.layout;
  const auto w = second_derivative_weights(R);
  double centre = 0;
  float* c[3] = {p.cz, p.cy, p.cx};
  for (int ax = 0; ax < 3; ++ax) {
    p.begin[ax] = s.begin[ax];
    p.end[ax] = s.end[ax];
    const double inv_h2 = 1.0 / (s.h[ax] * s.h[ax]);
    centre += w[0] * inv_h2;
    c[ax][0] = 0.0f;
    for (int k = 1; k <= R; ++k) c[ax][k] = static_cast<float>(w[k] * inv_h2);
  }
  p.c0 = static_cast<float>(centre);
  p.sponge = cuda::SpongeParams::from(s);
  const dim3 block(32, 4, 2);
  const dim3 grid((s.end[2] - s.begin[2] + block.x - 1) / block.x,
                  (s.end[1] - s.begin[1] + block.y - 1) / block.y,
                  (s.end[0] - s.begin[0] + block.z - 1) / block.z);
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  if (a.imaging.on())
    acoustic_naive_kernel<R, true>
        <<<grid, block, 0, st>>>(p, a.prev[0], a.cur[0], a.next[0], a.medium[kVdt2], a.imaging);
  else
    acoustic_naive_kernel<R, false>
        <<<grid, block, 0, st>>>(p, a.prev[0], a.cur[0], a.next[0], a.medium[kVdt2], a.imaging);
  CUDA_CHECK_LAUNCH();
}

std::string can_implement_acoustic_naive(const StepSpec& s, int) {
  for (int a = 0; a < 3; ++a)
    if (s.begin[a] < s.radius || s.end[a] > (a == 0   ? s.layout.nz
                                             : a == 1 ? s.layout.ny
                                                      : s.layout.nx) -
                                                s.radius)
      return "updated region must leave a halo of radius cells";
  if (s.end[0] - s.begin[0] > 65535 * 2) return "more than 131070 z planes";
  return {};
}

}  // namespace

void register_acoustic_naive(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v =
        cuda::variant_entry(Physics::kAcoustic, R, "naive",
                            "one thread per cell, all reads from global memory (the baseline)");
    v.min_compute_capability = 60;
    v.can_implement = &can_implement_acoustic_naive;
    // The acoustic update is its own transpose (after the engine's substitution).
    v.forward = v.transposed = &launch_acoustic_naive<R>;
    v.fuses_imaging = true;
    v.preference = cuda::tuning::kPreferenceNaive;
    t.push_back(v);
  });
}

}  // namespace seisfd
