"""A performance model of seisfd over many GPUs, calibrated on measured runs.

A step of a decomposed run (docs/parallel.md) costs, on the slowest rank,

    t_step = cells_local / R  +  t_sync  +  sum over axes with neighbours of t_axis

with R the one-GPU rate (Gcells/s, measured; for a local grid between the sizes of the measured
one-GPU runs interpolated in log(cells), beyond them the nearest one's), t_sync what stepping one
step at a time and synchronising costs (measured: a run of several ranks less its compute and
exposed exchange), and per axis (the exchange goes axis after axis) t_axis = latency + bytes /
bandwidth of the slowest face of that axis. A face moves halo x (face cells) x fields x 4 bytes
each way. Bandwidths depend on the link (NVLink inside a node, InfiniBand between nodes; both
parameters) and on the face's shape: z faces are contiguous planes, y faces contiguous rows, x
faces rows of `halo` floats, which the current peer path pulls at a fraction of the link's rate
(calibrated from the measured exposed exchange of an x split). With `overlap`, the exchange hides
behind the interior and a step costs max(interior, exchange) + the faces' compute instead.

Weak efficiency at P GPUs: t_step(1 GPU, local grid) / t_step(P GPUs, P local grids); strong
speed-up: t_step(1 GPU, grid) / t_step(P GPUs, same grid). The decomposition of P ranks is the
one with the smallest predicted step (ranks x-fastest, gpus_per_node consecutive ranks a node).
"""
import argparse
import csv
import itertools
import math
import sys

# Fields exchanged per face; "tti-nested" (physics.tti_operator = "nested", the CSV's physics
# column for it) exchanges what "tti" does: two fields, a halo of R.
HALO_FIELDS = {"acoustic": 1, "vti": 2, "tti": 2, "tti-nested": 2}


class Machine:
    """Link parameters (GB/s each way, microseconds) and the calibration of one physics."""

    def __init__(self, nvlink_gbs=450.0, ib_gbs=50.0, nvlink_latency_us=10.0, ib_latency_us=5.0,
                 gpus_per_node=8, x_face_fraction=1.0, sync_us=0.0, overlap=False):
        self.nvlink_gbs = nvlink_gbs
        self.ib_gbs = ib_gbs
        self.nvlink_latency_us = nvlink_latency_us
        self.ib_latency_us = ib_latency_us
        self.gpus_per_node = gpus_per_node
        self.x_face_fraction = x_face_fraction  # of the link rate an x face reaches
        self.sync_us = sync_us
        self.overlap = overlap

    def describe(self):
        return (f"NVLink {self.nvlink_gbs:g} GB/s + {self.nvlink_latency_us:g} us, InfiniBand "
                f"{self.ib_gbs:g} GB/s + {self.ib_latency_us:g} us per GPU, {self.gpus_per_node} "
                f"GPUs a node, x faces at {self.x_face_fraction:.3f} of the link rate, "
                f"{self.sync_us:.0f} us a step of synchronisation, "
                f"{'exchange overlapped with the interior' if self.overlap else 'no overlap'}")


