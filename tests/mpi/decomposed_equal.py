#!/usr/bin/env python3
"""A decomposed run gives the files of a run of one rank.

Runs `seisfd run` once on one rank and then under `mpirun -np N` for every decomposition given,
and compares gathers.h5 and snapshots.h5: bit for bit where the arithmetic is the same (every
cell is updated by the same operations in the same order whatever rank owns it), within 1e-6 of
the largest value for the traces (a receiver whose interpolation weights fall on two ranks is
summed in another order). Usage:

  decomposed_equal.py SEISFD MPIRUN H5_COMPARE [--backend cpu|cuda] [--exchange E]
                      [--command COMMAND] CASE DECOMPOSITION...

COMMAND is run (the default), born (the scattered data of the built-in reflectors: gathers.h5
compared) or migrate:STORAGE[:model] (the migration, with that source-wavefield storage, of
the data a run of one rank recorded: image.h5 compared, bit for bit; with ":model" the direct
arrival modelled over the ranks and subtracted, and per-shot images, within 1e-6; in several
shot groups within 1e-6, the groups' stacks being summed in another order).

each decomposition "pz,py,px" or "auto:N", or "groups:G:N" (N ranks in G shot groups, each
decomposed "auto"; the case "shots" has five shots with receivers moving with them). With --backend cuda the ranks share the machine's
GPUs and every value must lie within 1e-5 of one rank's (the auto-tuned variant may differ with
the subdomain's shape); without a device the test is skipped (exit 77), or fails under
SEISFD_REQUIRE_GPU=1; so is `--exchange nccl` on a machine with fewer GPUs than the largest
launch has ranks (NCCL takes one GPU a rank).

CASE picks the physics and boundaries: acoustic-sponge-fs, acoustic-cpml, acoustic-fp64,
vti-cpml, vti-sponge-fs, tti-sponge-fs, tti-none, tti-nested.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

from mpi_env import mpi_env, no_cuda_device

CONFIG = """
[grid]
nx = {nx}
ny = 29
nz = 27
spacing = 10.0
[model]
type = "layered"
interfaces = [0.0, 140.0]
velocities = [1800.0, 2500.0]
{aniso}
[physics]
equation = "{physics}"
order = {order}
{operator}[time]
duration = 0.2
[source]
{source}frequency = 12.0
{shots}[receivers]
layout = "grid"
start = [{rx}, 5.0, 35.0]
end = [{rx_end}, 275.0, 35.0]
count = [9, 7]
[boundary]
type = "{boundary}"
{width}free_surface = {fs}
[kernel]
precision = "{precision}"
model_precision = "{model_precision}"
{command}[output]
directory = "{out}"
[output.snapshots]
interval = 0.05
"""

CASES = {
    "acoustic-sponge-fs": dict(physics="acoustic", boundary="sponge", fs="true"),
    "acoustic-cpml": dict(physics="acoustic", boundary="cpml", fs="false"),
    # Wide enough in x for the GPU's cuts to end on whole tiles (uneven parts; CPU: even).
    "acoustic-wide": dict(physics="acoustic", boundary="sponge", fs="true", nx=150),
    "acoustic-fp64": dict(physics="acoustic", boundary="sponge", fs="true", precision="fp64"),
    "vti-cpml": dict(physics="vti", boundary="cpml", fs="false"),
    "vti-sponge-fs": dict(physics="vti", boundary="sponge", fs="true", order=4),
    "tti-sponge-fs": dict(physics="tti", boundary="sponge", fs="true"),
    "tti-none": dict(physics="tti", boundary="none", fs="false", order=4),
    # The nested operator: its intermediates in a rank's halo come from the halo's own values.
    "tti-nested": dict(physics="tti", boundary="sponge", fs="true",
                       operator='tti_operator = "nested"\n'),
    "shots": dict(physics="acoustic", boundary="sponge", fs="true", order=4),
    # 16-bit coefficients over each array's range: the ranks encode over the whole grid's range.
    "vti-fixed16": dict(physics="vti", boundary="sponge", fs="true", order=4,
                        model_precision="fixed16"),
    "tti-fixed16": dict(physics="tti", boundary="sponge", fs="true", order=4,
                        model_precision="fixed16"),
}

SHOTS = """[shots]
layout = "grid"
start = [60.0, 150.0, 100.0]
spacing = [50.0, 0.0]
count = [5, 1]
receivers = "moving"
"""


def command_section(command, data):
    """The config section of COMMAND (see the usage)."""
    if command == "born":
        return '[born]\nperturbation = "reflectors"\ncontrast = 0.2\n'
    if command.startswith("migrate:"):
        parts = command.split(":")
        # checkpoint: a budget of a few states, so that segments are recomputed.
        budget = 0.01 if parts[1] == "checkpoint" else 0.5
        s = (f'[migration]\ndata = "{data}"\nsmoothing = 20.0\nstorage = "{parts[1]}"\n'
             f'memory_budget = {budget}\n')
        if len(parts) > 2 and parts[2] == "model":
            s += 'direct_arrival = "model"\nshot_images = true\n'
        return s
    return ""


def config(case, out, command="run", data=""):
    c = dict(nx=33, precision="fp32", model_precision="fp32", order=8, operator="", source="position = [160.0, 150.0, 100.0]\n", shots="",
             rx="0.0", rx_end="320.0", command=command_section(command, data))
    c.update(CASES[case])
    if case == "shots":  # receivers as offsets from each shot
        c.update(source="", shots=SHOTS, rx="-60.0", rx_end="100.0")
    aniso = ""
    if c["physics"] in ("vti", "tti"):
        aniso = "epsilon = [0.2, 0.1]\ndelta = [0.1, 0.05]\n"
    if c["physics"] == "tti":
        aniso += "theta = [30.0, 20.0]\nphi = [40.0, 10.0]\n"
    width = "" if c["boundary"] == "none" else "width = 8\n"
    return CONFIG.format(aniso=aniso, out=out, width=width, **c)


def compare(h5_compare, ref_dir, dir_, label, tolerance, names):
    failures = []
    for name in names:
        r = subprocess.run([h5_compare, os.path.join(ref_dir, name), os.path.join(dir_, name),
                            str(tolerance), str(max(tolerance, 1e-6))],
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if "identical" not in line:
                print(f"{label}: {name} {line}")
        if r.returncode != 0:
            failures.append(f"{label}: {name} differs from one rank's: {r.stdout.strip()[-600:]}")
    return failures


def main():
    args = sys.argv[1:]
    seisfd, mpirun, h5_compare = args[0], args[1], args[2]
    backend, exchange, command = "cpu", "auto", "run"
    while args[3].startswith("--"):
        if args[3] == "--backend":
            backend = args[4]
        elif args[3] == "--exchange":
            exchange = args[4]
        elif args[3] == "--command":
            command = args[4]
        args = args[:3] + args[5:]
    case, decompositions = args[3], args[4:]
    verb = command.split(":")[0]
    names = {"run": ("gathers.h5", "snapshots.h5"), "born": ("gathers.h5",),
             "migrate": ("image.h5",)}[verb]
    env = mpi_env()
    tolerance = 0.0
    if backend == "cuda":
        tolerance = 1e-5
        # Every rank and the one-rank reference take the same variant (the registry's order of
        # preference): measured choices differ between subdomains (a 30x53x32 part may time the
        # naive VTI kernel faster, its 29x53x32 neighbour the ring kernel), and two summation
        # orders differ by rounding, which a Born field's second differences lift to ~1e-5.
        env["SEISFD_AUTOTUNE"] = "0"
        skip = no_cuda_device(seisfd)
        if skip is not None:
            return skip
        info = subprocess.run([seisfd, "info"], capture_output=True, text=True).stdout
        # NCCL takes one GPU a rank: the machine needs as many as the largest launch.
        gpus = sum(1 for line in info.splitlines() if line.startswith("device "))
        most = max(int(d.split(":")[-1]) if ":" in d else
                   math.prod(int(v) for v in d.split(",")) for d in decompositions)
        if exchange == "nccl" and gpus < most:
            print(f"{'FAIL' if os.environ.get('SEISFD_REQUIRE_GPU') == '1' else 'SKIPPED'}: "
                  f"nccl needs {most} GPUs (one a rank), this machine has {gpus}")
            return 1 if os.environ.get("SEISFD_REQUIRE_GPU") == "1" else 77
    if command.endswith(":model"):
        tolerance = max(tolerance, 1e-6)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "one")
        cfg = os.path.join(tmp, "case.toml")
        data = ""
        if verb == "migrate":  # the observed data: a run of one rank
            data = os.path.join(tmp, "data")
            with open(cfg, "w") as f:
                f.write(config(case, data))
            subprocess.run([seisfd, "run", cfg, "-q", "--backend", backend], check=True, env=env)
            data = os.path.join(data, "gathers.h5")
        with open(cfg, "w") as f:
            f.write(config(case, ref, command, data))
        subprocess.run([seisfd, verb, cfg, "-q", "--backend", backend], check=True, env=env)
        # The reference recorded a wave, or made an image: a comparison of zeros would prove
        # nothing.
        peaks = subprocess.run([h5_compare, os.path.join(ref, names[0]),
                                os.path.join(ref, names[0]), "0"],
                               capture_output=True, text=True).stdout
        assert "of the peak 0.000e+00" not in peaks, peaks
        assert ("/p:" in peaks) if verb != "migrate" else ("image/crosscorrelation:" in peaks), peaks
        for d in decompositions:
            groups = 1
            if d.startswith("auto:"):
                n, value = int(d[5:]), '"auto"'
            elif d.startswith("groups:"):
                groups, n = (int(v) for v in d[7:].split(":"))
                value = '"auto"'
            else:
                dims = [int(v) for v in d.split(",")]
                n, value = dims[0] * dims[1] * dims[2], "[" + d + "]"
            out = os.path.join(tmp, "n" + d.replace(",", "_").replace(":", "_"))
            cmd = [mpirun, "--oversubscribe", "-np", str(n), seisfd, verb, cfg, "-q",
                   "--backend", backend,
                   "--set", f'output.directory="{out}"', "--set", f"parallel.decomposition={value}",
                   "--set", f"parallel.shot_groups={groups}",
                   "--set", f'parallel.exchange="{exchange}"']
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                said = [l for l in r.stderr.splitlines() if l.startswith("seisfd")]
                failures.append(f"{case} {d}: exit {r.returncode}: "
                                f"{' | '.join(said) or r.stderr.strip()[-400:]}")
                continue
            # The report says how the launch was split.
            with open(os.path.join(out, "report.json")) as f:
                report = json.load(f)
            par = report.get("parallel", {})
            # Every group kept the source field by the strategy the config and rank 0 chose: its
            # shots' source propagations took the same steps (a checkpoint schedule recomputes
            # more of them than store), and with a rank a group, the steps they take on one rank
            # (decomposed, the per-rank budget holds more states of a part than of the grid).
            if verb == "migrate":
                def forward_steps(r):
                    return {q["shot"]: q["source_forward_steps"] for q in r["migration"]["shots"]}
                with open(os.path.join(ref, "report.json")) as f:
                    want = forward_steps(json.load(f))
                got = forward_steps(report)
                if len(set(got.values())) != 1 or (n == groups and got != want):
                    failures.append(f"{command} {case} {d}: source forward steps by shot {got}, "
                                    f"one rank {want}")
            if par.get("ranks") != n or par.get("shot_groups") != groups:
                failures.append(f"{command} {case} {d}: report.json's parallel is {par}")
            # The wide case's x cuts: whole 64-cell tiles on the GPU (the parts uneven), even on
            # the CPU.
            if case == "acoustic-wide" and groups == 1 and par.get("decomposition", [1])[-1] == 2:
                x = par.get("cuts", [[], [], []])[2]
                parts = [b - a for a, b in zip(x, x[1:])]
                if len(parts) != 2 or (abs(parts[0] - parts[1]) > 1) != (backend == "cuda"):
                    failures.append(f"{command} {case} {d}: x parts {parts} on the {backend}")
            # Each rank's loop time and its wait for the neighbours (the peer and nccl exchanges',
            # and the GPU's staged mpi one's, on the device; -1 where there is none to measure).
            if verb == "run":
                per_rank = par.get("per_rank", [])
                busy = [q.get("loop_seconds", -1) for q in per_rank]
                waits = [q.get("exchange_wait_seconds", -2) for q in per_rank]
                decomposed = n // groups > 1
                path = str(par.get("exchange"))
                timed = decomposed and (path.startswith(("peer", "nccl")) or
                                        (backend == "cuda" and path == "mpi (host-staged)"))
                if (len(per_rank) != n or min(busy) < 0 or (groups == 1 and min(busy) <= 0) or
                        any(w < 0 if timed else w != -1 for w in waits)):
                    failures.append(f"{command} {case} {d}: report.json's per_rank is {per_rank}")
            # Migrated in several groups: the groups' stacks are summed in another order.
            tol = max(tolerance, 1e-6) if verb == "migrate" and groups > 1 else tolerance
            failures += compare(h5_compare, ref, out, f"{command} {case} {d}", tol, names)
            print(f"{command} {case} {d}: compared")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
