#!/usr/bin/env python3
"""Mirror a source tree into a build tree that outlives it, touching only what changed.

    scripts/device_sync.py SRC DST

Each device call brings a fresh copy of the sources (new modification times on every file), so a
build in that copy recompiles everything. scripts/device.sh mirrors the copy into DST (a folder
that stays on a warm machine between calls) with this script: a file whose bytes are unchanged
keeps DST's copy and its time, a changed or new one is written, one gone from SRC is removed
from DST. The build directories (build*/) and version-control folders are neither copied nor
removed. Prints what it did in one line.
"""
import filecmp
import os
import shutil
import sys

SKIP_DIRS = {".git", "__pycache__"}


def skipped(rel_dir):
    top = rel_dir.split(os.sep, 1)[0]
    return top.startswith("build") or top.startswith("out") or top in SKIP_DIRS


def files_under(root):
    found = set()
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel != "." and skipped(rel):
            dirs[:] = []
            continue
        dirs[:] = [x for x in dirs if not (rel == "." and skipped(x)) and x not in SKIP_DIRS]
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                found.add(os.path.normpath(os.path.join(rel, n)))
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: device_sync.py SRC DST")
    src, dst = (os.path.abspath(a) for a in sys.argv[1:])
    if dst == src or dst.startswith(src + os.sep):
        sys.exit(f"device_sync.py: {dst} lies inside {src}")
    os.makedirs(dst, exist_ok=True)
    have, want = files_under(dst), files_under(src)
    written = kept = 0
    for rel in sorted(want):
        s, d = os.path.join(src, rel), os.path.join(dst, rel)
        if rel in have and filecmp.cmp(s, d, shallow=False):
            kept += 1
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy(s, d)  # a new modification time: the build sees the change
        written += 1
    removed = 0
    for rel in sorted(have - want):
        os.remove(os.path.join(dst, rel))
        removed += 1
    print(f"device_sync: {written} written, {kept} unchanged, {removed} removed ({dst})")


if __name__ == "__main__":
    main()