def splits(n, p):
    """Sizes of n cells cut into p parts as evenly as possible."""
    return [(n * (k + 1)) // p - (n * k) // p for k in range(p)]


def factorisations(p):
    for pz in range(1, p + 1):
        if p % pz:
            continue
        for py in range(1, p // pz + 1):
            if (p // pz) % py:
                continue
            yield (pz, py, p // (pz * py))


def crosses_nodes(dims, a, gpus_per_node):
    """Whether some face of axis a joins ranks of two nodes (ranks numbered x fastest,
    gpus_per_node consecutive ranks a node)."""
    stride = (dims[1] * dims[2], dims[2], 1)[a]
    for r in range(dims[0] * dims[1] * dims[2]):
        c = (r // (dims[1] * dims[2]), (r // dims[2]) % dims[1], r % dims[2])
        if c[a] + 1 < dims[a] and r // gpus_per_node != (r + stride) // gpus_per_node:
            return True
    return False


class Rate:
    """One GPU's rate (physical Gcells/s) as a function of the cells it updates: the measured
    one-GPU points, interpolated linearly in log(cells) between them and held at the nearest
    beyond them (a larger grid runs faster per cell on a GPU: fewer partial tiles, the absorbing
    layer's share smaller). The functions that take a rate take a plain number too (rate_at)."""

    def __init__(self, points):
        by = {}
        for n, g in points:
            by.setdefault(n, []).append(g)
        self.points = sorted((n, sum(v) / len(v)) for n, v in by.items())

    def __call__(self, cells):
        p = self.points
        if cells <= p[0][0]:
            return p[0][1]
        for (n0, g0), (n1, g1) in zip(p, p[1:]):
            if cells <= n1:
                f = math.log(cells / n0) / math.log(n1 / n0)
                return g0 + f * (g1 - g0)
        return p[-1][1]

    def __format__(self, spec):
        return ", ".join(f"{g:{spec}} at {n:.3g} cells" for n, g in self.points)


def rate_at(rate, cells):
    """A Rate's value at `cells`, or a plain number as it is."""
    return rate(cells) if callable(rate) else rate


def step_time(grid, dims, rate_gcells, physics, order, m):
    """Predicted seconds a step on the slowest rank, or None when a part is thinner than the halo."""
    halo = order // 2
    fields = HALO_FIELDS[physics]
    parts = [splits(grid[a], dims[a]) for a in range(3)]
    if any(min(parts[a]) < halo for a in range(3) if dims[a] > 1):
        return None
    local = [max(parts[a]) for a in range(3)]
    cells = local[0] * local[1] * local[2]
    compute = cells / (rate_at(rate_gcells, cells) * 1e9)
    exchange = 0.0
    for a in range(3):
        if dims[a] == 1:
            continue
        crosses = crosses_nodes(dims, a, m.gpus_per_node)
        gbs, lat = (m.ib_gbs, m.ib_latency_us) if crosses else (m.nvlink_gbs, m.nvlink_latency_us)
        if a == 2:
            gbs *= m.x_face_fraction
        face = 1
        for b in range(3):
            if b != a:
                face *= local[b] + 2 * halo
        nbytes = face * halo * fields * 4
        exchange += lat * 1e-6 + nbytes / (gbs * 1e9)
    if dims == (1, 1, 1):
        return compute
    sync = m.sync_us * 1e-6
    if m.overlap:
        shell = 0.0
        for a in range(3):
            if dims[a] > 1:
                shell += 2 * halo / local[a]
        return max(compute * (1 - min(shell, 1.0)), exchange) + compute * min(shell, 1.0) + sync
    return compute + sync + exchange


def best(grid, p, rate, physics, order, m):
    """(seconds a step, dims) of the best decomposition of p ranks, or (None, None)."""
    found = (None, None)
    for dims in factorisations(p):
        t = step_time(grid, dims, rate, physics, order, m)
        if t is not None and (found[0] is None or t < found[0]):
            found = (t, dims)
    return found


def cells(r):
    return int(r["nz"]) * int(r["ny"]) * int(r["nx"])


def read_points(path, overlap=None, exchange=None, tree="new"):
    """The measured points of a CSV (those that ran); with `overlap` ("true" or "false"), only
    the rows measured that way where the CSV has an overlap column (one-GPU rows always); with
    `exchange` ("peer", "nccl", "mpi", "host"), only the runs of several ranks whose exchange
    column starts with it; where the CSV has a tree column (scripts/device.sh scaling with a baseline
    tree run beside), only the rows of `tree`."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if float(r["gcells_per_s"]) > 0]
    rows = [r for r in rows if r.get("tree", tree) == tree]
    if overlap is not None:
        rows = [r for r in rows if int(r["ranks"]) == 1 or r.get("overlap", overlap) == overlap]
    if exchange is not None:
        rows = [r for r in rows if int(r["ranks"]) == 1 or r["exchange"].startswith(exchange)]
    return rows


def calibrate(points, physics, base_machine):
    """The machine with x_face_fraction and sync_us fitted on the measured points of `physics`,
    and the one-GPU rate (a Rate over the one-GPU points' sizes, Gcells/s).

    Runs with the exchange not overlapped (an overlap column of "false", or none: results from
    before the overlap existed) give their exposed exchange time directly: x_face_fraction from
    the x-only splits, sync_us from what is left after compute and exchange. An overlapped run's
    exchange_seconds is the host's wait for its neighbours, which includes their compute, so it
    says nothing about the link: with overlapped runs only, x faces move at the link's rate (they
    are packed) and sync_us is the median of what the model without it leaves unexplained."""
    rows = [r for r in points if r["physics"] == physics]
    one = [r for r in rows if int(r["ranks"]) == 1]
    if not one:
        raise ValueError(f"no one-GPU point for {physics}")
    # Physical cells a second of one GPU (the runs' own Gcells/s also count the absorbing layers
    # and the halo; the model counts the cells of the grid the user asks for).
    rate = Rate([(cells(r), cells(r) * int(r["steps"]) / float(r["seconds"]) / 1e9) for r in one])
    m = Machine(**vars(base_machine))
    fracs, syncs, residuals = [], [], []
    several = [r for r in rows if int(r["ranks"]) > 1 and r["decomposition"]]
    # What an overlapped run would take with packed faces and no synchronisation.
    fit = Machine(**vars(m))
    fit.x_face_fraction, fit.sync_us, fit.overlap = 1.0, 0.0, True
    for r in several:
        dims = tuple(int(v) for v in r["decomposition"].split("x"))
        grid = (int(r["nz"]), int(r["ny"]), int(r["nx"]))
        steps = int(r["steps"])
        measured = float(r["seconds"]) / steps
        if r.get("overlap", "false") == "true":
            residuals.append(measured - step_time(grid, dims, rate, physics, 8, fit))
            continue
        exposed = float(r["exchange_seconds"]) / steps
        halo, fields = 4, HALO_FIELDS[physics]
        local = [max(splits(grid[a], dims[a])) for a in range(3)]
        n = local[0] * local[1] * local[2]
        compute = n / (rate_at(rate, n) * 1e9)
        syncs.append(max(0.0, measured - exposed - compute))
        if dims[2] > 1 and dims[0] == dims[1] == 1:
            face = (local[0] + 2 * halo) * (local[1] + 2 * halo) * halo * fields * 4
            t = exposed - m.nvlink_latency_us * 1e-6
            if t > 0:
                fracs.append(face / t / (m.nvlink_gbs * 1e9))
    if fracs:
        m.x_face_fraction = sum(fracs) / len(fracs)
    if syncs:
        m.sync_us = 1e6 * sum(syncs) / len(syncs)
    elif residuals:
        m.x_face_fraction, m.overlap = 1.0, True
        m.sync_us = 1e6 * max(0.0, sorted(residuals)[len(residuals) // 2])
    return m, rate


def check(points, physics, m, rate, order=8):
    """(label, measured, predicted, relative error) of every measured point, in physical Gcells/s."""
    out = []
    for r in points:
        if r["physics"] != physics:
            continue
        grid = (int(r["nz"]), int(r["ny"]), int(r["nx"]))
        dims = tuple(int(v) for v in r["decomposition"].split("x")) if r["decomposition"] else (1, 1, 1)
        t = step_time(grid, dims, rate, physics, order, m)
        predicted = cells(r) / t / 1e9
        measured = cells(r) * int(r["steps"]) / float(r["seconds"]) / 1e9
        out.append((f"{physics} {r['kind']} {r['ranks']} GPU(s) {'x'.join(map(str, grid))}",
                    measured, predicted, (predicted - measured) / measured))
    return out


def weak(local, rate, physics, order, m, counts):
    t1 = step_time(local, (1, 1, 1), rate, physics, order, m)
    out = []
    for p in counts:
        # Grow the global grid by the best factorisation of p, ranks' grids of `local` cells.
        best_eff, best_dims = None, None
        for dims in factorisations(p):
            grid = tuple(local[a] * dims[a] for a in range(3))
            t = step_time(grid, dims, rate, physics, order, m)
            if t is not None and (best_eff is None or t1 / t > best_eff):
                best_eff, best_dims = t1 / t, dims
        out.append((p, best_eff, best_dims))
    return out


def strong(grid, rate, physics, order, m, counts):
    t1 = step_time(grid, (1, 1, 1), rate, physics, order, m)
    out = []
    for p in counts:
        t, dims = best(grid, p, rate, physics, order, m)
        out.append((p, None if t is None else t1 / t, dims))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="seisfd-scaling",
        description="Calibrate seisfd's scaling model on measured runs (the CSV of scripts/"
                    "device.sh scaling) and predict weak and strong scaling up to many GPUs.")
    ap.add_argument("csv", help="measured points: physics,kind,ranks,nz,ny,nx,steps,seconds,"
                                "gcells_per_s,exchange,exchange_seconds,decomposition[,overlap] "
                                "(seisfd bench --scaling, scripts/device.sh scaling)")
    ap.add_argument("--measured-overlap", choices=["true", "false"],
                    help="calibrate only on the runs of several ranks measured with "
                         "parallel.overlap as given (a CSV of both)")
    ap.add_argument("--exchange", choices=["peer", "nccl", "mpi", "host"],
                    help="calibrate only on the runs of several ranks that used this exchange "
                         "(a CSV of several)")
    ap.add_argument("--tree", default="new",
                    help="with a CSV of two trees (a tree column): the rows of this one")
    ap.add_argument("--physics", default="tti", choices=sorted(HALO_FIELDS))
    ap.add_argument("--order", type=int, default=8)
    ap.add_argument("--local", type=int, nargs=3, default=[512, 512, 512], metavar=("NZ", "NY", "NX"),
                    help="cells a GPU for weak scaling")
    ap.add_argument("--grid", type=int, nargs=3, default=[768, 768, 768], metavar=("NZ", "NY", "NX"),
                    help="global grid for strong scaling")
    ap.add_argument("--max-gpus", type=int, default=1024)
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--nvlink-gbs", type=float, default=450.0)
    ap.add_argument("--ib-gbs", type=float, default=50.0, help="InfiniBand NDR: 400 Gb/s a GPU")
    ap.add_argument("--overlap", action="store_true",
                    help="predict with the exchange hidden behind the interior")
    ap.add_argument("--packed", action="store_true",
                    help="predict with x faces at the link's rate (as packed faces move) instead "
                         "of the fraction fitted on the points")
    ap.add_argument("--plot", metavar="PNG",
                    help="draw the measured points and the model's weak efficiency and strong "
                         "speed-up into this file (matplotlib)")
    a = ap.parse_args(argv)
    points = read_points(a.csv, a.measured_overlap, a.exchange, a.tree)
    base = Machine(nvlink_gbs=a.nvlink_gbs, ib_gbs=a.ib_gbs, gpus_per_node=a.gpus_per_node)
    m, rate = calibrate(points, a.physics, base)
    if a.packed:
        m.x_face_fraction = 1.0
    m.overlap = m.overlap or a.overlap
    print(f"seisfd scaling model, {a.physics} order {a.order}, calibrated on {a.csv}")
    print(f"  one-GPU rate (Gcells/s) {rate:.2f}; {m.describe()}")
    print("measured points (physical Gcells/s of the whole run):")
    for label, meas, pred, err in check(points, a.physics, m, rate, a.order):
        print(f"  {label:40s} measured {meas:8.2f} predicted {pred:8.2f} error {100 * err:+6.1f}%")
    counts = [2 ** k for k in range(int(math.log2(a.max_gpus)) + 1)]
    print(f"weak scaling, {'x'.join(map(str, a.local))} cells a GPU:")
    for p, eff, dims in weak(tuple(a.local), rate, a.physics, a.order, m, counts):
        print(f"  {p:5d} GPUs  efficiency {eff:6.3f}  decomposition {'x'.join(map(str, dims))}")
    print(f"strong scaling, {'x'.join(map(str, a.grid))}:")
    for p, s, dims in strong(tuple(a.grid), rate, a.physics, a.order, m, counts):
        if s is None:
            print(f"  {p:5d} GPUs  no decomposition thick enough")
            continue
        print(f"  {p:5d} GPUs  speed-up {s:8.2f}  efficiency {s / p:6.3f}  "
              f"decomposition {'x'.join(map(str, dims))}")
    if a.plot:
        plot(points, a, m, rate, counts)
        print(f"wrote {a.plot}")
    return 0


def plot(points, a, m, rate, counts):
    """Measured weak efficiency and strong speed-up (physical cells, against the mean one-GPU
    run of the same kind) beside the model's curves."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in points if r["physics"] == a.physics]

    def measured(kind):
        rs = [r for r in rows if r["kind"] == kind]
        one = [cells(r) * int(r["steps"]) / float(r["seconds"]) for r in rs if int(r["ranks"]) == 1]
        if not one:
            return [], []
        base = sum(one) / len(one)
        xs = [int(r["ranks"]) for r in rs]
        ys = [cells(r) * int(r["steps"]) / float(r["seconds"]) / base for r in rs]
        return xs, ys

    fig, (w, s) = plt.subplots(1, 2, figsize=(11, 4.2))
    xs, ys = measured("weak")
    w.plot(xs, [y / x for x, y in zip(xs, ys)], "o", label="measured")
    model = weak(tuple(a.local), rate, a.physics, a.order, m, counts)
    w.plot([p for p, _, _ in model], [e for _, e, _ in model], "-", label="model")
    w.set(xscale="log", xlabel="GPUs", ylabel="weak efficiency", ylim=(0, 1.1),
          title=f"{a.physics} weak, {'x'.join(map(str, a.local))} a GPU")
    xs, ys = measured("strong")
    s.plot(xs, ys, "o", label="measured")
    model = [(p, v) for p, v, _ in strong(tuple(a.grid), rate, a.physics, a.order, m, counts)
             if v is not None]
    s.plot([p for p, _ in model], [v for _, v in model], "-", label="model")
    s.plot(counts, counts, ":", color="gray", label="ideal")
    s.set(xscale="log", yscale="log", xlabel="GPUs", ylabel="speed-up",
          title=f"{a.physics} strong, {'x'.join(map(str, a.grid))}")
    for ax in (w, s):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(m.describe(), fontsize=7)
    fig.tight_layout()
    fig.savefig(a.plot, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
