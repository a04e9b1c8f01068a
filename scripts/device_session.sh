#!/usr/bin/env bash
# The GPU machine's part of a session, in two calls (each under the 10-minute limit; a machine
# that went idle between them starts bare, so each call builds what it needs):
#   MODE=tests  build everything, SEISFD_REQUIRE_GPU=1 ctest (GPU suites first, then the CPU
#               ones), compute-sanitizer memcheck/racecheck on the kernels and paths touched
#               (SANITIZE_FILTER, gtest filter on test_gpu; SANITIZE_SETUP on
#               test_gpu_engine_setup).
#   MODE=probe  build seisfd; smem_regqueue vs shfl_regqueue at order 8, 512^3: `seisfd bench`
#               in short (20-launch) and sustained (400-launch) repeats, and 2000-step runs with
#               compression off/on, SM clock and power sampled every 100 ms into clocks.csv.
#   MODE=diag   build seisfd, test_gpu, test_time_loop; the diagnostics and graph tests, their
#               memcheck/racecheck; whole 2000-step runs at 128^3 and 512^3 with diagnostics every
#               K = 1, 10 and only at the end (fused, separate, naive), each twice.
#   MODE=kernels  build seisfd, test_gpu_variants, test_gpu; memcheck and racecheck on the odd-shape
#               tests of VARIANTS (default the four z-marching ones) at orders 8 and 16 and on the
#               fused diagnostics; copy bandwidth; `seisfd bench` of VARIANTS at orders 4, 8, 16.
#   MODE=engines  build seisfd, test_gpu, test_gpu_anisotropic; the engines' diagnostics, graph,
#               order-8 and anisotropic tests; memcheck on the diagnostics tests; then MODE=final.
#   MODE=final  build seisfd; run the shipped quickstart, vti_layered and tti_salt configs as
#               configured; Nsight Compute counters of NCU_FINAL (default naive, smem_tile).
#   MODE=perf   build seisfd and the engine-setup and bench-CLI tests and run them; `seisfd
#               bench` of every acoustic variant at orders 4, 8, 16 (SIZES, default 512) on
#               hashed and on zero wavefields, with the copy bandwidth; whole 2000-step runs
#               (kernel.variant auto and named; compression; graphs; diagnostics); Nsight Compute
#               counters of NCU_RUNS (variant:fields) at order 8.
# Run from the repo root with .deps carried (scripts/prepare_device_deps.sh). Logs and results
# go to $OUT (summary.txt first).
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_session_out}
MODE=${MODE:-tests}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $* ($(date +%T))" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv,noheader | tee -a "$S"
B=build/device
export SEISFD_AUTOTUNE_CACHE="$OUT/autotune.tsv"

build() {  # build [targets...]
  log "configure + build ${*:-all}"
  local t0=$(date +%s) tgt=()
  for t in "$@"; do tgt+=(--target "$t"); done
  { cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build --preset device -j 16 "${tgt[@]}"; } > /tmp/build.log 2>&1 ||
    { tail -40 /tmp/build.log | tee -a "$S"; exit 1; }
  grep -i "spill" /tmp/build.log | sort | uniq -c | head -20 >> "$S"
  echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
}

