#!/usr/bin/python3
"""check_pproc_tree.py PPROC TRACE AGG NRANKS

scope-profiler-pproc AGG --tree --format tsv (profile mode's file of the
window after sp_reset) against the call paths numpy finds in the trace of
the same run (check_profile_mode.paths): per path, the calls exactly, and
the inclusive and exclusive time (printed as the mean per rank, 1 ns
resolution) within the printing's rounding."""
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_profile_mode import calls_of_rank, paths, reset_time  # noqa: E402

pproc, trace, agg, nranks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
want = {}
with h5py.File(trace, "r") as f:
    for r in range(nranks):
        t_reset = reset_time(trace, r)
        for c in paths(calls_of_rank(f, r)):
            if c["end"] > t_reset:
                w = want.setdefault(c["path"], [0, 0, 0])
                w[0] += 1
                w[1] += c["dur"]
                w[2] += c["excl"]
out = subprocess.run([pproc, agg, "--tree", "--format", "tsv"], check=True, capture_output=True,
                     text=True).stdout.splitlines()
head = out[0].split("\t")
got, stack = {}, []
for line in out[1:]:
    row = dict(zip(head, line.split("\t")))
    d = int(row["depth"])
    stack = stack[:d] + [row["region"].strip()]
    got[tuple(stack)] = (int(row["calls"]), float(row["incl_s"]) * 1e9 * nranks,
                         float(row["excl_s"]) * 1e9 * nranks)
bad = []
if set(got) != set(want):
    bad.append("paths differ: only in pproc %s, only in the trace %s" % (
        sorted(set(got) - set(want))[:3], sorted(set(want) - set(got))[:3]))
tol = 0.5 * nranks + 1
for p in set(got) & set(want):
    g, w = got[p], want[p]
    if g[0] != w[0] or abs(g[1] - w[1]) > tol or abs(g[2] - w[2]) > tol:
        bad.append("%s: pproc %s, trace %s" % ("/".join(p), g, w))
for b in bad:
    print("FAIL:", b)
print("%d call paths of %s against %s: %s" % (len(got), agg, trace, "FAILED" if bad or not got else "ok"))
sys.exit(1 if bad or not got else 0)
