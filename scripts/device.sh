#!/usr/bin/env bash
# The GPU machine's part of a session, one script with steps chosen by name:
#
#   scripts/device.sh STEP [STEP...]      (run from the repository root)
#
# Steps (each builds what it needs first; a warm machine keeps build/ between calls):
#   build      configure and build (device preset, sm_90; .deps/include carries toml++, see
#              scripts/prepare_device_deps.sh), ptxas spill warnings into the summary
#   gpu-tests  SEISFD_REQUIRE_GPU=1 ctest -L gpu -LE multigpu (skips turn into failures); GPU_TESTS, GPU_TESTS_EXCLUDE: ctest -R, -E
#              filters; the tests' printed errors ("[gpu-...]" lines) into gpu_printed.txt
#   multigpu-tests  ctest -L multigpu (the NCCL rank tests: a GPU a rank), SEISFD_REQUIRE_GPU=1
#   exchange-probe  short decomposed runs of PROBE_EXCHANGES (nccl) on PROBE_NP (2) ranks, overlap
#              off, without graphs and by default, each under a timeout (PROBE_S) after which the
#              ranks' stacks are taken (gdb); PROBE_CASE: a case of decomposed_equal.py instead
#              of the quickstart; PROBE_SET: further --set arguments
#   cpu-tests  ctest -L 'fast|slow' on the machine's cores (CPU_TESTS: only those -R matches)
#   sanitize   compute-sanitizer memcheck on SANITIZE (gtest filters, "binary:filter" items) and
#              racecheck on RACECHECK; defaults cover every variant's odd shapes, the engine
#              contract on the GPU and the diagnostics
#   host-copy  bench/harness/copy_bandwidth.cu host: a face's copy rates between the device and page-locked
#              (cudaMallocHost) or registered shared host memory, one process and two at once
#   racecheck-imaging  compute-sanitizer racecheck of `seisfd migrate` on a small grid with the
#              imaging fused into acoustic smem_regqueue, orders RCI_ORDERS (2 8 16), image sets
#              RCI_CONDITIONS
#   bench      copy bandwidth; `seisfd bench` of BENCH_PHYSICS_LIST (default acoustic vti tti) at
#              BENCH_ORDERS (4,8,16) and BENCH_SIZES (default 512), results in $OUT/results; TTI
#              once per BENCH_TTI_OPERATORS (narrow; e.g. "narrow nested");
#              BENCH_VARIANTS: only these (--variants); BENCH_REPEATS: the whole table that often;
#              BENCH_PRECISION: --model-precision (e.g. fp32,fixed16)
#   runs       whole runs: 2000 steps of configs/bench_512_o8.toml and the shipped quickstart,
#              vti_layered and tti_salt, twice each, with their report numbers; RUNS_ONLY: a regex
#              of the labels to run; RUNS_TTI_OPERATORS="nested": tti_salt and a 512^3 TTI run with
#              that operator too; RUNS_EXTRA: further runs ("label|config|--set ...", ';'
#              between them); RUNS_REPEATS (2): rounds
#   sweep      seisfd-sweep over the tuning policies of SWEEP (techniques, default the four
#              acoustic ones; smem_nested: the nested TTI operator's) at SWEEP_ORDERS (4 8 16)
#   imaging    `seisfd bench --imaging` at 512^3 o8, acoustic, vti, tti (IMAGING_PHYSICS): the
#              adjoint step alone, with the imaging fused (cross-correlation; all three images) and
#              as separate passes; IMAGING_VARIANTS: --variants; with BASELINE, alternating twice
#   rtm        one shot of configs/bench_512_o8.toml (2000 steps, acoustic and TTI): forward
#              modelling, then migration with store, host and boundary; report.json of each, the
#              forward and backward seconds of the shot (with BASELINE: acoustic store and
#              boundary, TTI store of the baseline tree too); RTM_EQ picks the physics,
#              RTM_KINDS the strategies, RTM_STEPS the steps (2000); RTM_RUNS="kind|--set ...;..."
#              replaces the runs (each with BASELINE too)
#   diag       whole runs of configs/bench_512_o8.toml (1000 steps, diagnostics every 10 steps) for
#              DIAG_PHYSICS (default vti) with DIAG_VARIANT (default smem_regqueue), alternating
#              BASELINE and this tree twice: what fusing the diagnostics into the update saves
#   cpu-bench  `seisfd bench --backend cpu` of acoustic, VTI and TTI at order 8 on the machine's
#              cores (CPU_THREADS, default all) at CPU_SIZES (default 256), and the CPU
#              streaming ceiling of each pattern; CPU_PHYSICS picks, CPU_HUGE_PAGES="on off ..."
#              runs with SEISFD_HUGE_PAGES at each value in turn; with BASELINE, its seisfd and
#              this tree's in turn, CPU_ROUNDS (default 1) times; CPU_TTI_OPERATORS="nested": TTI
#              with that operator too
#   failures   ctest -R Failures (SEISFD_REQUIRE_GPU=1): a rank killed mid-run on the GPU (peer
#              and mpi exchanges) and on the CPU ends every rank, its outputs left *.partial
#   ranks      ctest -R 'Ranks|SplitSteps' (several ranks sharing the GPU, SEISFD_REQUIRE_GPU=1),
#              then whole runs of configs/bench_512_o8.toml (RANKS_STEPS steps, default 500) of
#              RANKS_PHYSICS (acoustic) on one rank and on 2 ranks sharing the GPU (decomposition
#              RANKS_DECOMP, default [1,1,2]) with the exchange overlapped and not (and BASELINE's
#              binary), twice; RANKS_MPS=1: again under the MPS daemon (only: under it alone); RANKS_TESTS: the ctest
#              filter; RANKS_SANITIZE=1: memcheck of 4 ranks with the peer exchange (or each of
#              RANKS_SANITIZE_EXCHANGE); RANKS_RUNS=0:
#              no whole runs; RANKS_EXCHANGE: the parallel.exchange values of the 2-rank runs
#              (auto); RANKS_CTEST=0: the runs without the ctest; RANKS_MPS_PCT="100 50": under
#              MPS, the 2-rank runs once per CUDA_MPS_ACTIVE_THREAD_PERCENTAGE given to each rank
#   scaling    weak (512^3 a GPU) and strong (1024 x 512 x 512 acoustic, 768^3 TTI) whole runs of
#              SCALING_STEPS (200) steps, order 8, on 1, 2, 4, 8 of the machine's GPUs (one rank
#              each, exchange auto), acoustic and TTI: $OUT/results/scaling.csv; SCALING_PHYSICS,
#              SCALING_KINDS pick; SCALING_OVERLAP="true false" runs several ranks both ways;
#              SCALING_REPEATS (1) runs each point that often; SCALING_BIND: mpirun --bind-to;
#              SCALING_EXCHANGE ("auto"): the parallel.exchange values to run on several ranks;
#              first `nvidia-smi topo -m` and `seisfd bench --peer` (each pair's bandwidth);
#              with BASELINE, each point of SCALING_BASELINE_PHYSICS (acoustic) also with the
#              baseline's binary right after (the CSV's tree column); SCALING_WEAK_AXIS (x, y
#              or z; a list runs each): the axis weak runs grow along; SCALING_DECOMP ("auto"):
#              the decompositions of several ranks, "auto" or the axis all ranks are cut along;
#              SCALING_TTI_OPERATORS ("narrow"; e.g. "narrow nested"); a CSV from an earlier
#              scaling step of the same invocation is appended to
#   shots      shot-parallel modelling and migration of configs/rtm_salt.toml (SHOTS_EQ, acoustic):
#              1 shot on 1 GPU, then as many shots as GPUs, one shot group a GPU; wall seconds,
#              rank 0's own seconds (report.json), mpirun's start-up and the per-GPU efficiency
#              into $OUT/results/shots.csv; SHOTS_DURATION: longer shots
#   decomp     one acoustic run (200 steps, peer) per item of DECOMP, "ranks:[pz,py,px]:NZxNYxNX"
#              [":key=value;..."] (default: 2 and 4 ranks cut along each axis); each rank's loop
#              time and wait, and each busy GPU's lowest clock, power and utilisation
#              (nvidia-smi every 100 ms; DECOMP_SMI=0: not)
#   mpi-bw     scripts/mpi_bandwidth.c on 2 ranks: what MPI alone takes to swap host buffers of
#              1 MB, one 512^3 order-8 face (4.9 MB) and 16 MB (the staged exchange's MPI part);
#              MPI_BW_MCA: ';'-separated sets of mpirun arguments (MCA settings) to run it under
#   ncu        Nsight Compute (--set full) of NCU_VARIANT's first update launch (default
#              tti/o8/smem_ring) in a 3-step run of configs/bench_512_o8.toml: the 512^3 step itself,
#              not a bench's verification or autotuning launch; report in $OUT/ncu.txt; NCU_SET:
#              further --set arguments of that run; NCU_KERNEL: the kernel name's regex when it
#              is not <physics>_<technique>...kernel
#   profile-salt  one shot of rtm_salt, run and migrate, with stacks every 12 s (gdb)
#   rtm-salt   configs/rtm_salt.toml run + migrate, acoustic (16 shots) and TTI (4 shots); the
#              sections of the images as .npz (`seisfd-plot image X.npz` draws them elsewhere)
# Warm calls rebuild only what changed: the sources are mirrored into DEVICE_SYNC_DIR (default
# /tmp/seisfd_src) by scripts/device_sync.py first, and the steps run there (DEVICE_SYNC=0: not).
# With BASELINE=DIR (a source tree of an earlier commit, e.g. from `git archive`), `bench`,
# `runs` and `ranks` build and run it too (BASELINE_TARGET=seisfd: only the program),
# alternating old and new on the same device in the same call.
# Logs go to $OUT (summary.txt first), bench CSV/JSON into $OUT/results_<time>.tgz; the last lines
# printed are the summary.
set -uo pipefail
OUT=${OUT:-/tmp/seisfd_device_out}
mkdir -p "$OUT/results"
S="$OUT/summary.txt"
log() { echo "== $* ($(date +%T))" | tee -a "$S"; }
# The call's copy of the sources is new each time (every file newer than any build): mirror it
# into DEVICE_SYNC_DIR, which a warm machine keeps between calls, changing only the files whose
# bytes changed, and run from there, so that a warm call rebuilds only what changed.
# DEVICE_SYNC=0: build in the copy itself.
if [ "${DEVICE_SYNC:-1}" = 1 ] && [ -z "${SEISFD_DEVICE_SYNCED:-}" ]; then
  dst=${DEVICE_SYNC_DIR:-/tmp/seisfd_src}
  python3 scripts/device_sync.py . "$dst" | tee -a "$S" || exit 1
  [ -n "${BASELINE:-}" ] && BASELINE=$(realpath "$BASELINE") && export BASELINE
  cd "$dst" && SEISFD_DEVICE_SYNCED=1 OUT="$OUT" exec scripts/device.sh "$@"
