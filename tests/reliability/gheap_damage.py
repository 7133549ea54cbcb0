#!/usr/bin/python3
"""Damaged global heaps: every reader gives a clean error, never a crash or hang.

usage: gheap_damage.py PPROC PROFILE.h5 WORK

Variable-length strings (hostnames, run metadata, region names) live in the
file's global heap collections ("GCOL"), which HDF5 1.10 trusts (issue 43
item 6: a bit flip there crashed the Python reader in H5HG_read's memcpy, a
zeroed run hung it and --backend html). The collections of a real profile
are found by their signature and damaged directly, with a fixed seed: 40
copies with 1 to 8 flipped bits in the collection's objects, 25 with a
zeroed run of 4 to 64 bytes there, and 3 made to the two faults (a free
space of size 0, an object larger than its collection, a collection larger
than the file). Each copy goes through scope-profiler-pproc --summary,
--backend html and the Python reader (scope_profiler_native.h5reader), each
under a 60 s timeout: exit 0, or exit 1 with a scope-profiler-pproc: message
(the Python reader: an exception), never a signal or a timeout. Exit 0 when
every run holds; the cases refused as damaged are counted.
"""
import os
import random
import shutil
import struct
import subprocess
import sys

pproc, profile, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
orig = open(profile, "rb").read()

# The collections: signature, version 1, size; the bytes their objects use.
heaps = []
at = orig.find(b"GCOL")
while at >= 0:
    if orig[at + 4] == 1:
        size = struct.unpack_from("<Q", orig, at + 8)[0]
        p, end = at + 16, at + size
        while end - p >= 16:
            idx, size_o = struct.unpack_from("<H", orig, p)[0], struct.unpack_from("<Q", orig, p + 8)[0]
            if idx == 0:
                break  # the free space: the objects end here
            p += 16 + (size_o + 7) // 8 * 8
        heaps.append((at, size, p))  # start, size, end of the objects
    at = orig.find(b"GCOL", at + 4)
if not heaps:
    sys.exit(f"{profile}: no global heap collection found")
print(f"{len(heaps)} collection(s): " + ", ".join(f"byte {a} ({s} bytes, objects to {e - a})"
                                                  for a, s, e in heaps))

rnd = random.Random(43006)
cases = []
for i in range(40):
    d = bytearray(orig)
    a, _, e = heaps[rnd.randrange(len(heaps))]
    for _ in range(rnd.randint(1, 8)):
        d[rnd.randrange(a, e + 16)] ^= 1 << rnd.randrange(8)
    cases.append((f"flip{i}", d))
for i in range(25):
    d = bytearray(orig)
    a, _, e = heaps[rnd.randrange(len(heaps))]
    n = rnd.randint(4, 64)
    s = rnd.randrange(a + 8, e + 16)
    d[s:s + n] = bytes(n)
    cases.append((f"zeros{i}", d))
a, size, e = heaps[0]
d = bytearray(orig)
d[e + 8:e + 16] = bytes(8)  # the free space's size: 0 (HDF5 parses it forever)
cases.append(("free_size_0", d))
d = bytearray(orig)
struct.pack_into("<Q", d, a + 16 + 8, 1 << 40)  # the first object's size past the collection
cases.append(("object_too_big", d))
d = bytearray(orig)
struct.pack_into("<Q", d, a + 8, len(orig))  # a collection larger than the file
cases.append(("heap_too_big", d))

env = dict(os.environ)
py_reader = """
import sys
from scope_profiler_native.h5reader import ProfilingH5Reader
try:
    r = ProfilingH5Reader(sys.argv[1])
    md = r.metadata
    names = r.region_names
    total = sum(len(g) for g in r.get_regions())
except Exception as e:  # the clean error
    print("error:", e)
    sys.exit(3)
print("ok", len(names), total)
"""


def run(cmd, ok_codes):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return "hangs (60 s)", None
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}", p
    if p.returncode not in ok_codes:
        return f"exit {p.returncode}", p
    return None, p


failures, refused = 0, 0
for name, data in cases:
    path = os.path.join(work, f"{name}.h5")
    open(path, "wb").write(bytes(data))
    runs = [
        ("--summary", [pproc, path, "--summary"], (0, 1)),
        ("--backend html", [pproc, path, "--backend", "html", "-o", os.path.join(work, name)],
         (0, 1)),
        ("python reader", [sys.executable, "-c", py_reader, path], (0, 3)),
    ]
    for what, cmd, codes in runs:
        bad, p = run(cmd, codes)
        if bad is None and p.returncode == 1 and not p.stderr.startswith("scope-profiler-pproc:"):
            bad = "exit 1 without a scope-profiler-pproc: message"
        if bad is None and p.returncode != 0:
            refused += 1
        if bad:
            failures += 1
            tail = p.stderr[-400:] if p else ""
            print(f"FAIL: {name}: {what}: {bad}\n{tail}")
    os.unlink(path)
    shutil.rmtree(os.path.join(work, name), ignore_errors=True)
print(f"{len(cases)} damaged copies x 3 readers: {refused} clean refusals, {failures} failures")
if failures:
    sys.exit(1)
print("PASS: no crash, no hang")
