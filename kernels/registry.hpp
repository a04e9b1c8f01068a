// The kernel registry: every GPU variant by name `physics/oN/technique`, with what it supports
// and a plain C++ launch function (CUTLASS Manifest style: the table is built explicitly in
// one function, see registry.cpp). Configs and the bench select variants by name.
#pragma once
#include <string>
#include <vector>

#include "kernels/step_spec.hpp"

namespace seisfd {

namespace cuda {
struct DiagAccum;  // kernels/cuda/field_ops.hpp
}

// Device pointers of one acoustic update. `next` may alias `prev`. `diag` is for variants with
// fuses_diagnostics only (others ignore it): when set, the launch also accumulates the
// diagnostics of `cur` over the updated region into it.
struct AcousticFields {
  const float* prev = nullptr;
  const float* cur = nullptr;
  float* next = nullptr;
  const float* vdt2 = nullptr;
  cuda::DiagAccum* diag = nullptr;
};

using AcousticLaunchFn = void (*)(const StepSpec&, const AcousticFields&, void* stream);

// Device pointers of one VTI/TTI update (kernels/anisotropy.hpp). The next fields may alias
// the previous ones. E = 1 + 2 eps, D = sqrt(1 + 2 delta); TTI only: n, the symmetry axis
// (z, y, x components, reflected in the mirror rows above a free surface), and g, scratch for
// the cross-term intermediates of p (g[0..2]) and q (g[3..5]), each of the layout's size.
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
};
// The stencil update of p and q (sponge included); injection, free-surface mirroring of p and q
// and recording are the engine's.
using AnisoLaunchFn = void (*)(const StepSpec&, const AnisoFields&, void* stream);
// Returns an empty string if the variant can run this spec on this device, else the reason.
using CanImplementFn = std::string (*)(const StepSpec&, int compute_capability);

struct KernelVariant {
  std::string name;       // "acoustic/o8/naive"
  std::string physics;    // "acoustic"
  int order = 0;          // space order 2R
  std::string technique;  // "naive", "smem_regqueue", ...
  std::string description;
  int min_compute_capability = 0;  // e.g. 90 for TMA variants
  CanImplementFn can_implement = nullptr;
  AcousticLaunchFn launch = nullptr;     // physics "acoustic"
  AnisoLaunchFn launch_aniso = nullptr;  // physics "vti" and "tti"
  // The update kernel itself reduces AcousticFields::diag (no extra pass over the field).
  bool fuses_diagnostics = false;
};

// All variants compiled into this build (empty without the CUDA backend).
const std::vector<KernelVariant>& kernel_registry();
const KernelVariant* find_variant(const std::string& name);

// Resolves a config's kernel.variant for a physics and order: a name is checked (exists,
// matches the physics and order, can_implement); "auto" gives the first of runnable_variants
// (the engines measure instead: kernels/cuda/autotune.hpp). Throws std::invalid_argument with a
// message naming the variant and the reason.
const KernelVariant& resolve_variant(const std::string& requested, const std::string& physics,
                                     int order, const StepSpec& spec, int compute_capability);

// Every variant of the physics and order that can run `spec` on a device of this compute
// capability, in the registry's order of preference (fastest first where measured).
std::vector<const KernelVariant*> runnable_variants(const std::string& physics, int order,
                                                    const StepSpec& spec, int compute_capability);

}  // namespace seisfd
