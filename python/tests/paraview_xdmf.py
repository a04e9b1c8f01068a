#!/usr/bin/env python3
"""Opens seisfd's XDMF files (snapshots.xmf, image.xmf, model.xmf) in ParaView's pvpython, as a user
does with File > Open, and checks what ParaView sees against the configs that made them: the
grid's dimensions, origin and spacing in (x, y, z), the snapshot times, and every value of every
array at every time against the HDF5 file.

    python3 paraview_xdmf.py WORKDIR

Exit 0 when all match, 1 otherwise, and 77 (ctest: SKIPPED) where pvpython is not installed
(Debian: apt-get install paraview). The outputs are $SEISFD_TEST_OUTPUTS when set (ctest's
python.outputs fixture), else made in WORKDIR by the seisfd binary (tests/support.py).
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import support  # noqa: E402

SKIP = 77


def expected():
    """(xmf, h5, dimensions x y z, origin x y z, spacing x y z, {array: dataset}) per file."""
    qo, ro = support.QUICK_ORIGIN, support.RTM_ORIGIN
    qz, qy, qx = support.QUICK_SHAPE
    dz, dy, dx = support.QUICK_DECIMATION
    rz, ry, rx = support.RTM_SHAPE
    image = {n: "image/" + n for n in ("crosscorrelation", "normalized", "inverse_scattering")}
    image["illumination"] = "illumination"
    return [
        ("quick/snapshots.xmf", "quick/snapshots.h5",
         (-(-qx // dx), -(-qy // dy), -(-qz // dz)), qo, (10.0 * dx, 10.0 * dy, 10.0 * dz), {"p": "p"}),
        ("quick/model.xmf", "quick/model.h5", (qx, qy, qz), qo, (10.0, 10.0, 10.0), {"vp": "vp"}),
        ("rtm_image/image.xmf", "rtm_image/image.h5", (rx, ry, rz), ro, (10.0, 10.0, 10.0), image),
        ("rtm_image/model.xmf", "rtm_image/model.h5", (rx, ry, rz), ro, (10.0, 10.0, 10.0), {"vp": "vp"}),
    ]


def check(pvpython, base: Path, work: Path, case) -> list:
    xmf, h5, dims, origin, spacing, arrays = case
    out = work / (xmf.replace("/", "_") + ".npz")
    r = subprocess.run([pvpython, str(HERE / "paraview_probe.py"), str(base / xmf), str(out)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not out.exists():
        return [f"{xmf}: pvpython exited {r.returncode}: {(r.stderr or r.stdout).strip()[-2000:]}"]
    print(r.stdout.strip())
    got = np.load(out)
    bad = []

    def same(what, a, b):
        if not np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-9):
            bad.append(f"{xmf}: {what}: ParaView has {np.asarray(a).tolist()}, "
                       f"expected {np.asarray(b).tolist()}")

    if str(got["class"]) != "vtkImageData":
        bad.append(f"{xmf}: ParaView made a {got['class']}, expected vtkImageData")
    same("dimensions (x, y, z)", got["dimensions"], dims)
    same("origin (x, y, z)", got["origin"], origin)
    same("spacing (x, y, z)", got["spacing"], spacing)
    hi = np.asarray(origin) + (np.asarray(dims) - 1) * np.asarray(spacing)
    same("bounds", got["bounds"], np.ravel(np.column_stack([origin, hi])))
    with h5py.File(base / h5, "r") as f:
        temporal = "time" in f
        times = f["time"][()] if temporal else np.zeros(0)
        same("time values", got["times"], times)
        for name, dataset in arrays.items():
            data = f[dataset][()]
            for k in range(max(1, len(times))):
                key = f"array_{k}_{name}"
                if key not in got.files:
                    bad.append(f"{xmf}: ParaView shows no array '{name}' at time {k}")
                    continue
                want = (data[k] if temporal else data).ravel()  # [z][y][x] in C order: x fastest, as VTK
                if got[key].shape != want.shape or not np.array_equal(got[key], want):
                    bad.append(f"{xmf}: array '{name}' at time {k} differs from {h5}:/{dataset}")
    return bad


def main() -> int:
    pvpython = shutil.which("pvpython")
    if not pvpython:
        print("SKIPPED: pvpython not found (Debian: apt-get install paraview); the XDMF files were not "
              "opened in ParaView")
        return SKIP
    work = Path(sys.argv[1] if len(sys.argv) > 1 else "paraview_check").resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shared = os.environ.get("SEISFD_TEST_OUTPUTS")
    if shared:
        base = Path(shared)
    else:
        base = work
        support.run_quickstart(work)
        support.run_rtm(work)
    failures = []
    for case in expected():
        failures += check(pvpython, base, work, case)
    for line in failures:
        print("FAILED:", line)
    if not failures:
        print(f"ParaView ({pvpython}) opens all {len(expected())} XDMF files on the grids the configs give")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
