#!/usr/bin/python3
"""Checks a profile written by test_publish / test_publish_mpi with h5py.

usage: check_publish.py FILE [--ranks N] [--regions N] [--calls N]
                        [--region-bytes HEX]... [--empty-rank R]...
                        [--every K --calls-each N]

Opens FILE with h5py (a reader that shares no code with ours: it refuses a
file shorter than HDF5's stored end of allocation) and checks, over all
rank<R> groups: exactly N ranks; the number of region groups; the sum of
num_calls and of start_times entries (each region's intervals = num_calls,
end >= start); with --region-bytes, that a region whose link name decodes
to exactly these bytes exists (names holding NUL bytes); with --empty-rank,
that rank R has no regions. With --every K (large files) only every K-th
region is read, and must have --calls-each N calls. Exit 0 when every check holds, else 1 with
each failure on stderr."""
import argparse
import sys

import h5py
import numpy as np


def decode_link(name):
    """Inverse of the documented link name encoding (%25 %2F %2E %00...)."""
    raw = name.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25 and i + 3 <= len(raw):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--regions", type=int)
    ap.add_argument("--calls", type=int)
    ap.add_argument("--region-bytes", action="append", default=[])
    ap.add_argument("--empty-rank", type=int, action="append", default=[])
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--calls-each", type=int)
    a = ap.parse_args()
    fails = []
    try:
        f = h5py.File(a.file, "r")
    except Exception as e:  # the failure this checker exists for
        print(f"FAIL: {a.file}: h5py cannot open it: {e}", file=sys.stderr)
        return 1
    ranks = sorted(k for k in f.keys() if k.startswith("rank"))
    if ranks != [f"rank{r}" for r in range(a.ranks)]:
        fails.append(f"rank groups {ranks}, wanted rank0..rank{a.ranks - 1}")
    regions = calls = intervals = 0
    names = set()
    for rk in ranks:
        rg = f[rk]["regions"]
        if int(rk[4:]) in a.empty_rank and len(rg) != 0:
            fails.append(f"{rk} has {len(rg)} regions, wanted none")
        for i, link in enumerate(rg):
            regions += 1
            names.add(decode_link(link))
            if i % a.every:
                continue
            g = rg[link]
            n = int(g.attrs["num_calls"])
            if a.calls_each is not None and n != a.calls_each:
                fails.append(f"{rk}/{link}: num_calls {n}, wanted {a.calls_each}")
            calls += n
            if "start_times" in g:
                s = np.asarray(g["start_times"])
                e = np.asarray(g["end_times"])
                intervals += len(s)
                if len(s) != n or len(e) != n:
                    fails.append(f"{rk}/{link}: {len(s)} intervals, num_calls {n}")
                elif n and (e < s).any():
                    fails.append(f"{rk}/{link}: an end before its start")
    if a.regions is not None and regions != a.regions:
        fails.append(f"{regions} regions, wanted {a.regions}")
    if a.every > 1:
        calls = intervals = a.calls  # not all read
    if a.calls is not None and calls != a.calls:
        fails.append(f"{calls} calls (num_calls), wanted {a.calls}")
    if a.calls is not None and intervals not in (0, a.calls):
        fails.append(f"{intervals} intervals, wanted {a.calls}")
    for h in a.region_bytes:
        if bytes.fromhex(h) not in names:
            fails.append(f"no region named {bytes.fromhex(h)!r} (have {sorted(names)[:10]})")
    for m in fails:
        print(f"FAIL: {a.file}: {m}", file=sys.stderr)
    if not fails:
        print(f"{a.file}: {len(ranks)} rank(s), {regions} regions, {calls} calls: ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
