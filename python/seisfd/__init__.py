"""seisfd's Python companion: load its outputs into numpy arrays with coordinates, and plot them.

>>> import seisfd
>>> g = seisfd.load_gather("quickstart_out/gathers.h5")        # shot 0
>>> g.data.shape, g.t[-1], g.offsets[:3]
>>> s = seisfd.load_snapshots("quickstart_out/snapshots.h5")
>>> s.data.shape, s.grid.x, s.times

The files and their layout: docs/outputs.md in the seisfd repository; this package: docs/python.md.
"""
from .io import (
    FileError,
    Gather,
    Grid,
    Image,
    Model,
    Snapshots,
    gather_shots,
    load_gather,
    load_gathers,
    load_image,
    load_model,
    load_report,
    load_snapshots,
)

__version__ = "0.1.0"

__all__ = [
    "FileError",
    "Gather",
    "Grid",
    "Image",
    "Model",
    "Snapshots",
    "gather_shots",
    "load_gather",
    "load_gathers",
    "load_image",
    "load_model",
    "load_report",
    "load_snapshots",
]
