// CPML on the device (kernels/cpml.hpp has the equations): the auxiliary fields psi and zeta
// of each axis live in that axis's two layers only, and two boundary launches per axis run
// around the unchanged interior update:
//   launch_psi(cur)                      psi_d = b psi_d + a D1_d cur        (before)
//   <interior variant>                   next = 2 cur - prev + vdt2 L cur
//   launch_correct(cur, vdt2, next)      zeta_d, next += vdt2 (D1_d psi_d + zeta_d)   (after)
// The VTI/TTI engine uses the coupled form (kernels/cpml.hpp): axis d driven by src[d], its
// correction c_d added to two fields with per-cell weights.
#pragma once
#include <cuda_runtime_api.h>

#include "kernels/cpml.hpp"
#include "kernels/cuda/buffer.hpp"

namespace seisfd::cuda {

class CpmlBoundary {
 public:
  explicit CpmlBoundary(const StepSpec& spec, cudaStream_t s);

  void launch_psi(const float* cur, cudaStream_t s);
  void launch_correct(const float* cur, const float* vdt2, float* next, cudaStream_t s);

  // Coupled form: psi_d driven by src[d]; next_a += vdt2 wa[d] c_d and next_b += vdt2 wb[d] c_d
  // (per-cell weights over the layout; a null weight is 1).
  void launch_psi(const float* const src[3], cudaStream_t s);
  void launch_correct(const float* const src[3], const float* vdt2, float* next_a,
                      const float* const wa[3], float* next_b, const float* const wb[3],
                      cudaStream_t s);

 private:
  StepSpec spec_;
  bool on_[3] = {false, false, false};
  CpmlSlab slab_[3];
  DeviceBuffer<float> psi_[3], zeta_[3], a_[3], b_[3];
};

}  // namespace seisfd::cuda
