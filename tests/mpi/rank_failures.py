#!/usr/bin/env python3
"""Failures in a launch of several ranks end every rank, with one message, never a hang.

  rank_failures.py SEISFD MPIRUN

- a decomposition thinner than the halo, and shot groups that do not divide the ranks: a
  one-line config error naming the key, exit 2, from every launch;
- what born and migrate refuse over ranks (the peer and nccl exchanges): the same, before any file is
  written;
- a rank killed (SIGKILL) in the middle of a run: every rank is gone within the timeout, the
  launch exits non-zero, and the output directory holds only *.partial files.

  rank_failures.py SEISFD MPIRUN --backend cuda --exchange peer|mpi

runs the killed rank only, on the GPU with that exchange: the neighbours of the killed rank wait
on the device (peer: a kernel spinning on a flag the dead rank never sets) or in MPI (mpi). Without
a CUDA device it is skipped (exit 77), or fails under SEISFD_REQUIRE_GPU=1.
"""
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time

from mpi_env import mpi_env, no_cuda_device

CONFIG = """
[grid]
nx = 60
ny = 50
nz = 40
spacing = 10.0
[model]
type = "constant"
vp = 2000.0
[time]
duration = {duration}
[source]
position = [300.0, 250.0, 200.0]
frequency = 10.0
[receivers]
layout = "line"
start = [0.0, 250.0, 50.0]
end = [590.0, 250.0, 50.0]
count = 60
[boundary]
type = "sponge"
width = 10
[output]
directory = "{out}"
"""


def rank_pids(config):
    """The pids of the seisfd ranks running `config`, by rank."""
    pids = {}
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            if not cmd or not cmd[0].endswith(b"seisfd") or config.encode() not in cmd:
                continue
            with open(d + "/environ", "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            pids[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(d[6:])
        except (OSError, KeyError, ValueError):
            continue
    return pids


def killed_rank(launch, env, cfg, out, duration, settle, failures):
    """A rank killed (SIGKILL) mid-run: every rank gone within the timeout, the launch non-zero,
    nothing in the output that looks complete."""
    with open(cfg, "w") as f:
        f.write(CONFIG.format(duration=duration, out=out))
    p = subprocess.Popen(launch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    pids = {}
    deadline = time.time() + 60
    while time.time() < deadline and len(pids) < 4:
        time.sleep(0.2)
        pids = rank_pids(cfg)
    if len(pids) < 4:
        p.kill()
        failures.append(f"found {len(pids)} of 4 ranks running")
    else:
        time.sleep(settle)  # in the time loop
        os.kill(pids[2], signal.SIGKILL)
        try:
            code = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            code = None
        def running():
            out = []
            for r, pid in pids.items():
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        if f.read().split()[2] != "Z":
                            out.append(r)
                except OSError:
                    pass
            return out
        # The launcher may return while the kernel still tears its ranks down.
        gone_by = time.time() + 10
        left = running()
        while left and time.time() < gone_by:
            time.sleep(0.1)
            left = running()
        if code is None or code == 0 or left:
            failures.append(f"rank 2 killed: launch exit {code}, ranks still running {left}")
        else:
            print(f"rank 2 killed: launch exit {code}, no rank left running")
        written = sorted(os.listdir(out)) if os.path.isdir(out) else []
        complete = [n for n in written if n.endswith(".h5")]
        if complete:
            failures.append(f"after the kill the output holds complete-looking {complete}")
        else:
            print(f"output after the kill: {written}")


def main():
    seisfd, mpirun = sys.argv[1:3]
    env = mpi_env()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "run.toml")
        out = os.path.join(tmp, "out")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(duration=0.1, out=out))
        launch = [mpirun, "--oversubscribe", "-np", "4", seisfd, "run", cfg, "-q"]
        for extra, key in ((["--set", "parallel.decomposition=[4,1,1]", "--set",
                             "grid.nz=10", "--set", "boundary.width=2", "--set",
                             "source.position=[300.0, 250.0, 40.0]"], "parallel.decomposition"),
                           (["--set", "parallel.shot_groups=3"], "parallel.shot_groups"),
                           # nccl moves GPU memory: refused on the cpu backend.
                           (["--backend", "cpu", "--set", 'parallel.exchange="nccl"'],
                            "parallel.exchange")):
            r = subprocess.run(launch + extra, env=env, capture_output=True, text=True, timeout=120)
            lines = [l for l in r.stderr.splitlines() if l.startswith("seisfd: error:")]
            if r.returncode != 2 or len(lines) != 1 or key not in lines[0]:
                failures.append(f"{key}: exit {r.returncode}, errors {lines}")
            else:
                print(f"{key}: exit 2, {lines[0]}")

        # born and migrate: what they refuse over ranks.
        data = os.path.join(tmp, "data")
        subprocess.run([seisfd, "run", cfg, "-q", "--set", f'output.directory="{data}"'],
                       env=env, check=True)
        refused = os.path.join(tmp, "refused")
        rtm = ["--set", f'migration.data="{data}/gathers.h5"', "--set",
               f'output.directory="{refused}"']
        peer = ["--set", 'parallel.exchange="peer"']
        nccl = ["--set", 'parallel.exchange="nccl"']
        for verb, extra, key in (("born", peer, "parallel.exchange"),
                                 ("migrate", peer, "parallel.exchange"),
                                 ("born", nccl, "parallel.exchange")):
            cmd = [mpirun, "--oversubscribe", "-np", "4", seisfd, verb, cfg, "-q"] + rtm + extra
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            lines = [l for l in r.stderr.splitlines() if l.startswith("seisfd: error:")]
            if r.returncode != 2 or len(lines) != 1 or key not in lines[0]:
                failures.append(f"{verb} {key}: exit {r.returncode}, errors {lines}")
            elif os.path.exists(refused):
                failures.append(f"{verb} {key}: refused, but wrote {os.listdir(refused)}")
            else:
                print(f"{verb} {key}: exit 2, {lines[0]}")

        # A rank killed mid-run.
        killed_rank(launch, env, cfg, out, 30.0, 1.0, failures)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0




def main_gpu(seisfd, mpirun, backend, exchange):
    env = mpi_env()
    if backend != "cuda":
        print(f"FAIL: --backend {backend}: the killed rank runs here on cuda only")
        return 1
    skip = no_cuda_device(seisfd)
    if skip is not None:
        return skip
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "run.toml")
        out = os.path.join(tmp, "out")
        launch = [mpirun, "--oversubscribe", "-np", "4", seisfd, "run", cfg, "-q", "--backend",
                  "cuda", "--set", f'parallel.exchange="{exchange}"']
        # A GPU runs the small grid's steps in microseconds: a duration long enough that the
        # ranks are still stepping when one is killed (the kill ends the run long before), and
        # time for 4 ranks to make their contexts and map each other's buffers first.
        killed_rank(launch, env, cfg, out, 600.0, 4.0, failures)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[3] == "--backend" and sys.argv[5] == "--exchange":
        sys.exit(main_gpu(sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[6]))
    sys.exit(main())
