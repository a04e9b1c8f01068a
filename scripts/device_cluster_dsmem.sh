#!/usr/bin/env bash
# One call on the GPU machine for acoustic/oN/cluster_dsmem (issue 5, item 1): build (device
# preset), the variant's GPU tests with skips forbidden, compute-sanitizer memcheck + racecheck on
# it, `seisfd bench` at 512 (orders 4, 8, 16) with smem_regqueue in the same run, a sweep of the
# cluster size, and Nsight Compute at order 8. Run from the repo root with .deps carried.
# At most 8 files come back from $OUT: summary, build, tests, sanitizer, bench, ncu logs, results.
#   SIZES (default 512)   ORDERS (default 4,8,16)
#   SWEEP: settings benched besides the default, space-separated, each a comma-joined list of
#          VAR=VALUE (default: cluster sizes 4 and 1; push st)
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_cluster_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $* ($(date +%T))" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$S"

log "configure + build"
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target seisfd test_gpu test_gpu_variants; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
grep -E "spill" "$OUT/build.log" | grep -i cluster | head -8 >> "$S"
B=build/device

log "GPU tests (SEISFD_REQUIRE_GPU=1)"
T="$OUT/tests.log"
SEISFD_REQUIRE_GPU=1 timeout 60 $B/tests/test_gpu_variants \
  --gtest_filter='*cluster_dsmem*:VariantRefusals.*' > "$T" 2>&1
echo "test_gpu_variants rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tr '\n' ' ')" | tee -a "$S"
for kv in SEISFD_CLUSTER_DSMEM_PUSH=st SEISFD_CLUSTER_DSMEM_SIZE=4 SEISFD_CLUSTER_DSMEM_SIZE=8; do
  env $kv SEISFD_REQUIRE_GPU=1 timeout 60 $B/tests/test_gpu_variants \
    --gtest_filter='*cluster_dsmem*' > "$OUT/tests_kv.log" 2>&1
  echo "test_gpu_variants ($kv) rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests_kv.log" | tr '\n' ' ')" | tee -a "$S"
  cat "$OUT/tests_kv.log" >> "$T" && rm "$OUT/tests_kv.log"
done
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 120 $B/tests/test_gpu \
  --gtest_filter='*cluster_dsmem*' > "$OUT/tests_gpu.log" 2>&1
echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests_gpu.log" | tr '\n' ' ')" | tee -a "$S"
cat "$OUT/tests_gpu.log" >> "$T" && rm "$OUT/tests_gpu.log"
grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
grep -E "^\[variants\]" "$T" | grep -v " ok$" | head -20 | tee -a "$S"

log "compute-sanitizer (cluster_dsmem, orders 2, 8, 16, every shape)"
F='Registry/GpuVariantShapes.*/acoustic_o2_cluster_dsmem:Registry/GpuVariantShapes.*/acoustic_o8_cluster_dsmem:Registry/GpuVariantShapes.*/acoustic_o16_cluster_dsmem'
Z="$OUT/sanitizer.log"
for tool in memcheck racecheck; do
  echo "---- $tool" >> "$Z"
  SEISFD_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
    $B/tests/test_gpu_variants --gtest_filter="$F" >> "$Z" 2>&1
  echo "$tool rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$Z" | tail -1)" | tee -a "$S"
done

log "bench"
SEISFD_CLUSTER_DSMEM_VERBOSE=1 timeout 150 $B/app/seisfd bench --variants cluster_dsmem,smem_regqueue \
  --orders "${ORDERS:-4,8,16}" --sizes "${SIZES:-512}" --steps 20 --repeats 7 \
  --out "$OUT/results" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$S"
sed -n '/^seisfd bench on/,$p' "$OUT/bench.log" >> "$S"

log "ncu (order 8)"
timeout 120 ncu --clock-control none --kernel-name regex:cluster_dsmem --launch-skip 4 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section WarpStateStats --section Occupancy --section LaunchStats \
  --metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_l1tex2xbar_write_bytes_mem_dshared_op_st.sum,l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum,gpc__cgas_launched.sum' \
  $B/app/seisfd bench --variants cluster_dsmem --orders 8 --sizes "${SIZES:-512}" \
  --steps 2 --repeats 5 --warmup 0 --no-files > "$OUT/ncu.log" 2>&1
rc=$?
echo "ncu rc=$rc" | tee -a "$S"
if [ $rc != 0 ]; then  # a metric name this ncu does not know: the sections alone
  timeout 90 ncu --clock-control none --kernel-name regex:cluster_dsmem --launch-skip 4 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats \
    $B/app/seisfd bench --variants cluster_dsmem --orders 8 --sizes "${SIZES:-512}" \
    --steps 2 --repeats 5 --warmup 0 --no-files >> "$OUT/ncu.log" 2>&1
  echo "ncu (sections only) rc=$?" | tee -a "$S"
fi

log "sweep"
for kv in ${SWEEP:-SEISFD_CLUSTER_DSMEM_SIZE=4 SEISFD_CLUSTER_DSMEM_SIZE=1 SEISFD_CLUSTER_DSMEM_PUSH=st}; do
  echo "---- $kv" >> "$OUT/bench.log"
  env ${kv//,/ } SEISFD_CLUSTER_DSMEM_VERBOSE=1 timeout 90 $B/app/seisfd bench \
    --variants cluster_dsmem --orders "${ORDERS:-4,8,16}" --sizes "${SIZES:-512}" --steps 20 \
    --repeats 7 --no-files >> "$OUT/bench.log" 2>&1
  echo "$kv:" >> "$S"
  grep -E "^ *[0-9]+ +[0-9]+ +[a-z]* *cluster_dsmem" "$OUT/bench.log" | tail -3 >> "$S"
done

log "SASS: barriers and fences of the order-8 kernel"
O=$(find $B/kernels -name 'acoustic_cluster_dsmem.cu.o' | head -1)
cuobjdump --dump-sass "$O" 2>/dev/null | awk '/Function : .*cluster_dsmem_kernelILi4ELb1E/{f=1;next} /Function :/{f=0} f' |
  grep -oE "(MEMBAR|FENCE|CCTL|UCGABAR|CGAERRBAR|BAR|SYNCS|ERRBAR|LDGDEPBAR|DEPBAR|STS|ST|STG|LDGSTS|LDS|MAPA)(\.[A-Z0-9_]+)*" |
  sort | uniq -c | tee -a "$S"
for k in 1 0; do
  echo "-- push $([ $k = 1 ] && echo async || echo st): fences and barriers" | tee -a "$S"
  cuobjdump --dump-sass "$O" 2>/dev/null | awk "/Function : .*cluster_dsmem_kernelILi4ELb${k}E/{f=1;next} /Function :/{f=0} f" |
    grep -E "MEMBAR|UCGABAR|FENCE|CCTL|ERRBAR|SYNCS|BAR\.SYNC" | sed -E 's/^ +//; s/ +/ /g' | head -16 | tee -a "$S"
done
log "done"
cat "$S"
