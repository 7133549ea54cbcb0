#!/usr/bin/python3
"""Profile mode's values per call path (docs/values.md "Profile mode") against
the program's own oracle, recomputed with numpy; the file read with h5py.

check_values_profile.py ORACLE NP FILE [--reduced] [--pproc PPROC] [--python PYTHONPATH]

ORACLE.<rank> (test_values_profile.c): rank thread path key kind value, one
line per call and key (the call's last value). Per rank, call path and key:
the calls that set it, the sum, min and max of their values (strings:
calls only, the figures NaN) in FILE's call_path_values/ (rows of
call_paths, summed over the rank's threads). --reduced: FILE is reduced
across ranks: reduced_path_values/ per call path over every rank. --pproc:
`PPROC FILE --values --format json` gives per region and key the calls,
sum, min and max over every path, rank and thread (in a reduced file from
reduced_path_values/). --python: ProfilingH5Reader(FILE).call_path_values()
gives per call path (region names), rank (None when reduced), thread and key
the same figures.
"""
import argparse
import json
import math
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def s(x):
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def read_oracle(prefix, np_):
    """{(rank, path, key): (kind, [values])}"""
    out = {}
    for r in range(np_):
        for line in open(f"{prefix}.{r}", encoding="utf-8"):
            rank, _tid, path, key, kind, val = line.rstrip("\n").split("\t")
            e = out.setdefault((int(rank), path, key), (kind, []))
            e[1].append(val if kind == "s" else float(val))
    if not out:
        fail("the oracle is empty")
    return out


def figures(kind, vals):
    if kind == "s":
        return len(vals), math.nan, math.nan, math.nan
    x = np.array(vals, dtype=np.float64)
    return len(x), float(np.sum(x)), float(x.min()), float(x.max())


def same(want, got, what):
    for name, w, g in zip(("count", "sum", "min", "max"), want, got):
        if name == "count":
            ok = int(w) == int(g)
        elif math.isnan(w):
            ok = math.isnan(g)
        else:
            ok = math.isclose(w, g, rel_tol=1e-12, abs_tol=1e-9)
        if not ok:
            fail(f"{what}: {name} {g}, want {w}")


def paths_of(names, regions, parents):
    out = []
    for i in range(len(regions)):
        p = [names[regions[i]]]
        j = parents[i]
        while j >= 0:
            p.append(names[regions[j]])
            j = parents[j]
        out.append("/".join(reversed(p)))
    return out


def file_rows(f, reduced):
    names = [s(x) for x in f["region_table/names"][()]]
    if reduced:
        rp = f["reduced_paths"]
        paths = paths_of(names, rp["region_ids"][()], rp["parents"][()])
        g = f["reduced_path_values"]
        rows, ranks = g["paths"][()], None
    else:
        cp = f["call_paths"]
        paths = paths_of(names, cp["region_ids"][()], cp["parents"][()])
        g = f["call_path_values"]
        rows, ranks = g["rows"][()], cp["ranks"][()]
    acc = {}
    for i, row in enumerate(rows):
        k = (None if ranks is None else int(ranks[row]), paths[row], s(g["keys"][i]))
        c, sm, mn, mx = (int(g["counts"][i]), float(g["sums"][i]), float(g["minimums"][i]),
                         float(g["maximums"][i]))
        if k in acc:  # another thread's row of the same rank and path
            a = acc[k]
            acc[k] = (a[0] + c, a[1] + sm, min(a[2], mn) if not math.isnan(mn) else a[2],
                      max(a[3], mx) if not math.isnan(mx) else a[3])
        else:
            acc[k] = (c, sm, mn, mx)
    return acc


