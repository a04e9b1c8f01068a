#!/usr/bin/env bash
# One call on the GPU machine for the VTI/TTI physics (issues 3 and 4): the GPU tests of the
# anisotropic engine (every variant against the CPU reference with sponge and with VTI CPML,
# the GPU adjoint's dot tests and its comparison with the CPU adjoint, VTI CPML stability over
# 20,000 steps, the refusals) with skips forbidden, and compute-sanitizer memcheck on the
# order-8 tests. ANISO_BENCH=1 adds the naive throughput at 512^3 order 8.
#
# The test binary is built with the device preset, unless a working one was carried in
# ANISO_BIN (an x86-64 build of this tree from the session's machine saves the build time).
# Run from the repo root with .deps carried (scripts/prepare_device_deps.sh). Fewer than 8
# files come back from $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_aniso_out}
mkdir -p "$OUT"
S="$OUT/summary.txt"
log() { echo "== $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$S"

BIN=${ANISO_BIN:-}
if [ -n "$BIN" ] && [ -x "$BIN" ] &&
  SEISFD_REQUIRE_GPU=1 "$BIN" --gtest_filter='GpuAnisoCpmlRefusals.*' > "$OUT/probe.log" 2>&1; then
  log "using the carried binary $BIN"
else
  log "configure + build (device preset)"
  t0=$(date +%s)
  { cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 -DSEISFD_TESTS=ON &&
    cmake --build --preset device -j 16 --target test_gpu_anisotropic; } \
    > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
  BIN=build/device/tests/test_gpu_anisotropic
fi

log "GPU tests (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
t0=$(date +%s)
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 180 "$BIN" > "$T" 2>&1
echo "test_gpu_anisotropic rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E '^\[gpu-aniso|^\[  (PASSED|FAILED|SKIPPED) |Failure' "$T" | tee -a "$S"

log "compute-sanitizer memcheck (order 8: VTI CPML, adjoint)"
M="$OUT/memcheck.log"
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 120 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$BIN" --gtest_filter='*GpuAnisoCpml.*vti_o8*:*GpuAnisoAdjoint*o8*' > "$M" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$M" | tail -1)" | tee -a "$S"
grep -E '^\[  (PASSED|FAILED) ' "$M" | tee -a "$S"

if [ "${ANISO_BENCH:-0}" = 1 ]; then
  log "throughput 512^3 order 8"
  SEISFD_REQUIRE_GPU=1 SEISFD_ANISO_BENCH_CSV="$OUT/aniso_bench.csv" OMP_NUM_THREADS=16 \
    timeout 90 "$BIN" --gtest_filter='GpuAnisoBench*' --gtest_also_run_disabled_tests \
    > "$OUT/bench.log" 2>&1
  echo "bench rc=$?" | tee -a "$S"
  grep -E '^\[aniso-bench\]' "$OUT/bench.log" | tee -a "$S"
fi
