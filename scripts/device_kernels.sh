#!/usr/bin/env bash
# One call on the GPU machine for the kernel variants (issue 5): build (device preset), the GPU
# tests with skips forbidden, compute-sanitizer memcheck + racecheck on the fast variants, and
# `seisfd bench`. At most 8 files come back from $OUT: summary, build, tests, sanitizer, bench
# logs and the bench CSV/JSON. Run from the repo root with .deps carried
# (scripts/prepare_device_deps.sh).
#   VARIANTS  bench --variants (default: every technique but naive, plus naive)
#   SIZES     bench --sizes (default 512)       ORDERS   bench --orders (default 4,8,16)
#   SANITIZE  1|0 (default 1)                   NCU      1|0: one Nsight Compute report (default 0)
#   SWEEP     extra `ENV=VALUE` settings, space-separated, each re-running the bench of
#             SWEEP_VARIANTS (default smem_regqueue) at SWEEP_ORDERS (default 4,8,16)
#   RQ_CONFIGS smem_regqueue configurations (SEISFD_SMEM_REGQUEUE_CONFIG) also tested and
#             sanitized, space-separated
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_kernels_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$S"

log "configure + build"
t0=$(date +%s)
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target seisfd test_gpu test_gpu_variants test_bench_cli; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E "spill" "$OUT/build.log" | sed 's/.*function//' | head -20 >> "$S"
B=build/device

log "GPU tests (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
: > "$T"
for t in test_gpu_variants test_bench_cli test_gpu; do
  f='*'
  [ "$t" = test_gpu ] && f="${GPU_FILTER:-*}"
  SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 240 $B/tests/$t --gtest_filter="$f" >> "$T" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tail -3 | tr '\n' ' ')" | tee -a "$S"
done
# Alternative smem_regqueue configurations (tuning knob) through the same shape tests.
for c in ${RQ_CONFIGS:-}; do
  SEISFD_REQUIRE_GPU=1 SEISFD_SMEM_REGQUEUE_CONFIG=$c timeout 120 $B/tests/test_gpu_variants \
    --gtest_filter='*smem_regqueue*' >> "$T" 2>&1
  echo "test_gpu_variants config $c rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$T" | tail -1)" | tee -a "$S"
done
grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
grep -E "^\[variants\].*(refused|[^k]$)" "$T" | grep -v " ok$" | head -20 | tee -a "$S"

if [ "${SANITIZE:-1}" = 1 ]; then
  log "compute-sanitizer (variant shapes, fast variants at orders 2, 8, 16)"
  F='Registry/GpuVariantShapes.*/acoustic_o2_*:Registry/GpuVariantShapes.*/acoustic_o8_*:Registry/GpuVariantShapes.*/acoustic_o16_*:-*naive'
  Z="$OUT/sanitizer.log"
  for tool in memcheck racecheck; do
    echo "---- $tool" >> "$Z"
    SEISFD_REQUIRE_GPU=1 timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu_variants --gtest_filter="$F" >> "$Z" 2>&1
    echo "$tool rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1) $(grep -E '^\[  PASSED' "$Z" | tail -1)" | tee -a "$S"
    for c in ${RQ_CONFIGS:-}; do
      echo "---- $tool config $c" >> "$Z"
      SEISFD_REQUIRE_GPU=1 SEISFD_SMEM_REGQUEUE_CONFIG=$c timeout 120 compute-sanitizer --tool $tool \
        --error-exitcode 9 $B/tests/test_gpu_variants \
        --gtest_filter='*/acoustic_o8_smem_regqueue:*/acoustic_o16_smem_regqueue' >> "$Z" 2>&1
      echo "$tool config $c rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1)" | tee -a "$S"
    done
  done
fi

log "bench"
V=${VARIANTS:-"*"}
timeout 300 $B/app/seisfd bench --variants "$V" --orders "${ORDERS:-4,8,16}" \
  --sizes "${SIZES:-512}" --steps 20 --repeats 7 --out "$OUT/results" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$S"
for kv in ${SWEEP:-}; do
  echo "---- sweep $kv" >> "$OUT/bench.log"
  env "$kv" timeout 120 $B/app/seisfd bench --variants "${SWEEP_VARIANTS:-smem_regqueue}" \
    --orders "${SWEEP_ORDERS:-4,8,16}" --sizes "${SIZES:-512}" --steps 20 --repeats 7 --no-files >> "$OUT/bench.log" 2>&1
  echo "sweep $kv:" >> "$S"
  grep -E "^ *[0-9]+ +[0-9]+ " "$OUT/bench.log" | tail -3 >> "$S"
done

if [ "${NCU:-0}" = 1 ]; then
  log "ncu"
  env ${NCU_ENV:-NCU_ENV_UNSET=1} timeout 200 ncu --clock-control none --kernel-name "regex:${NCU_KERNEL:-smem_regqueue}" \
    --launch-skip 4 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section LaunchStats \
    $B/app/seisfd bench --variants "${NCU_VARIANT:-smem_regqueue}" --orders 8 --sizes 512 \
    --steps 2 --repeats 5 --warmup 0 --no-files > "$OUT/ncu.log" 2>&1
  echo "ncu rc=$?" | tee -a "$S"
fi
log "done"
sed -n '/^seisfd bench on/,$p' "$OUT/bench.log"
