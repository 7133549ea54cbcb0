#!/usr/bin/python3
"""check_trace_counts.py FILE NRANKS [--only] [--num-calls] REGION=COUNT... :
a trace (h5py) holds, on every rank, exactly COUNT calls of each REGION
(stamps of finished calls counted from start_times; with --num-calls the
num_calls attribute, calls counted without stamps included); with --only,
no other region has calls."""
import sys

import h5py

path, nranks = sys.argv[1], int(sys.argv[2])
only = "--only" in sys.argv[3:]
num_calls = "--num-calls" in sys.argv[3:]
want = {a.split("=")[0]: int(a.split("=")[1]) for a in sys.argv[3:] if not a.startswith("--")}
bad = []
with h5py.File(path, "r") as f:
    for r in range(nranks):
        got = {}
        regs = f["rank%d/regions" % r]
        for link in regs:
            name = regs[link].attrs["name"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            n = (int(regs[link].attrs["num_calls"]) if num_calls
                 else len(regs[link]["start_times"]))
            got[name] = got.get(name, 0) + n
        for name, count in got.items():
            if only and count > 0 and name not in want:
                bad.append("rank %d %s: %d calls, none expected" % (r, name, count))
        for name, count in want.items():
            if got.get(name, 0) != count:
                bad.append("rank %d %s: %d calls, want %d" % (r, name, got.get(name, 0), count))
for b in bad:
    print("FAIL:", b)
print(path, "FAILED" if bad else "ok")
sys.exit(1 if bad else 0)
