"""Independent check of region_statistics.json: recomputes every statistic
with numpy over h5py (no code shared with stats_json.c) and compares.

usage: check_stats.py region_statistics.json [--ranks R...] [--labels L...] -- FILE.h5...

The reference tool's aggregate files (@storage_layout "aggregate": per
(region, rank) rank_region_index/aggregate_{counts,totals,minimums,maximums},
no stamps) are checked against those columns: count, total, min, max and
average (total / count) where every counted rank stores them, else null;
first, last and std null.
"""
import json
import os
import re
import sys
from urllib.parse import unquote_to_bytes

import h5py
import numpy as np


def load(path, ranks):
    """Every region of the file (as the reference tool: --ranks does not drop
    regions), with the durations of the selected ranks that have it."""
    regions = {}  # name -> {rank: (durations in s, starts, ends)}
    starts = {}
    with h5py.File(path, "r") as f:
        all_ranks = sorted(int(k[4:]) for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k))
        for rank in all_ranks:
            regs = f[f"rank{rank}"].get("regions", {})
            for link in regs:
                g = regs[link]
                name = g.attrs.get("name", unquote_to_bytes(link).decode())
                name = name.decode() if isinstance(name, bytes) else str(name)
                s = g["start_times"][()] if "start_times" in g else np.zeros(0, np.int64)
                e = g["end_times"][()] if "end_times" in g else np.zeros(0, np.int64)
                per = regions.setdefault(name, {})
                if not ranks or rank in ranks:
                    per[rank] = ((e - s).astype(np.float64) * 1e-9, s, e)
                if len(s):
                    starts[name] = min(starts.get(name, s.min()), s.min())
    return regions, len(all_ranks), starts


def load_aggregate(f, ranks):
    """name -> {rank: (count, total, min, max) in s, None where not stored}."""
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["region_table/names"][()]]
    idx = f["rank_region_index"]
    col = {k: idx["aggregate_" + k][()] if "aggregate_" + k in idx else None
           for k in ("counts", "totals", "minimums", "maximums")}
    regions = {}
    for row, (g, r) in enumerate(zip(idx["region_ids"][()], idx["ranks"][()])):
        per = regions.setdefault(names[int(g)], {})
        if ranks and int(r) not in ranks:
            continue
        n = int(col["counts"][row])
        val = [None if col[k] is None or (n == 0 and k != "totals") else int(col[k][row]) * 1e-9
               for k in ("totals", "minimums", "maximums")]
        per[int(r)] = (n, *val)
    return regions, len({int(r) for r in idx["ranks"][()]})


def aggregate_stats(vals):
    n = sum(v[0] for v in vals)
    known = lambda k: all(v[k] is not None for v in vals if v[0] or k == 1)  # noqa: E731
    tot = sum(v[1] for v in vals) if known(1) else None
    mins = [v[2] for v in vals if v[0]]
    maxs = [v[3] for v in vals if v[0]]
    return {"count": n, "total_duration_seconds": tot,
            "average_duration_seconds": tot / n if tot is not None and n else None,
            "min_duration_seconds": min(mins) if n and known(2) else None,
            "max_duration_seconds": max(maxs) if n and known(3) else None,
            "first_duration_seconds": None, "last_duration_seconds": None,
            "std_duration_seconds": None}


def check_aggregate(path, fd, ranks, errors):
    with h5py.File(path, "r") as f:
        regions, nranks = load_aggregate(f, ranks)
    if fd["num_ranks"] != nranks:
        errors.append(f"{path}: num_ranks {fd['num_ranks']} != {nranks}")
    if set(fd["region_statistics"]) != set(regions):
        errors.append(f"{path}: regions {sorted(fd['region_statistics'])} != {sorted(regions)}")
    for name, per in regions.items():
        got = fd["region_statistics"].get(name, {})
        compare(f"{path}:{name}", got, aggregate_stats(list(per.values())), errors)
        if set(got.get("per_rank", {})) != {str(r) for r in per}:
            errors.append(f"{path}:{name}: per_rank keys {sorted(got.get('per_rank', {}))}")
        for r, v in per.items():
            compare(f"{path}:{name}:rank {r}", got.get("per_rank", {}).get(str(r), {}),
                    aggregate_stats([v]), errors)
    return list(regions)  # no stamps: no first starts, so name order


