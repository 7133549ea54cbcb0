"""The numpy baseline and oracle of issue 47: reads every array of a file
written by make_read_files.py (or any file of those layouts) with h5py and
sums per region, independently of scope-profiler's reader.

usage: /usr/bin/python3 read_oracle.py FILE
  prints one line per region, in region-table (columnar) or name order:
  name calls total_ns min_ns max_ns mean_ns rank_max_ns max_rank
  and on stderr the seconds it took.

Per region: calls (sum of the pairs' counts), total (sum of end - start of
every call), min, max and mean per call, and the largest per-rank total with
the lowest rank id holding it. Import it for columnar(path) / perrank(path),
which give {name: dict of those figures}.
"""
import sys
import time

import h5py
import numpy as np

FIELDS = ("calls", "total", "min", "max", "mean", "rank_max", "max_rank")


def _per_region(names, region_ids, ranks, counts, totals, mins, maxs):
    """Figures per region from per-pair arrays (pairs with no call have
    min = int64 max, max = int64 min)."""
    order = np.argsort(region_ids, kind="stable")
    reg = region_ids[order]
    starts = np.flatnonzero(np.r_[True, reg[1:] != reg[:-1]])
    ends = np.r_[starts[1:], len(reg)]
    out = {}
    for s, e in zip(starts, ends):
        sel = order[s:e]
        calls = int(counts[sel].sum())
        total = int(totals[sel].sum())
        rt = totals[sel]
        best = rt.max()
        out[names[reg[s]]] = {
            "calls": calls, "total": total,
            "min": int(mins[sel].min()) if calls else 0,
            "max": int(maxs[sel].max()) if calls else 0,
            "mean": total / calls if calls else 0.0,
            "rank_max": int(best),
            "max_rank": int(ranks[sel][rt == best].min()),
        }
    return out


def columnar(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        region_ids = idx["region_ids"][()].astype(np.int64)
        ranks = idx["ranks"][()].astype(np.int64)
        offsets = idx["event_offsets"][()].astype(np.int64)
        counts = idx["event_counts"][()].astype(np.int64)
        d = f["events/end_times"][()]
        d -= f["events/start_times"][()]
    # Per pair: sums by the prefix sum, min and max by reduceat over the
    # pairs that have calls (reduceat of an empty range gives one element).
    cs = np.zeros(len(d) + 1, np.int64)
    np.cumsum(d, out=cs[1:])
    totals = cs[offsets + counts] - cs[offsets]
    mins = np.full(len(offsets), np.iinfo(np.int64).max)
    maxs = np.full(len(offsets), np.iinfo(np.int64).min)
    has = counts > 0
    if has.any():
        o = offsets[has]
        byo = np.argsort(o, kind="stable")
        mins[np.flatnonzero(has)[byo]] = np.minimum.reduceat(d, o[byo])
        maxs[np.flatnonzero(has)[byo]] = np.maximum.reduceat(d, o[byo])
        # reduceat runs to the next index: correct only when pairs tile the
        # events; recompute the ones that do not (gaps or overlaps).
        end = o[byo] + counts[has][byo]
        nxt = np.r_[o[byo][1:], len(d)]
        for k in np.flatnonzero(end != nxt):
            p = np.flatnonzero(has)[byo][k]
            seg = d[offsets[p]:offsets[p] + counts[p]]
            mins[p], maxs[p] = seg.min(), seg.max()
    return _per_region(names, region_ids, ranks, counts, totals, mins, maxs)


def perrank(path):
    rid, rk, cnt, tot, mn, mx, names = [], [], [], [], [], [], {}
    with h5py.File(path, "r") as f:
        for key in f:
            if not key.startswith("rank") or not key[4:].isdigit() or "regions" not in f[key]:
                continue
            regs = f[key]["regions"]
            for name in regs:
                g = regs[name]
                d = g["end_times"][()] - g["start_times"][()]
                rid.append(names.setdefault(name, len(names)))
                rk.append(int(key[4:]))
                cnt.append(len(d))
                tot.append(int(d.sum()))
                mn.append(int(d.min()) if len(d) else np.iinfo(np.int64).max)
                mx.append(int(d.max()) if len(d) else np.iinfo(np.int64).min)
    by_id = sorted(names, key=names.get)
    a = lambda v: np.array(v, np.int64)  # noqa: E731
    return _per_region(by_id, a(rid), a(rk), a(cnt), a(tot), a(mn), a(mx))


def read(path):
    with h5py.File(path, "r") as f:
        col = "rank_region_index" in f
    return columnar(path) if col else perrank(path)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    t = time.perf_counter()
    figs = read(argv[1])
    elapsed = time.perf_counter() - t
    for name, v in figs.items():
        print(name, " ".join(str(v[k]) for k in FIELDS))
    print(f"{elapsed:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