fi
B=build/device
export SEISFD_AUTOTUNE_CACHE="$OUT/autotune.tsv"
export PATH="$PATH:/usr/local/cuda/bin"
[ -d .deps/include ] || { echo "missing .deps/include (scripts/prepare_device_deps.sh)"; exit 1; }

build_tree() {  # build_tree SRC BUILD_DIR [cmake args...]
  local src=$1 dir=$2
  shift 2
  local t0
  t0=$(date +%s)
  { cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEISFD_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DSEISFD_TOMLPP_INCLUDE_DIR="$PWD/.deps/include" "$@" &&
    cmake --build "$dir" -j "$(nproc)" ${BUILD_TARGET:+--target $BUILD_TARGET}; } > "$OUT/build_$(basename "$dir").log" 2>&1 ||
    { tail -30 "$OUT/build_$(basename "$dir").log" | tee -a "$S"; exit 1; }
  grep -i "spill" "$OUT/build_$(basename "$dir").log" | sort | uniq -c | head -10 >> "$S"
  echo "build $src -> $dir: $(( $(date +%s) - t0 )) s" | tee -a "$S"
}

built=0
build() {
  [ $built = 1 ] && return
  log "build"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem \
    --format=csv,noheader | tee -a "$S"
  build_tree . $B -DSEISFD_BENCH_SWEEPS=ON
  if [ -n "${BASELINE:-}" ]; then
    mkdir -p "$BASELINE/.deps" && cp -r .deps/include "$BASELINE/.deps/" 2>/dev/null
    BUILD_TARGET=${BASELINE_TARGET:-} build_tree "$BASELINE" build/baseline
  fi
  built=1
}

# One shard of the GPU tests on GPU $1 of $2. The multigpu tests (a GPU a rank) are
# multigpu-tests' own: a shard sees one GPU.
gpu_shard() {
  CUDA_VISIBLE_DEVICES=$1 SEISFD_REQUIRE_GPU=1 timeout ${GPU_CTEST_S:-420} ctest --test-dir $B -L gpu -LE multigpu \
    -I $(($1 + 1)),,$2 ${GPU_TESTS:+-R "$GPU_TESTS"} ${GPU_TESTS_EXCLUDE:+-E "$GPU_TESTS_EXCLUDE"} -j ${GPU_CTEST_J:-4} --timeout 300 --output-on-failure \
    > "$OUT/ctest_gpu_$1.log" 2>&1
}

step_gpu_tests() {
  build
  local ngpu
  ngpu=$(nvidia-smi -L | wc -l)
  log "ctest -L gpu (SEISFD_REQUIRE_GPU=1), in $ngpu shard(s), one a GPU"
  # On a machine of several GPUs the tests are dealt out round robin (ctest -I start,,stride),
  # each shard on a GPU of its own (CUDA_VISIBLE_DEVICES); GPU_SHARDS (default all) names the
  # shards to run. The test lists are discovered once first: shards discovering at once race
  # on googletest's discovery files.
  ctest --test-dir $B -N -L gpu > /dev/null 2>&1
  local shards
  shards=${GPU_SHARDS:-$(seq 0 $((ngpu - 1)))}
  for i in $shards; do gpu_shard $i $ngpu & done
  wait
  # A shard whose ctest found a test list being rewritten by another's discovery (cmake's
  # googletest JSON, seen on 4 shards at once) ran nothing: those run again, together (the lists
  # are written by then).
  for i in $shards; do
    grep -q "discover_tests failed" "$OUT/ctest_gpu_$i.log" || continue
    log "shard $i: test discovery raced, run again"
    gpu_shard $i $ngpu &
  done
  wait
  grep -h "^\[gpu-" $B/Testing/Temporary/LastTest*.log > "$OUT/gpu_printed.txt" 2>/dev/null
  for i in $shards; do
    echo "ctest gpu shard $i: $(grep -E "tests passed|tests failed" "$OUT/ctest_gpu_$i.log") $(grep -E "Total Test time" "$OUT/ctest_gpu_$i.log")" | tee -a "$S"
    grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout|\(Failed\)" "$OUT/ctest_gpu_$i.log" | head -20 |
      tee -a "$S"
  done
}

step_multigpu_tests() {
  build
  log "ctest -L multigpu (SEISFD_REQUIRE_GPU=1): the tests that need a GPU a rank (nccl)"
  SEISFD_REQUIRE_GPU=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout ${MULTIGPU_CTEST_S:-300} ctest --test-dir $B -L multigpu -j 1 --timeout 280 \
    --output-on-failure > "$OUT/ctest_multigpu.log" 2>&1
  echo "ctest multigpu rc=$?" | tee -a "$S"
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest_multigpu.log" | tee -a "$S"
  grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout|\(Failed\)|FAIL" "$OUT/ctest_multigpu.log" |
    head -20 | tee -a "$S"
}

# One short decomposed quickstart run per exchange of PROBE_EXCHANGES (nccl) and per way of
# stepping (overlap off; overlap on without graphs; the default), PROBE_NP ranks (2) on their own
# GPUs, each under a 90 s timeout with NCCL_DEBUG=WARN: where a path hangs or fails, and why.
step_exchange_probe() {
  build
  log "exchange probe: ${PROBE_EXCHANGES:-nccl} on ${PROBE_NP:-2} ranks"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  local ex how k=0 cfg=configs/quickstart.toml dur=(--set time.duration=0.1)
  # PROBE_CASE: a case of tests/mpi/decomposed_equal.py (its config) instead of the quickstart.
  if [ -n "${PROBE_CASE:-}" ]; then
    cfg=/tmp/probe_case.toml dur=()
    python3 -c "import sys; sys.path.insert(0, 'tests/mpi'); import decomposed_equal as d; print(d.config('$PROBE_CASE', '/tmp/probe_case_out'))" > $cfg
  fi
  for ex in ${PROBE_EXCHANGES:-nccl}; do
    for how in overlap-off no-graph default; do
      local set=() flag=()
      [ $how = overlap-off ] && set=(--set parallel.overlap=false)
      [ $how = no-graph ] && flag=(--no-graph)
      k=$((k + 1))
      mpirun --oversubscribe -np ${PROBE_NP:-2} -x NCCL_DEBUG=${NCCL_DEBUG:-WARN} \
        $B/app/seisfd run $cfg --backend cuda --quiet --overwrite "${flag[@]}" "${dur[@]}" \
        --set output.directory=\"/tmp/probe$k\" ${PROBE_SET:-} \
        --set parallel.exchange=\"$ex\" "${set[@]}" > "$OUT/probe_${ex}_$how.log" 2>&1 &
      local pid=$! t=0
      while kill -0 $pid 2> /dev/null && [ $t -lt ${PROBE_S:-90} ]; do sleep 1; t=$((t + 1)); done
      if kill -0 $pid 2> /dev/null; then  # hung: every rank's stacks, then the launch killed
        for p in $(pgrep -f "seisfd run $cfg"); do
          gdb -p $p -batch -ex "thread apply all bt 12" > "$OUT/probe_${ex}_${how}_stack_$p.txt" 2>&1
        done
        echo "probe $ex $how HUNG after ${PROBE_S:-90} s (stacks in probe_${ex}_${how}_stack_*)" | tee -a "$S"
        kill -9 $pid; pkill -9 -f "seisfd run $cfg"
      fi
      wait $pid
      echo "probe $ex $how rc=$?" | tee -a "$S"
      tail -6 "$OUT/probe_${ex}_$how.log" | tee -a "$S"
      report "  $ex $how" /tmp/probe$k/report.json
    done
  done
}

