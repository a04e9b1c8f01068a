#!/usr/bin/env python3
"""Plot an x-z section of a seisfd image.h5 (one or more imaging conditions) into a PNG.

Usage: plot_image.py IMAGE OUT [--y METRES] [--conditions a,b] [--title TEXT]

IMAGE is an image.h5, or an .npz of sections this script saved. OUT is a PNG, or an .npz to
save the sections alone (needs only h5py and numpy: for a machine without matplotlib, the
picture drawn elsewhere). Debian: python3-h5py python3-matplotlib. The section is taken at the
y given (default: the middle), axes in metres, each panel clipped at the 99th percentile of its
|values| below the top tenth (where the source and receiver fields overlap).
"""
import argparse

import numpy as np


def sections(path, y, conditions):
    import h5py

    with h5py.File(path, "r") as f:
        if int(f.attrs.get("complete", 0)) != 1:
            raise SystemExit(f"{path}: not complete (the migration did not finish)")
        dz, dy, dx = (float(v) for v in f.attrs["spacing"])
        oz, oy, ox = (float(v) for v in f.attrs["origin"])
        names = conditions or sorted(f["image"].keys())
        ny = f["image"][names[0]].shape[1]
        iy = ny // 2 if y is None else int(round((y - oy) / dy))
        if not 0 <= iy < ny:
            raise SystemExit(f"--y {y}: outside the image (y from {oy} to {oy + (ny - 1) * dy} m)")
        secs = {n: f["image"][n][:, iy, :] for n in names}
    nz, nx = next(iter(secs.values())).shape
    extent = np.array([ox, ox + (nx - 1) * dx, oz + (nz - 1) * dz, oz])
    return secs, extent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("image")
    ap.add_argument("out")
    ap.add_argument("--y", type=float, default=None, help="section at this y (m)")
    ap.add_argument("--conditions", default=None, help="comma-separated (default: all)")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    conditions = a.conditions.split(",") if a.conditions else None
    if a.image.endswith(".npz"):
        z = np.load(a.image)
        extent = z["extent"]
        names = conditions or [k for k in z.files if k != "extent"]
        secs = {n: z[n] for n in names}
    else:
        secs, extent = sections(a.image, a.y, conditions)
    if a.out.endswith(".npz"):
        np.savez_compressed(a.out, extent=extent, **secs)
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(secs), figsize=(5.2 * len(secs), 3.6), squeeze=False)
    for ax, (n, sec) in zip(axes[0], secs.items()):
        nz = sec.shape[0]
        clip = np.percentile(np.abs(sec[nz // 10:, :]), 99) or 1.0
        im = ax.imshow(sec, cmap="gray", vmin=-clip, vmax=clip, extent=extent, aspect="equal")
        ax.set_title(n)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("depth (m)")
        fig.colorbar(im, ax=ax, shrink=0.8)
    if a.title:
        fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
