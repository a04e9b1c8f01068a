// vti/oN/naive and tti/oN/naive: one thread per cell, every neighbour from global memory; the
// correctness baseline and the throughput floor for the anisotropic physics. The arithmetic is
// that of kernels/reference/anisotropic.hpp (the VTI fast path; TTI with the symmetric narrow
// diagonal terms and the first-derivative cross terms through the g intermediates, or the nested
// operator: every term through g, first derivatives of half the order). This header:
// what vti_naive.cu and tti_naive.cu share.
// The transposed update of apply_adjoint (docs/physics.md §7): the stencils act on X = E p + D q
// and Y = D p + q (launch_transposed_inputs: zero outside the updated region, mirrored above a
// free surface), fp = H_0 X, fq = H_z Y, and the leapfrog advances p and q.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/sponge.cuh"
#include "kernels/registry.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

// The kernels' view of one update (by value in their parameters). The next fields may alias the
// previous ones. E = 1 + 2 eps, D = sqrt(1 + 2 delta); TTI only: n, the symmetry axis (z, y, x
// components, reflected in the mirror rows above a free surface), and g, scratch for the
// cross-term intermediates of p (g[0..2]) and q (g[3..5]).
struct AnisoFields {
  const float* p_prev = nullptr;
  const float* p_cur = nullptr;
  float* p_next = nullptr;
  const float* q_prev = nullptr;
  const float* q_cur = nullptr;
  float* q_next = nullptr;
  const float* vdt2 = nullptr;
  const float* E = nullptr;
  const float* D = nullptr;
  const float* n[3] = {nullptr, nullptr, nullptr};
  float* g[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

  // Everything but g (the caller's scratch layout decides where g lives).
  static AnisoFields from(const UpdateArgs& a) {
    AnisoFields f;
    f.p_prev = a.prev[0];
    f.p_cur = a.cur[0];
    f.p_next = a.next[0];
    f.q_prev = a.prev[1];
    f.q_cur = a.cur[1];
    f.q_next = a.next[1];
    f.vdt2 = a.medium[kVdt2];
    f.E = a.medium[kE];
    f.D = a.medium[kD];
    for (int k = 0; k < 3; ++k) f.n[k] = a.medium[kAxisZ + k];
    return f;
  }
};

// Defined in vti_naive.cu, used by both files. CPML specs are accepted: its boundary kernels
// (kernels/cuda/cpml.cu) run around the update.
std::string can_implement_aniso_naive(const StepSpec& spec, int compute_capability);
// X = E p + D q, Y = D p + q of the current levels over the updated region (X and Y are zero
// elsewhere: the engine zero-fills scratch at allocation), then with spec.free_surface their
// odd mirror above the surface, as for p and q.
void launch_transposed_inputs(const StepSpec& spec, const UpdateArgs& args, float* X, float* Y,
                              cudaStream_t stream);

// The fields a one-pass variant's stencils act on: p and q forward; transposed (kT), X and Y,
// computed into scratch[0] and scratch[1] first.
template <bool kT>
void stencil_inputs(const StepSpec& spec, const UpdateArgs& args, cudaStream_t stream,
                    const float*& u, const float*& w) {
  u = args.cur[0];
  w = args.cur[1];
  if constexpr (kT) {
    launch_transposed_inputs(spec, args, args.scratch[0], args.scratch[1], stream);
    u = args.scratch[0];
    w = args.scratch[1];
  }
}

template <int R>
struct AnisoParams {
  Layout l;
  int begin[3], end[3];
  int surface;
  bool free_surface;
  float c0;            // centre weight of the Laplacian
  float w2[3][R + 1];  // second-derivative weights / h^2 per axis (z, y, x)
  float w1[3][R + 1];  // first-derivative weights / h (s.cross_radius() pairs, zero beyond)
  SpongeParams sponge;

  static AnisoParams from(const StepSpec& s) {
    AnisoParams p{};
    p.l = s.layout;
    p.surface = s.surface;
    p.free_surface = s.free_surface;
    const auto a = second_derivative_weights(R);
    const auto b = first_derivative_weights(s.cross_radius());
    double centre = 0;
    for (int ax = 0; ax < 3; ++ax) {
      p.begin[ax] = s.begin[ax];
      p.end[ax] = s.end[ax];
      const double inv_h2 = 1.0 / (s.h[ax] * s.h[ax]);
      centre += a[0] * inv_h2;
      p.w2[ax][0] = p.w1[ax][0] = 0.0f;
      for (int k = 1; k <= R; ++k) {
        p.w2[ax][k] = static_cast<float>(a[k] * inv_h2);
        p.w1[ax][k] = k <= s.cross_radius() ? static_cast<float>(b[k] / s.h[ax]) : 0.0f;
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
