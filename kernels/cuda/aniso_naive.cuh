// Device-side pieces shared by the naive VTI and TTI kernels (aniso_naive.hpp).
#pragma once
#include "kernels/cuda/sponge.cuh"
#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

template <int R>
struct AnisoParams {
  Layout l;
  int begin[3], end[3];
  int surface;
  bool free_surface;
  float c0;            // centre weight of the Laplacian
  float w2[3][R + 1];  // second-derivative weights / h^2 per axis (z, y, x)
  float w1[3][R + 1];  // first-derivative weights / h
  SpongeParams sponge;

  static AnisoParams from(const StepSpec& s) {
    AnisoParams p{};
    p.l = s.layout;
    p.surface = s.surface;
    p.free_surface = s.free_surface;
    const auto a = second_derivative_weights(R);
    const auto b = first_derivative_weights(R);
    double centre = 0;
    for (int ax = 0; ax < 3; ++ax) {
      p.begin[ax] = s.begin[ax];
      p.end[ax] = s.end[ax];
      const double inv_h2 = 1.0 / (s.h[ax] * s.h[ax]);
      centre += a[0] * inv_h2;
      p.w2[ax][0] = p.w1[ax][0] = 0.0f;
      for (int k = 1; k <= R; ++k) {
        p.w2[ax][k] = static_cast<float>(a[k] * inv_h2);
        p.w1[ax][k] = static_cast<float>(b[k] / s.h[ax]);
      }
    }
    p.c0 = static_cast<float>(centre);
    p.sponge = SpongeParams::from(s);
    return p;
  }
};

// Leapfrog with sponge for one of p, q.
__device__ __forceinline__ float leapfrog(const SpongeParams& sp, int z, int y, int x, float cur,
                                          float prev, float vdt2, float f) {
  if (!sp.on) return 2.0f * cur - prev + vdt2 * f;
  const float g = sp.g(z, y, x);
  return (2.0f * cur - (1.0f - g) * prev + vdt2 * f) / (1.0f + g);
}

inline dim3 region_grid(const StepSpec& s, dim3 block) {
  return dim3((s.end[2] - s.begin[2] + block.x - 1) / block.x,
              (s.end[1] - s.begin[1] + block.y - 1) / block.y,
              (s.end[0] - s.begin[0] + block.z - 1) / block.z);
}

}  // namespace seisfd::cuda
