#!/usr/bin/python3
"""check_profile_scale.py CASE ... : the files of test_profile_scale.c, read
with h5py and checked against numpy.

  regions FILE N PPROC   N regions r<i> with 1 + i % 3 calls each: the names,
                         the reference layout and call_paths hold them, and
                         `PPROC FILE --summary --format csv` gives each
                         region's calls and total (issue 43, item 9)
  cap FILE               270,920 paths, 8,776 past the cap: metadata/events_lost
                         holds the calls left out of each window (8,776 in
                         FILE.mid.h5, 11 in FILE after sp_reset), and the
                         recorded calls are all the others (item 10)
  lost FILE LOST CALLS   an aggregate file (e.g. merged from .aggspill files)
                         with events_lost LOST and CALLS recorded calls
  exclusive FILE         every call path's exclusive is its inclusive less
                         its children's inclusives, to the ns (item 14)
"""
import csv
import io
import subprocess
import sys

import h5py
import numpy as np

CAP_REGIONS, CAP = 520, 262144
bad = []


def names_of(f):
    return [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]


def lost_of(f):
    if "events_lost" not in f["metadata"].attrs:
        bad.append("metadata/events_lost missing")
        return None
    return int(f["metadata"].attrs["events_lost"])


def check_regions(path, n, pproc):
    want = {"r%d" % i: 1 + i % 3 for i in range(n)}
    with h5py.File(path, "r") as f:
        names = names_of(f)
        if sorted(names) != sorted(want):
            bad.append("region_table/names: %d names, want r0 .. r%d" % (len(names), n - 1))
        idx = f["rank_region_index"]
        got = dict(zip((names[i] for i in idx["region_ids"][()]), idx["aggregate_counts"][()]))
        totals = dict(zip((names[i] for i in idx["region_ids"][()]), idx["aggregate_totals"][()]))
        cp = f["call_paths"]
        if len(cp["counts"]) != n or np.any(cp["parents"][()] != -1):
            bad.append("call_paths: %d rows, want %d top-level paths" % (len(cp["counts"]), n))
        by_path = dict(zip((names[i] for i in cp["region_ids"][()]), cp["counts"][()]))
        for name, c in want.items():
            if got.get(name) != c or by_path.get(name) != c:
                bad.append("%s: %s / %s calls, want %d" % (name, got.get(name), by_path.get(name), c))
                break
        if lost_of(f) != 0:
            bad.append("events_lost %s, want 0" % lost_of(f))
    out = subprocess.run([pproc, path, "--summary", "--format", "csv"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        bad.append("pproc --summary: exit %d: %s" % (out.returncode, out.stderr[-500:]))
        return
    rows = [r for r in csv.reader(io.StringIO(out.stdout)) if r and not r[0].startswith("#")]
    head = rows[0]
    col = {k: head.index(k) for k in ("calls", "total_s", "region")}
    seen = {r[col["region"]]: r for r in rows[1:]}
    if sorted(seen) != sorted(want):
        bad.append("pproc --summary: %d rows, want %d" % (len(seen), n))
    for name, c in want.items():
        r = seen.get(name)
        if r is None or int(r[col["calls"]]) != c or abs(float(r[col["total_s"]]) - totals[name] * 1e-9) > 1e-9:
            bad.append("pproc --summary %s: %s, want %d calls, %d ns" % (name, r, c, totals[name]))
            break


def check_lost(path, lost, calls):
    with h5py.File(path, "r") as f:
        if lost_of(f) != lost:
            bad.append("%s: events_lost %s, want %d" % (path, lost_of(f), lost))
        got = int(np.sum(f["call_paths/counts"][()]))
        if got != calls:
            bad.append("%s: %d calls recorded, want %d" % (path, got, calls))
        return f["call_paths/counts"].shape[0]


def check_cap(path):
    total = CAP_REGIONS + CAP_REGIONS * CAP_REGIONS
    rows = check_lost(path + ".mid.h5", total - CAP, CAP)
    if rows != CAP:
        bad.append("mid: %d call paths, want %d" % (rows, CAP))
    check_lost(path, 11, 10)  # r0 and r0 > r0, 5 calls each


def check_exclusive(path):
    with h5py.File(path, "r") as f:
        cp = f["call_paths"]
        par, inc, exc = cp["parents"][()], cp["inclusives"][()], cp["exclusives"][()]
        counts = cp["counts"][()]
    kids = np.zeros(len(par), dtype=np.int64)
    np.add.at(kids, par[par >= 0], inc[par >= 0])
    diff = exc - (inc - kids)
    print("%d call paths, %d with children; exclusive - (inclusive - children): %s"
          % (len(par), np.count_nonzero(kids), np.unique(diff)))
    if len(par) < 200 or np.any(counts == 0):
        bad.append("%d paths, %d without calls: not the tree written" % (len(par), np.sum(counts == 0)))
    for i in np.nonzero(diff)[0][:10]:
        bad.append("path %d: exclusive %d, inclusive %d, children %d" % (i, exc[i], inc[i], kids[i]))


case = sys.argv[1]
if case == "regions":
    check_regions(sys.argv[2], int(sys.argv[3]), sys.argv[4])
elif case == "cap":
    check_cap(sys.argv[2])
elif case == "lost":
    check_lost(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
elif case == "exclusive":
    check_exclusive(sys.argv[2])
else:
    sys.exit("unknown case " + case)
for b in bad:
    print("FAIL:", b)
print(case, "FAILED" if bad else "ok")
sys.exit(1 if bad else 0)
