// `seisfd bench --backend cpu`: the CPU backend's variants (kernels/cpu/cpu_variants.hpp)
// verified against the reference update, then timed as whole engine steps (OpenMP, the threads
// OMP_NUM_THREADS gives) against the CPU's streaming ceiling of the physics' access pattern,
// measured in the same run: the same bytes per cell (acoustic 16, VTI 36, TTI 44: the fields'
// two levels read, the new level written, the coefficients read) streamed by a plain OpenMP
// loop over arrays of the grid's size, first-touched by the threads that stream them.
#pragma once
#include <cstdint>
#include <string>

#include "bench/harness/harness.hpp"
#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/engine.hpp"
#include "kernels/medium.hpp"

namespace seisfd::bench {

// A smooth heterogeneous anisotropic medium over the whole layout: v 1500-2100 m/s, eps
// 0.1-0.3, eps - delta 0.05-0.15, theta 5-55 degrees, phi over the full circle (acoustic: the
// velocity only).
Medium bench_medium(const StepSpec& s, Physics kind);

// dt at half the stability bound of bench_medium's fastest direction (v_max sqrt(1 + 2 eps_max)).
double bench_dt(const StepSpec& spec);

// `test` against `ref` (engines over the same spec and medium): a point source near the centre
// with a random trace (seed), recorded at a cell off the centre, `steps` steps, p compared over
// the updated region; fails on a relative L2 above `tolerance` or a non-finite cell of `test`.
VerifyResult compare_engines(Engine& ref, Engine& test, const StepSpec& spec, int steps,
                             uint32_t seed, double tolerance);

// The processor's model name and the OpenMP threads a run uses (DeviceSummary::multiprocessors).
DeviceSummary current_cpu();

// The variant against the fp32 reference engine: a point source with a random trace in
// bench_medium, `steps` steps, p compared over the updated region.
VerifyResult verify_cpu_variant(const cpu::CpuVariant& v, const StepSpec& spec, int steps,
                                uint32_t seed, double tolerance);

// Milliseconds per step of `steps` engine steps from fields of hashed values, `repeats` times.
Timing time_cpu_variant(const cpu::CpuVariant& v, const StepSpec& spec, int steps, int repeats,
                        int warmup);

// The streaming loop of the physics' pattern over spec.layout.cells() cells, timed the same way.
Timing time_cpu_stream_ceiling(const StepSpec& spec, Physics physics, int steps, int repeats,
                               int warmup);

}  // namespace seisfd::bench
