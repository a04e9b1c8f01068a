"""Readers for seisfd's output files (layouts: docs/outputs.md).

Every loader returns numpy arrays with their coordinates: arrays are C-order [z][y][x] as in the
files, positions are (x, y, z) in metres, grid spacing and origin (z, y, x) as the files' root
attributes give them. A loader takes a file or the output directory holding it, refuses a file
whose root attribute `complete` is not 1 (a run that stopped early) unless allow_partial=True,
and reports a bad file as one FileError line naming the file and the object.
"""
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

try:  # h5py is needed by every loader but the report's; importing the package must not need it
    import h5py
except ImportError:  # pragma: no cover - reported when a loader is used
    h5py = None


class FileError(Exception):
    """A file that is missing, incomplete or not laid out as seisfd writes it."""


# ---------------------------------------------------------------------------------------------
# Small helpers


def _resolve(path, default_name: str) -> str:
    """A directory stands for the file seisfd writes into it under default_name."""
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, default_name)
    if not os.path.exists(path):
        hint = ""
        if os.path.exists(path + ".partial"):
            hint = f" (only {os.path.basename(path)}.partial: the run did not finish)"
        raise FileError(f"{path}: no such file{hint}")
    return path


def _open(path: str):
    if h5py is None:
        raise FileError(f"{path}: reading HDF5 needs h5py (Debian: python3-h5py)")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise FileError(f"{path}: not a readable HDF5 file ({e})") from None


def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    return str(value)


def _check_complete(f, path: str, allow_partial: bool) -> bool:
    complete = int(f.attrs.get("complete", 0))
    if complete != 1 and not allow_partial:
        raise FileError(
            f"{path}: attribute complete = {complete}: the run that wrote it did not finish "
            "(pass allow_partial=True to read it anyway)"
        )
    return complete == 1


def _dataset(f, name: str, path: str, ndim: int):
    obj = f.get(name)
    if obj is None or not isinstance(obj, h5py.Dataset):
        raise FileError(f"{path}: no dataset '{name}'")
    if obj.ndim != ndim:
        raise FileError(f"{path}: dataset '{name}' has shape {obj.shape}, expected {ndim} dimensions")
    return obj


def _triple(f, name: str, path: str) -> Tuple[float, float, float]:
    if name not in f.attrs:
        raise FileError(f"{path}: no root attribute '{name}'")
    v = np.asarray(f.attrs[name], dtype=float).ravel()
    if v.size != 3:
        raise FileError(f"{path}: root attribute '{name}' has {v.size} values, expected 3 (z, y, x)")
    return tuple(float(a) for a in v)


# ---------------------------------------------------------------------------------------------
# Grids


@dataclass(frozen=True)
class Grid:
    """A regular grid of samples: shape, spacing and origin in (z, y, x) order, metres."""

    shape: Tuple[int, int, int]
    spacing: Tuple[float, float, float]
    origin: Tuple[float, float, float]

    def axis(self, name: str) -> np.ndarray:
        """Coordinates (m) of the samples along 'z', 'y' or 'x'."""
        i = "zyx".index(name)
        return self.origin[i] + self.spacing[i] * np.arange(self.shape[i])

    @property
    def z(self) -> np.ndarray:
        return self.axis("z")

    @property
    def y(self) -> np.ndarray:
        return self.axis("y")

    @property
    def x(self) -> np.ndarray:
        return self.axis("x")

    def index(self, name: str, value: float) -> int:
        """The sample nearest to coordinate `value` (m) along 'z', 'y' or 'x'; ValueError outside."""
        i = "zyx".index(name)
        n, d, o = self.shape[i], self.spacing[i], self.origin[i]
        k = int(round((value - o) / d))
        if not 0 <= k < n:
            raise ValueError(
                f"{name} = {value:g} m is outside the grid ({name} from {o:g} to {o + (n - 1) * d:g} m)"
            )
        return k

    @classmethod
    def of(cls, f, path: str, shape: Sequence[int]) -> "Grid":
        return cls(tuple(int(n) for n in shape), _triple(f, "spacing", path), _triple(f, "origin", path))


# ---------------------------------------------------------------------------------------------
# Gathers (docs/outputs.md §1)


