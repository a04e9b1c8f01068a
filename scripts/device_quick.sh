#!/usr/bin/env bash
# A short device call after a small change: build the GPU test binaries, run them with skips
# forbidden, memcheck on order 8. Logs in $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_quick}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/summary.txt"
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target test_gpu test_gpu_anisotropic; } > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
B=build/device
for t in test_gpu test_gpu_anisotropic; do
  SEISFD_REQUIRE_GPU=1 $B/tests/$t > "$OUT/$t.log" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$t.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
done
compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_anisotropic \
  --gtest_filter='*o8*' > "$OUT/memcheck.log" 2>&1
echo "memcheck aniso o8 rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)" | tee -a "$OUT/summary.txt"
compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu \
  --gtest_filter='GpuDiagnostics.*:*MatchesCpuReference*acoustic_o8_smem_regqueue' > "$OUT/memcheck2.log" 2>&1
echo "memcheck acoustic diagnostics rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck2.log" | tail -1)" | tee -a "$OUT/summary.txt"
