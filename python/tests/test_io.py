"""The loaders on real seisfd outputs: shapes, coordinates against the configs that made them,
values against what the files hold, and the errors for files that are missing or incomplete."""
import shutil

import h5py
import numpy as np
import pytest

import seisfd
import support
from seisfd import FileError


def test_quickstart_gather_shape_axes_and_values(quick):
    report = seisfd.load_report(quick)
    g = seisfd.load_gather(quick / "gathers.h5")
    nt = report["time"]["nt"]
    assert g.shot == 0
    assert g.data.shape == (support.QUICK_RECEIVERS, nt)
    assert g.data.dtype == np.float32
    assert g.dt == pytest.approx(report["time"]["output_dt"], rel=1e-12)
    assert g.t0 == 0.0
    np.testing.assert_allclose(g.t, np.arange(nt) * g.dt, rtol=0, atol=1e-12)
    assert g.t[-1] <= 0.3 + 1e-9
    np.testing.assert_allclose(g.source, support.QUICK_SOURCE)
    np.testing.assert_allclose(g.receivers[:, 0], 1000.0 + 10.0 * np.arange(41))
    np.testing.assert_allclose(g.receivers[:, 1:], np.tile([2100.0, 60.0], (41, 1)))
    np.testing.assert_allclose(g.offsets, np.abs(g.receivers[:, 0] - 1200.0), atol=1e-9)
    np.testing.assert_allclose(g.line_offsets, g.receivers[:, 0] - 1200.0, atol=1e-9)
    assert g.units == "Pa"
    with h5py.File(quick / "gathers.h5", "r") as f:
        np.testing.assert_array_equal(g.data, f["shot_0000/p"][()])
    # The direct wave (1500 m/s) reaches 200 m of offset 200 / 1500 s after offset 0.
    peak = g.t[np.argmax(np.abs(g.data), axis=1)]
    for i in (0, 40):  # offsets -200 and +200
        assert peak[i] - peak[20] == pytest.approx(200.0 / 1500.0, abs=0.02)


def test_quickstart_snapshots_grid_and_times(quick):
    report = seisfd.load_report(quick)
    s = seisfd.load_snapshots(quick)
    dt = report["time"]["dt"]
    every = round(0.1 / dt)
    n = (report["time"]["nt"] - 1) // every
    assert n >= 2
    assert s.data.shape == (n, 11, 11, 41)  # z and y decimated by 3 and 2
    assert s.grid.spacing == (30.0, 20.0, 10.0)
    assert s.grid.origin == (50.0, 2000.0, 1000.0)
    assert s.decimation == support.QUICK_DECIMATION
    np.testing.assert_allclose(s.grid.x, 1000.0 + 10.0 * np.arange(41))
    np.testing.assert_allclose(s.grid.y, 2000.0 + 20.0 * np.arange(11))
    np.testing.assert_allclose(s.grid.z, 50.0 + 30.0 * np.arange(11))
    np.testing.assert_allclose(s.times, every * dt * np.arange(1, n + 1), rtol=1e-12)
    np.testing.assert_array_equal(s.indices, np.arange(n))
    assert s.complete and s.units == "Pa"
    with h5py.File(quick / "snapshots.h5", "r") as f:
        np.testing.assert_array_equal(s.data, f["p"][()])
    # At the Ricker delay (0.1 s) the field is largest next to the source.
    k = int(np.argmin(np.abs(s.times - 1.5 / 15.0)))
    iz, iy, ix = np.unravel_index(np.argmax(np.abs(s.data[k])), s.data[k].shape)
    for axis, i, src in (("z", iz, 70.0), ("y", iy, 2100.0), ("x", ix, 1200.0)):
        assert abs(s.grid.axis(axis)[i] - src) <= 1.5 * s.grid.spacing["zyx".index(axis)]


def test_snapshots_index_picks(quick):
    every = seisfd.load_snapshots(quick)
    last = seisfd.load_snapshots(quick, index=-1)
    assert last.data.shape == (1,) + every.data.shape[1:]
    np.testing.assert_array_equal(last.data[0], every.data[-1])
    assert last.indices.tolist() == [every.data.shape[0] - 1]
    picked = seisfd.load_snapshots(quick, index=[1, 0])
    np.testing.assert_array_equal(picked.data, every.data[[1, 0]])
    np.testing.assert_array_equal(picked.times, every.times[[1, 0]])
    sliced = seisfd.load_snapshots(quick, index=slice(1, None))
    np.testing.assert_array_equal(sliced.data, every.data[1:])
    with pytest.raises(FileError, match="snapshot 99 does not exist"):
        seisfd.load_snapshots(quick, index=99)


