#!/usr/bin/python3
"""check_many_regions.py FILE REGIONS CALLS: FILE (one rank, written by
test_many_regions) holds REGIONS regions region_000000.. of CALLS calls each,
read with h5py alone: in the columnar layout (region_table, rank_region_index,
events) or the per-rank one (rank0/regions/<name>). Exit 0 or 1."""
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


path, regions, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want = [f"region_{r:06d}" for r in range(regions)]
with h5py.File(path, "r") as f:
    layout = text(f.attrs.get("storage_layout", "ranks"))
    if layout == "columnar":
        names = [text(x) for x in f["region_table/names"][:]]
        ids = f["rank_region_index/region_ids"][:]
        ranks = f["rank_region_index/ranks"][:]
        offs = f["rank_region_index/event_offsets"][:].astype(np.int64)
        cnts = f["rank_region_index/event_counts"][:].astype(np.int64)
        ncalls = f["rank_region_index/num_calls"][:]
        start, end = f["events/start_times"][:], f["events/end_times"][:]
        if names != want:
            fail(f"region_table/names: {len(names)} names, not region_000000..")
        if sorted(ids.tolist()) != list(range(regions)) or np.any(ranks != 0):
            fail("rank_region_index: not one row per region on rank 0")
        if np.any(cnts != calls) or np.any(ncalls != calls):
            fail("event_counts/num_calls differ from the calls")
        covered = np.zeros(len(start), np.int64)
        for o, n in zip(offs, cnts):
            covered[o:o + n] += 1
        if len(start) != regions * calls or np.any(covered != 1):
            fail("events: not each event in exactly one row")
    else:
        g = f["rank0/regions"]
        got = sorted(text(g[k].attrs["name"]) for k in g)
        if got != want:
            fail(f"rank0/regions: {len(got)} regions, not region_000000..")
        start, end = [], []
        for k in g:
            r = g[k]
            if int(r.attrs["num_calls"]) != calls or len(r["start_times"]) != calls:
                fail(f"{k}: not {calls} calls")
            start.append(r["start_times"][:])
            end.append(r["end_times"][:])
        start, end = np.concatenate(start), np.concatenate(end)
    if np.any(end < start) or np.any(start <= 0):
        fail("a call ends before it starts, or a stamp is not a time")
print(f"OK: {layout} layout, {regions} regions x {calls} calls")