step_cpu_tests() {
  build
  log "ctest -L 'fast|slow' ${CPU_TESTS:+-R $CPU_TESTS}"
  timeout ${CPU_CTEST_S:-300} ctest --test-dir $B -L 'fast|slow' ${CPU_TESTS:+-R "$CPU_TESTS"} -j 16 --timeout 280 \
    --output-on-failure > "$OUT/ctest_cpu.log" 2>&1
  echo "ctest cpu rc=$?" | tee -a "$S"
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest_cpu.log" | tee -a "$S"
  grep -E "\*\*\*Failed|Not Run|Timeout|\(Failed\)" "$OUT/ctest_cpu.log" | head -20 | tee -a "$S"
}

sanitize_one() {  # sanitize_one TOOL BINARY FILTER
  local tool=$1 bin=$2 filt=$3 log="$OUT/sanitize.log"
  echo "---- $tool $bin $filt" >> "$log"
  SEISFD_REQUIRE_GPU=1 timeout ${SANITIZE_S:-240} compute-sanitizer --tool "$tool" \
    --error-exitcode 9 "$B/tests/$bin" --gtest_filter="$filt" > /tmp/san.log 2>&1
  local rc=$?
  cat /tmp/san.log >> "$log"
  echo "$tool $bin $filt rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' /tmp/san.log | tr '\n' ' ')$(grep -E '(ERROR|RACECHECK) SUMMARY' /tmp/san.log | tail -1)" |
    tee -a "$S"
}

step_sanitize() {
  build
  log "compute-sanitizer"
  local m=${SANITIZE:-"test_gpu_variants:*o8_*:*o16_* test_engine_contract:*cuda* test_gpu:GpuDiagnostics.*:Registry/GpuVariant.NonFinite*o8* test_gpu_anisotropic:GpuAnisoDiagnostics.*:Registry/GpuAniso.*o4*"}
  for item in $m; do sanitize_one memcheck "${item%%:*}" "${item#*:}"; done
  local r=${RACECHECK:-"test_gpu_variants:*o8_smem*:*o8_shfl*:*o8_tma*:*o8_cluster*:*o16_smem*:*o16_shfl*:*o16_tma*:*o16_cluster*-*smem_ring* test_gpu:GpuDiagnostics.Fused* test_gpu_aniso_adjoint:*GpuAnisoSmallGrid*"}
  for item in $r; do sanitize_one racecheck "${item%%:*}" "${item#*:}"; done
}

bench_with() {  # bench_with BINARY LABEL
  local bin=$1 label=$2 ph op ops
  for ph in ${BENCH_PHYSICS_LIST:-acoustic vti tti}; do
    # TTI once per operator of BENCH_TTI_OPERATORS (narrow; the baseline: narrow only).
    ops=narrow
    [ "$ph" = tti ] && [ "$label" != baseline ] && ops=${BENCH_TTI_OPERATORS:-narrow}
    for op in $ops; do
      # shellcheck disable=SC2046
      timeout ${BENCH_S:-200} "$bin" bench --physics "$ph" --orders "${BENCH_ORDERS:-4,8,16}" \
        ${BENCH_VARIANTS:+--variants "$BENCH_VARIANTS"} ${BENCH_PRECISION:+--model-precision "$BENCH_PRECISION"} \
        $([ "$op" != narrow ] && echo --tti-operator "$op") \
        --sizes "${BENCH_SIZES:-512}" --steps 20 --repeats 7 --out "$OUT/results/$label" \
        > "/tmp/bench_$label.log" 2>&1
      echo "bench $label $ph $op rc=$?" | tee -a "$S"
      sed -n '/^seisfd bench on/,$p' "/tmp/bench_$label.log" | tee -a "$S"
    done
  done
}

step_bench() {
  build
  log "copy bandwidth"
  nvcc -O2 -arch=sm_90 bench/harness/copy_bandwidth.cu -o /tmp/copy_bandwidth &&
    /tmp/copy_bandwidth | tee -a "$S"
  if [ -n "${BASELINE:-}" ]; then
    log "bench, baseline then this tree"
    bench_with build/baseline/app/seisfd baseline
  fi
  log "bench"
  for rep in $(seq ${BENCH_REPEATS:-1}); do bench_with $B/app/seisfd new; done
}

report() {  # report LABEL REPORT_JSON
  python3 - "$@" <<'PY' | tee -a "$S"
import json, sys
label, path = sys.argv[1:]
try:
    r = json.load(open(path)); p = r["performance"]; b = r["backend"]
    print(f"{label:40s} {b['kernel']:30s} {p['steps']:5d} steps {p['seconds']:7.3f} s "
          f"{p['gcells_per_s']:7.2f} Gcells/s | {b.get('variant_choice', '')[:60]} "
          f"| {b.get('compressible', '')}")
except Exception as e:
    print(f"{label} no report: {e}")
PY
}

step_runs() {
  build
  log "whole runs (graphs, diagnostics every 10 steps, kernel.variant auto, cached after the first)"
  local cfg=configs/bench_512_o8.toml
  local dt dur
  dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * 2000)")
  local trees="new"
  [ -n "${BASELINE:-}" ] && trees="baseline new"
  for rep in $(seq 1 ${RUNS_REPEATS:-2}); do
    for tree in $trees; do
      local bin=$B/app/seisfd
      [ $tree = baseline ] && bin=build/baseline/app/seisfd
      local runs=("512^3 o8 2000 steps|$cfg|--set time.duration=$dur" "quickstart|configs/quickstart.toml|"
                  "vti_layered|configs/vti_layered.toml|" "tti_salt|configs/tti_salt.toml|")
      # RUNS_TTI_OPERATORS="nested": tti_salt and the 512^3 grid's TTI run with that operator too
      # (the baseline's too: a tree from before the operator existed fails those runs).
      local op
      for op in ${RUNS_TTI_OPERATORS:-}; do
        runs+=("tti_salt $op|configs/tti_salt.toml|--set physics.tti_operator=\"$op\""
               "512^3 o8 tti $op, 1000 steps|$cfg|--set time.duration=$(python3 -c "print(${dt} * 1000)") --set physics.equation=\"tti\" --set physics.tti_operator=\"$op\" --set model.epsilon=0.2 --set model.delta=0.1 --set model.theta=30.0 --set model.phi=40.0")
      done
      # RUNS_EXTRA: further runs, "label|config|--set ...", ';' between them
      local more
      IFS=';' read -ra more <<< "${RUNS_EXTRA:-}"
      runs+=("${more[@]}")
      for c in "${runs[@]}"; do
        [ -n "$c" ] || continue
        IFS='|' read -r label file extra <<< "$c"
        [ -n "${RUNS_ONLY:-}" ] && [[ ! "$label" =~ $RUNS_ONLY ]] && continue
        local d=/tmp/run_$tree
        # shellcheck disable=SC2086
        $bin run "$file" --backend cuda --quiet --overwrite --set output.directory=\"$d\" $extra \
          > /tmp/run.log 2>&1 || tail -3 /tmp/run.log | tee -a "$S"
        report "$tree $label (run $rep)" "$d/report.json"
      done
    done
  done
}

step_sweep() {
  build
  log "seisfd-sweep"
  for t in ${SWEEP:-smem_regqueue shfl_regqueue tma_ring cluster_dsmem}; do
    for o in ${SWEEP_ORDERS:-4 8 16}; do
      timeout 120 $B/bench/sweep/seisfd-sweep --technique "$t" --order $o --size 512 2>&1 |
        tee -a "$S"
    done
  done
}