def test_quickstart_model(quick):
    m = seisfd.load_model(quick / "model.h5")
    assert list(m.fields) == ["vp"]
    vp = m.fields["vp"]
    assert vp.shape == support.QUICK_SHAPE
    assert m.grid.spacing == (10.0, 10.0, 10.0)
    assert m.grid.origin == (50.0, 2000.0, 1000.0)
    assert m.units["vp"] == "m/s"
    z = m.grid.z
    assert np.all(vp[z < 245] == 1500.0)  # interfaces at 250 and 450 m (quickstart.toml)
    assert np.all(vp[z > 255] == 2200.0)
    with h5py.File(quick / "model.h5", "r") as f:
        np.testing.assert_array_equal(vp, f["vp"][()])
        assert int(f.attrs["complete"]) == 1


def test_bare_model_file_needs_spacing(tmp_path):
    path = tmp_path / "vp.h5"
    vp = np.linspace(1500, 3000, 4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    with h5py.File(path, "w") as f:
        f["vp"] = vp
        f["notes"] = np.zeros(3)
    with pytest.raises(FileError, match="no root attribute 'spacing'"):
        seisfd.load_model(path)
    m = seisfd.load_model(path, spacing=(5.0, 10.0, 20.0), origin=(1.0, 2.0, 3.0))
    assert list(m.fields) == ["vp"]  # the 1-D dataset is not a model field
    np.testing.assert_array_equal(m.fields["vp"], vp)
    np.testing.assert_allclose(m.grid.x, 3.0 + 20.0 * np.arange(6))
    np.testing.assert_allclose(m.grid.z, 1.0 + 5.0 * np.arange(4))
    assert seisfd.load_model(path, spacing=7.0).grid.spacing == (7.0, 7.0, 7.0)


def test_survey_gathers(rtm):
    data, _ = rtm
    assert seisfd.gather_shots(data) == [0, 1]
    gathers = seisfd.load_gathers(data)
    assert [g.shot for g in gathers] == [0, 1]
    with h5py.File(data / "gathers.h5", "r") as f:
        for g, src in zip(gathers, support.RTM_SOURCES):
            np.testing.assert_allclose(g.source, src)
            assert g.data.shape == (support.RTM_RECEIVERS, f[f"shot_{g.shot:04d}/p"].shape[1])
            np.testing.assert_array_equal(g.data, f[f"shot_{g.shot:04d}/p"][()])
            np.testing.assert_allclose(g.receivers[:, 0], 500.0 + 10.0 * np.arange(support.RTM_RECEIVERS))
            np.testing.assert_allclose(g.line_offsets, g.receivers[:, 0] - src[0], atol=1e-9)
    one = seisfd.load_gather(data, shot=1)
    np.testing.assert_array_equal(one.data, gathers[1].data)
    with pytest.raises(FileError, match=r"no shot 5 .*shots held: \[0, 1\]"):
        seisfd.load_gather(data, shot=5)


def test_image(rtm):
    _, img_dir = rtm
    img = seisfd.load_image(img_dir)
    assert sorted(img.images) == ["crosscorrelation", "inverse_scattering", "normalized"]
    assert img.grid.shape == support.RTM_SHAPE
    assert img.grid.spacing == (10.0, 10.0, 10.0)
    assert img.grid.origin == (0.0, 300.0, 500.0)
    assert img.shots == 2 and img.complete
    assert img.illumination.shape == support.RTM_SHAPE
    assert np.all(img.illumination >= 0) and img.illumination.max() > 0
    with h5py.File(img_dir / "image.h5", "r") as f:
        for name, a in img.images.items():
            np.testing.assert_array_equal(a, f["image/" + name][()])
            assert np.abs(a).max() > 0
    only = seisfd.load_image(img_dir, conditions=["normalized"])
    assert list(only.images) == ["normalized"]
    with pytest.raises(FileError, match="no image 'laplace'"):
        seisfd.load_image(img_dir, conditions=["laplace"])


def test_migration_model_is_the_smoothed_background(rtm):
    _, img_dir = rtm
    m = seisfd.load_model(img_dir)
    vp = m.fields["vp"]
    assert vp.shape == support.RTM_SHAPE
    assert m.grid.origin == (0.0, 300.0, 500.0)
    assert vp.min() >= 2000.0 - 1e-3 and vp.max() <= 2500.0 + 1e-3
    # Smoothing (migration.smoothing = 30 m) leaves values between the two layers'.
    assert np.any((vp > 2010.0) & (vp < 2490.0))


def test_incomplete_and_missing_files(quick, tmp_path):
    partial = tmp_path / "gathers.h5"
    shutil.copy(quick / "gathers.h5", partial)
    with h5py.File(partial, "a") as f:
        f.attrs["complete"] = 0
    with pytest.raises(FileError, match="complete = 0"):
        seisfd.load_gathers(partial)
    assert seisfd.load_gathers(partial, allow_partial=True)[0].data.shape[0] == 41
    with pytest.raises(FileError, match="no such file"):
        seisfd.load_snapshots(tmp_path / "nothing.h5")
    shutil.copy(quick / "snapshots.h5", tmp_path / "snapshots.h5.partial")
    with pytest.raises(FileError, match="only snapshots.h5.partial"):
        seisfd.load_snapshots(tmp_path)
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(FileError, match="not a readable HDF5 file"):
        seisfd.load_image(tmp_path / "text.h5")


def test_report(quick):
    r = seisfd.load_report(quick / "report.json")
    assert r["config"]["grid"]["nx"] == 41
    assert r["config"]["output"]["model"] is True
    assert any(p.endswith("model.xmf") for p in r["outputs"])


def test_segy_gathers(quick, tmp_path):
    """A SEG-Y copy of the gather with the headers seisfd's SEG-Y writer sets reads back as the
    same traces, positions and sampling."""
    import segyio  # scripts/setup.sh installs python3-segyio
    g = seisfd.load_gather(quick)
    path = tmp_path / "gathers.sgy"
    spec = segyio.spec()
    spec.format, spec.samples, spec.tracecount = 5, list(range(g.data.shape[1])), g.data.shape[0]
    H = segyio.TraceField
    with segyio.create(str(path), spec) as s:
        s.bin.update({segyio.BinField.Interval: int(round(g.dt * 1e6))})
        for i in range(g.data.shape[0]):
            r = g.receivers[i]
            cm = lambda v: int(round(v * 100))  # noqa: E731 - positions in cm (scalar -100)
            s.header[i] = {H.FieldRecord: 3, H.TRACE_SEQUENCE_FILE: i + 1,
                           H.SourceGroupScalar: -100, H.ElevationScalar: -100,
                           H.SourceX: cm(g.source[0]), H.SourceY: cm(g.source[1]),
                           H.SourceDepth: cm(g.source[2]), H.GroupX: cm(r[0]), H.GroupY: cm(r[1]),
                           H.ReceiverGroupElevation: -cm(r[2]),
                           H.TRACE_SAMPLE_INTERVAL: int(round(g.dt * 1e6))}
            s.trace[i] = g.data[i]
    (back,) = seisfd.load_gathers(path)
    assert back.shot == 3
    np.testing.assert_array_equal(back.data, g.data)
    np.testing.assert_allclose(back.receivers, g.receivers, atol=0.01)
    np.testing.assert_allclose(back.source, g.source, atol=0.01)
    assert back.dt == pytest.approx(round(g.dt * 1e6) * 1e-6)


TTI_TOML = """
[grid]
nx = 12
ny = 10
nz = 8
spacing = 10.0
origin = [100.0, 200.0, 0.0]
[model]
{model}
[physics]
equation = "tti"
order = 4
[time]
duration = 0.01
[source]
position = [150.0, 250.0, 40.0]
frequency = 10.0
[boundary]
width = 4
[output]
directory = "{out}"
gathers = false
model = true
"""


def test_tti_model_fields_and_reuse_as_model_path(tmp_path):
    """A TTI run writes vp, epsilon, delta and theta, phi in degrees (as configs give them), and
    its model.h5 read back as model.path (type = "file") gives the same model."""
    layered = ('type = "layered"\ninterfaces = [0.0, 40.0]\nvelocities = [1800.0, 2400.0]\n'
               "epsilon = [0.1, 0.2]\ndelta = 0.05\ntheta = 30.0\nphi = [45.0, -60.0]")
    (tmp_path / "a.toml").write_text(TTI_TOML.format(model=layered, out="a"))
    support.seisfd(["run", "a.toml", "-q"], tmp_path)
    m = seisfd.load_model(tmp_path / "a")
    assert list(m.fields) == ["vp", "epsilon", "delta", "theta", "phi"]
    assert m.units == {"vp": "m/s", "epsilon": "", "delta": "", "theta": "degrees", "phi": "degrees"}
    assert m.grid.origin == (0.0, 200.0, 100.0) and m.grid.shape == (8, 10, 12)
    top, bottom = m.grid.z < 35, m.grid.z > 45
    for name, a, b in (("vp", 1800, 2400), ("epsilon", 0.1, 0.2), ("delta", 0.05, 0.05),
                       ("theta", 30.0, 30.0), ("phi", 45.0, -60.0)):
        np.testing.assert_allclose(m.fields[name][top], a, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(m.fields[name][bottom], b, rtol=1e-5, err_msg=name)
    from_file = 'type = "file"\npath = "a/model.h5"\n' + "\n".join(
        f'{k} = {{ path = "a/model.h5", dataset = "{k}" }}' for k in ("epsilon", "delta", "theta", "phi"))
    (tmp_path / "b.toml").write_text(TTI_TOML.format(model=from_file, out="b"))
    support.seisfd(["run", "b.toml", "-q"], tmp_path)
    again = seisfd.load_model(tmp_path / "b")
    for name, a in m.fields.items():
        np.testing.assert_allclose(again.fields[name], a, rtol=1e-6, atol=1e-6, err_msg=name)
