// The CPU backend's kernel variants, by name like the GPU registry's (`physics/oN/technique`):
//   reference  kernels/reference/: the readable update every other kernel is verified against
//   regqueue   kernels/cpu/zmarch.hpp: explicit vectors, a register queue in z, lane-shifted x
//              neighbours, prefetched z-march (acoustic)
//   simd       kernels/cpu/vti_simd.hpp: regqueue's techniques for VTI (a register queue on q's
//              z column, p's x neighbours by lane shifts); kernels/cpu/tti_simd.hpp: explicit
//              vectors in both passes, no bounds checks, H_z of p and q together (TTI)
//   blocked    kernels/cpu/blocked.hpp: vectorised loops, cache-blocked (acoustic, VTI, TTI)
// `seisfd kernels` lists them; kernel.variant selects one on the CPU backend, "auto" the fastest
// there is for the physics.
#pragma once
#include <string>
#include <vector>

#include "kernels/physics.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd::cpu {

enum class Technique { kReference, kBlocked, kRegQueue, kSimd };

struct CpuVariant {
  std::string name;  // "acoustic/o8/blocked"
  Physics physics = Physics::kAcoustic;
  int order = 0;
  Technique technique = Technique::kReference;
  std::string technique_name;
  std::string description;
};

// Every CPU variant, for every physics and order 2..16, fastest first within a physics/order.
const std::vector<CpuVariant>& cpu_variants();

// kernel.variant on the CPU backend: "auto" (the fastest for this physics and order), a full
// name ("acoustic/o8/blocked"), or a technique ("blocked", "reference"). Throws
// std::invalid_argument naming the variant and why it does not fit. The nested TTI operator
// (StepSpec::tti_operator) is implemented by simd and reference only.
const CpuVariant& resolve_cpu_variant(const std::string& requested, Physics physics, int order,
                                      TtiOperator tti_operator = TtiOperator::kNarrow);

}  // namespace seisfd::cpu