if [ "$MODE" = tests ]; then
  build
  log "ctest, GPU suites (SEISFD_REQUIRE_GPU=1)"
  SEISFD_REQUIRE_GPU=1 timeout ${GPU_CTEST_S:-260} ctest --test-dir $B -j 3 --timeout 240 \
    -R 'Gpu|Bench' --output-on-failure > "$OUT/ctest_gpu.log" 2>&1
  echo "ctest GPU rc=$?" | tee -a "$S"
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest_gpu.log" | tee -a "$S"
  grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20 | tee -a "$S"
  SEISFD_REQUIRE_GPU=1 $B/tests/test_gpu_engine_setup 2>&1 | grep -E "^\[gpu\]|FAILED|PASSED" |
    tee -a "$S"

  log "compute-sanitizer"
  Z="$OUT/sanitizer.log"
  F=${SANITIZE_FILTER:-'Registry/GpuVariant.MatchesCpu*/acoustic_o8_*:GpuDiagnostics.Fused*'}
  for tool in memcheck racecheck; do
    echo "---- $tool test_gpu $F" >> "$Z"
    SEISFD_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu --gtest_filter="$F" >> "$Z" 2>&1
    echo "$tool test_gpu rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1)" | tee -a "$S"
  done
  echo "---- memcheck test_gpu_engine_setup" >> "$Z"
  SEISFD_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
    $B/tests/test_gpu_engine_setup --gtest_filter="${SANITIZE_SETUP:-GpuCompressible.*}" >> "$Z" 2>&1
  echo "memcheck engine_setup rc=$? $(grep -E 'ERROR SUMMARY' "$Z" | tail -1)" | tee -a "$S"

  log "ctest, the rest (CPU suites)"
  SEISFD_REQUIRE_GPU=1 timeout ${CPU_CTEST_S:-200} ctest --test-dir $B -j 14 --timeout 190 \
    -E 'Gpu|Bench' --output-on-failure > "$OUT/ctest_cpu.log" 2>&1
  echo "ctest CPU rc=$?" | tee -a "$S"
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest_cpu.log" | tee -a "$S"
  grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout" "$OUT/ctest_cpu.log" | head -20 | tee -a "$S"
  log "done"
  exit 0
fi

if [ "$MODE" = probe ]; then
  build seisfd
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 100 > "$OUT/clocks.csv" 2>&1 &
  SMI=$!
  for st in 20 400 zero; do
    log "bench o8 512, $st launches per repeat"
    [ $st = zero ] && export SEISFD_BENCH_FIELDS=zero && st=20
    $B/app/seisfd bench --physics acoustic --variants smem_regqueue,shfl_regqueue --orders 8 \
      --sizes 512 --steps $st --repeats 7 --no-files 2>&1 | sed -n '/^ size/,$p' | tee -a "$S"
  done
  unset SEISFD_BENCH_FIELDS
  cfg=configs/bench_512_o8.toml
  dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * 2000)")
  for var in smem_regqueue shfl_regqueue; do
    for comp in off on; do
      log "run 2000 steps $var compressible $comp"
      $B/app/seisfd run $cfg --backend cuda --quiet --overwrite --set output.directory=\"/tmp/r\" \
        --set time.duration=$dur --set kernel.compressible=\"$comp\" \
        --set kernel.variant=\"acoustic/o8/$var\" > /tmp/r.log 2>&1 || tail -3 /tmp/r.log
      python3 -c "import json; r=json.load(open('/tmp/r/report.json')); p=r['performance']; print(p['steps'], round(p['seconds'],3), 's', round(p['gcells_per_s'],2), 'Gcells/s')" | tee -a "$S"
    done
  done
  kill $SMI
  log "ncu at base clocks: one update kernel late in a 2000-step run (launch 1500) vs in the bench"
  for var in smem_regqueue shfl_regqueue; do
    for where in run bench; do
      if [ $where = run ]; then
        cmd="$B/app/seisfd run $cfg --backend cuda --quiet --overwrite --no-graph --set output.directory=\"/tmp/r\" --set time.duration=$dur --set kernel.variant=\"acoustic/o8/$var\" --set kernel.diagnostics_interval=1000000"
        skip=1500
      else
        cmd="$B/app/seisfd bench --physics acoustic --variants $var --orders 8 --sizes 512 --steps 2 --repeats 5 --warmup 1 --no-files"
        skip=8
      fi
      timeout 150 ncu --clock-control base --kernel-name "regex:acoustic_${var}" --launch-skip $skip \
        --launch-count 1 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second \
        $cmd > /tmp/ncu.log 2>&1
      echo "$var $where rc=$? $(grep -E '^\s+(gpu__time|dram__|sm__cycles)' /tmp/ncu.log | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')" | tee -a "$S"
    done
  done
  log "done"
  exit 0
fi

