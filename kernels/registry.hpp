// The kernel registry: every GPU variant by name `physics/oN/technique`, with what it supports,
// its forward and transposed update launches and its byte count (CUTLASS's Manifest: a table of
// operations chosen by name at run time). Each variant's file registers its entries
// (register_<file>() over every order it compiles), and kernels/cuda/variants.def lists the
// files, one line each. Configs, engines and the bench select variants by name.
#pragma once
#include <string>
#include <vector>

#include "kernels/exec.hpp"
#include "kernels/model_precision.hpp"
#include "kernels/physics.hpp"
#include "kernels/step_spec.hpp"

namespace seisfd {

namespace cuda {
struct DiagAccum;  // kernels/cuda/field_ops.hpp
}

// Device pointers of one update of any physics (traits(physics) says which are used). Field 0
// is p, field 1 q; next[f] may alias prev[f] (the engine writes the new level over the oldest).
// medium: the coefficient arrays in MediumArray order. scratch: the variant's scratch arrays
// (scratch_arrays of them, each of the layout's size, zero where the variant does not write).
// diag: for variants with fuses_diagnostics only (others ignore it): when set, the launch also
// accumulates the diagnostics of cur[0] over the updated region into it.
// The imaging fused into an adjoint update (Engine::advance_imaging, docs/migration.md §3):
// with d2_f = (v dt)^2 f_f the update's own second time difference of field f (times dt^2:
// (1+g) next - 2 cur + (1-g) prev, before any injection),
//   cc += cc_scale * sum_f u_f d2_f,   il += k u_0^2,   zl += k u_0 cur_0
// over the updated region. u: the source field per field, fp32 or binary16 (u_half), of the
// layout's size; images left null are skipped; all null: no imaging.
struct FusedImaging {
  const void* u[kMaxFields] = {nullptr, nullptr};
  bool u_half = false;
  float* cc = nullptr;
  float* il = nullptr;
  float* zl = nullptr;
  float cc_scale = 0;
  float k = 0;
  bool on() const { return cc || il || zl; }
};

// The medium's coefficients as 16-bit codes (kernel.model_precision, kernels/model_precision.hpp):
// set where the precision is not fp32, for the variants with reads_compact_medium; code[a]
// decodes to fmaf(scale[a], value(code), offset[a]), exactly the value UpdateArgs::medium[a]
// holds in fp32 (what every other variant and pass reads), except code[kE], which holds G = E -
// D^2: E = fmaf(D, D, G) (kernels/medium.hpp medium_coefficients says why).
struct CompactMediumView {
  ModelPrecision precision = ModelPrecision::kFp32;
  const uint16_t* code[kMaxMediumArrays] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  float scale[kMaxMediumArrays] = {1, 1, 1, 1, 1, 1};
  float offset[kMaxMediumArrays] = {0, 0, 0, 0, 0, 0};
  bool on() const { return precision != ModelPrecision::kFp32; }
};

struct UpdateArgs {
  const float* prev[kMaxFields] = {nullptr, nullptr};
  const float* cur[kMaxFields] = {nullptr, nullptr};
  float* next[kMaxFields] = {nullptr, nullptr};
  const float* medium[kMaxMediumArrays] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  CompactMediumView compact;
  float* scratch[8] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  cuda::DiagAccum* diag = nullptr;
  // For variants with fuses_imaging, in the transposed launch only (others ignore it).
  FusedImaging imaging;
};
inline constexpr int kMaxScratchArrays = 8;

// One update, sponge included (CPML corrections, injection, free surface and recording are the
// engine's). Enqueued on ctx.stream of ctx.device.
using LaunchFn = void (*)(const StepSpec&, const UpdateArgs&, const ExecContext&);
// Returns an empty string if the variant can run this spec on this device, else the reason.
using CanImplementFn = std::string (*)(const StepSpec&, int compute_capability);

struct KernelVariant {
  std::string name;  // "acoustic/o8/naive"
  Physics physics = Physics::kAcoustic;
  int order = 0;          // space order 2R
  std::string technique;  // "naive", "smem_regqueue", ...
  std::string description;
  int min_compute_capability = 0;  // e.g. 90 for TMA variants
  CanImplementFn can_implement = nullptr;
  LaunchFn forward = nullptr;
  // The transposed update (docs/physics.md §7): what the adjoint steps. The acoustic update is
  // its own transpose, so acoustic variants register `forward` here too. Null: none.
  LaunchFn transposed = nullptr;
  // Layout-sized scratch arrays (UpdateArgs::scratch[0..k)) the forward launch uses, and the
  // transposed one (allocated at the first adjoint step).
  int scratch_arrays = 0;
  int transposed_scratch_arrays = 0;
  // Minimal DRAM bytes per cell and step this variant's data layout needs (fp32: the physics'
  // min_bytes_per_cell): the effective bandwidth the bench reports.
  double bytes_per_cell = 0;
  bool fuses_diagnostics = false;  // the update kernel itself reduces UpdateArgs::diag
  bool fuses_imaging = false;      // the transposed launch applies UpdateArgs::imaging
  // The forward launch reads UpdateArgs::compact where it is on (the transposed one and other
  // variants read the fp32 copy of the same values).
  bool reads_compact_medium = false;
  // Rank for "auto" where nothing is measured (SEISFD_AUTOTUNE=0, a single candidate), lower
  // first; each file says which measurement set it.
  int preference = 100;
};

// Adds a file's entries to the table (kernels/cuda/variants.def lists these functions).
using RegisterFn = void (*)(std::vector<KernelVariant>&);

// All variants compiled into this build (empty without the CUDA backend).
const std::vector<KernelVariant>& kernel_registry();
const KernelVariant* find_variant(const std::string& name);

// Resolves a config's kernel.variant for a physics and order: a name is checked (exists,
// matches the physics and order, can_implement); "auto" gives the first of runnable_variants
// (the engines measure instead: kernels/cuda/autotune.hpp). Throws std::invalid_argument with a
// message naming the variant and the reason.
const KernelVariant& resolve_variant(const std::string& requested, Physics physics, int order,
                                     const StepSpec& spec, int compute_capability);

// Every variant of the physics and order that can run `spec` on a device of this compute
// capability, in the order of preference.
std::vector<const KernelVariant*> runnable_variants(Physics physics, int order,
                                                    const StepSpec& spec, int compute_capability);

}  // namespace seisfd
