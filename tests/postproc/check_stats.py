"""Independent check of region_statistics.json: recomputes every statistic
with numpy over h5py (no code shared with stats_json.c) and compares.

usage: check_stats.py region_statistics.json [--ranks R...] [--labels L...] -- FILE.h5...
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
