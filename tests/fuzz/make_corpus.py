#!/usr/bin/env python3
"""Writes the hand-written bad configs of the fuzz seed corpus (tests/fuzz/corpus/bad_*.toml).

Each is a small valid config with one deliberate defect: the fuzzer starts from inputs that
reach every validation branch. The shipped configs (configs/*.toml) are the good seeds.
Run from this directory; the output is committed.
"""

BASE = """[grid]
nx = 20
ny = 18
nz = 16
spacing = 10.0

[model]
type = "constant"
vp = 2000.0

[physics]
order = 4

[time]
duration = 0.1
dt = 0.001

[source]
position = [100.0, 90.0, 50.0]
frequency = 15.0

[receivers]
layout = "line"
start = [20.0, 90.0, 20.0]
end = [180.0, 90.0, 20.0]
count = 5

[boundary]
type = "sponge"
width = 6

[output]
directory = "out"
sample_interval = 0.002

[output.snapshots]
interval = 0.02
decimation = 2
"""


def rep(old, new):
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def add(text):
    return BASE + text


BAD = {
    "syntax_unclosed_string": rep('type = "constant"', 'type = "constant'),
    "syntax_missing_value": rep("nx = 20", "nx ="),
    "syntax_duplicate_key": rep("ny = 18", "ny = 18\nny = 19"),
    "syntax_duplicate_table": add("[grid]\nnx = 3\n"),
    "syntax_bad_array": rep("position = [100.0, 90.0, 50.0]", "position = [100.0, 90.0,"),
    "syntax_binary": "[grid]\nnx = \x00\x01\x02\n",
    # Found by the fuzzer: the parser's message quoted the newline after "t" (two lines).
    "syntax_bad_boolean": rep("order = 4", "order = t"),
    "unknown_section": add("[grdi]\nnx = 1\n"),
    "unknown_key": rep("ny = 18", "ny = 18\nnq = 3"),
    "unknown_run_key": add("[run]\ncheckpoint = 5\n"),
    "missing_grid": BASE.split("[model]", 1)[1].join(["[model]", ""]),
    "missing_spacing": rep("spacing = 10.0", ""),
    "spacing_and_dx": rep("spacing = 10.0", "spacing = 10.0\ndx = 5.0"),
    "nx_string": rep("nx = 20", 'nx = "20"'),
    "nx_float": rep("nx = 20", "nx = 20.5"),
    "nx_zero": rep("nx = 20", "nx = 0"),
    "nx_negative": rep("nx = 20", "nx = -4"),
    "nx_huge": rep("nx = 20", "nx = 99999999999"),
    "nx_past_axis_limit": rep("nx = 20", "nx = 2000000000"),
    "grid_5000_cubed": rep("nx = 20\nny = 18\nnz = 16", "nx = 5000\nny = 5000\nnz = 5000"),
    "spacing_tiny": rep("spacing = 10.0", "spacing = 1e-300"),
    "spacing_huge": rep("spacing = 10.0", "spacing = 1e300"),
    "spacing_nan": rep("spacing = 10.0", "spacing = nan"),
    "spacing_inf": rep("spacing = 10.0", "spacing = inf"),
    "model_type_unknown": rep('type = "constant"', 'type = "granite"'),
    "model_vp_zero": rep("vp = 2000.0", "vp = 0.0"),
    "model_vp_huge": rep("vp = 2000.0", "vp = 1e30"),
    "model_vp_missing": rep("vp = 2000.0", ""),
    "model_file_missing": rep('type = "constant"\nvp = 2000.0', 'type = "file"\npath = "nope.h5"'),
    "layered_mismatch": rep('type = "constant"\nvp = 2000.0',
                            'type = "layered"\ninterfaces = [0.0, 50.0]\nvelocities = [1500.0]'),
    "layered_unsorted": rep('type = "constant"\nvp = 2000.0',
                            'type = "layered"\ninterfaces = [0.0, 80.0, 40.0]\n'
                            'velocities = [1500.0, 2000.0, 2500.0]'),
    "epsilon_on_acoustic": rep("vp = 2000.0", "vp = 2000.0\nepsilon = 0.1"),
    "tti_cpml": rep("order = 4", 'order = 4\nequation = "tti"').replace('type = "sponge"', 'type = "cpml"'),
    "vti_theta": rep("vp = 2000.0", "vp = 2000.0\nepsilon = 0.1\ndelta = 0.05\ntheta = 10.0").replace(
        "order = 4", 'order = 4\nequation = "vti"'),
    "order_odd": rep("order = 4", "order = 7"),
    "order_huge": rep("order = 4", "order = 18"),
    "duration_negative": rep("duration = 0.1", "duration = -0.1"),
    "duration_huge": rep("duration = 0.1", "duration = 3e6"),
    "duration_short": rep("duration = 0.1", "duration = 1e-9"),
    "dt_above_limit": rep("dt = 0.001", "dt = 0.01"),
    "dt_zero": rep("dt = 0.001", "dt = 0.0"),
    "courant_big": rep("dt = 0.001", "courant = 1.5"),
    "source_outside": rep("position = [100.0, 90.0, 50.0]", "position = [100.0, 90.0, 5000.0]"),
    "source_nan": rep("position = [100.0, 90.0, 50.0]", "position = [nan, 90.0, 50.0]"),
    "source_two_values": rep("position = [100.0, 90.0, 50.0]", "position = [100.0, 90.0]"),
    "frequency_negative": rep("frequency = 15.0", "frequency = -15.0"),
    "wavelet_file_missing": rep("frequency = 15.0", 'wavelet = "file"\nfile = "nope.txt"\nfile_dt = 0.001'),
    "amplitude_huge": rep("frequency = 15.0", "frequency = 15.0\namplitude = 1e300"),
    "receivers_outside": rep("end = [180.0, 90.0, 20.0]", "end = [1800.0, 90.0, 20.0]"),
    "receivers_count_huge": rep("count = 5", "count = 1000000000"),
    "receivers_count_zero": rep("count = 5", "count = 0"),
    "receivers_layout_unknown": rep('layout = "line"', 'layout = "spiral"'),
    "receivers_grid_depths": rep('layout = "line"', 'layout = "grid"').replace("count = 5", "count = [2, 2]").replace(
        "end = [180.0, 90.0, 20.0]", "end = [180.0, 90.0, 30.0]"),
    "receivers_file_missing": rep('layout = "line"\nstart = [20.0, 90.0, 20.0]\nend = [180.0, 90.0, 20.0]\ncount = 5',
                                  'layout = "file"\nfile = "nope.txt"'),
    "boundary_unknown": rep('type = "sponge"', 'type = "mirror"'),
    "boundary_width_none": rep('type = "sponge"', 'type = "none"'),
    "boundary_reflection_one": rep("width = 6", "width = 6\nreflection = 1.0"),
    "boundary_power_sponge": rep("width = 6", "width = 6\npower = 2.0"),
    "sample_interval_huge": rep("sample_interval = 0.002", "sample_interval = 1e10"),
    "sample_interval_odd": rep("sample_interval = 0.002", "sample_interval = 0.0015"),
    "gathers_without_receivers": BASE.split("[receivers]")[0] + "[output]\ngathers = true\n",
    "snapshots_interval_huge": rep("interval = 0.02", "interval = 1e30"),
    "snapshots_interval_tiny": rep("interval = 0.02", "interval = 1e-9"),
    "snapshots_box_inverted": rep("decimation = 2", "decimation = 2\nbox = { min = [100.0, 0.0, 0.0], max = [50.0, 100.0, 100.0] }"),
    "snapshots_box_outside": rep("decimation = 2", "decimation = 2\nbox = { min = [900.0, 900.0, 900.0], max = [950.0, 950.0, 950.0] }"),
    "snapshots_decimation_zero": rep("decimation = 2", "decimation = 0"),
    "kernel_variant_nonsense": add('\n[kernel]\nvariant = "nonsense"\n'),
    "kernel_backend_typo": add('\n[kernel]\nbackend = "cdua"\n'),
    "kernel_fp64_cuda": add('\n[kernel]\nbackend = "cuda"\nprecision = "fp64"\n'),
    "kernel_diagnostics_zero": add("\n[kernel]\ndiagnostics_interval = 0\n"),
    "run_checkpoint_days": add('\n[run]\ncheckpoint_interval = "3 days"\n'),
    "run_checkpoint_zero": add("\n[run]\ncheckpoint_interval = 0\n"),
    "shots_with_position": add("\n[shots]\nlayout = \"list\"\npositions = [[50.0, 50.0, 50.0]]\n"),
    "shots_grid_huge": BASE.replace("position = [100.0, 90.0, 50.0]\n", "") +
        "\n[shots]\nlayout = \"grid\"\nstart = [20.0, 20.0, 20.0]\nspacing = [1.0, 1.0]\ncount = [100000, 100000]\n",
    "migration_storage_unknown": add('\n[migration]\nstorage = "tape"\n'),
    "born_file_missing": add('\n[born]\nperturbation = "file"\npath = "nope.h5"\n'),
    "long_value": rep('directory = "out"', 'directory = "' + "a" * 5000 + '"'),
    "unicode_key": add("\n[grid]\nnx\u00e9 = 1\n"),
}

if __name__ == "__main__":
    import pathlib
    out = pathlib.Path("corpus")
    out.mkdir(exist_ok=True)
    for name, text in BAD.items():
        (out / f"bad_{name}.toml").write_text(text)
    print(len(BAD), "bad configs")