# One line per run or migration: its shot seconds and what the report says about storage.
rtm_report() {  # rtm_report LABEL REPORT_JSON
  python3 - "$@" <<'PY' | tee -a "$S"
import json, sys
label, path = sys.argv[1:]
try:
    r = json.load(open(path)); p = r["performance"]; m = r.get("migration", {})
    shots = m.get("shots") or r.get("shots") or []
    sec = sum(s.get("seconds", 0) for s in shots)
    est = {e["storage"]: e for e in m.get("estimates", [])}
    st = m.get("storage", "")
    mem = ""
    if st:
        e = est[st]
        mem = f" storage {st} interval {m['imaging_interval']} device {e['device_bytes']/2**30:.2f} GiB host {e['host_bytes']/2**30:.2f} GiB"
    fb = ""
    if shots and "forward_seconds" in shots[0]:
        fb = f" (forward {sum(s['forward_seconds'] for s in shots):.2f} s, backward {sum(s['backward_seconds'] for s in shots):.2f} s)"
    if m.get("boundary_strips"):
        mem += f" strips on {m['boundary_strips']}"
    print(f"{label:34s} {r['backend']['kernel']:28s} shots {len(shots)} {sec:8.2f} s{fb}{mem}")
    w = r.get("wall_seconds", {})
    print("    wall " + " ".join(f"{k} {v:.1f}" for k, v in w.items()))
except Exception as e:
    print(f"{label} no report: {e}")
PY
}

step_rtm() {
  build
  log "rtm: 512^3 o8 ${RTM_STEPS:-2000} steps, one shot: forward, then migrations"
  local cfg=configs/bench_512_o8.toml bin=$B/app/seisfd
  local dt dur
  dt=$($bin check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * ${RTM_STEPS:-2000})")
  for eq in ${RTM_EQ:-acoustic tti}; do
    local common=(--backend cuda --quiet --overwrite --set time.duration=$dur
                  --set "physics.equation=\"$eq\"")
    $bin run $cfg "${common[@]}" --set output.directory=\"/tmp/rtm_data\" > /tmp/rtm.log 2>&1 ||
      tail -3 /tmp/rtm.log | tee -a "$S"
    rtm_report "$eq forward" /tmp/rtm_data/report.json
    cp /tmp/rtm_data/report.json "$OUT/results/rtm_${eq}_forward.json"
    # store: in device memory at the imaging interval that fits (fp32); host: the same levels in
    # pinned host memory; boundary: the wavelet's own interval and the store's.
    local every=24
    [ $eq = tti ] && every=48
    local runs=("store|--set migration.imaging_interval=$every" "host|--set migration.imaging_interval=$every"
                "boundary|" "boundary|--set migration.imaging_interval=$every")
    [ -n "${RTM_RUNS:-}" ] && IFS=';' read -r -a runs <<< "$RTM_RUNS"
    for st in "${runs[@]}"; do
      IFS='|' read -r kind extra <<< "$st"
      [[ " ${RTM_KINDS:-store host boundary} " == *" $kind "* ]] || continue
      local trees="new"
      if [ -n "${BASELINE:-}" ] && { [ -n "${RTM_RUNS:-}" ] || [ $kind = store ] || { [ $eq = acoustic ] && [ $kind = boundary ] && [ -z "$extra" ]; }; }; then
        trees="baseline new"
      fi
      for tree in $trees; do
        local b=$bin
        [ $tree = baseline ] && b=build/baseline/app/seisfd
        # shellcheck disable=SC2086
        timeout ${RTM_S:-300} $b migrate $cfg "${common[@]}" --set migration.data=\"/tmp/rtm_data/gathers.h5\" \
          --set migration.smoothing=0 --set 'migration.direct_arrival="keep"' \
          --set "migration.storage=\"$kind\"" --set 'migration.conditions=["crosscorrelation"]' \
          $extra --set output.directory=\"/tmp/rtm_img\" > /tmp/rtm.log 2>&1 ||
          tail -3 /tmp/rtm.log | tee -a "$S"
        rtm_report "$tree $eq migrate $kind $extra" /tmp/rtm_img/report.json
        cp /tmp/rtm_img/report.json "$OUT/results/rtm_${tree}_${eq}_${kind}${extra:+_every}.json"
      done
    done
  done
}

step_imaging() {
  build
  log "imaging: the adjoint step with the migration's imaging, 512^3 o8"
  local trees="new"
  [ -n "${BASELINE:-}" ] && trees="baseline new baseline new"
  for ph in ${IMAGING_PHYSICS:-acoustic vti tti}; do
    for tree in $trees; do
      local bin=$B/app/seisfd
      [ $tree = baseline ] && bin=build/baseline/app/seisfd
      timeout ${BENCH_S:-200} $bin bench --physics $ph --orders 8 --sizes 512 --steps 20 \
        --repeats 7 --imaging ${IMAGING_VARIANTS:+--variants $IMAGING_VARIANTS} \
        --out "$OUT/results" > /tmp/bench_imaging.log 2>&1
      echo "bench --imaging $ph ($tree) rc=$?" | tee -a "$S"
      sed -n '/^imaging at every/,$p' /tmp/bench_imaging.log | tee -a "$S"
    done
  done
}

step_rtm_salt() {
  build
  log "rtm-salt: configs/rtm_salt.toml, acoustic 16 shots and tti 4 shots"
  local bin=$B/app/seisfd
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl > /dev/null 2>&1 && export PYTHONPATH=/tmp/site
  local tti=(--set 'physics.equation="tti"' --set 'shots.count=[2,2]'
             --set 'shots.spacing=[1280.0,1280.0]' --set 'shots.start=[960.0,960.0,25.0]')
  for eq in acoustic tti; do
    local extra=()
    [ $eq = tti ] && extra=("${tti[@]}")
    local t0
    t0=$(date +%s.%N)
    $bin run configs/rtm_salt.toml --backend cuda --quiet --overwrite "${extra[@]}" \
      --set output.directory=\"/tmp/salt_data_$eq\" > /tmp/salt.log 2>&1 ||
      tail -3 /tmp/salt.log | tee -a "$S"
    $bin migrate configs/rtm_salt.toml --backend cuda --quiet --overwrite "${extra[@]}" \
      --set migration.data=\"/tmp/salt_data_$eq/gathers.h5\" \
      --set output.directory=\"/tmp/salt_img_$eq\" > /tmp/salt.log 2>&1 ||
      tail -3 /tmp/salt.log | tee -a "$S"
    echo "rtm_salt $eq: run + migrate $(python3 -c "import time; print(round(time.time() - $t0, 1))") s wall" | tee -a "$S"
    rtm_report "salt $eq run" /tmp/salt_data_$eq/report.json
    rtm_report "salt $eq migrate" /tmp/salt_img_$eq/report.json
    cp /tmp/salt_img_$eq/report.json "$OUT/results/rtm_salt_${eq}_migrate.json"
    PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} python3 -m seisfd image /tmp/salt_img_$eq/image.h5 \
      -o "$OUT/results/rtm_salt_$eq.npz" 2>&1 |
      tail -2 | tee -a "$S"
  done
}

step_diag() {
  build
  log "diagnostics in whole runs: 512^3 o8, 1000 steps, every 10 steps"
  local cfg=configs/bench_512_o8.toml dt dur trees="new"
  dt=$($B/app/seisfd check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * 1000)")
  [ -n "${BASELINE:-}" ] && trees="baseline new"
  for rep in 1 2; do
    for tree in $trees; do
      local bin=$B/app/seisfd
      [ $tree = baseline ] && bin=build/baseline/app/seisfd
      for ph in ${DIAG_PHYSICS:-vti}; do
        $bin run $cfg --backend cuda --quiet --overwrite --set output.directory=\"/tmp/diag\" \
          --set time.duration=$dur --set physics.equation=\"$ph\" \
          --set kernel.variant=\"${DIAG_VARIANT:-smem_regqueue}\" \
          --set kernel.diagnostics_interval=10 > /tmp/run.log 2>&1 || tail -3 /tmp/run.log | tee -a "$S"
        report "$tree $ph diag/10 (run $rep)" /tmp/diag/report.json
      done
    done
  done
}

