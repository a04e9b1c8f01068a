#!/usr/bin/env bash
# One call on the GPU machine for the engine around the kernels (issue 5 items 3-4, issue 4's
# bench): GPU tests with skips forbidden, compute-sanitizer on the diagnostics paths, whole-run
# throughput of 2000-step runs at 128^3 and 512^3 (graphs on/off, diagnostics every 10 steps
# fused / separate / only at the end), and `seisfd bench` of the VTI/TTI baselines against
# their own streaming ceilings. Run from the repo root with .deps carried
# (scripts/prepare_device_deps.sh). At most 8 files come back from $OUT.
#   STEPS   steps per run (default 2000)      SIZES  run sizes (default "128 512")
#   ANISO   1|0: the VTI/TTI bench (default 1)  TESTS  1|0 (default 1)
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_engine_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$S"

log "configure + build"
t0=$(date +%s)
{ cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build --preset device -j 16 --target seisfd test_gpu test_bench_cli; } \
  > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s" | tee -a "$S"
B=build/device

if [ "${TESTS:-1}" = 1 ]; then
  log "GPU tests (SEISFD_REQUIRE_GPU=1)"
  T="$OUT/tests.log"
  for t in test_gpu test_bench_cli; do
    SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 timeout 300 $B/tests/$t >> "$T" 2>&1
    echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$T" | tail -3 | tr '\n' ' ')" | tee -a "$S"
  done
  grep -E "^\[  FAILED  \]" "$T" | sort -u | head -20 | tee -a "$S"
  Z="$OUT/sanitizer.log"
  for tool in memcheck racecheck; do
    echo "---- $tool" >> "$Z"
    SEISFD_REQUIRE_GPU=1 timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/test_gpu --gtest_filter='GpuDiagnostics.*' >> "$Z" 2>&1
    echo "$tool GpuDiagnostics rc=$? $(grep -E '(ERROR|RACECHECK) SUMMARY' "$Z" | tail -1)" | tee -a "$S"
  done
fi

# One line per run from its report.json.
report() {  # report LABEL REPORT_JSON
  python3 - "$@" <<'PY' | tee -a "$S"
import json, sys
label, path = sys.argv[1:]
try:
    r = json.load(open(path)); p = r["performance"]; b = r["backend"]
    print(f"{label:44s} {b['kernel']:26s} cells {r['grid']['cells']:>10d} steps {p['steps']:5d} "
          f"{p['seconds']:7.3f} s {p['gcells_per_s']:7.2f} Gcells/s")
except Exception as e:
    print(f"{label} no report: {e}")
PY
}

log "whole runs, ${STEPS:-2000} steps"
for n in ${SIZES:-128 512}; do
  cfg=configs/bench_${n}_o8.toml
  [ -f "$cfg" ] || { echo "no $cfg" | tee -a "$S"; continue; }
  dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * ${STEPS:-2000})")
  for spec in "graphs K10 fused||10" "graphs K10 separate|SEISFD_FUSED_DIAGNOSTICS=0|10" \
              "graphs K=end|X=1|1000000" "no-graph K10 fused|X=1|10|--no-graph" \
              "no-graph K=end|X=1|1000000|--no-graph" "graphs K10 fused (again)||10"; do
    IFS='|' read -r label envs k flag <<< "$spec"
    d=/tmp/run_${n}
    env ${envs:-X=1} $B/app/seisfd run $cfg --backend cuda --quiet --overwrite ${flag:-} \
      --set output.directory=\"$d\" --set time.duration=$dur \
      --set kernel.diagnostics_interval=$k > /tmp/run_$n.log 2>&1 || tail -3 /tmp/run_$n.log | tee -a "$S"
    report "$n^3 $label" "$d/report.json"
  done
done

if [ "${ANISO:-1}" = 1 ]; then
  log "bench: VTI/TTI naive against their own streaming ceilings"
  timeout 300 $B/app/seisfd bench --physics acoustic,vti,tti --variants naive,smem_regqueue \
    --orders 4,8,16 --sizes 512 --steps 10 --repeats 5 --out "$OUT/results" > "$OUT/bench.log" 2>&1
  echo "bench rc=$?" | tee -a "$S"
  sed -n '/^seisfd bench on/,$p' "$OUT/bench.log" | tee -a "$S"
fi
nvcc -O2 -arch=sm_90 bench/copy_bandwidth.cu -o /tmp/copy_bandwidth && /tmp/copy_bandwidth | tee -a "$S"
log "done"