@dataclass
class Gather:
    """One shot's traces: data [nreceivers][nt], sample k of a trace at t[k] = t0 + k dt."""

    shot: int
    data: np.ndarray  # float32 [nreceivers][nt]
    t: np.ndarray  # [nt], s
    receivers: np.ndarray  # float64 [nreceivers][3], (x, y, z) m
    source: np.ndarray  # [3], (x, y, z) m
    dt: float
    t0: float
    units: str
    path: str = ""

    @property
    def offsets(self) -> np.ndarray:
        """Horizontal source-receiver distance of each trace, m."""
        d = self.receivers[:, :2] - self.source[None, :2]
        return np.hypot(d[:, 0], d[:, 1])

    @property
    def line_offsets(self) -> Optional[np.ndarray]:
        """Signed offset along the receiver line (positive from the first receiver towards the last),
        m, when the receivers lie on one horizontal straight line; None otherwise (a grid, a
        scattered list, a single receiver, or a vertical line)."""
        xy = self.receivers[:, :2]
        if len(xy) < 2:
            return None
        d = xy[-1] - xy[0]
        length = float(np.hypot(*d))
        if length == 0.0:
            return None
        u = d / length
        rel = xy - xy[0]
        across = rel[:, 0] * u[1] - rel[:, 1] * u[0]
        if np.max(np.abs(across)) > 1e-6 * length:
            return None
        return (xy - self.source[None, :2]) @ u


def gather_shots(path, allow_partial: bool = False) -> List[int]:
    """The shot indices a gathers file holds, ascending."""
    path = _resolve(path, "gathers.h5")
    with _open(path) as f:
        _check_complete(f, path, allow_partial)
        return _shot_groups(f)


def _shot_groups(f) -> List[int]:
    shots = []
    for name in f.keys():
        m = re.fullmatch(r"shot_(\d+)", name)
        if m:
            shots.append(int(m.group(1)))
    return sorted(shots)


def _read_gather(f, path: str, shot: int) -> Gather:
    name = f"shot_{shot:04d}"
    g = f.get(name)
    if g is None:
        raise FileError(f"{path}: no shot {shot} (group /{name}); shots held: {_shot_groups(f)}")
    p = _dataset(g, "p", path, 2)
    rec = _dataset(g, "receivers", path, 2)
    if rec.shape != (p.shape[0], 3):
        raise FileError(
            f"{path}: /{name}/receivers has shape {rec.shape}, expected ({p.shape[0]}, 3) for "
            f"{p.shape[0]} traces"
        )
    for a in ("dt", "t0", "source"):
        if a not in g.attrs:
            raise FileError(f"{path}: /{name} has no attribute '{a}'")
    dt, t0 = float(g.attrs["dt"]), float(g.attrs["t0"])
    nt = p.shape[1]
    return Gather(
        shot=shot,
        data=p[()],
        t=t0 + dt * np.arange(nt),
        receivers=rec[()].astype(float),
        source=np.asarray(g.attrs["source"], dtype=float).ravel(),
        dt=dt,
        t0=t0,
        units=_text(g.attrs.get("units", "")),
        path=path,
    )


def load_gathers(path, shots: Optional[Sequence[int]] = None, allow_partial: bool = False) -> List[Gather]:
    """Every shot of a gathers.h5 (or those listed in `shots`), in ascending shot order.

    A .sgy/.segy file is read through segyio when it is installed (see load_segy_gathers)."""
    if os.fspath(path).lower().endswith((".sgy", ".segy")):
        return load_segy_gathers(path, shots)
    path = _resolve(path, "gathers.h5")
    with _open(path) as f:
        _check_complete(f, path, allow_partial)
        wanted = _shot_groups(f) if shots is None else list(shots)
        return [_read_gather(f, path, s) for s in wanted]


def load_gather(path, shot: Optional[int] = None, allow_partial: bool = False) -> Gather:
    """One shot of a gathers file (default: the first it holds)."""
    if os.fspath(path).lower().endswith((".sgy", ".segy")):
        gathers = load_segy_gathers(path, None if shot is None else [shot])
        return gathers[0]
    path = _resolve(path, "gathers.h5")
    with _open(path) as f:
        _check_complete(f, path, allow_partial)
        if shot is None:
            held = _shot_groups(f)
            if not held:
                raise FileError(f"{path}: holds no shot (no /shot_NNNN group)")
            shot = held[0]
        return _read_gather(f, path, shot)


