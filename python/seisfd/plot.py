"""Pictures of seisfd outputs with matplotlib: gathers (variable density, wiggles), slices of volumes
in metres, a strip of snapshots, sections of migrated images, model slices.

Every function returns a matplotlib Figure made without pyplot (no global state, any backend);
`fig.savefig("a.png")` writes it. Amplitudes are clipped at a percentile of |values| (`clip`,
default 99) so that a few large samples (the source, the direct wave) do not wash out the rest.
"""
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .io import FileError, Gather, Grid, Image, Model, Snapshots

DPI = 110


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    try:  # constrained layout keeps labels and colour bars apart (matplotlib >= 3.5)
        return Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    except TypeError:
        return Figure(figsize=(width, height), dpi=DPI, constrained_layout=True)


def clip_value(a: np.ndarray, percentile: float = 99.0) -> float:
    """The percentile of |a| over its non-zero finite samples (the zero field ahead of a wavefront
    would otherwise pull it to 0); the largest |a| if that is 0, and 1 for an all-zero array."""
    v = np.abs(np.asarray(a, dtype=float))
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 1.0
    c = float(np.percentile(v, percentile))
    return c if c > 0 else float(v.max())


def _regular(values: np.ndarray) -> bool:
    if values.size < 2:
        return False
    d = np.diff(values)
    return bool(np.all(d > 0) or np.all(d < 0)) and np.allclose(d, d[0], rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Gathers


def gather_axis(g: Gather) -> Tuple[np.ndarray, str]:
    """The horizontal axis of a gather plot: signed offset (m) along the receiver line when the
    receivers are one evenly spaced line, the trace number otherwise."""
    off = g.line_offsets
    if off is not None and _regular(off):
        return off, "offset (m)"
    return np.arange(g.data.shape[0], dtype=float), "trace"


def plot_gather(
    g: Gather,
    style: str = "density",
    clip: float = 99.0,
    ax=None,
    max_wiggles: int = 120,
    title: Optional[str] = None,
):
    """A shot gather: time down, offset (or trace number) across. style: 'density' (grey scale,
    positive black, colour bar), 'wiggle' (traces with positive lobes filled; at most
    max_wiggles of them, evenly picked) or 'both' (unfilled wiggles, at most half as many, over
    a blue-white-red density)."""
    if style not in ("density", "wiggle", "both"):
        raise ValueError(f"style must be density, wiggle or both (got {style!r})")
    fig = None
    if ax is None:
        fig = _figure(7.0, 5.0)
        ax = fig.add_subplot(1, 1, 1)
    pos, label = gather_axis(g)
    c = clip_value(g.data, clip)
    nrec, nt = g.data.shape
    if style in ("density", "both"):
        # Each trace and sample fills its cell: half a trace gap and half a sample beyond the ends.
        half = abs(pos[1] - pos[0]) / 2 if nrec > 1 else 0.5
        half *= np.sign(pos[-1] - pos[0] or 1)
        extent = (pos[0] - half, pos[-1] + half, g.t[-1] + g.dt / 2, g.t[0] - g.dt / 2)
        im = ax.imshow(g.data.T, cmap="gray_r" if style == "density" else "seismic", vmin=-c, vmax=c,
                       extent=extent, aspect="auto", interpolation="nearest")
        bar = ax.figure.colorbar(im, ax=ax, shrink=0.9)
        bar.set_label(g.units or "amplitude")
    if style in ("wiggle", "both"):
        if style == "both":
            max_wiggles = max(1, max_wiggles // 2)
        step = max(1, int(np.ceil(nrec / max_wiggles)))
        picked = np.arange(0, nrec, step)
        gap = abs(pos[picked[1]] - pos[picked[0]]) if picked.size > 1 else 1.0
        scale = 0.9 * gap / c
        for i in picked:
            tr = np.clip(g.data[i].astype(float), -c, c) * scale
            ax.plot(pos[i] + tr, g.t, color="k", linewidth=0.4)
            if style == "wiggle":
                ax.fill_betweenx(g.t, pos[i], pos[i] + tr, where=tr > 0, color="k", linewidth=0)
        ax.set_ylim(g.t[-1], g.t[0])
        lo, hi = min(pos[0], pos[-1]), max(pos[0], pos[-1])
        ax.set_xlim(lo - gap, hi + gap)
    ax.set_xlabel(label)
    ax.set_ylabel("time (s)")
    if title is None:
        s = g.source
        title = f"shot {g.shot}: source at ({s[0]:g}, {s[1]:g}, {s[2]:g}) m"
    ax.set_title(title)
    return ax.figure


# ---------------------------------------------------------------------------------------------
# Volumes


def _section(volume: np.ndarray, grid: Grid, plane: str, at: Dict[str, int]):
    """2-D section (rows, cols) of a [z][y][x] volume and its extent for imshow, in metres.
    plane: 'xz' (at y), 'yz' (at x) or 'xy' (at z)."""
    z, y, x = grid.z, grid.y, grid.x
    dz, dy, dx = grid.spacing

    def ext(h, v, dh, dv, down):
        left, right = h[0] - dh / 2, h[-1] + dh / 2
        a, b = v[0] - dv / 2, v[-1] + dv / 2
        return (left, right, b, a) if down else (left, right, a, b)

    if plane == "xz":
        return volume[:, at["y"], :], ext(x, z, dx, dz, True), ("x (m)", "z (m)")
    if plane == "yz":
        return volume[:, :, at["x"]], ext(y, z, dy, dz, True), ("y (m)", "z (m)")
    # Depth slice: y grows upwards as on a map.
    return volume[at["z"], :, :], ext(x, y, dx, dy, False), ("x (m)", "y (m)")


def _planes(grid: Grid, planes: Optional[Sequence[str]]) -> list:
    nz, ny, nx = grid.shape
    possible = {"xz": nx > 1 and nz > 1, "yz": ny > 1 and nz > 1, "xy": nx > 1 and ny > 1}
    if planes is None:
        planes = [p for p in ("xz", "yz", "xy") if possible[p]] or ["xz"]
    for p in planes:
        if p not in possible:
            raise ValueError(f"plane must be xz, yz or xy (got {p!r})")
    return list(planes)


def _positions(grid: Grid, at: Optional[Dict[str, float]]) -> Dict[str, int]:
    """Sample indices of the slices: the coordinates given (m), the middle of each axis otherwise."""
    idx = {a: grid.shape["zyx".index(a)] // 2 for a in "zyx"}
    for a, v in (at or {}).items():
        if v is not None:
            idx[a] = grid.index(a, float(v))
    return idx


def _plane_title(plane: str, grid: Grid, idx: Dict[str, int]) -> str:
    cut = {"xz": "y", "yz": "x", "xy": "z"}[plane]
    return f"{cut} = {grid.axis(cut)[idx[cut]]:g} m"


def plot_slices(
    volume: np.ndarray,
    grid: Grid,
    at: Optional[Dict[str, float]] = None,
    planes: Optional[Sequence[str]] = None,
    clip: float = 99.0,
    symmetric: bool = True,
    cmap: Optional[str] = None,
    label: str = "",
    title: str = "",
):
    """Orthogonal slices of a [z][y][x] volume, axes in metres, one colour scale and bar.

    at: {'x': m, 'y': m, 'z': m} where the slices cut (default: the middle of each axis).
    planes: any of 'xz' (vertical section at y), 'yz' (at x), 'xy' (depth slice at z); default:
    those the grid has extent for. symmetric: a scale from -c to c with c the `clip` percentile
    of |values| (wavefields, images); otherwise from the (100 - clip) to the clip percentile of
    the values (models)."""
    if volume.shape != tuple(grid.shape):
        raise ValueError(f"volume shape {volume.shape} does not match the grid {grid.shape}")
    planes = _planes(grid, planes)
    idx = _positions(grid, at)
    if symmetric:
        c = clip_value(volume, clip)
        vmin, vmax = -c, c
        cmap = cmap or "seismic"
    else:
        finite = volume[np.isfinite(volume)]
        vmin, vmax = 0.0, 1.0
        if finite.size:
            vmin, vmax = float(np.percentile(finite, 100 - clip)), float(np.percentile(finite, clip))
        if vmax <= vmin:
            vmin, vmax = vmin - 0.5, vmax + 0.5
        cmap = cmap or "viridis"
    sections = [_section(volume, grid, p, idx) for p in planes]
    widths = [abs(e[1] - e[0]) for _, e, _ in sections]
    heights = [abs(e[3] - e[2]) for _, e, _ in sections]
    aspect = max(heights) / max(sum(widths), 1e-30)
    fig = _figure(4.0 + 3.2 * len(planes), max(3.0, min(7.0, 2.0 + 3.2 * len(planes) * aspect)))
    axes = fig.subplots(1, len(planes), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    im = None
    for ax, plane, (sec, extent, (xl, yl)) in zip(axes, planes, sections):
        im = ax.imshow(sec, cmap=cmap, vmin=vmin, vmax=vmax, extent=extent, aspect="equal",
                       interpolation="nearest")
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_title(_plane_title(plane, grid, idx), fontsize=10)
    bar = fig.colorbar(im, ax=list(axes), shrink=0.85)
    if label:
        bar.set_label(label)
    if title:
        fig.suptitle(title)
    return fig


def plot_snapshot(s: Snapshots, k: int = 0, at: Optional[Dict[str, float]] = None, clip: float = 99.0):
    """Orthogonal slices of snapshot k of `s` (a position in s.data)."""
    return plot_slices(
        s.data[k], s.grid, at=at, clip=clip, label=s.units or "p",
        title=f"snapshot {int(s.indices[k])} at t = {s.times[k]:.4g} s",
    )


def plot_snapshot_strip(
    s: Snapshots,
    plane: str = "xz",
    at: Optional[Dict[str, float]] = None,
    clip: float = 99.0,
    columns: int = 5,
    max_panels: int = 20,
):
    """A movie strip: the same section of every snapshot (at most max_panels, evenly picked) side
    by side in time order, one colour scale for all, so the wavefront's travel and its amplitude
    can be read across the panels."""
    n = s.data.shape[0]
    if n == 0:
        raise FileError(f"{s.path}: holds no snapshot")
    plane = _planes(s.grid, [plane])[0]
    idx = _positions(s.grid, at)
    picked = np.unique(np.linspace(0, n - 1, min(n, max_panels)).round().astype(int))
    sections = [_section(s.data[k], s.grid, plane, idx) for k in picked]
    c = clip_value(np.stack([sec for sec, _, _ in sections]), clip)
    cols = min(columns, len(picked))
    rows = int(np.ceil(len(picked) / cols))
    sec0, extent, (xl, yl) = sections[0]
    aspect = abs(extent[3] - extent[2]) / abs(extent[1] - extent[0])
    fig = _figure(1.0 + 3.0 * cols, 0.9 + rows * (0.6 + 3.0 * aspect))
    axes = fig.subplots(rows, cols, squeeze=False)
    im = None
    for i, ax in enumerate(axes.ravel()):
        if i >= len(picked):
            ax.set_axis_off()
            continue
        sec, extent, _ = sections[i]
        im = ax.imshow(sec, cmap="seismic", vmin=-c, vmax=c, extent=extent, aspect="equal",
                       interpolation="nearest")
        ax.set_title(f"t = {s.times[picked[i]]:.3g} s", fontsize=9)
        if i % cols == 0:
            ax.set_ylabel(yl)
        else:
            ax.set_yticklabels([])
        if i // cols == rows - 1 or i + cols >= len(picked):
            ax.set_xlabel(xl)
    bar = fig.colorbar(im, ax=list(axes.ravel()), shrink=0.8)
    bar.set_label(s.units or "p")
    fig.suptitle(f"{_plane_title(plane, s.grid, idx)}, clipped at {c:.3g}", fontsize=10)
    return fig


# ---------------------------------------------------------------------------------------------
# Images


def image_sections(img: Image, y: Optional[float] = None, conditions: Optional[Sequence[str]] = None):
    """x-z sections of each image at y (m; default the middle) and their imshow extent
    (left, right, bottom, top) in metres: ({condition: [nz][nx]}, extent)."""
    names = list(conditions) if conditions else list(img.images)
    iy = img.grid.shape[1] // 2 if y is None else img.grid.index("y", y)
    secs = {}
    for n in names:
        if n not in img.images:
            raise ValueError(f"{img.path}: no image '{n}' (held: {', '.join(img.images)})")
        secs[n] = img.images[n][:, iy, :]
    x, z = img.grid.x, img.grid.z
    extent = np.array([x[0], x[-1], z[-1], z[0]], dtype=float)
    return secs, extent


def plot_image_sections(sections: Dict[str, np.ndarray], extent: Sequence[float], title: str = "",
                        clip: float = 99.0):
    """One grey-scale panel per section, each clipped at the `clip` percentile of its |values|
    below the top tenth (where the source and receiver wavefields overlap)."""
    fig = _figure(5.2 * len(sections), 3.6)
    axes = fig.subplots(1, len(sections), squeeze=False)[0]
    for ax, (name, sec) in zip(axes, sections.items()):
        nz = sec.shape[0]
        c = clip_value(sec[nz // 10 :, :], clip)
        im = ax.imshow(sec, cmap="gray", vmin=-c, vmax=c, extent=tuple(extent), aspect="equal")
        ax.set_title(name)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("depth (m)")
        fig.colorbar(im, ax=ax, shrink=0.8)
    if title:
        fig.suptitle(title)
    return fig


def plot_image(img: Image, y: Optional[float] = None, conditions: Optional[Sequence[str]] = None,
               title: str = "", clip: float = 99.0):
    """x-z section of every imaging condition of an image at y (default: the middle)."""
    secs, extent = image_sections(img, y, conditions)
    return plot_image_sections(secs, extent, title=title, clip=clip)


# ---------------------------------------------------------------------------------------------
# Models


def plot_model(m: Model, name: Optional[str] = None, at: Optional[Dict[str, float]] = None):
    """Orthogonal slices of one model field (default: vp, else the first), on a sequential colour
    scale from its 0.5th to its 99.5th percentile, colour bar in the field's units."""
    name = name or ("vp" if "vp" in m.fields else next(iter(m.fields)))
    if name not in m.fields:
        raise ValueError(f"{m.path}: no field '{name}' (held: {', '.join(m.fields)})")
    unit = m.units.get(name, "")
    return plot_slices(
        m.fields[name], m.grid, at=at, clip=99.5, symmetric=False,
        label=f"{name} ({unit})" if unit else name, title=f"{name}: {m.path}",
    )