def check_python(pythonpath, path, reduced, want):
    """ProfilingH5Reader.call_path_values() summed over threads, as the oracle."""
    sys.path.insert(0, pythonpath)
    from scope_profiler_native.h5reader import ProfilingH5Reader
    with ProfilingH5Reader(path) as reader:
        rows = reader.call_path_values()
    got = {}
    for r in rows:
        if reduced != (r["rank"] is None) or reduced != (r["thread"] is None):
            fail(f"python: rank {r['rank']}, thread {r['thread']} in a "
                 f"{'reduced' if reduced else 'per-rank'} file")
        k = (r["rank"], "/".join(r["path"]), r["key"])
        text = r["sum"] is None
        if text != (r["min"] is None) or text != (r["mean"] is None):
            fail(f"python {k}: sum {r['sum']}, min {r['min']}, mean {r['mean']}")
        if not text and not math.isclose(r["mean"], r["sum"] / r["calls"], rel_tol=1e-12):
            fail(f"python {k}: mean {r['mean']} is not sum / calls")
        c, sm = r["calls"], math.nan if text else r["sum"]
        mn, mx = (math.nan, math.nan) if text else (r["min"], r["max"])
        if k in got:  # another thread's row
            a = got[k]
            got[k] = (a[0] + c, a[1] + sm, min(a[2], mn), max(a[3], mx))
        else:
            got[k] = (c, sm, mn, mx)
    if set(got) != set(want):
        fail(f"python: keys differ: reader only {sorted(set(got) - set(want), key=str)[:5]}, "
             f"oracle only {sorted(set(want) - set(got), key=str)[:5]}")
    for k, (kind, vals) in want.items():
        same(figures(kind, vals), got[k], f"python {k}")
    print(f"python: call_path_values() gives the oracle's {len(got)} (path, key) figures")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("oracle")
    ap.add_argument("np", type=int)
    ap.add_argument("file")
    ap.add_argument("--reduced", action="store_true")
    ap.add_argument("--pproc")
    ap.add_argument("--python")
    a = ap.parse_args()
    want = read_oracle(a.oracle, a.np)
    if a.reduced:  # over the ranks
        merged = {}
        for (rank, path, key), (kind, vals) in want.items():
            merged.setdefault((None, path, key), (kind, []))[1].extend(vals)
        want = merged
    with h5py.File(a.file, "r") as f:
        got = file_rows(f, a.reduced)
    if set(got) != set(want):
        fail(f"keys differ: file only {sorted(set(got) - set(want), key=str)[:5]}, "
             f"oracle only {sorted(set(want) - set(got), key=str)[:5]}")
    for k, (kind, vals) in want.items():
        same(figures(kind, vals), got[k], f"{k}")
    n = sum(len(v[1]) for v in want.values())
    if a.pproc:
        p = subprocess.run([a.pproc, a.file, "--values", "--format", "json"], capture_output=True)
        if p.returncode != 0:
            fail(f"--values: status {p.returncode}: {p.stderr.decode()}")
        rows = json.loads(p.stdout)
        per = {}
        for (rank, path, key), (kind, vals) in want.items():
            per.setdefault((path.split("/")[-1], key), (kind, []))[1].extend(vals)
        seen = set()
        for r in rows:
            k = (r["region"], r["key"])
            if k not in per:
                fail(f"--values: {k} not set by the program")
            kind, vals = per[k]
            w = figures(kind, vals)
            if int(r["calls"]) != w[0]:
                fail(f"--values {k}: calls {r['calls']}, want {w[0]}")
            if kind != "s":
                same(w, (int(r["calls"]), float(r["sum"]), float(r["min"]), float(r["max"])),
                     f"--values {k}")
            seen.add(k)
        if seen != set(per):
            fail(f"--values: missing {sorted(set(per) - seen)}")
        print(f"--values: {len(seen)} (region, key) rows as the oracle")
        # --summary --columns value:iters: the mean per region over the calls that set it.
        p = subprocess.run([a.pproc, a.file, "--summary", "--columns", "value:iters,value:method",
                            "--format", "csv"], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"--summary: status {p.returncode}: {p.stderr}")
        lines = [ln.split(",") for ln in p.stdout.strip().splitlines()]
        head = lines[0]
        for cells in lines[1:]:
            row = dict(zip(head, cells))
            k = (row["region"], "iters")
            w = "-" if k not in per else float(np.mean(per[k][1]))
            g = row["value:iters"]
            if (w == "-") != (g == "-") or (w != "-" and not math.isclose(float(g), w, rel_tol=1e-9)):
                fail(f"--summary value:iters of {row['region']}: {g}, want {w}")
            if row["value:method"] != "-":
                fail(f"--summary value:method (strings) of {row['region']}: {row['value:method']}")
        print("--summary --columns value:iters: the oracle's means")
    if a.python:
        check_python(a.python, a.file, a.reduced, want)
    print(f"OK: {len(want)} (path, key) figures of {n} values")


if __name__ == "__main__":
    main()
