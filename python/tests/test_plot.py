"""seisfd-plot on real outputs: every subcommand writes a PNG with something drawn in it; the
pieces the pictures rest on (axes, clipping, sections) give the numbers they should."""
import numpy as np
import pytest
from matplotlib import image as mpimg

import seisfd
from seisfd import cli, plot
from seisfd.io import Gather, Grid


def drawn(path, min_size=(200, 300)):
    """The PNG at path, checked to be a picture with content: its size, and enough pixels that
    are neither the background nor one flat colour."""
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    a = mpimg.imread(str(path))[..., :3]
    h, w = a.shape[:2]
    assert h >= min_size[0] and w >= min_size[1], f"{path}: {w} x {h} pixels"
    ink = np.any(a < 0.9, axis=2).mean()  # anything darker than near-white
    colours = len(np.unique((a * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert ink > 0.05, f"{path}: only {ink:.1%} of the pixels are drawn"
    assert colours > 50, f"{path}: {colours} colours"
    return a


def run_cli(args, capsys):
    rc = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out.strip(), err.strip()


@pytest.mark.parametrize("style", ["density", "wiggle", "both"])
def test_gather_png(quick, tmp_path, capsys, style):
    out = tmp_path / f"g_{style}.png"
    rc, printed, err = run_cli(["gather", quick, "--style", style, "-o", out], capsys)
    assert rc == 0, err
    assert printed == str(out)
    drawn(out)


def test_survey_gather_png_default_name(rtm, tmp_path, capsys, monkeypatch):
    data, _ = rtm
    monkeypatch.chdir(tmp_path)
    rc, printed, err = run_cli(["gather", data / "gathers.h5", "--shot", "1"], capsys)
    assert rc == 0, err
    assert printed == "gathers_shot0001_density.png"
    drawn(tmp_path / printed)


def test_snapshot_strip_and_slices(quick, tmp_path, capsys):
    strip = tmp_path / "strip.png"
    rc, _, err = run_cli(["snapshot", quick, "-o", strip], capsys)
    assert rc == 0, err
    n = seisfd.load_snapshots(quick).data.shape[0]
    drawn(strip, min_size=(150, 250 * n))  # one panel per snapshot, side by side
    one = tmp_path / "one.png"
    rc, _, err = run_cli(["snapshot", quick, "--index", "-1", "--y", "2100", "-o", one], capsys)
    assert rc == 0, err
    drawn(one)
    rc, _, err = run_cli(["snapshot", quick, "--index", "0", "--y", "9999", "-o", one], capsys)
    assert rc == 2 and "y = 9999 m is outside the grid (y from 2000 to 2200 m)" in err


def test_image_png_and_sections(rtm, tmp_path, capsys):
    _, img_dir = rtm
    png = tmp_path / "image.png"
    rc, _, err = run_cli(["image", img_dir, "--title", "tiny", "-o", png], capsys)
    assert rc == 0, err
    drawn(png)
    # Sections saved alone (no matplotlib needed), then drawn from the .npz.
    npz = tmp_path / "sections.npz"
    rc, _, err = run_cli(["image", img_dir / "image.h5", "--y", "320", "-o", npz], capsys)
    assert rc == 0, err
    img = seisfd.load_image(img_dir)
    with np.load(npz) as z:
        iy = img.grid.index("y", 320.0)
        assert iy == 2
        for name, a in img.images.items():
            np.testing.assert_array_equal(z[name], a[:, iy, :])
        np.testing.assert_allclose(z["extent"], [500.0, 890.0, 270.0, 0.0])
    again = tmp_path / "from_npz.png"
    rc, _, err = run_cli(["image", npz, "--conditions", "normalized", "-o", again], capsys)
    assert rc == 0, err
    drawn(again, min_size=(200, 250))


def test_model_png(quick, tmp_path, capsys):
    out = tmp_path / "vp.png"
    rc, _, err = run_cli(["model", quick, "--z", "300", "-o", out], capsys)
    assert rc == 0, err
    drawn(out)


def test_cli_errors_are_one_line(tmp_path, capsys):
    rc, _, err = run_cli(["gather", tmp_path / "none.h5"], capsys)
    assert rc == 3
    assert err == f"seisfd-plot: error: {tmp_path / 'none.h5'}: no such file"
    bare = tmp_path / "vp.h5"
    import h5py

    with h5py.File(bare, "w") as f:
        f["vp"] = np.full((3, 4, 5), 2000.0, dtype=np.float32)
    rc, _, err = run_cli(["model", bare, "-o", tmp_path / "m.png"], capsys)
    assert rc == 3 and "--spacing" in err and len(err.splitlines()) == 1
    rc, _, err = run_cli(["model", bare, "--spacing", "10,20,5", "-o", tmp_path / "m.png"], capsys)
    assert rc == 0, err
    drawn(tmp_path / "m.png", min_size=(150, 200))


def _gather(receivers, source=(0.0, 0.0, 0.0)):
    receivers = np.asarray(receivers, dtype=float)
    n = len(receivers)
    return Gather(0, np.zeros((n, 5), np.float32), np.arange(5) * 0.1, receivers,
                  np.asarray(source, dtype=float), 0.1, 0.0, "Pa")


def test_gather_axis_offset_or_trace():
    line = _gather([[x, 50.0, 5.0] for x in (0.0, 10.0, 20.0, 30.0)], source=(15.0, 40.0, 5.0))
    pos, label = plot.gather_axis(line)
    assert label == "offset (m)"
    np.testing.assert_allclose(pos, [-15.0, -5.0, 5.0, 15.0])
    diagonal = _gather([[i * 3.0, i * 4.0, 0.0] for i in range(4)])  # along (0.6, 0.8), 5 m apart
    np.testing.assert_allclose(plot.gather_axis(diagonal)[0], [0.0, 5.0, 10.0, 15.0])
    grid = _gather([[x, y, 0.0] for y in (0.0, 10.0) for x in (0.0, 10.0)])
    assert grid.line_offsets is None
    pos, label = plot.gather_axis(grid)
    assert label == "trace" and pos.tolist() == [0, 1, 2, 3]
    uneven = _gather([[x, 0.0, 0.0] for x in (0.0, 10.0, 30.0)])
    assert plot.gather_axis(uneven)[1] == "trace"
    vertical = _gather([[0.0, 0.0, z] for z in (10.0, 20.0)])
    assert vertical.line_offsets is None


def test_clip_value():
    a = np.zeros(1000)
    a[:10] = np.arange(1, 11)
    assert plot.clip_value(a, 100) == 10.0
    assert plot.clip_value(a, 50) == pytest.approx(5.5)  # of the non-zero samples only
    assert plot.clip_value(np.zeros(5)) == 1.0
    assert plot.clip_value(np.array([np.nan, -4.0, 2.0]), 100) == 4.0


def test_grid_index():
    g = Grid((3, 4, 5), (10.0, 20.0, 30.0), (1.0, 2.0, 3.0))
    assert g.index("x", 3.0) == 0 and g.index("x", 120.0) == 4 and g.index("y", 45.0) == 2
    with pytest.raises(ValueError, match="z = 40 m is outside the grid"):
        g.index("z", 40.0)
