#!/usr/bin/python3
"""A damaged global heap collection the export never reads: --export otf2 writes the archive.

usage: gheap_stray.py PPROC OTF2_PRINT WORK

The reader checks the file's global heap collections (reader_gheap.c) only
when a read can reach them: the heap IDs of an attribute name theirs, and
the whole file is scanned at the first read of variable-length data from a
dataset. Two h5py profiles (two nested regions, 3 calls each) hold a stray
collection signature of size 16 in a dataset's raw bytes, which the scan
refuses ("its size is below the smallest collection"): in the first nothing
is variable-length but the attributes, so the export reads no heap and
writes the archive (otf2-print lists its 12 events and both regions); the
second also has string values per call, which the export reads: it fails
as the open failed before the scan was lazy, exit 1 and the same message.
"""
import os
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

pproc, otf2_print, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
STRAY = b"GCOL\x01\x00\x00\x00" + struct.pack("<Q", 16)


def profile(path, values):
    with h5py.File(path, "w") as f:
        f.create_group("rank0/regions")
        f["rank0"].attrs["hostname"] = "node0"
        for k, name in enumerate(["main", "step"]):
            g = f.create_group(f"rank0/regions/{name}")
            g.attrs["name"] = name
            g.attrs["num_calls"] = np.int64(3)
            s = np.array([10, 20, 30], dtype=np.int64) + k
            g["start_times"], g["end_times"] = s, s + 5 - 2 * k
            if values and name == "step":
                g.create_dataset("call_values/label", data=["a", "bb", "ccc"],
                                 dtype=h5py.string_dtype())
        f["junk"] = np.frombuffer(STRAY + bytes(48), dtype=np.uint8)
    at = open(path, "rb").read().find(STRAY)
    assert at > 0, "the stray signature is not in the file"
    return at


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode >= 0, f"{cmd}: killed by signal {-p.returncode}"
    return p


failures = []
plain = os.path.join(work, "no_values.h5")
profile(plain, False)
p = run(pproc, plain, "--export", "otf2", "-o", os.path.join(work, "plain"))
if p.returncode != 0:
    failures.append(f"no_values.h5: --export otf2: exit {p.returncode}: {p.stderr}")
else:
    q = run(otf2_print, os.path.join(work, "plain", "traces.otf2"))
    events = [ln for ln in q.stdout.splitlines() if ln.split()[:1] in (["ENTER"], ["LEAVE"])]
    named = '"main"' in q.stdout and '"step"' in q.stdout
    if q.returncode != 0 or len(events) != 12 or not named:
        failures.append(f"no_values.h5: otf2-print: exit {q.returncode}, {len(events)} events")

vals = os.path.join(work, "values.h5")
at = profile(vals, True)
want = (f"scope-profiler-pproc: {vals}: damaged file: the global heap collection at byte {at} "
        "(where its variable-length strings are) is unusable: its size is below the smallest "
        "collection (4096 bytes)")
p = run(pproc, vals, "--export", "otf2", "-o", os.path.join(work, "values"))
first = p.stderr.splitlines()[0] if p.stderr else ""
if p.returncode != 1 or first != want:
    failures.append(f"values.h5: --export otf2: exit {p.returncode}, {first!r}, want {want!r}")
if os.path.exists(os.path.join(work, "values", "traces.otf2")):
    failures.append("values.h5: an archive was left behind")
p = run(pproc, vals, "--summary")  # reads no variable-length dataset
if p.returncode != 0:
    failures.append(f"values.h5: --summary: exit {p.returncode}: {p.stderr}")

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("PASS: exported without the heap; refused with the open's message when read")
