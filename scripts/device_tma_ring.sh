#!/usr/bin/env bash
# One device call for acoustic/oN/tma_ring (issue 5): build (device preset), its GPU tests with
# skips forbidden, compute-sanitizer memcheck, racecheck and synccheck on it, `seisfd bench` at
# 512 with smem_regqueue beside it, one Nsight Compute report at order 8 (and DRAM bytes and
# stall reasons of both at order 4). At most 8 files come back from $OUT. Run from the repo root
# with .deps carried.
#   ORDERS  bench orders (default 4,8,16)     SIZES  bench sizes (default 512)
#   SWEEP   SEISFD_TMA_RING_CONFIG values also benched at SWEEP_ORDERS (default none; 4,8)
#   NCU     1|0 (default 1)                   SANITIZE 1|0 (default 1)
#   MODE=sweep  only bench CONFIGS (config:orders ...) x PROMOS (SEISFD_TMA_RING_L2_PROMOTION),
#               smem_regqueue beside them, and DRAM/L2 bytes at order 8 for NCU_CONFIGS (or skip)
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_tma_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$S"

log "configure + build"
t0=$(date +%s)
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target seisfd test_gpu test_gpu_variants; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E "spill" "$OUT/build.log" | grep -i tma | head -10 >> "$S"
B=build/device

# MODE=sweep: only the configuration x L2-promotion sweep of tma_ring (no tests, no files).
if [ "${MODE:-full}" = sweep ]; then
  log "sweep: SEISFD_TMA_RING_CONFIG x SEISFD_TMA_RING_L2_PROMOTION at 512"
  for c in ${CONFIGS:-t16b3:4,8 t16b2:4,8,12 t32b1:4,8,16}; do
    for pr in ${PROMOS:-none 128 256}; do
      SEISFD_TMA_RING_CONFIG=${c%%:*} SEISFD_TMA_RING_L2_PROMOTION=$pr timeout 60 $B/app/seisfd bench \
        --variants tma_ring --orders "${c#*:}" --sizes "${SIZES:-512}" --steps 20 --repeats 7 \
        --no-files > "$OUT/one.log" 2>&1
      grep -E "^ *[0-9]+ +[0-9]+ " "$OUT/one.log" | sed "s/^/${c%%:*} promo $pr: /" | tee -a "$S"
    done
  done
  timeout 60 $B/app/seisfd bench --variants smem_regqueue --orders 4,8,12,16 --sizes "${SIZES:-512}" \
    --steps 20 --repeats 7 --no-files > "$OUT/one.log" 2>&1
  grep -E "^ *[0-9]+ +[0-9]+ " "$OUT/one.log" | sed "s/^/smem_regqueue: /" | tee -a "$S"
  # DRAM and L2 bytes per launch at order 8 by configuration, and smem_regqueue's.
  for c in ${NCU_CONFIGS:-t16b3 t16b2 t32b1 s16b3 s16b2 s32b1 smem_regqueue}; do
    [ "$c" = skip ] && continue
    v=tma_ring; k=tma_ring
    [ "$c" = smem_regqueue ] && { v=smem_regqueue; k=smem_regqueue; }
    SEISFD_TMA_RING_CONFIG=$c timeout 60 ncu --clock-control none --kernel-name regex:$k \
      --launch-skip 4 --launch-count 1 \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum \
      $B/app/seisfd bench --variants $v --orders 8 --sizes 512 --steps 2 --repeats 5 \
      --warmup 0 --no-files > "$OUT/one.log" 2>&1
    grep -E "dram__|lts__|gpu__time" "$OUT/one.log" | sed "s/^/ncu $c: /" | tee -a "$S"
  done
  exit 0
fi

log "GPU tests, tma_ring only (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
: > "$T"
t0=$(date +%s)
for t in test_gpu_variants; do
  SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 100 $B/tests/$t --gtest_filter='*tma_ring*:VariantRefusals.*' >> "$T" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tail -3 | tr '\n' ' ')" | tee -a "$S"