def load_segy_gathers(path, shots: Optional[Sequence[int]] = None) -> List[Gather]:
    """Shot gathers from a SEG-Y file, through segyio (optional dependency).

    Traces are grouped into shots by the trace header FieldRecord; positions come from SourceX/Y,
    GroupX/Y (scaled by SourceGroupScalar), SourceDepth and ReceiverGroupElevation (scaled by
    ElevationScalar, depth positive down); the sample interval from the binary header."""
    path = os.fspath(path)
    try:
        import segyio
    except ImportError:
        raise FileError(f"{path}: reading SEG-Y needs segyio (Debian: python3-segyio)") from None
    if not os.path.exists(path):
        raise FileError(f"{path}: no such file")

    def scaled(value, scalar):
        scalar = int(scalar)
        if scalar > 0:
            return float(value) * scalar
        if scalar < 0:
            return float(value) / -scalar
        return float(value)

    try:
        with segyio.open(path, "r", ignore_geometry=True) as s:
            dt = segyio.tools.dt(s) * 1e-6
            data = s.trace.raw[:]
            H = segyio.TraceField
            rows = []
            for h in s.header:
                sc, el = h[H.SourceGroupScalar], h[H.ElevationScalar]
                rows.append(
                    (
                        h[H.FieldRecord],
                        scaled(h[H.SourceX], sc),
                        scaled(h[H.SourceY], sc),
                        scaled(h[H.SourceDepth], el),
                        scaled(h[H.GroupX], sc),
                        scaled(h[H.GroupY], sc),
                        -scaled(h[H.ReceiverGroupElevation], el),
                        h[H.DelayRecordingTime],
                    )
                )
    except (OSError, RuntimeError, ValueError) as e:
        raise FileError(f"{path}: not a readable SEG-Y file ({e})") from None
    hdr = np.array(rows, dtype=float).reshape(-1, 8)
    records = hdr[:, 0].astype(int)
    held = sorted(set(records.tolist()))
    wanted = held if shots is None else list(shots)
    out = []
    for shot in wanted:
        sel = np.nonzero(records == shot)[0]
        if sel.size == 0:
            raise FileError(f"{path}: no traces with FieldRecord {shot}; records held: {held}")
        t0 = hdr[sel[0], 7] * 1e-3
        out.append(
            Gather(
                shot=shot,
                data=np.asarray(data[sel], dtype=np.float32),
                t=t0 + dt * np.arange(data.shape[1]),
                receivers=hdr[sel][:, 4:7],
                source=hdr[sel[0], 1:4].copy(),
                dt=dt,
                t0=t0,
                units="",
                path=path,
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Snapshots (docs/outputs.md §2)


@dataclass
class Snapshots:
    """Wavefield snapshots: data [n][nz][ny][nx] at times[n] s, on `grid` (decimation included)."""

    data: np.ndarray
    times: np.ndarray
    grid: Grid
    decimation: Tuple[int, int, int]
    indices: np.ndarray  # position of each snapshot in the file
    units: str
    complete: bool
    path: str = ""


def load_snapshots(
    path, index: Union[None, int, slice, Sequence[int]] = None, allow_partial: bool = False
) -> Snapshots:
    """Snapshots of a snapshots.h5: all of them, or those picked by `index` (an int, a slice or a
    list, as positions in the file; negative counts from the end). data is always 4-D."""
    path = _resolve(path, "snapshots.h5")
    with _open(path) as f:
        complete = _check_complete(f, path, allow_partial)
        p = _dataset(f, "p", path, 4)
        times = _dataset(f, "time", path, 1)[()]
        n = p.shape[0]
        if times.shape[0] != n:
            raise FileError(f"{path}: /time has {times.shape[0]} values for {n} snapshots in /p")
        all_idx = np.arange(n)
        if index is None:
            idx = all_idx
        elif isinstance(index, slice):
            idx = all_idx[index]
        else:
            idx = np.atleast_1d(np.asarray(index, dtype=int))
            bad = idx[(idx < -n) | (idx >= n)]
            if bad.size:
                raise FileError(f"{path}: snapshot {int(bad[0])} does not exist ({n} snapshots)")
            idx = all_idx[idx]
        data = np.stack([p[int(k)] for k in idx]) if idx.size else np.empty((0,) + p.shape[1:], p.dtype)
        dec = tuple(int(v) for v in np.asarray(f.attrs.get("decimation", (1, 1, 1))).ravel())
        return Snapshots(
            data=data,
            times=times[idx],
            grid=Grid.of(f, path, p.shape[1:]),
            decimation=dec,
            indices=idx,
            units=_text(p.attrs.get("units", "")),
            complete=complete,
            path=path,
        )


# ---------------------------------------------------------------------------------------------
# Images (docs/outputs.md §4)


@dataclass
class Image:
    """Migrated images: images[condition] [nz][ny][nx] stacked over `shots` shots, on `grid`."""

    images: Dict[str, np.ndarray]
    illumination: Optional[np.ndarray]
    grid: Grid
    decimation: Tuple[int, int, int]
    shots: int
    units: str
    complete: bool
    shot_images: Dict[int, Dict[str, np.ndarray]] = field(default_factory=dict)
    path: str = ""


def load_image(
    path,
    conditions: Optional[Sequence[str]] = None,
    shot_images: bool = False,
    allow_partial: bool = False,
) -> Image:
    """The images of an image.h5 (all conditions, or those named), its illumination, and with
    shot_images=True each shot's own images (/shots/shot_NNNN)."""
    path = _resolve(path, "image.h5")
    with _open(path) as f:
        complete = _check_complete(f, path, allow_partial)
        group = f.get("image")
        if group is None or not isinstance(group, h5py.Group):
            raise FileError(f"{path}: no group '/image' (not a seisfd image file?)")
        held = sorted(group.keys())
        names = held if conditions is None else list(conditions)
        for n in names:
            if n not in group:
                raise FileError(f"{path}: no image '{n}'; images held: {', '.join(held)}")
        images = {n: _dataset(f, "image/" + n, path, 3)[()] for n in names}
        if not images:
            raise FileError(f"{path}: holds no image")
        shape = next(iter(images.values())).shape
        for n, a in images.items():
            if a.shape != shape:
                raise FileError(f"{path}: image '{n}' has shape {a.shape}, the others {shape}")
        illum = _dataset(f, "illumination", path, 3)[()] if "illumination" in f else None
        per_shot = {}
        if shot_images and "shots" in f:
            for name, g in f["shots"].items():
                m = re.fullmatch(r"shot_(\d+)", name)
                if m:
                    per_shot[int(m.group(1))] = {k: g[k][()] for k in sorted(g.keys())}
        dec = tuple(int(v) for v in np.asarray(f.attrs.get("decimation", (1, 1, 1))).ravel())
        return Image(
            images=images,
            illumination=illum,
            grid=Grid.of(f, path, shape),
            decimation=dec,
            shots=int(f.attrs.get("shots", 0)),
            units=_text(f.attrs.get("units", "")),
            complete=complete,
            shot_images=dict(sorted(per_shot.items())),
            path=path,
        )


# ---------------------------------------------------------------------------------------------
# Models (the model.h5 `seisfd run` writes with output.model = true, or any model.path file)

_MODEL_UNITS = {"vp": "m/s", "epsilon": "", "delta": "", "theta": "degrees", "phi": "degrees"}


@dataclass
class Model:
    """Model volumes: fields[name] [nz][ny][nx] (vp m/s; epsilon, delta; theta, phi degrees)."""

    fields: Dict[str, np.ndarray]
    grid: Grid
    units: Dict[str, str]
    path: str = ""


def _as_zyx(value, what: str) -> Tuple[float, float, float]:
    v = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    if v.size == 1:
        v = np.repeat(v, 3)
    if v.size != 3:
        raise ValueError(f"{what}: expected one value or three (z, y, x), got {v.size}")
    return tuple(float(a) for a in v)


def load_model(
    path,
    datasets: Optional[Sequence[str]] = None,
    spacing=None,
    origin=None,
) -> Model:
    """Model volumes of an HDF5 file: every 3-D dataset at its root (or those named).

    The grid comes from the file's root attributes spacing and origin (z, y, x) where it has them
    (seisfd's model.h5 does); for a bare model file such as one named by model.path, pass
    spacing (one value, or (dz, dy, dx)) and optionally origin ((oz, oy, ox), default 0); given
    arguments override the file's attributes."""
    path = _resolve(path, "model.h5")
    with _open(path) as f:
        if "complete" in f.attrs:
            _check_complete(f, path, False)
        if datasets is None:
            names = [
                k for k, v in f.items() if isinstance(v, h5py.Dataset) and v.ndim == 3 and v.dtype.kind == "f"
            ]
            order = list(_MODEL_UNITS)
            names.sort(key=lambda k: (order.index(k) if k in order else len(order), k))
            if not names:
                raise FileError(f"{path}: holds no 3-D floating-point dataset at its root")
        else:
            names = list(datasets)
        fields = {n: _dataset(f, n, path, 3)[()] for n in names}
        shape = next(iter(fields.values())).shape
        for n, a in fields.items():
            if a.shape != shape:
                raise FileError(f"{path}: dataset '{n}' has shape {a.shape}, '{names[0]}' {shape}")
        if spacing is None:
            if "spacing" not in f.attrs:
                raise FileError(
                    f"{path}: no root attribute 'spacing': give the grid spacing "
                    "(spacing=..., or --spacing on the command line)"
                )
            spacing = _triple(f, "spacing", path)
        if origin is None:
            origin = _triple(f, "origin", path) if "origin" in f.attrs else (0.0, 0.0, 0.0)
        units = {}
        for n in names:
            u = f[n].attrs.get("units")
            units[n] = _text(u) if u is not None else _MODEL_UNITS.get(n, "")
        grid = Grid(tuple(int(s) for s in shape), _as_zyx(spacing, "spacing"), _as_zyx(origin, "origin"))
        return Model(fields=fields, grid=grid, units=units, path=path)


# ---------------------------------------------------------------------------------------------
# Run report (docs/outputs.md §3)


def load_report(path) -> dict:
    """report.json as a dict (the resolved config under 'config', timings, diagnostics, ...)."""
    path = _resolve(path, "report.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise FileError(f"{path}: not valid JSON ({e})") from None
