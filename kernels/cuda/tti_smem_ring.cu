// tti/oN/smem_ring: the launches and the registry entries of the z-marching TTI kernel
// (kernels/cuda/tti_smem_ring.cuh says how it works).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/tti_smem_ring.cuh"

namespace seisfd {

// The forward kernel of radius R reading the medium in precision p (not fp32), with or without
// the fused diagnostics (kernels/cuda/tti_smem_ring_compact.cu).
const void* tti_smem_ring_compact_kernel(int R, ModelPrecision p, bool diag);

namespace {

template <int R, bool kT>
void launch(const StepSpec& s, const UpdateArgs& a, const ExecContext& ctx) {
  using S = TtiShape<R>;
  const auto st = static_cast<cudaStream_t>(ctx.stream);
  cuda::AnisoFields f = cuda::AnisoFields::from(a);
  const float* u = f.p_cur;
  const float* w = f.q_cur;
  if constexpr (kT) {
    u = a.scratch[0];
    w = a.scratch[1];
    cuda::launch_transposed_inputs(s, a, a.scratch[0], a.scratch[1], st);
  }
  // The ring and the axis buffers are filled by 16-byte copies.
  for (const float* ptr : {u, w, f.n[0], f.n[1], f.n[2]})
    if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument("tti smem_ring: field pointers must be 16-byte aligned");
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
    if (a.compact.on()) {
      for (int k = 0; k < kMaxMediumArrays; ++k)
        if (reinterpret_cast<uintptr_t>(a.compact.code[k]) % 8 != 0)
          throw std::invalid_argument("tti smem_ring: compact medium must be 8-byte aligned");
      kernel = tti_smem_ring_compact_kernel(R, a.compact.precision, acc != nullptr);
    } else {
      kernel = acc ? reinterpret_cast<const void*>(&tti_smem_ring_kernel<R, false, false, true>)
                   : reinterpret_cast<const void*>(&tti_smem_ring_kernel<R, false, false, false>);
    }
  } else {
    // The diagnostics of this step's p by the separate kernel.
    if (acc) cuda::launch_diagnostics(a.cur[0], s, acc, st);
    acc = nullptr;
    kernel = a.imaging.on()
                 ? reinterpret_cast<const void*>(&tti_smem_ring_kernel<R, true, true, false>)
                 : reinterpret_cast<const void*>(&tti_smem_ring_kernel<R, true, false, false>);
  }
  const size_t smem = sizeof(TtiSmem<R>);
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

}  // namespace

void register_tti_smem_ring(std::vector<KernelVariant>& t) {
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    KernelVariant v = cuda::variant_entry(
        Physics::kTti, R, "smem_ring",
        "z-marching TTI: p and q (X, Y transposed) through a shared-memory ring of 2R+2 planes "
        "of a 32-wide xy tile, the cross-term intermediates on the tile and its halo in shared "
        "memory, D1_z of g_z scattered into register queues; one pass, 48 B a cell");
    v.min_compute_capability = 80;  // cp.async
    v.can_implement = &cuda::can_implement_vector_zmarch;
    v.forward = &launch<R, false>;
    v.transposed = &launch<R, true>;
    v.scratch_arrays = 0;
    v.transposed_scratch_arrays = 2;  // X, Y
    v.fuses_imaging = true;
    v.fuses_diagnostics = true;     // forward; the transposed launch runs the separate reduction
    v.reads_compact_medium = true;  // forward
    v.preference = cuda::tuning::kPreferenceTtiSmemRing;
    t.push_back(v);
  });
}

}  // namespace seisfd
