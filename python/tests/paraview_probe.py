"""Run by ParaView's pvpython (tests/paraview_xdmf.py starts it): opens an XDMF file with ParaView's
XDMF reader, as File > Open does, and saves what ParaView sees into an .npz: the image data's
dimensions, origin and spacing (x, y, z), bounds, the time values, and every point array at every
time, in VTK's order (x fastest).

    pvpython paraview_probe.py FILE.xmf OUT.npz
"""
import sys

import numpy as np
from paraview import servermanager as sm
from paraview.simple import XDMFReader
from vtkmodules.util.numpy_support import vtk_to_numpy

xmf, out = sys.argv[1], sys.argv[2]
reader = XDMFReader(FileNames=[xmf])
times = list(reader.TimestepValues) if reader.TimestepValues else []
saved = {"times": np.array(times, dtype=float)}
for k, t in enumerate(times or [None]):
    if t is None:
        reader.UpdatePipeline()
    else:
        reader.UpdatePipeline(t)
    data = sm.Fetch(reader)
    if k == 0:
        saved["class"] = np.array(data.GetClassName())
        saved["dimensions"] = np.array(data.GetDimensions())
        saved["origin"] = np.array(data.GetOrigin())
        saved["spacing"] = np.array(data.GetSpacing())
        saved["bounds"] = np.array(data.GetBounds())
    pd = data.GetPointData()
    for i in range(pd.GetNumberOfArrays()):
        a = pd.GetArray(i)
        saved[f"array_{k}_{a.GetName()}"] = vtk_to_numpy(a).copy()
np.savez(out, **saved)
print(f"{xmf}: {saved['class']} dimensions {tuple(saved['dimensions'])} origin {tuple(saved['origin'])} "
      f"spacing {tuple(saved['spacing'])}, {len(times)} times")
