"""The scaling model (seisfd.scaling) calibrated on the committed two-GPU measurements."""
from pathlib import Path

from seisfd import scaling

CSV = Path(__file__).resolve().parents[2] / "bench" / "results" / \
    "2026-11-25_202435_2xh100-nvlink_scaling.csv"


def test_calibrated_model_reproduces_every_measured_point():
    points = scaling.read_points(CSV)
    for physics in ("acoustic", "tti"):
        m, rate = scaling.calibrate(points, physics, scaling.Machine())
        checked = scaling.check(points, physics, m, rate)
        assert len(checked) >= 3
        for label, measured, predicted, err in checked:
            assert abs(err) < 0.06, (label, measured, predicted)


def test_weak_scaling_never_improves_with_more_gpus_and_faces_cost_more_across_nodes():
    m = scaling.Machine(x_face_fraction=0.5, sync_us=50.0)
    out = scaling.weak((512, 512, 512), 100.0, "tti", 8, m, [1, 2, 8, 16, 1024])
    effs = [e for _, e, _ in out]
    assert effs[0] == 1.0
    assert all(b <= a + 1e-12 for a, b in zip(effs, effs[1:]))
    # 16 ranks on nodes of 8: some face of the axis split 16 ways joins two nodes.
    assert scaling.crosses_nodes((1, 1, 16), 2, 8)
    assert not scaling.crosses_nodes((1, 1, 8), 2, 8)
    assert scaling.crosses_nodes((2, 1, 8), 0, 8)


def test_parts_thinner_than_the_halo_are_refused_and_best_avoids_slow_x_faces():
    m = scaling.Machine(x_face_fraction=0.02)
    assert scaling.step_time((16, 16, 16), (1, 1, 8), 100.0, "acoustic", 8, m) is None
    t, dims = scaling.best((512, 512, 1024), 2, 100.0, "acoustic", 8, m)
    assert dims != (1, 1, 2)  # the strided x face is the slowest to move


def test_cli_prints_assumptions_and_predictions(capsys):
    assert scaling.main([str(CSV), "--physics", "tti", "--max-gpus", "1024"]) == 0
    out = capsys.readouterr().out
    assert "NVLink 450 GB/s" in out and "InfiniBand 50 GB/s" in out
    assert " 1024 GPUs  efficiency" in out
    assert "measured" in out and "error" in out


def test_points_measured_both_ways_are_picked_by_their_overlap(tmp_path):
    f = tmp_path / "both.csv"
    f.write_text("physics,kind,ranks,nz,ny,nx,steps,seconds,gcells_per_s,exchange,"
                 "exchange_seconds,decomposition,overlap\n"
                 "acoustic,weak,1,512,512,512,200,0.2,174.1,none,0,1x1x1,true\n"
                 "acoustic,weak,2,512,512,1024,200,0.6,108.0,peer,0.2,1x1x2,true\n"
                 "acoustic,weak,2,512,512,1024,200,0.2,273.6,peer,0.02,1x1x2,false\n"
                 "acoustic,weak,4,512,512,2048,200,0,0,failed,0,,false\n")
    every = scaling.read_points(str(f))
    assert [float(r["gcells_per_s"]) for r in every] == [174.1, 108.0, 273.6]
    off = scaling.read_points(str(f), "false")
    assert [float(r["gcells_per_s"]) for r in off] == [174.1, 273.6]
    on = scaling.read_points(str(f), "true")
    assert [float(r["gcells_per_s"]) for r in on] == [174.1, 108.0]
    # A CSV without the column (older results) keeps every row either way.
    old = scaling.read_points(CSV, "true")
    assert len(old) == len(scaling.read_points(CSV))
