#!/usr/bin/env python3
"""Shot groups run their shots at the same time, also over an MPI without asynchronous progress.

  shot_groups_progress.py SEISFD MPIRUN

Two ranks in two shot groups model four shots. Group 1 draws its shots from a counter held by
rank 0 (MPI one-sided fetch-and-add); with OpenMPI's osc pt2pt component (forced here where the
build has it: it serves a remote fetch-and-add only inside an MPI call of the target) group 1
waited for rank 0's shot to end before it could start one, unless rank 0 lets MPI progress while
it computes, and does so also while group 1's finished shot waits for it to be taken (a probe
that matches that message does not progress). report.json's parallel.per_rank says how long
each rank waited to be handed its shots: rank 1's wait must be a small part of rank 0's time
loops (two shots; rank 1 waited one whole shot before).
"""
import json
import os
import subprocess
import sys
import tempfile

from mpi_env import mpi_env

CONFIG = """
[grid]
nx = 64
ny = 64
nz = 64
spacing = 10.0
[model]
type = "constant"
vp = 2000.0
[time]
duration = 3.0
[source]
frequency = 10.0
[shots]
layout = "list"
positions = [[200.0, 300.0, 100.0], [400.0, 300.0, 100.0], [200.0, 300.0, 300.0],
             [400.0, 300.0, 300.0]]
receivers = "fixed"
[receivers]
layout = "line"
start = [0.0, 300.0, 50.0]
end = [630.0, 300.0, 50.0]
count = 64
[boundary]
type = "sponge"
width = 10
[output]
directory = "{out}"
"""


def main():
    seisfd, mpirun = sys.argv[1:3]
    env = mpi_env()
    info = subprocess.run(["ompi_info"], capture_output=True, text=True).stdout
    mca = ["--mca", "osc", "pt2pt"] if "MCA osc: pt2pt" in info else []
    print("osc forced to pt2pt" if mca else "no osc pt2pt in this MPI: its default component")
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "run.toml")
        out = os.path.join(tmp, "out")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(out=out))
        r = subprocess.run([mpirun, "--oversubscribe"] + mca +
                           ["-np", "2", seisfd, "run", cfg, "-q", "--backend", "cpu", "--set",
                            "parallel.shot_groups=2"], env=env, capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            print("FAIL: launch exit", r.returncode, r.stderr.strip()[-600:])
            return 1
        with open(os.path.join(out, "report.json")) as f:
            per_rank = json.load(f)["parallel"]["per_rank"]
    print(per_rank)
    loops = [q.get("loop_seconds", 0) for q in per_rank]
    wait1 = per_rank[1].get("shot_wait_seconds", float("inf"))
    if min(loops) <= 0:  # rank 0 ran both shots while rank 1 waited for the counter
        print(f"FAIL: a rank ran no shot: time loops {loops}")
        return 1
    if wait1 > 0.25 * loops[0]:
        print(f"FAIL: rank 1 waited {wait1:.2f} s for its shots, rank 0's loop took {loops[0]:.2f} s")
        return 1
    loop0 = loops[0]
    print(f"rank 1 waited {wait1:.3f} s for its shots, rank 0's loop took {loop0:.2f} s")
    # Where the rest of each rank's time went: its shots hold its time loops; only rank 0 takes
    # (receives and writes) the shots, and it took all four.
    shots = [q.get("shots_seconds", -1) for q in per_rank]
    taking = [q.get("taking_seconds", -1) for q in per_rank]
    if any(s < l for s, l in zip(shots, loops)) or taking[0] <= 0 or taking[1] != 0:
        print(f"FAIL: shots_seconds {shots} against loop_seconds {loops}, taking_seconds {taking}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
