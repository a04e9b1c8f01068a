// The launch and the registry entry of tti/oN/smem_ring and tti/oN/smem_ring_y2 (the kernel:
// kernels/cuda/tti_smem_ring.cuh): the tiling, the z chunks, the kernel for the step's options, the
// compact medium's kernels.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/tti_smem_ring.cuh"

namespace seisfd {

// The forward kernel of radius R reading the medium in precision p (not fp32), with or without
// the fused diagnostics (kernels/cuda/tti_smem_ring_compact.cu; one cell a thread).
const void* tti_smem_ring_compact_kernel(int R, ModelPrecision p, bool diag);

namespace {

// The launch of the variant with CY cells a thread (tti/oN/smem_ring: 1, smem_ring_y2: 2).
template <int R, int CY, bool kT>
void tti_smem_ring_launch(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  using S = TtiShape<R, CY>;
  const char* const name = CY == 1 ? "tti smem_ring" : "tti smem_ring_y2";
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  cuda::AnisoFields f = cuda::AnisoFields::from(a);
  const float *u, *w;
  cuda::stencil_inputs<kT>(s, a, st, u, w);
  // The ring and the axis buffers are filled by 16-byte copies.
  for (const float* ptr : {u, w, f.n[0], f.n[1], f.n[2]})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument(std::string(name) + ": field pointers must be 16-byte aligned");
  TtiParams<R> p{};
  static_cast<cuda::AnisoParams<R>&>(p) = cuda::AnisoParams<R>::from(s);
  const cuda::TileGrid tg = cuda::tile_grid(s, S::kTX, S::kTY);
  p.x_base = tg.x_base;
  p.tiles_x = tg.tiles_x;
  const int tiles_y = tg.tiles_y;
  const int nzu = s.end[0] - s.begin[0];

  cuda::DiagAccum* acc = a.diag;
  const void* kernel;
  if constexpr (!kT) {
    bool compact = false;  // CY = 2 reads the fp32 copy of the rounded values
    if constexpr (CY == 1) compact = a.compact.on();
    if (compact) {
      for (int k = 0; k < kMaxMediumArrays; ++k)
        if (reinterpret_cast<uintptr_t>(a.compact.code[k]) % 8 != 0)
          throw std::invalid_argument(std::string(name) +
                                      ": compact medium must be 8-byte aligned");
      kernel = tti_smem_ring_compact_kernel(R, a.compact.precision, acc != nullptr);
    } else {
      kernel = acc ? reinterpret_cast<const void*>(
                         &tti_smem_ring_kernel<R, false, false, true, ModelPrecision::kFp32, CY>)
                   : reinterpret_cast<const void*>(
                         &tti_smem_ring_kernel<R, false, false, false, ModelPrecision::kFp32, CY>);
    }
  } else {
    // The diagnostics of this step's p by the separate kernel.
    if (acc) cuda::launch_diagnostics(a.cur[0], s, acc, st);
    acc = nullptr;
    kernel = a.imaging.on()
                 ? reinterpret_cast<const void*>(
                       &tti_smem_ring_kernel<R, true, true, false, ModelPrecision::kFp32, CY>)
                 : reinterpret_cast<const void*>(
                       &tti_smem_ring_kernel<R, true, false, false, ModelPrecision::kFp32, CY>);
  }
  const size_t smem = sizeof(TtiSmem<R, CY>);
  // Each chunk runs 2R iterations beyond its planes; they compute g_z only (about half a plane).
  const int slots = cuda::resident_blocks(ctx.device, kernel, S::kThreads, smem);
  p.zchunk = cuda::plan_z_chunk(p.tiles_x * tiles_y, nzu, slots, 1.0 * R);
  const dim3 grid(p.tiles_x * tiles_y, (nzu + p.zchunk - 1) / p.zchunk);
  FusedImaging im = a.imaging;
  CompactMediumView cm = a.compact;
  void* args[] = {&p, &f, &u, &w, &im, &acc, &cm};
  CUDA_CHECK(cudaLaunchKernel(kernel, grid, dim3(S::kThreads), args, smem, st));
  CUDA_CHECK_LAUNCH();
}

// The narrow TTI operator only (the nested one runs on tti/oN/smem_nested and tti/oN/naive).
inline std::string can_implement_tti_smem_ring(const StepSpec& s, int compute_capability) {
  if (s.tti_operator != TtiOperator::kNarrow)
    return "implements physics.tti_operator = \"narrow\" only (\"nested\": tti/oN/smem_nested, "
           "tti/oN/naive)";
  return cuda::can_implement_vector_zmarch(s, compute_capability);
}

// The registry entry of the variant with CY cells a thread: what smem_ring and smem_ring_y2
// share (one pass forward and transposed, X and Y in two scratch arrays for the transposed launch,
// the imaging and the forward diagnostics fused; the compact medium read by CY = 1 only).
template <int R, int CY>
KernelVariant tti_smem_ring_entry(const char* technique, const char* description, int preference) {
  KernelVariant v = cuda::variant_entry(Physics::kTti, R, technique, description);
  v.min_compute_capability = 80;  // cp.async
  v.can_implement = &can_implement_tti_smem_ring;
  v.forward = &tti_smem_ring_launch<R, CY, false>;
  v.transposed = &tti_smem_ring_launch<R, CY, true>;
  v.scratch_arrays = 0;
  v.transposed_scratch_arrays = 2;  // X, Y
  v.fuses_imaging = true;
  v.fuses_diagnostics = true;        // forward; the transposed launch runs the separate reduction
  v.reads_compact_medium = CY == 1;  // forward
  v.preference = preference;
  return v;
}

}  // namespace
}  // namespace seisfd