if [ "$MODE" = diag ]; then
  build seisfd test_gpu test_time_loop
  log "diagnostics tests (SEISFD_REQUIRE_GPU=1)"
  $B/tests/test_time_loop 2>&1 | grep -E "PASSED|FAILED" | tee -a "$S"
  SEISFD_REQUIRE_GPU=1 $B/tests/test_gpu --gtest_filter='GpuDiagnostics.*:GpuGraphs*' \
    > "$OUT/test_gpu_diag.log" 2>&1
  echo "test_gpu rc=$?" | tee -a "$S"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$OUT/test_gpu_diag.log" | tee -a "$S"
  for tf in "memcheck|GpuDiagnostics.*" "racecheck|GpuDiagnostics.Fused*"; do
    tool=${tf%%|*} filt=${tf##*|}
    SEISFD_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu --gtest_filter="$filt" > /tmp/san.log 2>&1
    echo "$tool $filt rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log | tail -1)" | tee -a "$S"
  done
  log "whole runs, 2000 steps, order 8, sponge 20, chunks of 20 steps (progress), diagnostics every K"
  for n in ${RUN_SIZES:-128 512}; do
    cfg=configs/bench_${n}_o8.toml
    dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
    dur=$(python3 -c "print(${dt} * 2000)")
    for rep in 1 2; do
      for spec in "K=end|1000000|1|auto" "K=10 fused|10|1|auto" "K=1 fused|1|1|auto" \
                  "K=10 separate|10|0|auto" "K=end shfl|1000000|1|acoustic/o8/shfl_regqueue" \
                  "K=10 shfl|10|1|acoustic/o8/shfl_regqueue" "K=end naive|1000000|1|acoustic/o8/naive" \
                  "K=10 naive|10|1|acoustic/o8/naive"; do
        IFS='|' read -r label k fuse var <<< "$spec"
        d=/tmp/run_${n}
        SEISFD_FUSED_DIAGNOSTICS=$fuse $B/app/seisfd run $cfg --backend cuda --quiet --overwrite \
          --set output.directory=\"$d\" --set time.duration=$dur --set kernel.variant=\"$var\" \
          --set kernel.diagnostics_interval=$k > /tmp/run_$n.log 2>&1 || tail -3 /tmp/run_$n.log | tee -a "$S"
        python3 - "$n^3 $label" "$d/report.json" <<'PY' | tee -a "$S"
import json, sys
label, path = sys.argv[1:]
r = json.load(open(path)); p = r["performance"]; b = r["backend"]; d = r["diagnostics"]
print(f"{label:22s} {b['kernel']:28s} {p['steps']} steps {p['seconds']:.4f} s {p['gcells_per_s']:7.2f} Gcells/s | checks {d.get('checks')} | sum_sq {d.get('sum_sq')}")
PY
      done
    done
  done
  log "done"
  exit 0
fi

if [ "$MODE" = kernels ]; then
  V=${VARIANTS:-smem_regqueue,shfl_regqueue,tma_ring,cluster_dsmem}
  build seisfd test_gpu_variants test_gpu
  log "compute-sanitizer on the odd-shape tests of $V (orders 8, 16) and the fused diagnostics"
  F=$(for v in ${V//,/ }; do printf '*o8_%s:*o16_%s:' $v $v; done)
  for tool in memcheck racecheck; do
    SEISFD_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu_variants --gtest_filter="$F" > /tmp/san.log 2>&1
    echo "$tool test_gpu_variants rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/san.log | tr '\n' ' ') $(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log | tail -1)" | tee -a "$S"
  done
  SEISFD_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 \
    $B/tests/test_gpu --gtest_filter='GpuDiagnostics.Fused*' > /tmp/san.log 2>&1
  echo "racecheck GpuDiagnostics.Fused* rc=$? $(grep -E 'RACECHECK SUMMARY' /tmp/san.log | tail -1)" | tee -a "$S"
  log "copy bandwidth"
  nvcc -O2 -arch=sm_90 bench/copy_bandwidth.cu -o /tmp/copy_bandwidth && /tmp/copy_bandwidth | tee -a "$S"
  log "bench: $V, orders 4 8 16, hashed fields"
  timeout ${BENCH_S:-200} $B/app/seisfd bench --physics acoustic --fields hash --variants $V \
    --orders 4,8,16 --sizes 512 --steps 20 --repeats 7 --out "$OUT/results" > /tmp/bench.log 2>&1
  echo "bench rc=$?" | tee -a "$S"
  sed -n '/^seisfd bench on/,$p' /tmp/bench.log | tee -a "$S"
  log "done"
  exit 0
fi

if [ "$MODE" = engines ]; then
  build seisfd test_gpu test_gpu_anisotropic
  log "engine tests (SEISFD_REQUIRE_GPU=1): diagnostics, graphs, order-8 variants, anisotropic"
  SEISFD_REQUIRE_GPU=1 timeout 150 $B/tests/test_gpu \
    --gtest_filter='GpuDiagnostics.*:GpuGraphs*:Registry/GpuVariant.*o8*' > "$OUT/test_gpu.log" 2>&1
  echo "test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/test_gpu.log" | tr '\n' ' ')" | tee -a "$S"
  SEISFD_REQUIRE_GPU=1 timeout 150 $B/tests/test_gpu_anisotropic \
    --gtest_filter='GpuAnisoDiagnostics.*:Registry/GpuAniso.*o8*:GpuAnisoCpml*:GpuAnisoAdjoint*' \
    > "$OUT/test_gpu_aniso.log" 2>&1
  echo "test_gpu_anisotropic rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/test_gpu_aniso.log" | tr '\n' ' ')" | tee -a "$S"
  grep -E "^\[  FAILED|^\[gpu" "$OUT/test_gpu.log" "$OUT/test_gpu_aniso.log" | tee -a "$S"
  for tb in "test_gpu_anisotropic|GpuAnisoDiagnostics.*" "test_gpu|GpuDiagnostics.*"; do
    t=${tb%%|*} filt=${tb##*|}
    SEISFD_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
      $B/tests/$t --gtest_filter="$filt" > /tmp/san.log 2>&1
    echo "memcheck $t $filt rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)" | tee -a "$S"
  done
  MODE=final NCU_FINAL= bash "$0"
  exit 0
fi

if [ "$MODE" = final ]; then
  build seisfd
  log "shipped configs on the GPU (kernel.variant and kernel.compressible as configured: auto)"
  for cfg in quickstart vti_layered tti_salt; do
    $B/app/seisfd run configs/$cfg.toml --quiet --overwrite --set output.directory=\"/tmp/c_$cfg\" \
      > /tmp/c.log 2>&1
    echo "$cfg rc=$?" | tee -a "$S"
    python3 -c "import json; r=json.load(open('/tmp/c_$cfg/report.json')); p=r['performance']; b=r['backend']; d=r['diagnostics']; print(b['kernel'], p['steps'], 'steps', round(p['seconds'],3), 's', round(p['gcells_per_s'],2), 'Gcells/s | max|p|', d['max_abs'], '|', b.get('compressible'), '|', b.get('variant_choice'))" | tee -a "$S"
  done
  if command -v ncu > /dev/null; then
    log "Nsight Compute, order 8, 512^3, hashed fields"
    M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
    M=$M,gpu__time_duration.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed
    M=$M,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
    M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,launch__registers_per_thread
    for st in long_scoreboard barrier short_scoreboard mio_throttle lg_throttle wait not_selected selected; do
      M=$M,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
    done
    for v in ${NCU_FINAL-naive smem_tile}; do
      timeout 120 ncu --kernel-name "regex:acoustic_${v}" --launch-skip 8 --launch-count 1 \
        --metrics "$M" $B/app/seisfd bench --physics acoustic --variants $v --orders 8 \
        --sizes 512 --steps 2 --repeats 5 --warmup 1 --no-files > /tmp/ncu.log 2>&1
      echo "ncu $v rc=$?" | tee -a "$S"
      grep -E "^\s+(dram|lts|l1tex|sm__|launch|smsp|gpu__)" /tmp/ncu.log | tee -a "$S"
    done
  fi
  log "done"
  exit 0
fi

# ---- MODE=perf
build seisfd test_gpu_engine_setup test_bench_cli
log "GPU tests of the engine setup and the bench CLI (SEISFD_REQUIRE_GPU=1)"
for t in test_gpu_engine_setup test_bench_cli; do
  SEISFD_REQUIRE_GPU=1 timeout 150 $B/tests/$t > /tmp/$t.log 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/$t.log | tr '\n' ' ')" | tee -a "$S"
  grep -E "^\[gpu\]|^\[  FAILED" /tmp/$t.log | tee -a "$S"
done
log "copy bandwidth"
nvcc -O2 -arch=sm_90 bench/copy_bandwidth.cu -o /tmp/copy_bandwidth && /tmp/copy_bandwidth | tee -a "$S"

for fields in hash zero; do
  log "bench: every acoustic variant, orders 4 8 16, fields $fields"
  timeout ${BENCH_S:-200} $B/app/seisfd bench --physics acoustic --fields $fields \
    --variants naive,smem_tile,smem_regqueue,shfl_regqueue,tma_ring,cluster_dsmem \
    --orders 4,8,16 --sizes ${SIZES:-512} --steps 20 --repeats 7 --out "$OUT/results" \
    > /tmp/bench.log 2>&1
  echo "bench rc=$?" | tee -a "$S"
  sed -n '/^seisfd bench on/,$p' /tmp/bench.log | tee -a "$S"
  sleep 1  # distinct time stamps in the result names
done

report() {  # report LABEL REPORT_JSON
  python3 - "$@" <<'PY' | tee -a "$S"
import json, sys
label, path = sys.argv[1:]
try:
    r = json.load(open(path)); p = r["performance"]; b = r["backend"]
    print(f"{label:34s} {b['kernel']:32s} {p['steps']:5d} steps {p['seconds']:7.3f} s "
          f"{p['gcells_per_s']:7.2f} Gcells/s | compressible {b.get('compressible')} | "
          f"{b.get('variant_choice')}")
except Exception as e:
    print(f"{label} no report: {e}")
PY
}

log "whole runs, 2000 steps (order 8, sponge 20, diagnostics every 10 steps unless said)"
for n in ${RUN_SIZES:-128 512}; do
  cfg=configs/bench_${n}_o8.toml
  dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * 2000)")
  for spec in "auto (measures)|auto|auto|" "auto (cached)|auto|auto|" \
              "auto, compressible off|off|auto|" "auto, no-graph|auto|auto|--no-graph" \
              "auto, K=end|auto|auto||1000000" "auto, separate diag|auto|auto|||0" \
              "smem_regqueue|auto|acoustic/o8/smem_regqueue|" \
              "shfl_regqueue|auto|acoustic/o8/shfl_regqueue|" \
              "tma_ring|auto|acoustic/o8/tma_ring|" "cluster_dsmem|auto|acoustic/o8/cluster_dsmem|" \
              "naive|auto|acoustic/o8/naive|" "naive, compressible off|off|acoustic/o8/naive|"; do
    IFS='|' read -r label comp var flag k fuse <<< "$spec"
    d=/tmp/run_${n}
    SEISFD_FUSED_DIAGNOSTICS=${fuse:-1} $B/app/seisfd run $cfg --backend cuda --quiet --overwrite \
      ${flag:-} --set output.directory=\"$d\" --set time.duration=$dur \
      --set kernel.compressible=\"$comp\" --set kernel.variant=\"$var\" \
      --set kernel.diagnostics_interval=${k:-10} > /tmp/run_$n.log 2>&1 ||
      tail -3 /tmp/run_$n.log | tee -a "$S"
    report "$n^3 $label" "$d/report.json"
  done
