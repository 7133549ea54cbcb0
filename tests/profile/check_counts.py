#!/usr/bin/python3
"""check_counts.py FILE NRANKS [--only] REGION=COUNT... : an aggregate file
(h5py) holds, on every rank, exactly COUNT calls of each REGION (reference
layout and call_paths agree), with 0 <= min <= max and exclusive <= total;
with --only, no other region has calls."""
import sys

import h5py
import numpy as np

path, nranks = sys.argv[1], int(sys.argv[2])
only = "--only" in sys.argv[3:]
want = {a.split("=")[0]: int(a.split("=")[1]) for a in sys.argv[3:] if a != "--only"}
bad = []
with h5py.File(path, "r") as f:
    if f.attrs["storage_layout"] not in ("aggregate", b"aggregate"):
        bad.append("storage_layout is %r" % f.attrs["storage_layout"])
    names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    got = {}
    for i in range(len(idx["ranks"])):
        k = (int(idx["ranks"][i]), names[idx["region_ids"][i]])
        got[k] = [int(idx[c][i]) for c in ("aggregate_counts", "aggregate_totals", "aggregate_minimums",
                                           "aggregate_maximums", "aggregate_exclusives")]
        n, tot, mn, mx, ex = got[k]
        if not (0 <= mn <= mx <= tot and 0 <= ex <= tot):
            bad.append("%s: figures %s" % (k, got[k]))
    for (r, name), fig in got.items():
        if only and fig[0] > 0 and name not in want:
            bad.append("rank %d %s: %d calls, none expected" % (r, name, fig[0]))
    cp = f["call_paths"]
    for r in range(nranks):
        for name, count in want.items():
            if got.get((r, name), [0])[0] != count:
                bad.append("rank %d %s: %s calls, want %d" % (r, name, got.get((r, name), [0])[0], count))
            rows = [(cp["ranks"][i] == r and names[cp["region_ids"][i]] == name) for i in range(len(cp["ranks"]))]
            if int(np.sum(cp["counts"][()][np.array(rows, bool)])) != count:
                bad.append("rank %d %s: call_paths disagree" % (r, name))
for b in bad:
    print("FAIL:", b)
print(path, "FAILED" if bad else "ok")
sys.exit(1 if bad else 0)
