#!/usr/bin/env bash
# One call on the GPU machine: build, GPU tests with skips forbidden, compute-sanitizer on the
# CUDA variants, copy bandwidth, and throughput runs. Logs and results go to $OUT.
# Run from the repo root with the toml++ headers carried in .deps/include
# (scripts/prepare_device_deps.sh makes that folder).
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_out}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"

log "configure + build"
cmake --preset device -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 &&
  cmake --build --preset device -j 16 >> "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
B=build/device

log "ctest (SEISFD_REQUIRE_GPU=1)"
SEISFD_REQUIRE_GPU=1 OMP_NUM_THREADS=16 ctest --test-dir $B -j 4 --output-on-failure \
  > "$OUT/ctest.log" 2>&1
echo "ctest rc=$?" | tee -a "$OUT/summary.txt"
tail -4 "$OUT/ctest.log" | tee -a "$OUT/summary.txt"
grep -h "^\[gpu\]" -r $B/Testing 2>/dev/null | head -0
SEISFD_REQUIRE_GPU=1 $B/tests/test_gpu 2>&1 | grep -E "^\[gpu\]" | tee -a "$OUT/summary.txt"

if [ "${SANITIZE:-1}" = 1 ]; then
  log "compute-sanitizer memcheck / racecheck (o2, o8, o16)"
  # MatchesCpu runs sponge, CPML and no layers, so the CPML kernels are checked here too.
  F='Registry/GpuVariant.MatchesCpu*/acoustic_o[28]_*:Registry/GpuVariant.MatchesCpu*/acoustic_o16_*:Registry/GpuVariant.Graphs*/acoustic_o8_*:GpuDiagnostics.*'
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    $B/tests/test_gpu --gtest_filter="$F" > "$OUT/memcheck.log" 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)" | tee -a "$OUT/summary.txt"
  compute-sanitizer --tool racecheck --error-exitcode 9 \
    $B/tests/test_gpu --gtest_filter='Registry/GpuVariant.MatchesCpu*/acoustic_o8_naive' \
    > "$OUT/racecheck.log" 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)" | tee -a "$OUT/summary.txt"
fi

log "copy bandwidth"
nvcc -O2 -arch=sm_90 bench/copy_bandwidth.cu -o $B/copy_bandwidth && $B/copy_bandwidth | tee -a "$OUT/summary.txt"

# One line per run from its report.json: config, backend, device, kernel, cells, Gcells/s.
report() {  # report LABEL REPORT_JSON RC
  python3 - "$@" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
label, path, rc = sys.argv[1:]
try:
    r = json.load(open(path))
    p = r["performance"]; b = r["backend"]
    print(f"{label:28s} {b['device']:22s} {b['kernel']:26s} cells {r['grid']['cells']:>10d} "
          f"steps {p['steps']:5d} {p['seconds']:8.3f} s {p['gcells_per_s']:7.3f} Gcells/s")
except Exception as e:
    print(f"{label} rc={rc} no report: {e}")
PY
}

log "throughput"
for cfg in quickstart bench_256_o8; do
  for be in cuda cpu; do
    [ "$be" = cpu ] && [ "$cfg" = bench_256_o8 ] && [ "${CPU_BIG:-1}" = 0 ] && continue
    d=/tmp/run_${cfg}_$be
    OMP_NUM_THREADS=16 $B/app/seisfd run configs/$cfg.toml --backend $be --quiet --overwrite \
      --set output.directory=\"$d\" > "/tmp/run_${cfg}_$be.log" 2>&1
    report "$cfg $be" "$d/report.json" $?
    cp "$d/report.json" "/tmp/report_${cfg}_$be.json" 2>/dev/null
  done
done

if [ "${BOUNDARY_COST:-1}" = 1 ]; then
  log "boundary cost: 512^3 order 8, 20-cell layers, GPU (whole time loop)"
  for bt in none sponge cpml; do
    w=20
    [ "$bt" = none ] && w=0
    for var in auto acoustic/o8/naive; do
      d=/tmp/run_512_${bt}
      $B/app/seisfd run configs/bench_512_o8.toml --backend cuda --quiet --overwrite \
        --set output.directory=\"$d\" --set boundary.type=\"$bt\" --set boundary.width=$w \
        --set kernel.variant=\"$var\" > "/tmp/run_512_${bt}.log" 2>&1
      report "512 $bt $var" "$d/report.json" $?
    done
  done
fi
if [ "${GRAPHS:-1}" = 1 ]; then
  log "graphs vs plain launches, diagnostics every 10 steps vs none (order 8, sponge 20, GPU)"
  for n in 128 512; do
    for mode in graph no-graph nodiag; do
      flag=""; diag=10
      [ "$mode" = no-graph ] && flag="--no-graph"
      [ "$mode" = nodiag ] && diag=1000000  # only the final check
      d=/tmp/run_g_${n}_$mode
      $B/app/seisfd run configs/bench_${n}_o8.toml --backend cuda --quiet --overwrite $flag \
        --set output.directory=\"$d\" --set kernel.diagnostics_interval=$diag \
        > "/tmp/run_g_${n}.log" 2>&1
      report "$n $mode" "$d/report.json" $?
    done
  done
fi
log "done"
