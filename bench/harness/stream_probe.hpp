// The streaming kernels the benchmark measures variants against (docs/benchmarks.md §3). Plain
// C++ launch functions.
#pragma once
#include <cstdint>

namespace seisfd::bench {

// The acoustic access pattern without the stencil: next[i] = 2 cur[i] - prev[i] + vdt2[i] cur[i]
// for i < n (n a multiple of 4), 16-byte accesses; `next` may alias `prev`.
void launch_acoustic_stream(int64_t n, const float* prev, const float* cur, float* next,
                            const float* vdt2, void* stream);

// The pseudo-acoustic access patterns of docs/benchmarks.md §2 without the stencil, 16-byte
// accesses over n cells (a multiple of 4): `in` holds the arrays read, `out` the two written (p and
// q next), which may alias in[0] and in[1] (p and q previous), as the engine rotates them. VTI
// reads 7 arrays (p, q at two levels, (v dt)^2, E, D): 36 B/cell; TTI also reads the two tilt
// angles: 44 B/cell. `reads` is 7 or 9.
void launch_aniso_stream(int64_t n, int reads, const float* const* in, float* const out[2],
                         void* stream);

}  // namespace seisfd::bench