def is_aggregate(path):
    with h5py.File(path, "r") as f:
        layout = f.attrs.get("storage_layout", "")
        return (layout.decode() if isinstance(layout, bytes) else str(layout)) == "aggregate"


def stats(d, s, e):
    if d.size == 0:
        return {"count": 0, "average_duration_seconds": None, "min_duration_seconds": None,
                "max_duration_seconds": None, "std_duration_seconds": None,
                "total_duration_seconds": None}
    return {"count": int(d.size), "average_duration_seconds": float(np.mean(d)),
            "min_duration_seconds": float(np.min(d)), "max_duration_seconds": float(np.max(d)),
            "std_duration_seconds": float(np.std(d)), "total_duration_seconds": float(np.sum(d)),
            "first_duration_seconds": float(d[np.argmin(s)]),
            "last_duration_seconds": float(d[np.argmax(e)])}


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(b), 1e-6)


def compare(where, got, want, errors):
    for k, v in want.items():
        if k not in got or not same(got[k], v):
            errors.append(f"{where}: {k}: ours {got.get(k)}, numpy {v}")


def main():
    args = sys.argv[1:]
    doc = json.load(open(args[0]))
    sep = args.index("--")
    opts, files = args[1:sep], args[sep + 1:]
    ranks = [int(r) for r in opts[opts.index("--ranks") + 1:]] if "--ranks" in opts else []
    errors = []
    if doc["units"] != {"durations": "seconds"}:
        errors.append(f"units {doc['units']}")
    if doc["filters"]["ranks"] != (ranks or None):
        errors.append(f"filters.ranks {doc['filters']['ranks']} != {ranks or None}")
    names_per_file = []
    for k, path in enumerate(files):
        fd = doc["files"][k]
        if is_aggregate(path):
            names_per_file.append(sorted(check_aggregate(path, fd, ranks, errors)))
            continue
        regions, nranks, starts = load(path, ranks)
        names_per_file.append(sorted(regions, key=lambda n: (starts.get(n, float("inf")), n)))
        if fd["num_ranks"] != nranks:
            errors.append(f"{path}: num_ranks {fd['num_ranks']} != {nranks}")
        if fd["file_path"] != os.path.realpath(path):
            errors.append(f"{path}: file_path {fd['file_path']}")
        if fd["label"] != os.path.splitext(os.path.basename(path))[0] and "--labels" not in opts:
            errors.append(f"{path}: label {fd['label']}")
        if set(fd["region_statistics"]) != set(regions):
            errors.append(f"{path}: regions {sorted(fd['region_statistics'])} != {sorted(regions)}")
        for name, per in regions.items():
            got = fd["region_statistics"].get(name, {})
            empty = [(np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64))]
            vals = list(per.values()) or empty
            d = np.concatenate([v[0] for v in vals])
            s = np.concatenate([v[1] for v in vals])
            e = np.concatenate([v[2] for v in vals])
            compare(f"{path}:{name}", got, stats(d, s, e), errors)
            if set(got.get("per_rank", {})) != {str(r) for r in per}:
                errors.append(f"{path}:{name}: per_rank keys {sorted(got.get('per_rank', {}))}")
            for r, v in per.items():
                compare(f"{path}:{name}:rank {r}", got.get("per_rank", {}).get(str(r), {}),
                        stats(*v), errors)
    common = [n for n in names_per_file[0] if all(n in o for o in names_per_file[1:])]
    if doc["common_regions"] != common:
        errors.append(f"common_regions {doc['common_regions']} != {common}")
    for e in errors:
        print("MISMATCH", e)
    print(f"{len(files)} files checked, {len(errors)} mismatches")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