step_ncu() {
  build
  local v=${NCU_VARIANT:-tti/o8/smem_ring} cfg=configs/bench_512_o8.toml bin=$B/app/seisfd
  local eq=${v%%/*} tech=${v##*/} dt dur
  log "ncu: $v, first update launch of a 3-step 512^3 run"
  dt=$($bin check $cfg 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
  dur=$(python3 -c "print(${dt} * 3)")
  # NCU_SET: further --set arguments (e.g. physics.tti_operator=\"nested\"). The report is kept
  # ($OUT/ncu.ncu-rep) with its raw metrics and the SASS with each instruction's samples as CSV.
  # shellcheck disable=SC2086
  SEISFD_AUTOTUNE=0 timeout ${NCU_S:-300} ncu -k "regex:${NCU_KERNEL:-${eq}_${tech}.*kernel}" -c 1 --set full --clock-control none \
    --import-source yes -f -o "$OUT/ncu" \
    $bin run $cfg --backend cuda --quiet --overwrite --set time.duration=$dur \
    --set "physics.equation=\"$eq\"" --set "kernel.variant=\"$v\"" ${NCU_SET:-} \
    --set output.directory=\"/tmp/ncu_run\" > "$OUT/ncu_run.txt" 2>&1
  echo "ncu rc=$?" | tee -a "$S"
  ncu -i "$OUT/ncu.ncu-rep" --page details --print-details all > "$OUT/ncu.txt" 2>&1
  ncu -i "$OUT/ncu.ncu-rep" --page raw --csv > "$OUT/ncu_raw.csv" 2>&1
  ncu -i "$OUT/ncu.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_sass.csv" 2>&1
  grep -E "Duration|Throughput|Registers Per|Achieved Occupancy|Issued Ipc|No Eligible|Bank|Warp Cycles|Eligible Warps|Active Warps Per|stall|Stall" \
    "$OUT/ncu.txt" | head -45 | tee -a "$S"
}

step_cpu_bench() {
  build
  log "cpu bench ($(nproc) cores)"
  grep -m1 "model name" /proc/cpuinfo | tee -a "$S"
  # CPU_HUGE_PAGES: the SEISFD_HUGE_PAGES values to run, one after the other ("on off on off"
  # interleaves); CPU_PHYSICS (acoustic,vti,tti). With BASELINE: its seisfd and this tree's in
  # turn, CPU_ROUNDS (2) times each.
  local bins="$B/app/seisfd" round
  [ -n "${BASELINE:-}" ] && bins="build/baseline/app/seisfd $B/app/seisfd"
  for round in $(seq "${CPU_ROUNDS:-1}"); do
    for bin in $bins; do
      for hp in ${CPU_HUGE_PAGES:-on}; do
        SEISFD_HUGE_PAGES=$hp OMP_NUM_THREADS=${CPU_THREADS:-$(nproc)} OMP_PROC_BIND=close OMP_PLACES=cores \
          timeout ${CPU_BENCH_S:-150} $bin bench --backend cpu --physics ${CPU_PHYSICS:-acoustic,vti,tti} \
          --orders 8 --sizes "${CPU_SIZES:-256}" --steps 5 --repeats 5 --out "$OUT/results/cpu" \
          > /tmp/cpu_bench.log 2>&1
        echo "cpu bench $bin round $round huge pages $hp rc=$?" | tee -a "$S"
        sed -n '/^seisfd bench on/,$p' /tmp/cpu_bench.log | tee -a "$S"
      done
      # CPU_TTI_OPERATORS="nested": TTI with that operator too (this tree's binary).
      for op in ${CPU_TTI_OPERATORS:-}; do
        [ "$bin" = "$B/app/seisfd" ] || continue
        OMP_NUM_THREADS=${CPU_THREADS:-$(nproc)} OMP_PROC_BIND=close OMP_PLACES=cores \
          timeout ${CPU_BENCH_S:-150} $bin bench --backend cpu --physics tti --tti-operator "$op" \
          --orders 8 --sizes "${CPU_SIZES:-256}" --steps 5 --repeats 5 --out "$OUT/results/cpu" \
          > /tmp/cpu_bench.log 2>&1
        echo "cpu bench $bin round $round tti $op rc=$?" | tee -a "$S"
        sed -n '/^seisfd bench on/,$p' /tmp/cpu_bench.log | tee -a "$S"
      done
    done
  done
}

step_failures() {  # tests/mpi/rank_failures.py on the GPU and on the CPU
  build
  log "ctest -R Failures (SEISFD_REQUIRE_GPU=1): a rank killed mid-run, its neighbours waiting on the device (peer) or in MPI"
  SEISFD_REQUIRE_GPU=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 \
    ctest --test-dir $B -R Failures -j 1 --output-on-failure -V > "$OUT/ctest_failures.log" 2>&1
  echo "ctest failures rc=$?" | tee -a "$S"
  grep -E "rank 2 killed|output after|FAIL|SKIPPED|tests passed|tests failed" \
    "$OUT/ctest_failures.log" | tee -a "$S"
}

step_ranks() {
  build
  [ "${RANKS_CTEST:-1}" = 1 ] && log "ranks: ctest -R 'Ranks|SplitSteps' (SEISFD_REQUIRE_GPU=1)" &&
  SEISFD_REQUIRE_GPU=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout ${RANKS_CTEST_S:-240} ctest --test-dir $B -R "${RANKS_TESTS:-Ranks|SplitSteps}" -j ${RANKS_CTEST_J:-2} --timeout 200 \
    --output-on-failure > "$OUT/ctest_ranks.log" 2>&1
  echo "ctest ranks rc=$?" | tee -a "$S"
  grep -E "tests passed|tests failed|Total Test time|\(Failed\)|Skipped|Timeout" "$OUT/ctest_ranks.log" | tee -a "$S"
  [ "${RANKS_RUNS:-1}" = 0 ] && mps_skip=1 || mps_skip=0
  log "ranks: whole runs, one rank against 2 ranks sharing the GPU (overlap on, off; BASELINE)"
  local cfg=configs/bench_512_o8.toml dt dur
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  local tti=(--set physics.equation=\"tti\" --set model.epsilon=0.2 --set model.delta=0.1
             --set model.theta=30.0 --set model.phi=20.0)
  local mps_modes="off"
  [ -n "${RANKS_MPS:-}" ] && mps_modes="off on"
  [ "${RANKS_MPS:-}" = only ] && mps_modes="on"
  [ $mps_skip = 1 ] && mps_modes=""
  for mps in $mps_modes; do
  if [ $mps = on ]; then  # the ranks' kernels run side by side instead of in time slices
    if ! command -v nvidia-cuda-mps-control > /dev/null; then echo "no MPS here" | tee -a "$S"; break; fi
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps_log
    mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
    nvidia-cuda-mps-control -d && log "MPS daemon started"
  fi
  for eq in ${RANKS_PHYSICS:-acoustic}; do
    local extra=()
    [ $eq = tti ] && extra=("${tti[@]}")
    dt=$($B/app/seisfd check $cfg "${extra[@]}" 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
    dur=$(python3 -c "print(${dt} * ${RANKS_STEPS:-500})")
    for rep in 1 2; do
      $B/app/seisfd run $cfg "${extra[@]}" --backend cuda --quiet --overwrite --set time.duration=$dur \
        --set output.directory=\"/tmp/ranks1\" > /tmp/ranks.log 2>&1 || tail -3 /tmp/ranks.log | tee -a "$S"
      report "$eq 1 rank (run $rep)" /tmp/ranks1/report.json
      local bins=("$B/app/seisfd:overlap" "$B/app/seisfd:no-overlap")
      [ -n "${BASELINE:-}" ] && bins+=("build/baseline/app/seisfd:baseline")
      for ex in ${RANKS_EXCHANGE:-auto}; do
      local pcts="-"
      [ $mps = on ] && pcts=${RANKS_MPS_PCT:--}
      for pct in $pcts; do
      for bo in "${bins[@]}"; do
        local bin=${bo%%:*} what=${bo##*:} set=(--set "parallel.exchange=\"$ex\"") envs=()
        [ $what = no-overlap ] && set+=(--set parallel.overlap=false)
        [ $pct != - ] && envs=(-x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct) && what="$what sm-$pct%"
        timeout 300 mpirun --oversubscribe -np 2 "${envs[@]}" $bin run $cfg "${extra[@]}" --backend cuda --quiet \
          --overwrite --set time.duration=$dur --set output.directory=\"/tmp/ranks2\" \
          --set "parallel.decomposition=${RANKS_DECOMP:-[1,1,2]}" "${set[@]}" > /tmp/ranks.log 2>&1 ||
          tail -5 /tmp/ranks.log | tee -a "$S"
        report "$eq 2 ranks ${RANKS_DECOMP:-[1,1,2]} $ex $what mps-$mps (run $rep)" /tmp/ranks2/report.json
        python3 -c "import json; r=json.load(open('/tmp/ranks2/report.json')); print('  exchange', r['parallel'])" 2>&1 | tee -a "$S"
      done
      done
      done
    done
  done
  if [ $mps = on ]; then echo quit | nvidia-cuda-mps-control; log "MPS daemon stopped"; fi
  done
  [ -z "${RANKS_SANITIZE:-}" ] && return
  log "ranks: compute-sanitizer memcheck on 4 ranks [2,1,2] with the ${RANKS_SANITIZE_EXCHANGE:-peer} exchange (quickstart, TTI)"
  for ex in ${RANKS_SANITIZE_EXCHANGE:-peer}; do
  for eq in ${RANKS_SANITIZE_PHYSICS:-acoustic tti}; do
    local extra=()
    [ $eq = tti ] && extra=(--set 'model.epsilon=[0.2,0.1,0.1]' --set 'model.delta=[0.1,0.05,0.05]'
                           --set 'model.theta=[30.0,20.0,10.0]' --set 'model.phi=[40.0,10.0,0.0]')
    timeout ${SANITIZE_S:-300} mpirun --oversubscribe -np 4 compute-sanitizer --tool memcheck --error-exitcode 9 \
      $B/app/seisfd run configs/quickstart.toml --backend cuda --quiet --overwrite \
      --set physics.equation=\"$eq\" "${extra[@]}" --set time.duration=0.05 \
      --set output.directory=\"/tmp/ranks_san_$eq\" --set 'parallel.decomposition=[2,1,2]' \
      --set parallel.exchange=\"$ex\" > "$OUT/ranks_sanitize_${ex}_$eq.log" 2>&1
    echo "memcheck 4 ranks $ex $eq rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/ranks_sanitize_${ex}_$eq.log" | sort | uniq -c | tr '\n' ' ')" | tee -a "$S"
  done
  done
}

step_scaling() {
  build
  local ngpu cfg=configs/bench_512_o8.toml csv="$OUT/results/scaling.csv"
  ngpu=$(nvidia-smi -L | wc -l)
  log "scaling on $ngpu GPU(s)"
  nvidia-smi topo -m 2>&1 | tee -a "$S" "$OUT/results/topo.txt"
  [ "$ngpu" -gt 1 ] && $B/app/seisfd bench --peer --out "$OUT/results" 2>&1 | tee -a "$S"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # A CSV already there (an earlier scaling step of this invocation) is appended to.
  [ -f "$csv" ] || echo "physics,kind,ranks,nz,ny,nx,steps,seconds,gcells_per_s,exchange,exchange_seconds,decomposition,overlap,requested,exchange_wait_seconds,tree" > "$csv"
  local tti=(--set physics.equation=\"tti\" --set model.epsilon=0.2 --set model.delta=0.1
             --set model.theta=30.0 --set model.phi=20.0)
  # SCALING_TTI_OPERATORS (narrow): TTI once per physics.tti_operator, "tti-nested" in the CSV's
  # physics column for the nested one.
  local eqs=() e o
  for e in ${SCALING_PHYSICS:-acoustic tti}; do
    if [ $e = tti ]; then
      for o in ${SCALING_TTI_OPERATORS:-narrow}; do
        [ $o = narrow ] && eqs+=(tti) || eqs+=(tti-$o)
      done
    else
      eqs+=($e)
    fi
  done
  for eq in "${eqs[@]}"; do
    for kind in ${SCALING_KINDS:-weak strong}; do
      # SCALING_WEAK_AXIS (x; a list runs each): the axis a weak run's grid grows along (x cuts
      # the ranks along x, whose interiors the CUDA engine does not split; z keeps the cuts
      # contiguous and split). Strong runs take one pass.
      local axes=${SCALING_WEAK_AXIS:-x}
      [ $kind = strong ] && axes=-
      for ax in $axes; do
      for n in 1 2 4 8; do
        [ $n -le "$ngpu" ] || break
        # SCALING_DECOMP (auto): the decompositions of runs of several ranks, each "auto" or an
        # axis (z, y, x) that all the ranks are cut along.
        local overlaps=true exchanges=auto decomps=auto
        [ $n -gt 1 ] && overlaps=${SCALING_OVERLAP:-true} && exchanges=${SCALING_EXCHANGE:-auto} &&
          decomps=${SCALING_DECOMP:-auto}
        for dc in $decomps; do
        for ov in $overlaps; do
        for ex in $exchanges; do
        for rep in $(seq 1 ${SCALING_REPEATS:-1}); do
        local nz=512 ny=512 nx=512
        if [ $kind = weak ]; then
          case $ax in
            z) nz=$((512 * n)) ;;
            y) ny=$((512 * n)) ;;
            *) nx=$((512 * n)) ;;
          esac
        fi
        if [ $kind = strong ]; then
          if [[ $eq == tti* ]]; then nz=768; ny=768; nx=768; else nx=1024; fi
        fi
        local extra=(--set grid.nx=$nx --set grid.ny=$ny --set grid.nz=$nz)
        [[ $eq == tti* ]] && extra+=("${tti[@]}")
        [[ $eq == tti-* ]] && extra+=(--set "physics.tti_operator=\"${eq#tti-}\"")
        case $dc in
          z) extra+=(--set "parallel.decomposition=[$n,1,1]") ;;
          y) extra+=(--set "parallel.decomposition=[1,$n,1]") ;;
          x) extra+=(--set "parallel.decomposition=[1,1,$n]") ;;
        esac
        local dt dur d=/tmp/scaling_${eq}_${kind}_${n}
        dt=$($B/app/seisfd check $cfg "${extra[@]}" 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
        dur=$(python3 -c "print(${dt} * ${SCALING_STEPS:-200})")
        local launch=()
        # SCALING_BIND (default core, OpenMPI's own default for 2 ranks): mpirun --bind-to; "none"
        # leaves each rank every core (one suspect of the 2x run-to-run spread, bench/NOTES.md).
        [ $n -gt 1 ] && launch=(mpirun --oversubscribe --bind-to ${SCALING_BIND:-core} -np $n)
        # With BASELINE: the baseline's binary too, right after, for SCALING_BASELINE_PHYSICS.
        local trees=new
        [ -n "${BASELINE:-}" ] && [[ " ${SCALING_BASELINE_PHYSICS:-acoustic} " == *" $eq "* ]] &&
          trees="new baseline"
        for tree in $trees; do
        local bin=$B/app/seisfd
        [ $tree = baseline ] && bin=build/baseline/app/seisfd
        rm -rf "$d"  # a failed run leaves no report of an earlier one to be read as its own
        timeout 300 "${launch[@]}" $bin run $cfg --backend cuda --quiet --overwrite \
          "${extra[@]}" --set time.duration=$dur --set output.directory=\"$d\" \
          --set parallel.overlap=$ov --set parallel.exchange=\"$ex\" > /tmp/scaling.log 2>&1 ||
          tail -3 /tmp/scaling.log | tee -a "$S"
        python3 - "$eq" "$kind" "$n" "$nz" "$ny" "$nx" "$d/report.json" "$ov" "$ex" "$tree" <<'PY' | tee -a "$csv" "$S"
import json, sys
eq, kind, n, nz, ny, nx, path, ov, ex, tree = sys.argv[1:]
try:
    r = json.load(open(path)); p = r["performance"]; par = r.get("parallel", {})
    print(f"{eq},{kind},{n},{nz},{ny},{nx},{p['steps']},{p['seconds']:.4f},{p['gcells_per_s']:.2f},"
          f"{par.get('exchange', 'none')},{par.get('exchange_seconds_rank0', 0):.4f},"
          f"{'x'.join(map(str, par.get('decomposition', [1, 1, 1])))},{ov},{ex},"
          f"{par.get('exchange_wait_seconds_rank0', -1):.4f},{tree}")
except Exception as e:
    print(f"{eq},{kind},{n},{nz},{ny},{nx},0,0,0,failed: {e},0,,{ov},{ex},-1,{tree}")
PY
        done
        done
        done
        done
        done
      done
      done
    done
  done
}

