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


FOUR = Path(__file__).resolve().parents[2] / "bench" / "results" / \
    "2026-11-27_4xh200-nvlink_scaling.csv"


def test_overlapped_runs_calibrate_from_their_run_times_per_exchange_path():
    # The four-H200 runs are overlapped: their exchange_seconds is the host's wait for the
    # neighbours, so the fit takes packed faces at the link's rate and fits the synchronisation.
    every = scaling.read_points(FOUR)
    peer = scaling.read_points(FOUR, exchange="peer")
    assert {r["exchange"] for r in peer if int(r["ranks"]) > 1} == {"peer (CUDA IPC)"}
    assert len(peer) < len(every)
    base = scaling.Machine(nvlink_gbs=391.0, gpus_per_node=4)
    m, rate = scaling.calibrate(peer, "tti", base)
    assert m.overlap and m.x_face_fraction == 1.0 and m.sync_us > 0
    checked = scaling.check(peer, "tti", m, rate)
    assert len(checked) == 6
    for label, measured, predicted, err in checked:
        assert abs(err) < 0.08, (label, measured, predicted)
    # Calibrated on the host-staged runs instead, the synchronisation is far larger.
    m_mpi, _ = scaling.calibrate(scaling.read_points(FOUR, exchange="mpi"), "tti", base)
    assert m_mpi.sync_us > 3 * m.sync_us


def test_cli_draws_the_measured_points_beside_the_model(tmp_path):
    png = tmp_path / "tti.png"
    assert scaling.main([str(FOUR), "--exchange", "peer", "--physics", "tti", "--gpus-per-node",
                         "4", "--max-gpus", "64", "--plot", str(png)]) == 0
    assert png.stat().st_size > 10000


def test_a_csv_of_two_trees_gives_the_rows_of_one():
    flags = Path(__file__).resolve().parents[2] / "bench" / "results" / \
        "2026-11-27_4xh200-nvlink_scaling_device_flags.csv"
    new = scaling.read_points(flags)
    old = scaling.read_points(flags, tree="baseline")
    assert {r["tree"] for r in new} == {"new"} and {r["tree"] for r in old} == {"baseline"}
    with open(flags) as f:
        assert len(new) + len(old) == sum(1 for _ in f) - 1  # every row is of one tree
    # The device-synchronised exchange against the host handshake, 4 GPUs strong [2,1,2].
    strong4 = [float(r["gcells_per_s"]) for r in new + old
               if r["kind"] == "strong" and r["ranks"] == "4" and r["physics"] == "acoustic"]
    assert len(strong4) == 2 and strong4[0] > 2 * strong4[1]
    # CSVs without the column keep every row.
    assert len(scaling.read_points(CSV, tree="baseline")) == len(scaling.read_points(CSV))


def test_each_gpu_exchange_path_calibrates_on_its_own_points():
    # Four H200, strong acoustic 512 x 512 x 1024 on 1, 2 and 4 GPUs, every path in one call
    # (the CSV's call B; call A ran on a slower machine and is left out).
    both = Path(__file__).resolve().parents[2] / "bench" / "results" / \
        "2026-11-27_4xh200-nvlink_scaling_exchanges.csv"
    base = scaling.Machine(nvlink_gbs=390.0, gpus_per_node=4)
    sync = {}
    for path in ("peer", "nccl"):
        points = [r for r in scaling.read_points(both, exchange=path) if r["call"] == "B"]
        assert {r["exchange"] for r in points if int(r["ranks"]) > 1} == \
            {"peer (CUDA IPC)" if path == "peer" else "nccl"}
        m, rate = scaling.calibrate(points, "acoustic", base)
        checked = scaling.check(points, "acoustic", m, rate)
        assert len(checked) == 3
        for label, measured, predicted, err in checked:
            assert abs(err) < 0.03, (path, label, measured, predicted)
        sync[path] = m.sync_us
    # NCCL's events and launches cost a little more a step than the peer flags.
    assert sync["peer"] < sync["nccl"] < 1.5 * sync["peer"]


def test_two_h200_points_are_reproduced_for_each_physics_the_nested_operator_too():
    """The 2 x H200 runs of 2026-11-29 (peer, overlapped), less the one-GPU nested 768^3 rows
    that ran in thrashing compressible memory (the CSV's compressible column)."""
    csv2 = CSV.parent / "2026-11-29_172032_2xnvidia-h200_scaling.csv"
    rows = [r for r in scaling.read_points(csv2, "true", "peer")
            if not (r["physics"] == "tti-nested" and r["ranks"] == "1" and r["nz"] == "768"
                    and r["compressible"] != "off")]
    for physics in ("acoustic", "tti", "tti-nested"):
        m, rate = scaling.calibrate(rows, physics, scaling.Machine(nvlink_gbs=390.9))
        checked = scaling.check(rows, physics, m, rate)
        assert len(checked) >= 4, physics
        for label, measured, predicted, err in checked:
            assert abs(err) < 0.07, (label, measured, predicted)


def test_the_one_gpu_rate_follows_the_grid_size_between_measured_sizes():
    r = scaling.Rate([(100, 10.0), (400, 20.0), (100, 12.0)])  # two runs at 100 cells: their mean
    assert r(100) == 11.0 and r(50) == 11.0  # held below the smallest
    assert r(800) == 20.0  # and above the largest
    assert abs(r(200) - 15.5) < 1e-12  # halfway in log(cells)
    # A model with one GPU's rate at each size: the one-GPU points exactly, a step of two GPUs
    # (each half the grid) at the smaller grid's rate.
    m = scaling.Machine()
    t1 = scaling.step_time((100, 1, 4), (1, 1, 1), r, "acoustic", 2, m)
    assert abs(400 / t1 / 1e9 - 20.0) < 1e-9
