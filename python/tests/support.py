"""Runs the seisfd binary on small versions of the shipped configs, for the Python and ParaView
tests. The binary is $SEISFD_BINARY (ctest sets it), else build/cpu/app/seisfd or
build/ci/app/seisfd in the repository, else `seisfd` on PATH."""
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"

# configs/quickstart.toml made cheap (41 x 21 x 31 cells, 0.3 s) and moved off the origin, with
# snapshots decimated differently on each axis, so that a swapped axis shows in every check.
QUICK_ORIGIN = (1000.0, 2000.0, 50.0)  # x, y, z
QUICK_SHAPE = (31, 21, 41)  # z, y, x
QUICK_DECIMATION = (3, 2, 1)  # z, y, x
QUICK_SOURCE = (1200.0, 2100.0, 70.0)
QUICK_RECEIVERS = 41  # from x = 1000 to 1400 at y = 2100, z = 60
QUICK_SET = {
    "grid.nx": "41",
    "grid.ny": "21",
    "grid.nz": "31",
    "grid.origin": "[1000.0, 2000.0, 50.0]",
    "source.position": "[1200.0, 2100.0, 70.0]",
    "receivers.start": "[1000.0, 2100.0, 60.0]",
    "receivers.end": "[1400.0, 2100.0, 60.0]",
    "receivers.count": "41",
    "time.duration": "0.3",
    "boundary.width": "10",
    "output.snapshots.interval": "0.1",
    "output.snapshots.decimation": "[1, 2, 3]",
    "output.model": "true",
}

# configs/rtm_layers.toml made tiny: 40 x 4 x 28 cells, order 4, 5-cell sponges, two shots, 0.3 s.
RTM_ORIGIN = (500.0, 300.0, 0.0)
RTM_SHAPE = (28, 4, 40)
RTM_RECEIVERS = 40  # from x = 500 to 890 at y = 320, z = 10
RTM_SOURCES = ((580.0, 320.0, 20.0), (780.0, 320.0, 20.0))
RTM_SET = {
    "grid.nx": "40",
    "grid.ny": "4",
    "grid.nz": "28",
    "grid.origin": "[500.0, 300.0, 0.0]",
    "physics.order": "4",
    "time.duration": "0.3",
    "shots.start": "[580.0, 320.0, 20.0]",
    "shots.spacing": "[200.0, 0.0]",
    "shots.count": "[2, 1]",
    "receivers.start": "[500.0, 320.0, 10.0]",
    "receivers.end": "[890.0, 320.0, 10.0]",
    "receivers.count": "40",
    "boundary.width": "5",
    "model.interfaces": "[0.0, 160.0]",
    "migration.smoothing": "30.0",
}


def binary() -> str:
    env = os.environ.get("SEISFD_BINARY")
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError(f"SEISFD_BINARY={env} is not an executable")
        return env
    for build in ("cpu", "ci", "release", "dev"):
        p = ROOT / "build" / build / "app" / "seisfd"
        if os.access(p, os.X_OK):
            return str(p)
    found = shutil.which("seisfd")
    if not found:
        raise RuntimeError("no seisfd binary: build it, or set SEISFD_BINARY")
    return found


def seisfd(args, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run([binary()] + [str(a) for a in args], cwd=str(cwd), env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"seisfd {' '.join(map(str, args))} exited {r.returncode}: {r.stderr.strip()}")
    return r


def _sets(overrides) -> list:
    out = []
    for k, v in overrides.items():
        out += ["--set", f"{k}={v}"]
    return out


def run_quickstart(workdir) -> Path:
    """seisfd run of the small quickstart into workdir/quick; returns that directory."""
    out = Path(workdir) / "quick"
    seisfd(["run", CONFIGS / "quickstart.toml", "-q", "--set", f"output.directory={out}"]
           + _sets(QUICK_SET), workdir)
    return out


def run_rtm(workdir):
    """seisfd born (two shots) then migrate of the tiny rtm_layers; returns (data dir, image dir)."""
    data, img = Path(workdir) / "rtm_data", Path(workdir) / "rtm_image"
    cfg = CONFIGS / "rtm_layers.toml"
    seisfd(["born", cfg, "-q", "--set", f"output.directory={data}"] + _sets(RTM_SET), workdir)
    seisfd(["migrate", cfg, "-q", "--set", f"output.directory={img}",
            "--set", f"migration.data={data / 'gathers.h5'}", "--set", "output.model=true"]
           + _sets(RTM_SET), workdir)
    return data, img


def outputs(workdir_factory):
    """(quickstart directory, (rtm data, rtm image)): those of $SEISFD_TEST_OUTPUTS when set (the
    ctest fixture python.outputs makes them once for every test), else made now under the
    directories workdir_factory(name) returns."""
    shared = os.environ.get("SEISFD_TEST_OUTPUTS")
    if shared:
        base = Path(shared)
        quick, data, img = base / "quick", base / "rtm_data", base / "rtm_image"
        for d in (quick, data, img):
            if not (d / "report.json").is_file():
                raise RuntimeError(f"SEISFD_TEST_OUTPUTS={shared}: no {d}/report.json (run python.outputs)")
        return quick, (data, img)
    return run_quickstart(workdir_factory("runs")), run_rtm(workdir_factory("rtm"))


if __name__ == "__main__":
    # python3 support.py DIR: the outputs the tests read, made afresh in DIR.
    import sys

    target = Path(sys.argv[1]).resolve()
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    run_quickstart(target)
    run_rtm(target)
    print(f"seisfd outputs for the Python tests in {target}")
