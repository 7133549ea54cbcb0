#!/usr/bin/python3
"""check_profile_clock.py FILE: the "nap" calls of test_profile_clock in
FILE.mid.h5 (sp_report, first window) and FILE (sp_finalize's aggregate
file, second window) against CLOCK_MONOTONIC read around each call
(FILE.naps): per window the count, and the total, minimum and maximum
between the inner and outer readings, within 0.1% + 5 us (the TSC
calibration's own uncertainty over its 2 ms base is ~1e-5; a rate off by
2% is 600 us on a 30 ms call). Exit 0 when all hold."""
import sys

import h5py

base = sys.argv[1]
lines = open(base + ".naps").read().split("\n")
clock = lines[0]
naps = {0: [], 1: []}
for ln in lines[1:]:
    if ln:
        w, inner, outer = (int(x) for x in ln.split())
        naps[w].append((inner, outer))
agg = base  # profile mode alone: the aggregate file at file_path
FAIL = []


def nap_row(path):
    with h5py.File(path, "r") as f:
        names = [x.decode() if isinstance(x, bytes) else str(x) for x in f["region_table/names"][()]]
        g = f["rank_region_index"]
        for i, r in enumerate(g["region_ids"][()]):
            if names[r] == "nap":
                return [int(g[c][i]) for c in ("aggregate_counts", "aggregate_totals",
                                               "aggregate_minimums", "aggregate_maximums")]
    return None


def between(got, lo, hi, what):
    tol = 1e-3 * hi + 5000
    if not lo - tol <= got <= hi + tol:
        FAIL.append("%s: %d ns, the clock says %d..%d" % (what, got, lo, hi))


for w, path in ((0, base + ".mid.h5"), (1, agg)):
    row = nap_row(path)
    if row is None:
        FAIL.append("%s: no nap" % path)
        continue
    n, tot, mn, mx = row
    inner = [c[0] for c in naps[w]]
    outer = [c[1] for c in naps[w]]
    if n != len(naps[w]):
        FAIL.append("%s: %d calls, want %d" % (path, n, len(naps[w])))
    between(tot, sum(inner), sum(outer), path + " total")
    between(mn, min(inner), min(outer), path + " minimum")
    between(mx, max(inner), max(outer), path + " maximum")
    print("%s (%s clock): total %d ns, clock %d..%d" % (path, clock, tot, sum(inner), sum(outer)))
for m in FAIL:
    print("FAIL:", m)
print("FAILED" if FAIL else "ok")
sys.exit(1 if FAIL else 0)