step_shots() {  # shot-parallel: N shots on N GPUs (one shot group each) against 1 shot on 1 GPU
  build
  local ngpu bin=$B/app/seisfd csv="$OUT/results/shots.csv"
  ngpu=$(nvidia-smi -L | wc -l)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  log "shots: configs/rtm_salt.toml (${SHOTS_EQ:-acoustic}) ${SHOTS_SET:-}, 1 shot on 1 GPU against $ngpu shots on $ngpu GPUs"
  # wall_s: the launch's wall time; report_s: rank 0's time from start-up to the end
  # (report.json wall_seconds.total, the launcher's own start left out); launch_s: what mpirun
  # takes to start and end /bin/true on as many ranks. SHOTS_DURATION: longer shots (seconds).
  echo "physics,command,gpus,shots,wall_s,per_gpu_efficiency,report_s,per_gpu_efficiency_report,launch_s" > "$csv"
  local eq=${SHOTS_EQ:-acoustic} t1run=0 t1mig=0 r1run=0 r1mig=0
  # A short untimed run and migration of one shot first: the autotune's measures (variant,
  # compression) go into the cache, so that no timed launch pays for them (the one-shot baseline
  # once did, which flattered the others).
  local warm=(--backend cuda --overwrite --quiet --set physics.equation=\"$eq\" --set "shots.count=[1,1]"
              --set time.duration=0.05)
  local kw
  IFS=';' read -ra kw <<< "${SHOTS_SET:-}"
  for k in "${kw[@]}"; do [ -n "$k" ] && warm+=(--set "$k"); done
  $bin run configs/rtm_salt.toml "${warm[@]}" --set output.directory=\"/tmp/shots_warm\" \
    > /tmp/shots_warm.log 2>&1 &&
    $bin migrate configs/rtm_salt.toml "${warm[@]}" --set output.directory=\"/tmp/shots_warm_m\" \
      --set migration.data=\"/tmp/shots_warm/gathers.h5\" >> /tmp/shots_warm.log 2>&1 ||
    tail -3 /tmp/shots_warm.log | tee -a "$S"
  for n in 1 $ngpu; do
    local launch=() counts="[1,1]" tl=0
    [ $n -gt 1 ] && launch=(mpirun --oversubscribe --bind-to none -np $n)
    if [ $n -gt 1 ]; then
      local t0l; t0l=$(date +%s.%N); "${launch[@]}" /bin/true
      tl=$(python3 -c "import time; print(round(time.time() - $t0l, 2))")
    fi
    [ $n = 2 ] && counts="[2,1]"; [ $n = 4 ] && counts="[2,2]"; [ $n = 8 ] && counts="[4,2]"
    local common=(--backend cuda --overwrite --set physics.equation=\"$eq\"
                  --set "shots.count=$counts" --set "parallel.shot_groups=$n")
    [ -n "${SHOTS_DURATION:-}" ] && common+=(--set "time.duration=$SHOTS_DURATION")
    # SHOTS_SET: further settings, ';' between them (e.g. a larger grid)
    local kv
    IFS=';' read -ra kv <<< "${SHOTS_SET:-}"
    for k in "${kv[@]}"; do [ -n "$k" ] && common+=(--set "$k"); done
    for cmd in run migrate; do
      local data=() t0 t
      [ $cmd = migrate ] && data=(--set migration.data=\"/tmp/shots_data_$n/gathers.h5\")
      t0=$(date +%s.%N)
      # both GPUs' utilisation every 0.5 s while the launch runs (each GPU's mean in the summary)
      nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 \
        > "$OUT/shots_util_${cmd}_$n.log" 2>&1 &
      local smi=$!
      timeout 300 "${launch[@]}" $bin $cmd configs/rtm_salt.toml "${common[@]}" "${data[@]}" \
        --set output.directory=\"/tmp/shots_${cmd}_$n\" 2>&1 | tr '\r' '\n' | grep -v '^step ' |
        python3 -u -c "import sys, time
t0 = time.time()
for l in sys.stdin: print(f'{time.time() - t0:8.2f} {l.rstrip()}', flush=True)" > "$OUT/shots_${cmd}_$n.log"
      [ "${PIPESTATUS[0]}" = 0 ] || tail -3 "$OUT/shots_${cmd}_$n.log" | tee -a "$S"
      t=$(python3 -c "import time; print(round(time.time() - $t0, 2))")
      kill $smi 2>/dev/null; wait $smi 2>/dev/null
      awk -F', *' '{s[$1]+=$2; c[$1]++} END {printf "  GPU utilisation:"; for (g in s) printf " %s %.0f%%", g, s[g]/c[g]; print ""}' \
        "$OUT/shots_util_${cmd}_$n.log" | tee -a "$S"
      [ $cmd = run ] && rm -rf /tmp/shots_data_$n && cp -r /tmp/shots_run_$n /tmp/shots_data_$n
      local r
      r=$(python3 -c "import json; print(json.load(open('/tmp/shots_${cmd}_$n/report.json'))['wall_seconds']['total'])" 2>/dev/null || echo 0)
      # What each rank waited for its shots, and the storage a migration took.
      python3 - "/tmp/shots_${cmd}_$n/report.json" <<'PY' | tee -a "$S"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print("  per rank:", r.get("parallel", {}).get("per_rank"),
          "storage:", r.get("migration", {}).get("storage"),
          "auto_costs:", r.get("migration", {}).get("auto_costs"))
    print("  wall:", r.get("wall_seconds"))
    print("  shots:", [{k: v for k, v in s.items() if k in ("shot", "seconds",
          "forward_seconds", "backward_seconds")} for s in r.get("shots", [])])
except Exception as e:
    print("  no report:", e)
PY
      if [ $n = 1 ]; then
        if [ $cmd = run ]; then t1run=$t; r1run=$r; else t1mig=$t; r1mig=$r; fi
      fi
      local t1=$t1run r1=$r1run; [ $cmd = migrate ] && t1=$t1mig && r1=$r1mig
      echo "$eq,$cmd,$n,$n,$t,$(python3 -c "print(round($t1 / $t, 3))"),$r,$(python3 -c "print(round($r1 / $r, 3) if $r else 0)"),$tl" | tee -a "$csv" "$S"
    done
  done
}

step_decomp() {  # one acoustic whole run per decomposition of DECOMP (ranks, split, grid)
  build
  local cfg=configs/bench_512_o8.toml spec
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  log "decomp: 200 steps of $cfg per decomposition, exchange peer"
  local specs=${DECOMP:-"2:[1,1,2]:512x512x1024 2:[2,1,1]:1024x512x512 4:[1,1,4]:512x512x2048 4:[4,1,1]:2048x512x512 4:[1,4,1]:512x2048x512 4:[2,2,1]:1024x1024x512"}
  for spec in $specs; do
    # ranks:decomposition:grid[:key=value;key=value...] (further settings, ';' between them)
    local n=${spec%%:*} rest=${spec#*:} dec grid nz ny nx dt dur more=""
    dec=${rest%%:*}; grid=${rest#*:}
    case $grid in *:*) more=${grid#*:}; grid=${grid%%:*} ;; esac
    IFS=x read -r nz ny nx <<< "$grid"
    local ext=(--set grid.nx=$nx --set grid.ny=$ny --set grid.nz=$nz)
    local kv
    IFS=';' read -ra kv <<< "$more"
    for k in "${kv[@]}"; do [ -n "$k" ] && ext+=(--set "$k"); done
    dt=$($B/app/seisfd check $cfg "${ext[@]}" 2>/dev/null | sed -n 's/^time *dt \([0-9.e-]*\) s.*/\1/p')
    dur=$(python3 -c "print($dt * 200)")
    rm -rf /tmp/dc
    # Each GPU's clocks, power and utilisation every 100 ms during the run (DECOMP_SMI=0: not):
    # what a rank's own work slows with when it does (bench/NOTES.md, the slow 4-rank runs).
    local smi="" item=$((${item:-0} + 1))
    if [ "${DECOMP_SMI:-1}" = 1 ]; then
      nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,utilization.gpu,temperature.gpu,clocks_event_reasons.active \
        --format=csv,noheader -lms 100 > "$OUT/decomp_smi_$item.csv" 2>/dev/null &
      smi=$!
      # Which processes hold a context on which GPU (every rank should be on its own one).
      ( while sleep 1; do nvidia-smi --query-compute-apps=gpu_bus_id,pid,used_memory \
          --format=csv,noheader 2>/dev/null | sort | tr '\n' ';'; echo; done ) > "$OUT/decomp_apps_$item.txt" &
      smi="$smi $!"
    fi
    timeout 60 mpirun --oversubscribe --bind-to none -np $n $B/app/seisfd run $cfg --backend cuda \
      --quiet --overwrite "${ext[@]}" --set time.duration=$dur --set output.directory=\"/tmp/dc\" \
      --set "parallel.decomposition=$dec" --set parallel.exchange=\"peer\" > /tmp/dc.log 2>&1 ||
      tail -3 /tmp/dc.log | tee -a "$S"
    if [ -n "$smi" ]; then
      kill $smi 2>/dev/null; wait $smi 2>/dev/null
      echo "  contexts (bus id, pid, memory), the sample with the most: $(awk '{ print length($0), $0 }' "$OUT/decomp_apps_$item.txt" | sort -n | tail -1 | cut -d' ' -f2-)" | tee -a "$S"
      # Per GPU: the lowest SM clock and the highest utilisation and power seen while it ran.
      python3 - "$OUT/decomp_smi_$item.csv" <<'PY' | tee -a "$S"
import sys
per = {}
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 8:
        continue
    try:
        g, sm, pw, ut = int(f[1]), float(f[2].split()[0]), float(f[4].split()[0]), float(f[5].split()[0])
    except ValueError:
        continue
    if ut < 50:
        continue  # start-up and the model's set-up: the GPU idle
    q = per.setdefault(g, [1e9, 0.0, 0.0, set()])
    q[0], q[1], q[2] = min(q[0], sm), max(q[1], pw), max(q[2], ut)
    q[3].add(f[7])
print("  busy GPUs (min SM MHz, max W, max util %, clock event reasons):",
      {g: (int(q[0]), int(q[1]), int(q[2]), sorted(q[3])) for g, q in sorted(per.items())})
PY
    fi
    python3 -c "import json; r=json.load(open('/tmp/dc/report.json')); p=r.get('parallel', {}); print('$n $dec $grid $more', round(r['performance']['gcells_per_s'], 1), 'Gcells/s', round(r['performance']['seconds'], 3), 's, wait', p.get('exchange_wait_seconds_rank0'), 'host', p.get('exchange_seconds_rank0'), r['backend'].get('kernel'), r['backend'].get('compressible', ''), 'per rank (loop s, wait s):', [(round(q['loop_seconds'], 3), round(q['exchange_wait_seconds'], 4)) for q in p.get('per_rank', [])])" 2>&1 |
      tee -a "$S"
  done
}

step_profile_salt() {  # one shot of rtm_salt, run and migrate, timed (finds what dominates)
  build
  log "profile-salt: one shot of configs/rtm_salt.toml, run and migrate"
  local bin=$B/app/seisfd one=(--set 'shots.count=[1,1]' --backend cuda --overwrite)
  which perf nsys gdb 2>&1 | tee -a "$S"
  for cmd in run migrate; do
    local t0; t0=$(date +%s.%N)
    local data=()
    [ $cmd = migrate ] && data=(--set migration.data=\"/tmp/prof_data/gathers.h5\")
    timeout -s INT ${PROFILE_S:-100} $bin $cmd configs/rtm_salt.toml "${one[@]}" "${data[@]}" \
      --set output.directory=\"/tmp/prof_$cmd\" > "$OUT/profile_$cmd.log" 2>&1 &
    local pid=$!
    for k in 1 2 3 4 5 6; do
      sleep 12
      kill -0 $pid 2>/dev/null || break
      { echo "-- $cmd t=$((k*12)) s"; gdb -p $(pgrep -n seisfd) -batch -ex "thread apply all bt 12" 2>/dev/null |
        grep -E "^#" | head -40; } >> "$OUT/profile_stacks.log"
    done
    wait $pid
    echo "profile $cmd rc=$? $(python3 -c "import time; print(round(time.time() - $t0, 1))") s" | tee -a "$S"
    tail -4 "$OUT/profile_$cmd.log" | tee -a "$S"
    [ $cmd = run ] && rm -rf /tmp/prof_data && cp -r /tmp/prof_run /tmp/prof_data
  done
}

# A migration's backward step with the imaging fused into acoustic smem_regqueue (its reads
# staged in shared memory with the plane, at offsets that depend on the images accumulated) under
# racecheck: a small grid (48 x 12 x 32, one shot, 0.05 s) at orders RCI_ORDERS, each with the
# image sets RCI_CONDITIONS (';'-separated migration.conditions values).
step_racecheck_imaging() {
  build
  log "racecheck of the fused imaging of acoustic smem_regqueue (seisfd migrate, small grid)"
  local small=(--set grid.nx=48 --set grid.ny=12 --set grid.nz=32 --set time.duration=0.05
    --set 'shots.start=[200.0,50.0,10.0]' --set 'shots.count=[1,1]'
    --set 'receivers.start=[0.0,50.0,10.0]' --set 'receivers.end=[470.0,50.0,10.0]'
    --set receivers.count=48 --set boundary.width=5 --backend cuda --quiet --overwrite)
  local conds sets order c
  conds=${RCI_CONDITIONS:-'["crosscorrelation","normalized","inverse_scattering"];["crosscorrelation"];["inverse_scattering"]'}
  IFS=';' read -r -a sets <<< "$conds"
  for order in ${RCI_ORDERS:-2 8 16}; do
    local o=(--set physics.order=$order --set kernel.variant=\"acoustic/o$order/smem_regqueue\")
    $B/app/seisfd born configs/rtm_layers.toml "${small[@]}" "${o[@]}" --set output.directory=\"/tmp/rci_d\" \
      > /tmp/rci_born.log 2>&1 || { tail -3 /tmp/rci_born.log | tee -a "$S"; continue; }
    for c in "${sets[@]}"; do
      SEISFD_REQUIRE_GPU=1 timeout ${SANITIZE_S:-240} compute-sanitizer --tool racecheck --error-exitcode 9 \
        $B/app/seisfd migrate configs/rtm_layers.toml "${small[@]}" "${o[@]}" \
        --set migration.data=\"/tmp/rci_d/gathers.h5\" --set "migration.conditions=$c" \
        --set output.directory=\"/tmp/rci_m\" > /tmp/rci.log 2>&1
      local rc=$?
      cat /tmp/rci.log >> "$OUT/racecheck_imaging.log"
      echo "racecheck migrate o$order $c rc=$rc $(grep -E 'RACECHECK SUMMARY' /tmp/rci.log | tail -1) $(grep -o '"kernel": "[^"]*"' /tmp/rci_m/report.json 2>/dev/null | head -1)" | tee -a "$S"
    done
  done
}

step_host_copy() {
  log "host-copy: one 4.87 MB face between the device and page-locked or registered shared host memory (bench/harness/copy_bandwidth.cu host), one process, then two at once"
  nvcc -O2 -arch=sm_90 bench/harness/copy_bandwidth.cu -o /tmp/copy_bandwidth || return
  /tmp/copy_bandwidth host 2>&1 | tee -a "$S"
  echo "-- two processes at once" | tee -a "$S"
  /tmp/copy_bandwidth host > /tmp/hcr_a.log 2>&1 &
  /tmp/copy_bandwidth host > /tmp/hcr_b.log 2>&1
  wait
  sed 's/^/A /' /tmp/hcr_a.log | tee -a "$S"
  sed 's/^/B /' /tmp/hcr_b.log | tee -a "$S"
}

step_mpi_bw() {
  log "mpi-bw: two ranks exchanging host buffers (scripts/mpi_bandwidth.c), as the staged exchange does"
  echo "kernel.yama.ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo absent)" | tee -a "$S"
  mpicc -O2 scripts/mpi_bandwidth.c -o /tmp/mpi_bandwidth || return
  # MPI_BW_MCA: ';'-separated sets of further mpirun arguments, each run in turn ("" the defaults).
  local sets args a
  IFS=';' read -r -a sets <<< "${MPI_BW_MCA:-}"
  [ ${#sets[@]} -gt 0 ] || sets=("")
  for args in "${sets[@]}"; do
    echo "-- mpirun ${args:-(defaults)}" | tee -a "$S"
    IFS=' ' read -r -a a <<< "$args"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
      mpirun --oversubscribe -np 2 "${a[@]}" /tmp/mpi_bandwidth 2>&1 | grep -v '^$' | head -20 | tee -a "$S"
  done
}

[ $# -gt 0 ] || { awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 2; }
for s in "$@"; do
  case "$s" in
    build) build ;;
    gpu-tests) step_gpu_tests ;;
    racecheck-imaging) step_racecheck_imaging ;;
    host-copy) step_host_copy ;;
    multigpu-tests) step_multigpu_tests ;;
    exchange-probe) step_exchange_probe ;;
    cpu-tests) step_cpu_tests ;;
    sanitize) step_sanitize ;;
    bench) step_bench ;;
    runs) step_runs ;;
    sweep) step_sweep ;;
    rtm) step_rtm ;;
    imaging) step_imaging ;;
    rtm-salt) step_rtm_salt ;;
    profile-salt) step_profile_salt ;;
    diag) step_diag ;;
    cpu-bench) step_cpu_bench ;;
    failures) step_failures ;;
    ncu) step_ncu ;;
    ranks) step_ranks ;;
    scaling) step_scaling ;;
    shots) step_shots ;;
    decomp) step_decomp ;;
    mpi-bw) step_mpi_bw ;;
    *) echo "unknown step '$s'"; exit 2 ;;
  esac
done
# The device tool returns at most 8 files: the results travel as one archive.
if [ -n "$(ls -A "$OUT/results" 2>/dev/null)" ]; then
  tar czf "$OUT/results_$(date +%H%M%S).tgz" -C "$OUT" results && rm -rf "$OUT/results"
fi
log "done"
