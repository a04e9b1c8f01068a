// CPML on the device (kernels/cpml.hpp has the equations): the auxiliary fields psi and zeta
// of each axis live in that axis's two layers only (they belong to the state: CpmlMemory), the
// profile to the engine (CpmlBoundary), and two boundary launches per axis run around the
// unchanged interior update:
//   launch_psi(mem, src)                         psi_d = b psi_d + a D1_d src[d]     (before)
//   <interior variant>                           next = 2 cur - prev + vdt2 L cur
//   launch_correct(mem, src, vdt2, next_a, ...)  zeta_d, next += vdt2 w_d c_d         (after)
// with c_d = D1_d psi_d + zeta_d, axis d driven by the field src[d] (the physics' traits say
// which) and its correction added to one field, or to two fields with per-cell weights.
#pragma once
#include <cuda_runtime_api.h>

#include "kernels/cpml.hpp"
#include "kernels/cuda/buffer.hpp"

namespace seisfd::cuda {

// Device pointers of one state's memory variables (null on axes without layers).
struct CpmlMemory {
  float* psi[3] = {nullptr, nullptr, nullptr};
  float* zeta[3] = {nullptr, nullptr, nullptr};
};

class CpmlBoundary {
 public:
  explicit CpmlBoundary(const StepSpec& spec, cudaStream_t s);

  // Cells of psi (and of zeta) on axis ax's slab; 0 where the axis has no layers.
  int64_t slab_cells(int ax) const { return on_[ax] ? slab_[ax].size() : 0; }

  // psi_d driven by src[d].
  void launch_psi(const CpmlMemory& m, const float* const src[3], cudaStream_t s) const;
  // next_a += vdt2 wa[d] c_d and, when next_b is not null, next_b += vdt2 wb[d] c_d (per-cell
  // weights over the layout; a null weight is 1; without next_b every wa must be null).
  void launch_correct(const CpmlMemory& m, const float* const src[3], const float* vdt2,
                      float* next_a, const float* const wa[3], float* next_b,
                      const float* const wb[3], cudaStream_t s) const;

 private:
  StepSpec spec_;
  bool on_[3] = {false, false, false};
  CpmlSlab slab_[3];
  DeviceBuffer<float> a_[3], b_[3];
};

}  // namespace seisfd::cuda
