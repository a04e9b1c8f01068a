// tti/oN/naive (kernels/cuda/aniso_naive.cuh): a pass writing the cross-term intermediates g
// of p and q (scratch), then one thread per cell for the update. Both TTI operators
// (StepSpec::tti_operator): kN = nested, RC = the first derivatives' pairs.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/imaging_fused.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

using cuda::AnisoFields;

// First derivative along an axis with zero beyond the array.
template <int R>
__device__ __forceinline__ float d1(const float* f, int64_t i, int at, int n, int64_t st,
                                    const float* w) {
  float acc = 0;
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    const float fp = at + k < n ? f[i + k * st] : 0.0f;
    const float fm = at - k >= 0 ? f[i - k * st] : 0.0f;
    acc += w[k] * (fp - fm);
  }
  return acc;
}

// Cross-term intermediates g_i = n_i sum_{j != i} n_j D1_j f (nested: n_i (n . D1 f)) of u and
// w (p and q forward, X and Y transposed), on every cell.
template <int R, int RC, bool kN>
__global__ void tti_cross_kernel(cuda::AnisoParams<R> p, AnisoFields f, const float* u,
                                 const float* w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= p.l.nx || y >= p.l.ny || z >= p.l.nz) return;
  const int64_t i = p.l.idx(z, y, x);
  const float nz = f.n[0][i], ny = f.n[1][i], nx = f.n[2][i];
  const float* src[2] = {u, w};
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const float tz = d1<RC>(src[s], i, z, p.l.nz, p.l.sz, p.w1[0]);
    const float ty = d1<RC>(src[s], i, y, p.l.ny, p.l.sy, p.w1[1]);
    const float tx = d1<RC>(src[s], i, x, p.l.nx, 1, p.w1[2]);
    if constexpr (kN) {
      const float along = nz * tz + ny * ty + nx * tx;
      f.g[3 * s + 0][i] = nz * along;
      f.g[3 * s + 1][i] = ny * along;
      f.g[3 * s + 2][i] = nx * along;
      continue;
    }
    f.g[3 * s + 0][i] = nz * (ny * ty + nx * tx);
    f.g[3 * s + 1][i] = ny * (nz * tz + nx * tx);
    f.g[3 * s + 2][i] = nx * (nz * tz + ny * ty);
  }
}

// Above a free surface: g as a reflected medium gives it (g_z even, g_y, g_x odd and zero on
// the surface row).
template <int R>
__global__ void tti_mirror_g_kernel(cuda::AnisoParams<R> p, AnisoFields f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.l.nx || y >= p.l.ny) return;
  const int64_t s0 = p.l.idx(p.surface, y, x);
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    f.g[3 * s + 1][s0] = 0.0f;
    f.g[3 * s + 2][s0] = 0.0f;
    for (int k = 1; k <= R; ++k) {
      const int64_t up = s0 - k * p.l.sz, dn = s0 + k * p.l.sz;
      f.g[3 * s + 0][up] = f.g[3 * s + 0][dn];
      f.g[3 * s + 1][up] = -f.g[3 * s + 1][dn];
      f.g[3 * s + 2][up] = -f.g[3 * s + 2][dn];
    }
  }
}

// H_z f at cell i: symmetric narrow diagonal terms d_a(n_a^2 d_a f) (not nested) plus
// sum_a D1_a g_a.
template <int R, int RC, bool kN>
__device__ __forceinline__ float tti_hz(const cuda::AnisoParams<R>& p, const AnisoFields& f,
                                        const float* u, float* const* g, int64_t i) {
  const int64_t st[3] = {p.l.sz, p.l.sy, 1};
  const float uc = u[i];
  float acc = 0;
#pragma unroll
  for (int ax = 0; ax < 3; ++ax) {
    float cross = 0;
#pragma unroll
    for (int k = 1; k <= RC; ++k) {
      const int64_t o = k * st[ax];
      cross += p.w1[ax][k] * (g[ax][i + o] - g[ax][i - o]);
    }
    if constexpr (!kN) {
      const float* n = f.n[ax];
      const float ac = n[i] * n[i];
      float diag = 0;
#pragma unroll
      for (int k = 1; k <= R; ++k) {
        const int64_t o = k * st[ax];
        const float ap = n[i + o] * n[i + o], am = n[i - o] * n[i - o];
        diag += p.w2[ax][k] * ((ac + ap) * (u[i + o] - uc) - (am + ac) * (uc - u[i - o]));
      }
      cross += 0.5f * diag;
    }
    acc += cross;
  }
  return acc;
}