done
cp "$SEISFD_AUTOTUNE_CACHE" "$OUT/results/" 2>/dev/null

if [ -n "${NCU_RUNS-shfl_regqueue:zero smem_regqueue:zero smem_regqueue:hash}" ] && command -v ncu > /dev/null; then
  log "Nsight Compute, order 8, 512^3"
  M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,gpu__time_duration.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed
  M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  for st in long_scoreboard barrier short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle \
            no_instruction not_selected selected dispatch_stall; do
    M=$M,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
  done
  for vf in ${NCU_RUNS-shfl_regqueue:zero smem_regqueue:zero smem_regqueue:hash}; do
    v=${vf%%:*} f=${vf##*:}
    timeout 120 ncu --kernel-name "regex:acoustic_${v}" --launch-skip 8 --launch-count 1 \
      --metrics "$M" $B/app/seisfd bench --physics acoustic --variants $v --orders 8 --fields $f \
      --sizes 512 --steps 2 --repeats 5 --warmup 1 --no-files > /tmp/ncu.log 2>&1
    echo "ncu $v fields $f rc=$?" | tee -a "$S"
    grep -E "^\s+(dram|lts|l1tex|sm__|launch|smsp|gpu__)" /tmp/ncu.log | tee -a "$S"
  done
fi
log "done"
