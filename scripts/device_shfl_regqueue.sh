#!/usr/bin/env bash
# One device call for acoustic/oN/shfl_regqueue (issue 5, item 1): build (device preset), the
# variant's GPU tests with skips forbidden (both configurations), compute-sanitizer memcheck and
# racecheck on it, `seisfd bench` at 512^3 for orders 4, 8, 16 beside smem_regqueue (plus the
# other configurations), and Nsight Compute at order 8 with DRAM, L2, bank-conflict and stall
# counters: shfl_regqueue first, then smem_regqueue and smem_tile while less than NCU_BUDGET_S
# seconds have passed since the start. Run from the repo root with .deps carried. At most 8 files
# come back from $OUT: summary, build, tests, sanitizer, bench, ncu logs and the bench CSV/JSON.
#   ONLY_NCU=1        skip tests, sanitizer and bench (profile only)
#   NCU_ORDER         orders profiled, space-separated (default 8)
#   CONFIGS           other SEISFD_SHFL_REGQUEUE_CONFIG values tested and benched (default y8b2;
#                     empty: none)
#   NCU_VARIANTS      variants profiled, in order (default: shfl_regqueue smem_regqueue
#                     smem_tile; empty: none)
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_shfl_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
T0=$(date +%s)
log() { echo "== $* (t=$(( $(date +%s) - T0 )) s)" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$S"

log "configure + build"
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target seisfd test_gpu test_gpu_variants; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
grep -E "shfl_regqueue.*spill" "$OUT/build.log" | head -5 >> "$S"
B=build/device

if [ "${ONLY_NCU:-0}" != 1 ]; then
log "GPU tests of shfl_regqueue (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
: > "$T"
run_test() {  # label, env, binary, filter
  env SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 $2 timeout 200 $B/tests/$3 --gtest_filter="$4" >> "$T" 2>&1
  echo "$1 rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tail -2 | tr '\n' ' ')" | tee -a "$S"
}
run_test "test_gpu_variants" "X=1" test_gpu_variants '*shfl_regqueue*:VariantRefusals.*'
for c in ${CONFIGS-y8b2}; do
  run_test "test_gpu_variants $c" "SEISFD_SHFL_REGQUEUE_CONFIG=$c" test_gpu_variants '*shfl_regqueue*'
done
run_test "test_gpu" "X=1" test_gpu '*shfl_regqueue*'
grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
grep -E "^\[variants\].*shfl" "$T" | grep -v " ok$" | head -20 | tee -a "$S"

log "compute-sanitizer on shfl_regqueue"
Z="$OUT/sanitizer.log"
: > "$Z"
sanitize() {  # tool, orders
  local f=""
  for o in $2; do f="$f:Registry/GpuVariantShapes.*/acoustic_o${o}_shfl_regqueue"; done
  echo "---- $1 orders $2" >> "$Z"
  SEISFD_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool "$1" --error-exitcode 9 \
    $B/tests/test_gpu_variants --gtest_filter="${f#:}" >> "$Z" 2>&1
  echo "$1 (orders $2) rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$Z" | tail -1)" | tee -a "$S"
}
sanitize memcheck "2 4 8 16"
sanitize racecheck "2 8 16"

log "bench"
timeout 200 $B/app/seisfd bench --variants shfl_regqueue,smem_regqueue --orders 4,8,16 \
  --sizes 512 --steps 20 --repeats 7 --out "$OUT/results" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$S"
for c in ${CONFIGS-y8b2}; do
  echo "---- SEISFD_SHFL_REGQUEUE_CONFIG=$c" >> "$OUT/bench.log"
  SEISFD_SHFL_REGQUEUE_CONFIG=$c timeout 120 $B/app/seisfd bench --variants shfl_regqueue \
    --orders 4,8,16 --sizes 512 --steps 20 --repeats 7 --no-files >> "$OUT/bench.log" 2>&1
  echo "bench $c rc=$?" | tee -a "$S"
done
fi

M=dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
for r in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle wait not_selected \
  selected math_pipe_throttle dispatch_stall no_instruction branch_resolving membar drain \
  imc_miss tex_throttle misc sleeping; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
profile() {  # kernel regex, variant
  for o in ${NCU_ORDER:-8}; do
  echo "---- ncu $2 order $o" >> "$OUT/ncu.log"
  timeout 150 ncu --clock-control none --kernel-name "regex:$1" --launch-skip 4 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats --metrics "$M" \
    $B/app/seisfd bench --variants "$2" --orders "$o" --sizes 512 --steps 2 --repeats 5 \
    --warmup 0 --no-files >> "$OUT/ncu.log" 2>&1
  echo "ncu $2 order $o rc=$?" | tee -a "$S"
  done
}
log "ncu"
: > "$OUT/ncu.log"
first=1
for v in ${NCU_VARIANTS-shfl_regqueue smem_regqueue smem_tile}; do
  if [ $first = 1 ] || [ $(( $(date +%s) - T0 )) -lt "${NCU_BUDGET_S:-200}" ]; then
    first=0
    profile "$v" "$v"
  else
    echo "ncu $v skipped: device-time budget" | tee -a "$S"
  fi
done
log "done"
if [ -f "$OUT/bench.log" ]; then
  grep -E "^ *512 " "$OUT/bench.log" | tee -a "$S"
  sed -n '/^seisfd bench on/,/^----/p' "$OUT/bench.log" | head -12
fi
grep -E "^  [a-z]|Gcells/s  |Warp Cycles Per Issued|Throughput|Hit Rate|bank_conflicts|wavefronts|stalled|Registers Per|Achieved Occ|Duration" "$OUT/ncu.log" \
  | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk 'NF' | head -120
