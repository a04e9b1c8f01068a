#include "kernels/cuda/cpml.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/check.hpp"
#include "kernels/fd_coefficients.hpp"

namespace seisfd::cuda {
namespace {

template <int R>
struct SlabParams {
  Layout l;
  CpmlSlab slab;
  int64_t n;       // cells in the slab box
  int64_t stride;  // field elements between neighbours along the slab axis
  float d1[R + 1], d2[R + 1];
  const float* a;  // per index along the axis
  const float* b;
};

// Box index k -> grid index i and index j along the slab axis.
template <int R>
__device__ __forceinline__ void locate(const SlabParams<R>& p, int64_t k, int64_t& i, int& j) {
  int c[3];
  c[2] = static_cast<int>(k % p.slab.dims[2]);
  const int64_t t = k / p.slab.dims[2];
  c[1] = static_cast<int>(t % p.slab.dims[1]);
  c[0] = static_cast<int>(t / p.slab.dims[1]);
#pragma unroll
  for (int a = 0; a < 3; ++a)
    c[a] = a == p.slab.axis ? p.slab.global(c[a]) : p.slab.begin[a] + c[a];
  i = p.l.idx(c[0], c[1], c[2]);
  j = c[p.slab.axis];
}

template <int R>
__global__ void cpml_psi_kernel(SlabParams<R> p, const float* __restrict__ cur,
                                float* __restrict__ psi) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= p.n) return;
  int64_t i;
  int j;
  locate(p, k, i, j);
  float d1 = 0.0f;
#pragma unroll
  for (int m = 1; m <= R; ++m) d1 += p.d1[m] * (cur[i + m * p.stride] - cur[i - m * p.stride]);
  psi[k] = p.b[j] * psi[k] + p.a[j] * d1;
}

// The second target of the coupled (VTI/TTI) form; unused by the acoustic instantiation.
struct CoupledTargets {
  const float* wa = nullptr;  // weight of next's correction (null: 1)
  float* next_b = nullptr;
  const float* wb = nullptr;  // weight of next_b's correction (null: 1)
};

template <int R, bool kCoupled>
__global__ void cpml_correct_kernel(SlabParams<R> p, const float* __restrict__ cur,
                                    const float* __restrict__ psi, float* __restrict__ zeta,
                                    const float* __restrict__ vdt2, float* next, CoupledTargets t) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= p.n) return;
  int64_t i;
  int j;
  locate(p, k, i, j);
  const int kl = p.slab.local(j);
  const int64_t bs = p.slab.stride();
  float d2 = p.d2[0] * cur[i], dpsi = 0.0f;
#pragma unroll
  for (int m = 1; m <= R; ++m) {
    d2 += p.d2[m] * (cur[i + m * p.stride] + cur[i - m * p.stride]);
    const int up = p.slab.local(j + m), dn = p.slab.local(j - m);
    const float pu = up >= 0 ? psi[k + (up - kl) * bs] : 0.0f;
    const float pd = dn >= 0 ? psi[k + (dn - kl) * bs] : 0.0f;
    dpsi += p.d1[m] * (pu - pd);
  }
  const float z = p.b[j] * zeta[k] + p.a[j] * (d2 + dpsi);
  zeta[k] = z;
  const float c = vdt2[i] * (dpsi + z);
  if constexpr (!kCoupled) {
    next[i] += c;
  } else {
    next[i] += t.wa ? t.wa[i] * c : c;
    t.next_b[i] += t.wb ? t.wb[i] * c : c;
  }
}

template <int R>
SlabParams<R> make_params(const StepSpec& s, const CpmlSlab& slab, const float* a, const float* b) {
  SlabParams<R> p{};
  p.l = s.layout;
  p.slab = slab;
  p.n = slab.size();
  p.stride = slab.axis == 0 ? s.layout.sz : slab.axis == 1 ? s.layout.sy : 1;
  const auto w1 = first_derivative_weights(R);
  const auto w2 = second_derivative_weights(R);
  const double h = s.h[slab.axis];
  for (int m = 0; m <= R; ++m) {
    p.d1[m] = static_cast<float>(w1[m] / h);
    p.d2[m] = static_cast<float>(w2[m] / (h * h));
  }
  p.a = a;
  p.b = b;
  return p;
}

constexpr int kBlock = 256;

