#include <cuda_runtime.h>

#include "kernels/cuda/aniso_naive.cuh"
#include "kernels/cuda/aniso_naive.hpp"
#include "kernels/cuda/check.hpp"

namespace seisfd {
namespace {

template <int R>
__global__ void vti_naive_kernel(cuda::AnisoParams<R> p, AnisoFields f) {
  const int x = p.begin[2] + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = p.begin[1] + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = p.begin[0] + blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= p.end[2] || y >= p.end[1] || z >= p.end[0]) return;
  const int64_t i = p.l.idx(z, y, x);
  const int64_t sy = p.l.sy, sz = p.l.sz;
  const float pc = f.p_cur[i], qc = f.q_cur[i];
  float hx = 0, hy = 0, qz = 0;
#pragma unroll
  for (int k = 1; k <= R; ++k) {
    hx += p.w2[2][k] * (f.p_cur[i + k] - 2.0f * pc + f.p_cur[i - k]);
    hy += p.w2[1][k] * (f.p_cur[i + k * sy] - 2.0f * pc + f.p_cur[i - k * sy]);
    qz += p.w2[0][k] * (f.q_cur[i + k * sz] - 2.0f * qc + f.q_cur[i - k * sz]);
  }
  const float h0 = hx + hy;
  const float E = f.E[i], D = f.D[i], v = f.vdt2[i];
  const float pn = cuda::leapfrog(p.sponge, z, y, x, pc, f.p_prev[i], v, E * h0 + D * qz);
  const float qn = cuda::leapfrog(p.sponge, z, y, x, qc, f.q_prev[i], v, D * h0 + qz);
  f.p_next[i] = pn;
  f.q_next[i] = qn;
}

}  // namespace

template <int R>
void launch_vti_naive(const StepSpec& s, const AnisoFields& f, void* stream) {
  const auto p = cuda::AnisoParams<R>::from(s);
  const dim3 block(32, 4, 2);
  vti_naive_kernel<R>
      <<<cuda::region_grid(s, block), block, 0, static_cast<cudaStream_t>(stream)>>>(p, f);
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
  if (s.cpml_on()) return "CPML is not implemented for the anisotropic physics";
  return {};
}

template void launch_vti_naive<1>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<2>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<3>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<4>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<5>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<6>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<7>(const StepSpec&, const AnisoFields&, void*);
template void launch_vti_naive<8>(const StepSpec&, const AnisoFields&, void*);

}  // namespace seisfd
