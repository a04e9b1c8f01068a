#include <cuda_runtime.h>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/aniso_naive.hpp"
#include "kernels/cuda/check.hpp"

namespace seisfd {
namespace {

// kT: the transposed update (aniso_naive.hpp): the stencils act on u = X and w = Y, fp = H_0 X,
// fq = H_z Y. Forward: u = p_cur, w = q_cur with the coupling weights.
template <int R, bool kT>
__global__ void vti_naive_kernel(cuda::AnisoParams<R> p, AnisoFields f, const float* u,
                                 const float* w) {
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
}

}  // namespace

template <int R>
void launch_vti_naive(const StepSpec& s, const AnisoFields& f, void* stream) {
  const auto p = cuda::AnisoParams<R>::from(s);
  const dim3 block(32, 4, 2);
  vti_naive_kernel<R, false>
      <<<cuda::region_grid(s, block), block, 0, static_cast<cudaStream_t>(stream)>>>(p, f, f.p_cur,
                                                                                     f.q_cur);
  CUDA_CHECK_LAUNCH();
}

template <int R>
void launch_vti_naive_transposed(const StepSpec& s, const AnisoFields& f, const float* x,
                                 const float* y, void* stream) {
  const auto p = cuda::AnisoParams<R>::from(s);
  const dim3 block(32, 4, 2);
  vti_naive_kernel<R, true>
      <<<cuda::region_grid(s, block), block, 0, static_cast<cudaStream_t>(stream)>>>(p, f, x, y);
  CUDA_CHECK_LAUNCH();
}

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

template void launch_vti_naive<1>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<1>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<2>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<2>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<3>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<3>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<4>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<4>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<5>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<5>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<6>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<6>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<7>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<7>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);
template void launch_vti_naive<8>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive_transposed<8>(const StepSpec&, const AnisoFields&, const float*,
                                             const float*, void*);

}  // namespace seisfd
