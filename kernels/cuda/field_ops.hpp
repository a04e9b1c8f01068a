// Small kernels around the stencil update: sparse injection and recording, free-surface
// mirroring, diagnostics reduction, strided sub-box gather. Plain C++ launch functions.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/engine.hpp"

#include "kernels/step_spec.hpp"

namespace seisfd::cuda {

// Injection grouped by target cell so each cell is written by one thread, in a fixed order
// (no atomics: results are bit-reproducible). Cell c receives
// sum_{e in [cell_offset[c], cell_offset[c+1])} coef[e] * traces[point[e] * nt + n].
struct InjectionView {
  const int64_t* cell = nullptr;
  const int64_t* cell_offset = nullptr;
  const int* point = nullptr;
  const float* coef = nullptr;
  const float* traces = nullptr;
  int ncells = 0;
  int nt = 0;
};
// The step counter lives on the device (a graph replays the same launches for any chunk):
// injection adds trace sample n = *step + offset (nothing once n >= nt) to `field` and, when
// not null, to `field2` (the forward anisotropic update injects into p and q alike).
void launch_inject(float* field, float* field2, const InjectionView& v, const int* step, int offset,
                   cudaStream_t s);

struct RecordingView {
  const int64_t* offset = nullptr;
  const int64_t* index = nullptr;
  const float* weight = nullptr;
  float* out = nullptr;  // [npoints][nt]
  int npoints = 0;
  int nt = 0;
};
// Records `field`, or field + field2 when field2 is not null (the anisotropic adjoint), into
// sample *step + offset (nothing once it is >= nt).
void launch_record(const float* field, const float* field2, const RecordingView& v, const int* step,
                   int offset, cudaStream_t s);
void launch_set_step(int* step, int value, cudaStream_t s);
void launch_advance_step(int* step, int by, cudaStream_t s);

void launch_free_surface(float* field, const Layout& l, int surface, int radius, cudaStream_t s);

// A reduction's totals: every block of a reducing launch commits its part with one atomic per
// quantity (fire-and-forget reductions: no fence, no counter, nothing that waits).
struct DiagAccum {
  double sum_sq;
  unsigned int max_abs_bits;  // float bits of max |p| (non-negative floats order as ints)
  unsigned int published;     // in a ring slot: the number of the reduction it holds (1, 2, ...)
  unsigned long long nonfinite;
  unsigned long long first_nonfinite;  // ~0ull when none
};
// Where finished reductions go: `size` slots of pinned host memory mapped for the device (the
// host reads a slot once an event behind its publishing launch has completed), the next
// reduction to slot published % size.
struct DiagRing {
  DiagAccum* slots;
  unsigned int size;
  unsigned int published;
};
// The host view of an accumulator that has been copied back.
inline Diagnostics to_diagnostics(const DiagAccum& a) {
  Diagnostics d;
  d.sum_sq = a.sum_sq;
  float mx;
  static_assert(sizeof(mx) == sizeof(a.max_abs_bits));
  std::memcpy(&mx, &a.max_abs_bits, sizeof(mx));
  d.max_abs = mx;
  d.nonfinite = static_cast<int64_t>(a.nonfinite);
  d.first_nonfinite = a.nonfinite ? static_cast<int64_t>(a.first_nonfinite) : -1;
  return d;
}

// Zero totals in acc[0, count).
void launch_diag_reset(DiagAccum* acc, cudaStream_t s, int count = 1);
// Adds the field over the updated region into acc's totals.
void launch_diagnostics(const float* field, const StepSpec& spec, DiagAccum* acc, cudaStream_t s);
// One thread, after the reductions into acc[0, count): copies them into the ring's next slots
// in order, zeroes them for the next ones, and, with `step`, advances the step counter by `by`
// (the end of a chunk does both in one launch).
void launch_diag_publish(DiagRing* ring, DiagAccum* acc, int count, cudaStream_t s,
                         int* step = nullptr, int by = 0);

// out (C order, n[0] x n[1] x n[2]) = field at lo + i * dec.
void launch_gather_box(const float* field, const Layout& l, const int lo[3], const int n[3],
                       const int dec[3], float* out, cudaStream_t s);
// Up to kMaxBoxes boxes of a field, concatenated in order (each C order, unit stride), in one
// launch over the concatenation: the edge strips of a reconstruction or a halo, whose thin
// faces (a few cells across) would leave most threads of a per-row launch idle. Throws
// std::invalid_argument for more boxes.
inline constexpr int kMaxBoxes = 8;
void launch_gather_boxes(const float* field, const Layout& l, const std::vector<Box>& boxes,
                         float* out, cudaStream_t s);
void launch_scatter_boxes(float* field, const Layout& l, const std::vector<Box>& boxes,
                          const float* in, cudaStream_t s);

// p[i] = offset + scale * u_i, u_i in [-1, 1) from a hash of (i, seed): cheap, non-zero,
// different per array, reproducible (inputs for timing and verification).
void launch_fill_hash(float* p, int64_t n, uint32_t seed, float offset, float scale, void* stream);

}  // namespace seisfd::cuda
