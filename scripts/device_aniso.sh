#!/usr/bin/env bash
# One call on the GPU machine for the VTI/TTI physics (issue 4): build (device preset) the GPU
# test of the anisotropic variants and seisfd, run it with skips forbidden, compute-sanitizer
# memcheck on the naive VTI/TTI kernels, the naive throughput at 512^3 order 8, and the two
# anisotropic example configs on the GPU. Fewer than 8 files come back from $OUT.
# Run from the repo root with .deps carried (scripts/prepare_device_deps.sh).
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_aniso_out}
mkdir -p "$OUT"
S="$OUT/summary.txt"
log() { echo "== $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$S"

log "configure + build"
t0=$(date +%s)
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 -DSEISFD_TESTS=ON &&
  cmake --build --preset device -j 16 --target test_gpu_anisotropic seisfd; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E "spill" "$OUT/build.log" | grep -E "vti|tti|aniso" | head -10 >> "$S"
B=build/device

log "GPU tests (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 100 $B/tests/test_gpu_anisotropic > "$T" 2>&1
echo "test_gpu_anisotropic rc=$?" | tee -a "$S"
grep -E '^\[gpu-aniso\]|^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tee -a "$S"

log "throughput 512^3 order 8"
SEISFD_REQUIRE_GPU=1 SEISFD_ANISO_BENCH=1 SEISFD_ANISO_BENCH_CSV="$OUT/aniso_bench.csv" \
  OMP_NUM_THREADS=16 timeout 90 $B/tests/test_gpu_anisotropic --gtest_filter='GpuAnisoBench*' --gtest_also_run_disabled_tests \
  > "$OUT/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$S"
grep -E '^\[aniso-bench\]' "$OUT/bench.log" | tee -a "$S"

log "compute-sanitizer memcheck (o4 and o16, vti and tti)"
M="$OUT/sanitizer.log"
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 75 compute-sanitizer --tool memcheck \
  --error-exitcode 9 $B/tests/test_gpu_anisotropic --gtest_filter='*o4_naive*:*o16_naive*' > "$M" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$M" | tail -1)" | tee -a "$S"
grep -E '^\[gpu-aniso\]|^\[  (PASSED|FAILED) ' "$M" | tee -a "$S"

log "example configs on the GPU"
for c in vti_layered tti_salt; do
  timeout 30 $B/app/seisfd run configs/$c.toml --set output.directory=\"/tmp/$c\" --overwrite \
    > "$OUT/run_$c.log" 2>&1
  echo "$c rc=$? $(tail -3 "$OUT/run_$c.log" | tr '\n' ' ')" | tee -a "$S"
done
