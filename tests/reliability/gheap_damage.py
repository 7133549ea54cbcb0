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

usage: gheap_damage.py PPROC PROFILE.h5 WORK ids

The references into the heap instead (issue 43 item 6): a variable-length
attribute holds, per string, its length, the collection's address and the
object's index, which HDF5 1.10 follows unchecked (an index past the
collection's table crashed every reader; an absent one read an empty
string; a length below the object's size made it copy past its buffer).
Damaged here in sound collections: in a profile written by h5py (object
headers version 1, no checksums) a rank's hostname and a region's name, in
PROFILE.h5 the metadata hostname (dense storage: a fractal heap block) and
a rank's hostname (a version 2 header), whose checksums are made right
again (h5_checksum.py) so that the heap ID is the only damage. Each copy
must be refused by all three readers with a message naming the damage.
"""
import os
import random
import shutil
import struct
import subprocess
import sys

pproc, profile, work = sys.argv[1:4]
ids_mode = sys.argv[4:5] == ["ids"]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
orig = open(profile, "rb").read()


def collections(data):
    """The collections: (start, size, end of the objects, {index: size})."""
    found = []
    at = data.find(b"GCOL")
    while at >= 0:
        if data[at + 4] == 1:
            size = struct.unpack_from("<Q", data, at + 8)[0]
            p, end, objs = at + 16, at + size, {}
            while end - p >= 16:
                idx = struct.unpack_from("<H", data, p)[0]
                size_o = struct.unpack_from("<Q", data, p + 8)[0]
                if idx == 0:
                    break  # the free space: the objects end here
                objs[idx] = size_o
                p += 16 + (size_o + 7) // 8 * 8
            found.append((at, size, p, objs))
        at = data.find(b"GCOL", at + 4)
    return found


heaps = [(a, s, e) for a, s, e, _ in collections(orig)]
if not heaps:
    sys.exit(f"{profile}: no global heap collection found")
print(f"{len(heaps)} collection(s): " + ", ".join(f"byte {a} ({s} bytes, objects to {e - a})"
                                                  for a, s, e in heaps))


def heap_refs(data):
    """Where each heap ID of the file is: (offset, collection, index, size),
    found as its bytes (length, address, index: the object's own)."""
    refs = []
    for at, _, _, objs in collections(data):
        for idx, size in objs.items():
            q = data.find(struct.pack("<IQI", size, at, idx))
            while q >= 0:
                refs.append((q, at, idx, size))
                q = data.find(struct.pack("<IQI", size, at, idx), q + 1)
    return sorted(refs)


def h5py_profile(path):
    """A 2-rank profile of the documented layout, by h5py's defaults."""
    import h5py
    import numpy as np
    with h5py.File(path, "w") as f:
        for r in range(2):
            f.create_group(f"rank{r}/regions")
            f[f"rank{r}"].attrs["hostname"] = f"node{r}"
            for k, name in enumerate(["main", "step"]):
                g = f.create_group(f"rank{r}/regions/{name}")
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(3)
                s = np.array([10, 20, 30], dtype=np.int64) + k
                g["start_times"], g["end_times"] = s, s + 5


def id_cases():
    """Copies with one damaged heap ID each: (name, bytes)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from h5_checksum import block_of, reseal
    mine = os.path.join(work, "h5py_profile.h5")
    h5py_profile(mine)
    targets = []  # (label, bytes, offset of the ID, block to reseal or None)
    small = open(mine, "rb").read()
    refs = heap_refs(small)
    for q, c, idx, size in refs:
        start = c + 16  # the object's bytes: find which string it is
        p = start
        while struct.unpack_from("<H", small, p)[0] != idx:
            p += 16 + (struct.unpack_from("<Q", small, p + 8)[0] + 7) // 8 * 8
        value = small[p + 16:p + 16 + size]
        if value in (b"node0", b"main") and value.decode() not in [t[0] for t in targets]:
            targets.append((value.decode(), small, q, None))
    kinds = {}
    for q, c, idx, size in heap_refs(orig):
        try:
            blk = block_of(orig, q)
        except ValueError:
            continue
        kind = "dense" if orig[blk[0]:blk[0] + 4] == b"FHDB" else "header"
        if kind not in kinds:
            kinds[kind] = (f"profile_{kind}", orig, q, blk)
    if sorted(kinds) != ["dense", "header"] or len(targets) != 2:
        sys.exit(f"heap IDs to damage not found: {sorted(kinds)}, {[t[0] for t in targets]}")
    targets += [kinds["dense"], kinds["header"]]
    out = []
    for label, data, q, blk in targets:
        length, addr, idx = struct.unpack_from("<IQI", data, q)
        objs = [o for a, _, _, o in collections(data) if a == addr][0]
        for how, value in (("absent", ("idx", max(objs) + 40)), ("past", ("idx", 60000)),
                           ("short", ("len", length - 1)), ("nowhere", ("addr", 8))):
            d = bytearray(data)
            field, v = value
            struct.pack_into({"len": "<I", "addr": "<Q", "idx": "<I"}[field], d,
                             q + {"len": 0, "addr": 4, "idx": 12}[field], v)
            if blk:
                reseal(d, blk)
            out.append((f"id_{label}_{how}", d))
    return out


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
if ids_mode:  # the references instead, each one a refusal that names it
    cases = id_cases()

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
        named = "damaged file" in p.stdout + p.stderr if p else False
        if bad is None and ids_mode and (p.returncode == 0 or not named):
            bad = f"exit {p.returncode} without naming the damage (a damaged heap ID read as sound)"
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
print("PASS: no crash, no hang" + (", every damaged heap ID refused" if ids_mode else ""))
