#!/usr/bin/env python3
"""A survey stopped under mpirun continues with --resume and gives the serial gathers.

  resume_ranks.py SEISFD MPIRUN H5_COMPARE

Four shots on 2 ranks (decomposed 1 x 1 x 2), a checkpoint every 60 steps: SIGTERM to every rank
as soon as the first checkpoint exists, as a batch system signals every task of a job (the ranks
agree on the step to stop at, and each writes its checkpoint of the running shot, rank 0's with
the traces); the launch ends non-zero with gathers.h5.partial and the checkpoints only; `--resume` under mpirun continues the stopped shot from the checkpoints and
models the shots after it, and the finished gathers.h5 holds what one rank writes in one go
(traces within 1e-6, receivers straddling the cut summed in another order), report.json saying
how many shots were already there and from which step the stopped one went on, and no checkpoint
is left.
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from mpi_env import mpi_env

CONFIG = """
[grid]
nx = 48
ny = 30
nz = 30
spacing = 10.0
[model]
type = "constant"
vp = 2000.0
[time]
duration = 0.7
[source]
frequency = 15.0
[shots]
layout = "grid"
start = [80.0, 150.0, 150.0]
spacing = [100.0, 0.0]
count = [4, 1]
[receivers]
layout = "line"
start = [0.0, 150.0, 20.0]
end = [470.0, 150.0, 20.0]
count = 30
[parallel]
decomposition = [1, 1, 2]
[run]
checkpoint_interval = 60
"""


def rank_pids(config):
    """The pids of the seisfd processes running `config`."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            if cmd and cmd[0].endswith(b"seisfd") and config.encode() in cmd:
                pids.append(int(d[6:]))
        except (OSError, ValueError):
            continue
    return pids


def main():
    seisfd, mpirun, h5_compare = sys.argv[1:4]
    env = mpi_env()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "survey.toml")
        with open(cfg, "w") as f:
            f.write(CONFIG)
        one, out = os.path.join(tmp, "one"), os.path.join(tmp, "out")
        subprocess.run([seisfd, "run", cfg, "-q", "--set", f'output.directory="{one}"'],
                       check=True, env=env)
        launch = [mpirun, "--oversubscribe", "-np", "2", seisfd, "run", cfg, "--set",
                  f'output.directory="{out}"']
        p = subprocess.Popen(launch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stopped = False
        deadline = time.time() + 120
        while p.poll() is None and time.time() < deadline:
            if os.path.exists(os.path.join(out, "checkpoint.h5")):
                for pid in rank_pids(cfg):
                    os.kill(pid, signal.SIGTERM)
                stopped = True
                break
            time.sleep(0.01)
        code = p.wait(timeout=120)
        names = sorted(os.listdir(out))
        if not stopped or code == 0 or "gathers.h5" in names or \
                not {"checkpoint.h5", "checkpoint.rank1.h5"} <= set(names):
            print(f"FAIL: the launch was not stopped midway (exit {code}, files {names})")
            return 1
        print(f"stopped at a checkpoint: exit {code}, files {names}")
        r = subprocess.run(launch + ["--resume", "-q"], env=env, capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            print(f"FAIL: --resume exit {r.returncode}: {r.stderr[-500:]}")
            return 1
        c = subprocess.run([h5_compare, os.path.join(one, "gathers.h5"),
                            os.path.join(out, "gathers.h5"), "0", "1e-6"],
                           capture_output=True, text=True)
        print(c.stdout)
        report = json.load(open(os.path.join(out, "report.json")))
        resumed = report.get("resumed", {})
        already = resumed.get("shots_already_done", 0)
        left = [n for n in os.listdir(out) if n.startswith("checkpoint")]
        if c.returncode != 0 or not 0 <= already <= 3 or "from_checkpoint" not in resumed or left:
            print(f"FAIL: gathers differ from one rank's, or {resumed}, or left {left}")
            return 1
        print(f"resumed with {already} shot(s) in the gathers and shot "
              f"{resumed['from_checkpoint']['shot']} from step {resumed['from_checkpoint']['step']}:"
              " the serial gathers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
