"""scripts/sass_count.py: the listing parser and the loop finder, on a hand-written listing in
the form `nvdisasm -c -g` prints (no CUDA toolkit needed)."""
import importlib.util
from pathlib import Path

_path = Path(__file__).resolve().parents[2] / "scripts" / "sass_count.py"
_spec = importlib.util.spec_from_file_location("sass_count", _path)
sass_count = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sass_count)

LISTING = """
//--------------------- .text._Z6kernelPf --------------------------
        .section        .text._Z6kernelPf,"ax",@progbits
        //## File "/src/k.cuh", line 10
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        //## File "/src/k.cuh", line 20
        /*0010*/                   LDS R2, [R3+0x10] ;
        /*0020*/                   FFMA R4, R2, R2, R4 ;
        //## File "/src/k.cuh", line 30
        /*0030*/              @!P0 FADD R4, R4, 1 ;
.L_x_2:
        /*0040*/                   ISETP.GE.AND P0, PT, R5, R6, PT ;
        /*0050*/               @P0 BRA `(.L_x_1) ;
        //## File "/src/other.hpp", line 5
        /*0060*/                   BRA `(.L_x_2) ;
        /*0070*/                   EXIT ;
//--------------------- .text._Z5otherv --------------------------
        /*0000*/                   EXIT ;
"""


def test_parse_finds_kernels_lines_and_labels():
    k = sass_count.parse(LISTING)
    assert set(k) == {"_Z6kernelPf", "_Z5otherv"}
    ins, labels = k["_Z6kernelPf"]
    assert len(ins) == 8
    assert labels == {".L_x_1": 1, ".L_x_2": 4}
    assert ins[1] == sass_count.Instr("LDS R2, [R3+0x10]", "/src/k.cuh", 20)
    assert sass_count.opcode(ins[3].text) == "FADD"  # the predicate is not the opcode
    assert sass_count.opcode(ins[4].text) == "ISETP"


def test_largest_loop_and_line_ranges():
    ins, labels = sass_count.parse(LISTING)["_Z6kernelPf"]
    # Two backward branches: to .L_x_1 (instructions 1..5) and to .L_x_2 (4..6).
    assert sass_count.largest_loop(ins, labels) == (1, 5)
    out = sass_count.report("_Z6kernelPf", ins, labels, "/src/k.cu",
                            [(15, 25, "stencil"), (26, 40, "tail")])
    assert out[1] == "  instructions 8"
    assert out[2].startswith("  loop 5: ")
    rows = {r.split()[0]: int(r.split()[1]) for r in out[3:]}
    assert rows == {"stencil": 2, "tail": 3}
