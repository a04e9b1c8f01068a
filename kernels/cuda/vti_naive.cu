// vti/oN/naive (kernels/cuda/aniso_naive.cuh), and what tti_naive.cu shares with it: the
// transposed update's inputs and the checks.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/field_ops.hpp"
#include "kernels/cuda/imaging_fused.cuh"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tuning.hpp"

namespace seisfd {
namespace {

using cuda::AnisoFields;

// kT: the transposed update (aniso_naive.cuh): the stencils act on u = X and w = Y, fp = H_0 X,
// fq = H_z Y. Forward: u = p_cur, w = q_cur with the coupling weights.
// kImage (transposed only): the imaging epilogue of an adjoint imaging step
// (kernels/cuda/imaging_fused.cuh).
template <int R, bool kT, bool kImage = false>
__global__ void vti_naive_kernel(cuda::AnisoParams<R> p, AnisoFields f, const float* u,
                                 const float* w, const FusedImaging im) {
  const int x = p.begin[2] + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = p.begin[1] + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = p.begin[0] + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= p.end[2] || y >= p.end[1] || z >= p.end[0]) return;
  const int64_t i = p.l.idx(z, y, x);
  const int64_t sy = p.l.sy, sz = p.l.sz;
  const float pc = f.p_cur[i], qc = f.q_cur[i];
  const float uc = u[i], wc = w[i];
  float hx = 0, hy = 0, qz = 0;
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    hx += p.w2[2][k] * (u[i + k] - 2.0f * uc + u[i - k]);
    hy += p.w2[1][k] * (u[i + k * sy] - 2.0f * uc + u[i - k * sy]);
    qz += p.w2[0][k] * (w[i + k * sz] - 2.0f * wc + w[i - k * sz]);
  }
  const float h0 = hx + hy;
  const float v = f.vdt2[i];
  float fp = h0, fq = qz;
  if constexpr (!kT) {
    const float E = f.E[i], D = f.D[i];
    fp = E * h0 + D * qz;
    fq = D * h0 + qz;
  }
  const float pn = cuda::leapfrog(p.sponge, z, y, x, pc, f.p_prev[i], v, fp);
  const float qn = cuda::leapfrog(p.sponge, z, y, x, qc, f.q_prev[i], v, fq);
  f.p_next[i] = pn;
  f.q_next[i] = qn;
  if constexpr (kImage) cuda::image_cell(im, i, v * fp, v * fq, pc);
}

// The transposed update's pre-pass over the updated region: X = E p + D q, Y = D p + q.
__global__ void aniso_transpose_prepass_kernel(const float* p, const float* q, const float* E,
                                               const float* D, float* X, float* Y, Layout l, int z0,
                                               int y0, int x0, int nz, int ny, int nx) {
  const int x = x0 + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = z0 + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= x0 + nx || y >= y0 + ny || z >= z0 + nz) return;
  const int64_t i = l.idx(z, y, x);
  const float pc = p[i], qc = q[i], e = E[i], d = D[i];
  X[i] = e * pc + d * qc;
  Y[i] = d * pc + qc;
}

template <int R>
void launch_vti_naive(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  const auto p = cuda::AnisoParams<R>::from(s);
  const AnisoFields f = AnisoFields::from(a);
  const dim3 block(32, 4, 2);
  vti_naive_kernel<R, false>
      <<<cuda::region_grid(s, block), block, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
          p, f, f.p_cur, f.q_cur, a.imaging);
  CUDA_CHECK_LAUNCH();
}

// Scratch: X = scratch[0], Y = scratch[1].
template <int R>
void launch_vti_naive_transposed(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  float* x = a.scratch[0];
  float* y = a.scratch[1];
  cuda::launch_transposed_inputs(s, a, x, y, st);
  const auto p = cuda::AnisoParams<R>::from(s);
  const AnisoFields f = AnisoFields::from(a);
  const dim3 block(32, 4, 2);
  if (a.imaging.on())
    vti_naive_kernel<R, true, true>
        <<<cuda::region_grid(s, block), block, 0, st>>>(p, f, x, y, a.imaging);
  else
    vti_naive_kernel<R, true><<<cuda::region_grid(s, block), block, 0, st>>>(p, f, x, y, a.imaging);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace cuda {

std::string can_implement_aniso_naive(const StepSpec& s, int) {
  for (int a = 0; a < 3; ++a)
    if (s.begin[a] < s.radius || s.end[a] > (a == 0   ? s.layout.nz
                                             : a == 1 ? s.layout.ny
                                                      : s.layout.nx) -
                                                s.radius)
      return "updated region must leave a halo of radius cells";
  if (s.end[0] - s.begin[0] > 65535 * 2) return "more than 131070 z planes";
  return {};
}

void launch_transposed_inputs(const StepSpec& s, const UpdateArgs& a, float* X, float* Y,
                              cudaStream_t stream) {
  const int n[3] = {s.end[0] - s.begin[0], s.end[1] - s.begin[1], s.end[2] - s.begin[2]};
  const dim3 b(32, 4, 2);
  const dim3 g((n[2] + 31) / 32, (n[1] + 3) / 4, (n[0] + 1) / 2);
  aniso_transpose_prepass_kernel<<<g, b, 0, stream>>>(a.cur[0], a.cur[1], a.medium[kE],
                                                      a.medium[kD], X, Y, s.layout, s.begin[0],
                                                      s.begin[1], s.begin[2], n[0], n[1], n[2]);
  CUDA_CHECK_LAUNCH();
  if (s.free_surface) {
    launch_free_surface(X, s.layout, s.surface, s.radius, stream);
    launch_free_surface(Y, s.layout, s.surface, s.radius, stream);
  }
}

}  // namespace cuda

void register_vti_naive(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kVti, R, "naive",
        "VTI fast path (d_xx + d_yy, d_zz; no mixed derivatives), one thread per cell, all "
        "reads from global memory");
    v.min_compute_capability = 60;
    v.can_implement = &cuda::can_implement_aniso_naive;
    v.forward = &launch_vti_naive<R>;
    v.transposed = &launch_vti_naive_transposed<R>;
    v.scratch_arrays = 0;
    v.transposed_scratch_arrays = 2;  // X, Y
    v.fuses_imaging = true;
    v.preference = cuda::tuning::kPreferenceAnisoNaive;
    t.push_back(v);
  });
}

}  // namespace seisfd
