// Device-side sponge damping, computed from the cell index so that no kernel reads a damping
// array (docs/physics.md §5.1). Same profile as SpongeSpec documents: g = sum_axes damp (d / W)^2.
#pragma once
#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

struct SpongeParams {
  int lo[3], hi[3];
  float inv_wlo[3], inv_whi[3];  // 1/W, 0 where a face has no layer
  float damp[3];
  bool on;

  static SpongeParams from(const StepSpec& s) {
    SpongeParams p{};
    p.on = s.sponge_on();
    for (int a = 0; a < 3; ++a) {
      p.lo[a] = s.sponge.phys_lo[a];
      p.hi[a] = s.sponge.phys_hi[a];
      p.inv_wlo[a] = s.sponge.width_lo[a] > 0 ? 1.0f / s.sponge.width_lo[a] : 0.0f;
      p.inv_whi[a] = s.sponge.width_hi[a] > 0 ? 1.0f / s.sponge.width_hi[a] : 0.0f;
      p.damp[a] = static_cast<float>(s.sponge.damp[a]);
    }
    return p;
  }

  __device__ __forceinline__ float g(int z, int y, int x) const {
    const int i[3] = {z, y, x};
    float acc = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      const int dlo = lo[a] - i[a];
      const int dhi = i[a] - hi[a];
      const float r = dlo > 0 ? dlo * inv_wlo[a] : (dhi > 0 ? dhi * inv_whi[a] : 0.0f);
      acc += damp[a] * r * r;
    }
    return acc;
  }
};

}  // namespace seisfd::cuda