done
echo "tests $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
grep -E "^\[variants\].*tma_ring" "$T" | grep -v " ok$" | head -20 | tee -a "$S"

if [ "${SANITIZE:-1}" = 1 ]; then
  log "compute-sanitizer on tma_ring (variant shapes at orders 2, 8, 16)"
  F='*/acoustic_o2_tma_ring:*/acoustic_o8_tma_ring:*/acoustic_o16_tma_ring'
  Z="$OUT/sanitizer.log"
  t0=$(date +%s)
  for tool in memcheck racecheck synccheck; do
    echo "---- $tool" >> "$Z"
    f=$F
    [ "$tool" = synccheck ] && f='*/acoustic_o8_tma_ring'
    SEISFD_REQUIRE_GPU=1 timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu_variants --gtest_filter="Registry/GpuVariantShapes.$f" >> "$Z" 2>&1
    echo "$tool rc=$? $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' "$Z" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$Z" | tail -1)" | tee -a "$S"
  done
  echo "sanitizer $(( $(date +%s) - t0 )) s" | tee -a "$S"
fi

log "bench"
timeout 200 $B/app/seisfd bench --variants tma_ring,smem_regqueue --orders "${ORDERS:-4,8,16}" \
  --sizes "${SIZES:-512}" --steps 20 --repeats 7 --out "$OUT/results" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$S"
for c in ${SWEEP:-}; do
  echo "---- sweep SEISFD_TMA_RING_CONFIG=$c" >> "$OUT/bench.log"
  SEISFD_TMA_RING_CONFIG=$c timeout 100 $B/app/seisfd bench --variants tma_ring \
    --orders "${SWEEP_ORDERS:-4,8}" --sizes "${SIZES:-512}" --steps 20 --repeats 7 --no-files \
    >> "$OUT/bench.log" 2>&1
  echo "sweep $c rc=$?:" >> "$S"
  grep -E "^ *[0-9]+ +[0-9]+ " "$OUT/bench.log" | tail -2 >> "$S"
done

STALLS=smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
if [ "${NCU:-1}" = 1 ]; then
  log "ncu"
  timeout 150 ncu --clock-control none --kernel-name "regex:tma_ring" \
    --launch-skip 4 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section Occupancy \
    --section LaunchStats --section SchedulerStats \
    --metrics lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,$STALLS \
    $B/app/seisfd bench --variants tma_ring --orders 8 --sizes 512 \
    --steps 2 --repeats 5 --warmup 0 --no-files > "$OUT/ncu.log" 2>&1
  echo "ncu rc=$?" | tee -a "$S"
  # Order 4, where tma_ring trails smem_regqueue most: DRAM bytes and stall reasons of both.
  for v in tma_ring smem_regqueue; do
    echo "---- ncu order 4 $v" >> "$OUT/ncu.log"
    timeout 60 ncu --clock-control none --kernel-name "regex:$v" --launch-skip 4 --launch-count 1 \
      --section WarpStateStats --section SpeedOfLight \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,$STALLS \
      $B/app/seisfd bench --variants $v --orders 4 --sizes 512 --steps 2 --repeats 5 --warmup 0 \
      --no-files >> "$OUT/ncu.log" 2>&1
    echo "ncu o4 $v rc=$?" | tee -a "$S"
  done
fi
log "GPU tests: test_gpu (CPU vs GPU 500 steps, CPML, graphs vs plain, dot test), tma_ring only"
t0=$(date +%s)
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout ${GPU_TEST_TIMEOUT:-150} $B/tests/test_gpu --gtest_filter='*tma_ring*' >> "$T" 2>&1
echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tail -3 | tr '\n' ' ')" | tee -a "$S"
echo "test_gpu $(( $(date +%s) - t0 )) s" | tee -a "$S"
grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
log "done"
sed -n '/^seisfd bench on/,$p' "$OUT/bench.log" | head -30
cat "$S"
