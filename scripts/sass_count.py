#!/usr/bin/env python3
"""Count the SASS instructions of a kernel's main loop, by opcode and by source line.

For kernels bound by instruction issue (bench/NOTES.md: tti/oN/smem_ring), the number to predict
and to cut is the instructions a thread executes per iteration of its z loop. This compiles one
CUDA source file to a cubin for sm_90 with line information (or takes a cubin), disassembles it
with nvdisasm (the CUDA toolkit's, or the one of PyPI's nvidia-cuda-nvdisasm package), and for
each kernel whose mangled name matches KERNEL prints the instructions in all, the largest loop
(the longest backward branch) with its opcode mix, and with --lines the loop's instructions per
source line range of the file (`--lines 300-340:tasks 341-420:own ...`). No GPU is needed.

    scripts/sass_count.py kernels/cuda/tti_smem_ring.cu 'kernelILi4ELb0ELb0ELb0E' \
        --lines 302-346:head 347-380:tasks 381-449:own

Branches inside the loop are counted once: a path that only some warps take (the halo tasks)
counts as if every thread took it; the executed count is for the profiler (`scripts/device.sh
ncu`: issued instructions over the launch's cells).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_nvdisasm():
    for c in (shutil.which("nvdisasm"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                      "bin", "nvdisasm")):
        if c and os.access(c, os.X_OK):
            return c
    site = sysconfig.get_paths()["purelib"]
    for c in sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin", "nvdisasm"))):
        if os.access(c, os.X_OK):
            return c
    sys.exit("sass_count: no nvdisasm (the CUDA toolkit's, or `pip install nvidia-cuda-nvdisasm`)")


def compile_cubin(source, out, arch):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-DSEISFD_HAVE_CUDA=1", f"-I{REPO}", "-O3", "-DNDEBUG", f"-arch={arch}",
           "--expt-relaxed-constexpr", "-lineinfo", "-std=c++17", "-cubin", "-o", out, source]
    subprocess.run(cmd, check=True)


Instr = collections.namedtuple("Instr", "text file line")


def parse(listing):
    """{kernel name: ([Instr], {label: index})} from `nvdisasm -c -g` output."""
    kernels = {}
    parts = re.split(r"\n//-+ (\.text\.\S+)", listing)
    for name, body in zip(parts[1::2], parts[2::2]):
        ins, labels, cur = [], {}, ("?", 0)
        for line in body.splitlines():
            m = re.search(r'//## File "([^"]+)", line (\d+)', line)
            if m:
                cur = (m.group(1), int(m.group(2)))
                continue
            m = re.match(r"\s*(\.L_x_\d+):", line)
            if m:
                labels[m.group(1)] = len(ins)
                continue
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if m:
                ins.append(Instr(m.group(2).strip(), *cur))
        kernels[name[len(".text."):]] = (ins, labels)
    return kernels


def opcode(text):
    words = text.split()
    while words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def largest_loop(ins, labels):
    best = None
    for k, i in enumerate(ins):
        m = re.search(r"\bBRA\b.*?(\.L_x_\d+)", i.text)
        if m and m.group(1) in labels and labels[m.group(1)] <= k:
            a = labels[m.group(1)]
            if best is None or k - a > best[1] - best[0]:
                best = (a, k)
    return best


def mix(instrs, top=12):
    c = collections.Counter(opcode(i.text) for i in instrs)
    return " ".join(f"{o}:{n}" for o, n in c.most_common(top))


def report(name, ins, labels, source, ranges):
    lines = [f"{name[:110]}", f"  instructions {len(ins)}"]
    loop = largest_loop(ins, labels)
    if not loop:
        return lines + ["  no loop"]
    a, b = loop
    body = ins[a:b + 1]
    lines.append(f"  loop {len(body)}: {mix(body)}")
    if ranges:
        buckets = collections.OrderedDict((nm, []) for _, _, nm in ranges)
        buckets["other lines"] = []
        buckets["other files"] = []
        base = os.path.basename(source) if source else None
        for i in body:
            if base and os.path.basename(i.file) not in (base, base.replace(".cu", ".cuh")):
                buckets["other files"].append(i)
                continue
            for lo, hi, nm in ranges:
                if lo <= i.line <= hi:
                    buckets[nm].append(i)
                    break
            else:
                buckets["other lines"].append(i)
        for nm, got in buckets.items():
            if got:
                lines.append(f"    {nm:20s} {len(got):5d}  {mix(got, 8)}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="a .cu file to compile, or a .cubin")
    ap.add_argument("kernel", nargs="?", default="", help="regular expression on the mangled name")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--lines", nargs="*", default=[], metavar="A-B:NAME",
                    help="source line ranges of the input's file (or its .cuh) to count apart")
    args = ap.parse_args(argv)
    ranges = []
    for r in args.lines:
        span, nm = r.split(":", 1)
        lo, hi = span.split("-")
        ranges.append((int(lo), int(hi), nm))
    with tempfile.TemporaryDirectory() as tmp:
        cubin = args.input
        if not cubin.endswith(".cubin"):
            cubin = os.path.join(tmp, "k.cubin")
            compile_cubin(args.input, cubin, args.arch)
        listing = subprocess.run([find_nvdisasm(), "-c", "-g", cubin], check=True,
                                 capture_output=True, text=True).stdout
    source = None if args.input.endswith(".cubin") else args.input
    found = 0
    for name, (ins, labels) in parse(listing).items():
        if re.search(args.kernel, name):
            found += 1
            print("\n".join(report(name, ins, labels, source, ranges)))
    if not found:
        sys.exit(f"sass_count: no kernel matches '{args.kernel}'")


if __name__ == "__main__":
    main()
