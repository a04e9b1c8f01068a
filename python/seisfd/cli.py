"""seisfd-plot: PNG pictures of seisfd outputs.

  seisfd-plot gather FILE     [--shot N] [--style density|wiggle|both]
  seisfd-plot snapshot FILE   [--index K] [--plane xz|yz|xy]      (no --index: a movie strip)
  seisfd-plot image FILE      [--y M] [--conditions a,b] [--title T]
  seisfd-plot model FILE      [--field vp] [--spacing D | DZ,DY,DX] [--origin OZ,OY,OX]

FILE may be the output directory (gathers.h5, snapshots.h5, image.h5, model.h5 inside it).
Each writes one PNG (-o; default: named after FILE and what is drawn, in the current
directory) and prints its path. Exit codes: 0 ok, 2 bad arguments, 3 unreadable or incomplete file.
"""
import argparse
import os
import sys

from . import io

EXIT_USAGE, EXIT_FILE = 2, 3


def _stem(path: str) -> str:
    path = os.path.normpath(os.fspath(path))
    if os.path.isdir(path):
        return os.path.basename(os.path.abspath(path))
    return os.path.splitext(os.path.basename(path))[0]


def _floats(text: str):
    try:
        v = [float(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if len(v) not in (1, 3):
        raise argparse.ArgumentTypeError(f"expected one value or three (z, y, x), got {len(v)}")
    return v


def _at(a) -> dict:
    return {k: getattr(a, k) for k in "xyz" if getattr(a, k, None) is not None}


def _save(fig, out: str) -> str:
    d = os.path.dirname(out)
    if d:
        os.makedirs(d, exist_ok=True)
    fig.savefig(out, bbox_inches="tight", pad_inches=0.1)
    print(out)
    return out


def cmd_gather(a):
    from . import plot

    g = io.load_gather(a.file, a.shot, allow_partial=a.allow_partial)
    out = a.output or f"{_stem(a.file)}_shot{g.shot:04d}_{a.style}.png"
    return _save(plot.plot_gather(g, style=a.style, clip=a.clip), out)


def cmd_snapshot(a):
    from . import plot

    if a.index is None:
        s = io.load_snapshots(a.file, allow_partial=a.allow_partial)
        fig = plot.plot_snapshot_strip(s, plane=a.plane, at=_at(a), clip=a.clip, columns=a.columns)
        out = a.output or f"{_stem(a.file)}_strip_{a.plane}.png"
    else:
        s = io.load_snapshots(a.file, index=a.index, allow_partial=a.allow_partial)
        fig = plot.plot_snapshot(s, 0, at=_at(a), clip=a.clip)
        out = a.output or f"{_stem(a.file)}_{int(s.indices[0]):03d}.png"
    return _save(fig, out)


def cmd_image(a):
    import numpy as np

    conditions = a.conditions.split(",") if a.conditions else None
    if os.fspath(a.file).endswith(".npz"):
        try:
            z = np.load(a.file)
        except OSError as e:
            raise io.FileError(f"{a.file}: {e}") from None
        extent = z["extent"]
        names = conditions or [k for k in z.files if k != "extent"]
        for n in names:
            if n not in z.files:
                raise io.FileError(f"{a.file}: no section '{n}'")
        secs = {n: z[n] for n in names}
    else:
        img = io.load_image(a.file, conditions=conditions, allow_partial=a.allow_partial)
        from .plot import image_sections  # numpy only: no matplotlib needed to save sections

        secs, extent = image_sections(img, a.y, conditions)
    out = a.output or f"{_stem(a.file)}.png"
    if out.endswith(".npz"):
        # The sections alone (h5py and numpy only): draw them where matplotlib is installed.
        np.savez_compressed(out, extent=extent, **secs)
        print(out)
        return out
    from . import plot

    return _save(plot.plot_image_sections(secs, extent, title=a.title, clip=a.clip), out)


def cmd_model(a):
    from . import plot

    datasets = a.dataset.split(",") if a.dataset else None
    m = io.load_model(a.file, datasets=datasets, spacing=a.spacing, origin=a.origin)
    name = a.field or ("vp" if "vp" in m.fields else next(iter(m.fields)))
    out = a.output or f"{_stem(a.file)}_{name}.png"
    return _save(plot.plot_model(m, name, at=_at(a)), out)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="seisfd-plot",
        description="PNG pictures of seisfd outputs (gathers, snapshots, images, models).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="FILE may be the output directory. Exit codes: 0 ok, 2 bad arguments, 3 file error.",
    )
    sub = ap.add_subparsers(dest="what", metavar="{gather,snapshot,image,model}")
    sub.required = True

    def common(p, clip=True):
        p.add_argument("file", metavar="FILE")
        p.add_argument("-o", "--output",
                       help="PNG to write (default: named after FILE, in the current directory)")
        if clip:
            p.add_argument("--clip", type=float, default=99.0,
                           help="clip at this percentile of |values| (99)")
        p.add_argument("--allow-partial", action="store_true", help="read a file whose run did not finish")

    def where(p):
        for k in "xyz":
            p.add_argument(f"--{k}", type=float, help=f"slice at this {k} (m; default: the middle)")

    p = sub.add_parser("gather", help="a shot gather: time down, offset (or trace number) across")
    common(p)
    p.add_argument("--shot", type=int, help="shot index (default: the first in the file)")
    p.add_argument("--style", choices=["density", "wiggle", "both"], default="density")
    p.set_defaults(run=cmd_gather)

    p = sub.add_parser("snapshot", help="a strip of every snapshot's section, or slices of one (--index)")
    common(p)
    p.add_argument("--index", type=int,
                   help="draw x-z, y-z and x-y slices of this snapshot (from 0; -1: the last)")
    p.add_argument("--plane", choices=["xz", "yz", "xy"], default="xz", help="the strip's section (xz)")
    p.add_argument("--columns", type=int, default=5, help="panels per row of the strip (5)")
    where(p)
    p.set_defaults(run=cmd_snapshot)

    p = sub.add_parser("image", help="x-z sections of every imaging condition of an image.h5")
    common(p)
    p.add_argument("--y", type=float, help="section at this y (m; default: the middle)")
    p.add_argument("--conditions", help="comma-separated (default: all)")
    p.add_argument("--title", default="")
    p.epilog = "With -o X.npz the sections are saved instead (needs no matplotlib); FILE may be such an .npz."
    p.set_defaults(run=cmd_image)

    p = sub.add_parser("model", help="x-z, y-z and x-y slices of a model field")
    common(p, clip=False)
    p.add_argument("--field", help="the field to draw (default: vp, else the first)")
    p.add_argument("--dataset", help="comma-separated datasets to read (default: every 3-D one)")
    p.add_argument("--spacing", type=_floats,
                   help="grid spacing, m: D or DZ,DY,DX (for files without the attribute)")
    p.add_argument("--origin", type=_floats, help="OZ,OY,OX, m (default: the file's, else 0)")
    where(p)
    p.set_defaults(run=cmd_model)
    return ap


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    try:
        a.run(a)
    except io.FileError as e:
        print(f"seisfd-plot: error: {e}", file=sys.stderr)
        return EXIT_FILE
    except ValueError as e:
        print(f"seisfd-plot: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())
