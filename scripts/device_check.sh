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
  F='Registry/GpuVariant.MatchesCpu*/acoustic_o[28]_naive:Registry/GpuVariant.MatchesCpu*/acoustic_o16_naive'
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

log "throughput"
for cfg in quickstart bench_256_o8; do
  for be in cuda cpu; do
    [ "$be" = cpu ] && [ "$cfg" = bench_256_o8 ] && [ "${CPU_BIG:-1}" = 0 ] && continue
    d=/tmp/run_${cfg}_$be
    OMP_NUM_THREADS=16 $B/app/seisfd run configs/$cfg.toml --backend $be --quiet --overwrite \
      --set output.directory=$d > "$OUT/run_${cfg}_$be.log" 2>&1
    rc=$?
    python3 - "$d/report.json" "$cfg" "$be" "$rc" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
path, cfg, be, rc = sys.argv[1:]
try:
    r = json.load(open(path))
    p = r["performance"]; b = r["backend"]
    print(f"{cfg:14s} {be:5s} {b['device']:28s} {b['kernel']:24s} cells {r['grid']['cells']:>10d} "
          f"steps {p['steps']:5d} {p['seconds']:8.3f} s {p['gcells_per_s']:7.3f} Gcells/s")
except Exception as e:
    print(f"{cfg} {be} rc={rc} no report: {e}")
PY
    cp "$d/report.json" "$OUT/report_${cfg}_$be.json" 2>/dev/null
  done
done
log "done"
