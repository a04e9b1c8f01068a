"""`mpirun -np 3 seisfd bench --scaling weak|strong` on the CPU: one CSV row per rank count
(1, 2, 3), each with the grid the kind gives it (weak: the ranks' cubes side by side in x;
strong: the same grid), the decomposition over that many ranks, the exchange between them, and
a positive rate; the runs' directories are gone afterwards.

usage: bench_scaling.py SEISFD MPIRUN
"""
import csv
import glob
import os
import subprocess
import sys
import tempfile

from mpi_env import mpi_env


def main():
    seisfd, mpirun = sys.argv[1:3]
    env = mpi_env()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("weak", "strong"):
            out = os.path.join(tmp, kind)
            r = subprocess.run([mpirun, "--oversubscribe", "-np", "3", seisfd, "bench",
                                "--scaling", kind, "--physics", "acoustic,vti", "--sizes", "16",
                                "--steps", "4", "--sponge", "4", "--backend", "cpu",
                                "--out", out], env=env, capture_output=True, text=True,
                               timeout=300)
            print(r.stdout)
            if r.returncode != 0:
                failures.append(f"{kind}: exit {r.returncode}: {r.stderr.strip()[-400:]}")
                continue
            files = glob.glob(os.path.join(out, f"*_scaling-{kind}.csv"))
            if len(files) != 1 or os.path.exists(os.path.join(out, "scaling_runs")):
                failures.append(f"{kind}: expected one CSV and no run directories in {out}: "
                                f"{os.listdir(out)}")
                continue
            rows = list(csv.DictReader(open(files[0])))
            got = [(r["physics"], int(r["ranks"])) for r in rows]
            want = [(p, k) for p in ("acoustic", "vti") for k in (1, 2, 3)]
            if got != want:
                failures.append(f"{kind}: rows {got}, expected {want}")
                continue
            for row in rows:
                k = int(row["ranks"])
                nx = 16 * k if kind == "weak" else 32
                dims = [int(d) for d in row["decomposition"].split("x")]
                bad = []
                if (int(row["nz"]), int(row["ny"]), int(row["nx"])) != (16, 16, nx):
                    bad.append("grid")
                if dims[0] * dims[1] * dims[2] != k:
                    bad.append("decomposition")
                if (row["exchange"] == "none") != (k == 1):
                    bad.append("exchange")
                if not float(row["gcells_per_s"]) > 0 or int(row["steps"]) != 4:
                    bad.append("rate or steps")
                if bad:
                    failures.append(f"{kind}: {', '.join(bad)} wrong in {row}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