// kT: the transposed update (aniso_naive.cuh): stencils on u = X and w = Y, fp = H_0 X,
// fq = H_z Y. Forward: u = p_cur, w = q_cur with the coupling weights.
// kImage (transposed only): the imaging epilogue of an adjoint imaging step
// (kernels/cuda/imaging_fused.cuh).
template <int R, int RC, bool kN, bool kT, bool kImage = false>
__global__ void tti_update_kernel(cuda::AnisoParams<R> p, AnisoFields f, const float* u,
                                  const float* w, const FusedImaging im) {
  const int x = p.begin[2] + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = p.begin[1] + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = p.begin[0] + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= p.end[2] || y >= p.end[1] || z >= p.end[0]) return;
  const int64_t i = p.l.idx(z, y, x);
  const float pc = f.p_cur[i], qc = f.q_cur[i];
  const float uc = u[i];
  // Differences first (f+ - 2 f + f-): less cancellation in fp32 than c0 f + sum w (f+ + f-).
  float lap = 0;
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    lap += p.w2[0][k] * (u[i + k * p.l.sz] - 2.0f * uc + u[i - k * p.l.sz]);
    lap += p.w2[1][k] * (u[i + k * p.l.sy] - 2.0f * uc + u[i - k * p.l.sy]);
    lap += p.w2[2][k] * (u[i + k] - 2.0f * uc + u[i - k]);
  }
  const float hzp = tti_hz<R, RC, kN>(p, f, u, f.g, i);
  const float hzq = tti_hz<R, RC, kN>(p, f, w, f.g + 3, i);
  const float h0 = lap - hzp;
  const float v = f.vdt2[i];
  float fp = h0, fq = hzq;
  if constexpr (!kT) {
    const float E = f.E[i], D = f.D[i];
    fp = E * h0 + D * hzq;
    fq = D * h0 + hzq;
  }
  const float pn = cuda::leapfrog(p.sponge, z, y, x, pc, f.p_prev[i], v, fp);
  const float qn = cuda::leapfrog(p.sponge, z, y, x, qc, f.q_prev[i], v, fq);
  f.p_next[i] = pn;
  f.q_next[i] = qn;
  if constexpr (kImage) cuda::image_cell(im, i, v * fp, v * fq, pc);
}

template <int R, int RC, bool kN, bool kT>
void launch_tti_operator(const StepSpec& s, const AnisoFields& f, const float* u, const float* w,
                         const FusedImaging& im, void* stream) {
  const auto p = cuda::AnisoParams<R>::from(s);
  const auto st = static_cast<cudaStream_t>(stream);
  const dim3 block(32, 4, 2);
  const dim3 all((s.layout.nx + 31) / 32, (s.layout.ny + 3) / 4, (s.layout.nz + 1) / 2);
  tti_cross_kernel<R, RC, kN><<<all, block, 0, st>>>(p, f, u, w);
  CUDA_CHECK_LAUNCH();
  if (s.free_surface) {
    const dim3 b2(32, 8);
    tti_mirror_g_kernel<R>
        <<<dim3((s.layout.nx + 31) / 32, (s.layout.ny + 7) / 8), b2, 0, st>>>(p, f);
    CUDA_CHECK_LAUNCH();
  }
  const dim3 grid = cuda::region_grid(s, block);
  if (kT && im.on())
    tti_update_kernel<R, RC, kN, kT, kT><<<grid, block, 0, st>>>(p, f, u, w, im);
  else
    tti_update_kernel<R, RC, kN, kT><<<grid, block, 0, st>>>(p, f, u, w, im);
  CUDA_CHECK_LAUNCH();
}

template <int R, bool kT>
void launch_tti(const StepSpec& s, const AnisoFields& f, const float* u, const float* w,
                const FusedImaging& im, void* stream) {
  if constexpr (R % 2 == 0) {
    if (s.tti_operator == TtiOperator::kNested) {
      launch_tti_operator<R, R / 2, true, kT>(s, f, u, w, im, stream);
      return;
    }
  }
  launch_tti_operator<R, R, false, kT>(s, f, u, w, im, stream);
}

std::string can_implement_tti_naive(const StepSpec& s, int compute_capability) {
  if (!s.tti_operator_fits()) return "the nested TTI operator needs an order divisible by 4";
  return cuda::can_implement_aniso_naive(s, compute_capability);
}

// Forward scratch: g = scratch[0..5].
template <int R>
void launch_tti_naive(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  AnisoFields f = AnisoFields::from(a);
  for (int k = 0; k < 6; ++k) f.g[k] = a.scratch[k];
  launch_tti<R, false>(s, f, f.p_cur, f.q_cur, FusedImaging{}, ctx.stream);
}

// Transposed scratch: g = scratch[0..5] (of X and Y), X = scratch[6], Y = scratch[7].
template <int R>
void launch_tti_naive_transposed(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  float* x = a.scratch[6];
  float* y = a.scratch[7];
  cuda::launch_transposed_inputs(s, a, x, y, static_cast<cudaStream_t>(ctx.stream));
  AnisoFields f = AnisoFields::from(a);
  for (int k = 0; k < 6; ++k) f.g[k] = a.scratch[k];
  launch_tti<R, true>(s, f, x, y, a.imaging, ctx.stream);
}

}  // namespace

void register_tti_naive(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kTti, R, "naive",
        "TTI: a pass writing the 6 cross-term intermediates of p and q, then one thread per "
        "cell for the update, all reads from global memory");
    v.min_compute_capability = 60;
    v.can_implement = &can_implement_tti_naive;
    v.forward = &launch_tti_naive<R>;
    v.transposed = &launch_tti_naive_transposed<R>;
    v.scratch_arrays = 6;             // g
    v.transposed_scratch_arrays = 8;  // g, X, Y
    v.fuses_imaging = true;
    v.preference = cuda::tuning::kPreferenceAnisoNaive;
    t.push_back(v);
  });
}

}  // namespace seisfd