unsigned blocks(int64_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

template <int R>
void psi_r(const StepSpec& s, const CpmlSlab& sl, const float* a, const float* b, const float* cur,
           float* psi, cudaStream_t st) {
  const auto p = make_params<R>(s, sl, a, b);
  cpml_psi_kernel<R><<<blocks(p.n), kBlock, 0, st>>>(p, cur, psi);
  CUDA_CHECK_LAUNCH();
}

template <int R>
void correct_r(const StepSpec& s, const CpmlSlab& sl, const float* a, const float* b,
               const float* cur, const float* psi, float* zeta, const float* vdt2, float* next,
               const CoupledTargets& t, cudaStream_t st) {
  const auto p = make_params<R>(s, sl, a, b);
  if (t.next_b)
    cpml_correct_kernel<R, true><<<blocks(p.n), kBlock, 0, st>>>(p, cur, psi, zeta, vdt2, next, t);
  else
    cpml_correct_kernel<R, false><<<blocks(p.n), kBlock, 0, st>>>(p, cur, psi, zeta, vdt2, next, t);
  CUDA_CHECK_LAUNCH();
}

using PsiFn = void (*)(const StepSpec&, const CpmlSlab&, const float*, const float*, const float*,
                       float*, cudaStream_t);
using CorrectFn = void (*)(const StepSpec&, const CpmlSlab&, const float*, const float*,
                           const float*, const float*, float*, const float*, float*,
                           const CoupledTargets&, cudaStream_t);
// Indexed by the radius R = 1..8.
constexpr PsiFn kPsi[] = {nullptr,  psi_r<1>, psi_r<2>, psi_r<3>, psi_r<4>,
                          psi_r<5>, psi_r<6>, psi_r<7>, psi_r<8>};
constexpr CorrectFn kCorrect[] = {nullptr,      correct_r<1>, correct_r<2>,
                                  correct_r<3>, correct_r<4>, correct_r<5>,
                                  correct_r<6>, correct_r<7>, correct_r<8>};

}  // namespace

CpmlBoundary::CpmlBoundary(const StepSpec& spec, cudaStream_t s) : spec_(spec) {
  if (spec.radius < 1 || spec.radius > kMaxRadius)
    throw std::invalid_argument("cpml: radius " + std::to_string(spec.radius) + " out of 1..8");
  for (int ax = 0; ax < 3; ++ax) {
    on_[ax] = spec.cpml.d0[ax] > 0;
    slab_[ax] = CpmlSlab::make(spec, ax);
    if (!on_[ax] || slab_[ax].size() == 0) {
      on_[ax] = false;
      continue;
    }
    std::vector<double> a, b;
    cpml_profile(spec, ax, a, b);
    a_[ax] = DeviceBuffer<float>(a.size());
    b_[ax] = DeviceBuffer<float>(b.size());
    a_[ax].upload(std::vector<float>(a.begin(), a.end()), s);
    b_[ax].upload(std::vector<float>(b.begin(), b.end()), s);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
}

void CpmlBoundary::launch_psi(const CpmlMemory& m, const float* const src[3],
                              cudaStream_t st) const {
  for (int ax = 0; ax < 3; ++ax) {
    if (!on_[ax]) continue;
    kPsi[spec_.radius](spec_, slab_[ax], a_[ax].get(), b_[ax].get(), src[ax], m.psi[ax], st);
  }
}

void CpmlBoundary::launch_correct(const CpmlMemory& m, const float* const src[3], const float* vdt2,
                                  float* next_a, const float* const wa[3], float* next_b,
                                  const float* const wb[3], cudaStream_t st) const {
  // One axis after another: a cell in two layers gets both corrections, in a fixed order.
  for (int ax = 0; ax < 3; ++ax) {
    if (!on_[ax]) continue;
    if (!next_b && wa[ax])
      throw std::invalid_argument("cpml: a weighted correction of one field is not implemented");
    const CoupledTargets t = next_b ? CoupledTargets{wa[ax], next_b, wb[ax]} : CoupledTargets{};
    kCorrect[spec_.radius](spec_, slab_[ax], a_[ax].get(), b_[ax].get(), src[ax], m.psi[ax],
                           m.zeta[ax], vdt2, next_a, t, st);
  }
}

}  // namespace seisfd::cuda
