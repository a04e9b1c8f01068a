#!/usr/bin/env python3
"""Other readers read the SEG-Y seisfd writes (docs/outputs.md §8) and find its numbers.

  produce --seisfd BIN --dir DIR   seisfd born (gathers.h5 + gathers.sgy), then seisfd migrate
                                   from gathers.sgy (image.h5 + image_<condition>.sgy)
  segyio --dir DIR                 Python's segyio against the HDF5 twins (h5py): every trace,
                                   every header seisfd documents, the image cube and its axes
  obspy --dir DIR                  the same gathers through ObsPy; exit 77 (ctest: skipped) when
                                   `import obspy` fails

Run with Debian's /usr/bin/python3 (python3-segyio, python3-h5py, python3-numpy).
"""
import argparse
import os
import shutil
import subprocess
import sys

CONFIG = """[grid]
nx = 24
ny = 5
nz = 20
spacing = 10.0
origin = [-40.0, 1000.0, 0.0]

[model]
type = "layered"
interfaces = [0.0, 100.0]
velocities = [2000.0, 2500.0]

[physics]
order = 4

[time]
duration = 0.2
dt = 0.001

[source]
frequency = 15.0

[shots]
layout = "list"
positions = [[40.125, 1020.0, 20.0], [150.0, 1020.0, 15.5]]
receivers = "fixed"

[receivers]
layout = "line"
start = [-40.0, 1020.0, 10.0]
end = [190.0, 1020.0, 10.0]
count = 24

[boundary]
type = "sponge"
width = 6

[born]
perturbation = "reflectors"

[migration]
smoothing = 20.0
storage = "store"
conditions = ["crosscorrelation", "normalized"]

[output]
sample_interval = 0.002
formats = ["hdf5", "segy"]
"""

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def produce(seisfd, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cfg = os.path.join(d, "survey.toml")
    with open(cfg, "w") as f:
        f.write(CONFIG)
    subprocess.run([seisfd, "born", cfg, "-q", "--set", "output.directory=" + os.path.join(d, "data")],
                   check=True)
    subprocess.run([seisfd, "migrate", cfg, "-q", "--set",
                    "migration.data=" + os.path.join(d, "data", "gathers.sgy"), "--set",
                    "output.directory=" + os.path.join(d, "image")], check=True)


def h5_gathers(d):
    import h5py
    import numpy as np
    out = []
    with h5py.File(os.path.join(d, "data", "gathers.h5"), "r") as f:
        for name in sorted(k for k in f if k.startswith("shot_")):
            g = f[name]
            out.append(dict(shot=int(name[5:]), p=g["p"][:], receivers=g["receivers"][:],
                            source=np.asarray(g.attrs["source"]), dt=float(g.attrs["dt"])))
    return out


def scale(v, s):
    return v / -s if s < 0 else v * s if s > 0 else v


def check_segyio(d):
    import h5py
    import numpy as np
    import segyio
    T = segyio.TraceField
    shots = h5_gathers(d)
    check(len(shots) == 2, "gathers.h5 holds 2 shots")
    nt = shots[0]["p"].shape[1]
    dt = shots[0]["dt"]
    with segyio.open(os.path.join(d, "data", "gathers.sgy"), ignore_geometry=True) as f:
        check(f.tracecount == sum(s["p"].shape[0] for s in shots),
              "trace count %d" % f.tracecount)
        check(f.bin[segyio.BinField.Interval] == round(dt * 1e6), "binary interval in µs")
        check(f.bin[segyio.BinField.Samples] == nt, "binary sample count")
        check(np.allclose(f.samples, np.arange(nt) * dt * 1e3), "segyio's sample times (ms)")
        text = f.text[0].decode("ascii", "replace")
        check("PRESSURE IN PA" in text and "METRES" in text and "seisfd" in text,
              "textual header states the units and the producer")
        k = 0
        for s in shots:
            for r in range(s["p"].shape[0]):
                h = f.header[k]
                sc, es = h[T.SourceGroupScalar], h[T.ElevationScalar]
                rx, ry, rz = s["receivers"][r]
                sx, sy, sz = s["source"]
                got = dict(
                    field_record=h[T.FieldRecord] == s["shot"],
                    trace_number=h[T.TraceNumber] == r + 1,
                    sequence=h[T.TRACE_SEQUENCE_FILE] == k + 1,
                    scalar=sc == -1000 and es == -1000,
                    source_x=abs(scale(h[T.SourceX], sc) - sx) <= 5e-4,
                    source_y=abs(scale(h[T.SourceY], sc) - sy) <= 5e-4,
                    source_depth=abs(scale(h[T.SourceDepth], es) - sz) <= 5e-4,
                    group_x=abs(scale(h[T.GroupX], sc) - rx) <= 5e-4,
                    group_y=abs(scale(h[T.GroupY], sc) - ry) <= 5e-4,
                    group_elevation=abs(scale(h[T.ReceiverGroupElevation], es) + rz) <= 5e-4,
                    offset=h[T.offset] == round(np.hypot(rx - sx, ry - sy)),
                    sample_count=h[T.TRACE_SAMPLE_COUNT] == nt,
                    sample_interval=h[T.TRACE_SAMPLE_INTERVAL] == round(dt * 1e6),
                    samples=np.array_equal(f.trace[k], s["p"][r]),
                )
                for name, ok in got.items():
                    check(ok, "gathers.sgy trace %d (shot %d, receiver %d): %s" %
                          (k + 1, s["shot"], r, name))
                k += 1
        check(np.abs(shots[0]["p"]).max() > 0, "the gathers are not all zero")

    with h5py.File(os.path.join(d, "image", "image.h5"), "r") as f:
        spacing = f.attrs["spacing"]  # (z, y, x)
        origin = f.attrs["origin"]
        images = {n: f["image"][n][:] for n in f["image"]}
    check(sorted(images) == ["crosscorrelation", "normalized"], "image.h5 conditions")
    for name, img in images.items():
        nz, ny, nx = img.shape
        with segyio.open(os.path.join(d, "image", "image_%s.sgy" % name)) as f:
            check(f.sorting == segyio.TraceSortingFormat.INLINE_SORTING, name + ": inline sorted")
            check(list(f.ilines) == list(range(1, ny + 1)), name + ": inlines 1..ny")
            check(list(f.xlines) == list(range(1, nx + 1)), name + ": crosslines 1..nx")
            check(np.allclose(f.samples, origin[0] + np.arange(nz) * spacing[0]),
                  name + ": samples are depths in metres")
            cube = segyio.tools.cube(f)  # [inline][crossline][sample] = [y][x][z]
            check(np.array_equal(np.transpose(cube, (2, 0, 1)), img),
                  name + ": the cube holds image.h5's numbers")
            for k in (0, nx + 3, ny * nx - 1):
                h = f.header[k]
                sc = h[T.SourceGroupScalar]
                x = origin[2] + (k % nx) * spacing[2]
                y = origin[1] + (k // nx) * spacing[1]
                check(abs(scale(h[T.CDP_X], sc) - x) <= 5e-4 and
                      abs(scale(h[T.CDP_Y], sc) - y) <= 5e-4,
                      "%s trace %d: CDP x/y (%g, %g)" % (name, k + 1, x, y))
        check(np.abs(img).max() > 0, name + ": the image is not all zero")


def check_obspy(d):
    try:
        import obspy  # noqa: F401
    except Exception as e:  # ImportError, or a broken installation
        print("SKIP: ObsPy does not import here (%s); segyio's test reads the same files" % e)
        sys.exit(77)
    import numpy as np
    shots = h5_gathers(d)
    st = obspy.read(os.path.join(d, "data", "gathers.sgy"), format="SEGY",
                    unpack_trace_headers=True)
    check(len(st) == sum(s["p"].shape[0] for s in shots), "ObsPy: trace count")
    k = 0
    for s in shots:
        for r in range(s["p"].shape[0]):
            tr = st[k]
            h = tr.stats.segy.trace_header
            sc = h.scalar_to_be_applied_to_all_coordinates
            check(np.array_equal(tr.data, s["p"][r]), "ObsPy trace %d: samples" % (k + 1))
            check(abs(tr.stats.delta - s["dt"]) < 1e-9, "ObsPy trace %d: delta" % (k + 1))
            check(h.original_field_record_number == s["shot"], "ObsPy trace %d: shot" % (k + 1))
            check(abs(scale(h.group_coordinate_x, sc) - s["receivers"][r][0]) <= 5e-4,
                  "ObsPy trace %d: group x" % (k + 1))
            check(abs(scale(h.source_coordinate_x, sc) - s["source"][0]) <= 5e-4,
                  "ObsPy trace %d: source x" % (k + 1))
            k += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["produce", "segyio", "obspy"])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--seisfd")
    a = ap.parse_args()
    if a.mode == "produce":
        produce(a.seisfd, a.dir)
    elif a.mode == "segyio":
        check_segyio(a.dir)
    else:
        check_obspy(a.dir)
    if failures:
        print("%d checks failed" % len(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
