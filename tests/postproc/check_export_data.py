"""check_export_data.py - --export-data files against numpy on the HDF5 file.

Reads the profile with h5py (an independent reader), computes the rows of
gantt_data (file,rank,region,start_seconds,end_seconds, seconds since the
file's first start) and durations_data (file,region,metric,value_seconds:
mean, min, max and total over the calls of the selected ranks) with numpy,
runs scope-profiler-pproc --export-data and compares, row by row.

usage: check_export_data.py PPROC OUTDIR H5 CASE
CASE: csv, json (adds the colors map: tab10 sampled evenly over the sorted
names), metrics (--metrics avg,total --ranks 1-2), flame (--ranks 0 1),
top (--top-n 2 --min-duration 0.3: durations_data of the 2 regions of
largest self time (a numpy call tree), over the calls of 0.3 s or longer;
gantt_data unchanged), with total also total_per_rank (the durations chart's
bar: per rank the busiest thread's outermost calls, mean over the ranks),
cmap (json with --cmap plasma: colors interpolated from matplotlib's
anchors, sampled evenly over the sorted names).
flame_data (the flame chart's ranks: rank 0 without --ranks) is checked in
every case against a brute-force depth."""
import csv
import json
import os
import shutil
import subprocess
import sys
from urllib.parse import unquote

import h5py
import numpy as np

# matplotlib's plasma at 0, 0.1, ..., 1 (palette.c interpolates between them).
PLASMA = ["#0d0887", "#41049d", "#6a00a8", "#8f0da4", "#b12a90", "#cc4778",
          "#e16462", "#f2844b", "#fca636", "#fcce25", "#f0f921"]


def plasma(x):
    pos = x * 10
    k = min(int(pos), 9)
    f = pos - k
    a = [int(PLASMA[k][i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(PLASMA[k + 1][i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{int(u + (v - u) * f + 0.5):02x}" for u, v in zip(a, b))


TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def read_profile(path, ranks=None):
    """{(rank, name): (starts, ends)} in ns."""
    out = {}
    with h5py.File(path, "r") as f:
        for key in f:
            if not key.startswith("rank") or not key[4:].isdigit():
                continue
            rank = int(key[4:])
            if ranks is not None and rank not in ranks:
                continue
            regs = f[key].get("regions")
            for link in (regs or {}):
                g = regs[link]
                if "start_times" not in g:
                    continue
                name = g.attrs.get("name", unquote(link))
                name = name.decode() if isinstance(name, bytes) else str(name)
                out[(rank, name)] = (g["start_times"][()].astype(np.int64),
                                     g["end_times"][()].astype(np.int64))
    return out


def flame_rows(path, ranks, sel_ranks):
    """flame_data rows by brute force: per rank and thread, calls ordered by
    start, longest first, name; depth = earlier calls in that order still
    open (end > start) at the call's start."""
    rows = []
    with h5py.File(path, "r") as f:
        t0 = None
        calls = []
        for key in f:
            if not key.startswith("rank") or not key[4:].isdigit():
                continue
            regs = f[key].get("regions") or {}
            for link in regs:
                g = regs[link]
                if "start_times" not in g:
                    continue
                s = g["start_times"][()].astype(np.int64)
                rank = int(key[4:])
                if sel_ranks is not None and rank not in sel_ranks:
                    continue
                if len(s):  # times are since the selection's first start
                    t0 = int(s.min()) if t0 is None else min(t0, int(s.min()))
                if rank not in ranks:
                    continue
                name = g.attrs.get("name", unquote(link))
                name = name.decode() if isinstance(name, bytes) else str(name)
                e = g["end_times"][()].astype(np.int64)
                tid = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int64)
                calls += [(rank, int(t), int(a), int(b), name) for a, b, t in zip(s, e, tid)]
    calls.sort(key=lambda c: (c[0], c[1], c[2], -c[3], c[4]))
    for i, (rank, t, a, b, name) in enumerate(calls):
        depth = sum(1 for c in calls[:i] if c[0] == rank and c[1] == t and c[3] > a)
        rows.append((os.path.splitext(os.path.basename(path))[0], rank, name, depth, (a - t0) * 1e-9, (b - t0) * 1e-9))
    return rows


def read_calls(path, ranks):
    """[(rank, tid, name, start, end)] of the selected ranks, and the number
    of selected ranks (rank groups of the file)."""
    out, nranks = [], 0
    with h5py.File(path, "r") as f:
        for key in f:
            if not key.startswith("rank") or not key[4:].isdigit() or key != f"rank{int(key[4:])}":
                continue  # rank01 is no rank group
            rank = int(key[4:])
            if ranks is not None and rank not in ranks:
                continue
            nranks += 1
            regs = f[key].get("regions")
            for link in (regs or {}):
                g = regs[link]
                if "start_times" not in g:
                    continue
                name = g.attrs.get("name", unquote(link))
                name = name.decode() if isinstance(name, bytes) else str(name)
                s, e = g["start_times"][()], g["end_times"][()]
                t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int32)
                out += [(rank, int(c), name, int(a), int(b)) for a, b, c in zip(s, e, t)]
    return out, nranks


def self_times(calls):
    """Self time per region: a call's duration less its direct children's
    (the calls it encloses on its rank and thread, one level down)."""
    self = {}
    for key in sorted({c[:2] for c in calls}):
        stack = []
        for c in sorted((c for c in calls if c[:2] == key), key=lambda c: (c[3], -c[4])):
            while stack and not (c[3] >= stack[-1][3] and c[4] <= stack[-1][4]):
                stack.pop()
            self[c[2]] = self.get(c[2], 0) + c[4] - c[3]
            if stack:
                self[stack[-1][2]] -= c[4] - c[3]
            stack.append(c)
    return self


def per_rank_total(calls, nranks, name, min_d):
    """The durations chart's total: per rank the busiest thread's calls that
    no call of name on that thread encloses (of min_d s or longer), mean over
    the selected ranks."""
    best = {}
    for key in {c[:2] for c in calls if c[2] == name}:
        v = np.array([c[3:] for c in calls if c[2] == name and c[:2] == key], np.int64)
        a, b = v[:, 0], v[:, 1]
        inside = ((a[None, :] <= a[:, None]) & (b[None, :] >= b[:, None])
                  & ~np.eye(len(a), dtype=bool)).any(axis=1)
        d = (b - a)[~inside] * 1e-9
        best[key[0]] = max(best.get(key[0], 0.0), d[d >= min_d].sum())
    return sum(best.values()) / nranks


def expected(path, ranks, metrics, min_d=0.0, top=0, cmap=None):
    prof = read_profile(path, ranks)
    t0 = min(int(s.min()) for s, _ in prof.values() if len(s))
    gantt = []
    label = os.path.splitext(os.path.basename(path))[0]  # the file column: its label
    for (rank, name), (s, e) in prof.items():
        for a, b in zip(s, e):
            gantt.append((label, rank, name, (int(a) - t0) * 1e-9, (int(b) - t0) * 1e-9))
    dur = {}
    names = sorted({n for (_, n) in prof})
    durs = {}
    for name in names:
        d = np.concatenate([(e - s).astype(np.float64) for (r, n), (s, e) in prof.items()
                            if n == name]) * 1e-9
        durs[name] = d[d >= min_d]
    calls, nranks = read_calls(path, ranks)
    if top:  # the largest self times (ties: total)
        self = self_times(calls)
        keep = sorted(durs, key=lambda n: (-self.get(n, 0), -durs[n].sum()))[:top]
        durs = {n: durs[n] for n in keep}
    for name, d in durs.items():
        if len(d) == 0:
            continue
        vals = {"avg": d.mean(), "min": d.min(), "max": d.max(), "total": d.sum()}
        for m in metrics:
            dur[(label, name, m)] = vals[m]
        if "total" in metrics:
            dur[(label, name, "total_per_rank")] = per_rank_total(calls, nranks, name, min_d)
    nd = len(names)
    colors = {n: TAB10[min(9, int((k / (nd - 1) if nd > 1 else 0) * 10))]
              for k, n in enumerate(names)}
    if cmap == "plasma":
        colors = {n: plasma(k / (nd - 1) if nd > 1 else 0) for k, n in enumerate(names)}
    return gantt, dur, colors


def load(path, json_fmt):
    if json_fmt:
        with open(path) as f:
            doc = json.load(f)
        return doc["columns"], doc["data"], doc.get("colors")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]], None


def main():
    pproc, outdir, h5, case = sys.argv[1:5]
    out = os.path.join(outdir, f"export_data_{case}")
    shutil.rmtree(out, ignore_errors=True)
    args = [pproc, h5, "-o", out, "--export-data", "--skip-plot-images"]
    metrics, ranks, min_d, top = ["avg", "min", "max", "total"], None, 0.0, 0
    if case == "top":
        args += ["--top-n", "2", "--min-duration", "0.3"]
        min_d, top = 0.3, 2
    if case in ("json", "cmap"):
        args += ["--export-data-format", "json"]
    cmap = "plasma" if case == "cmap" else None
    if cmap:
        args += ["--cmap", cmap]
    if case == "flame":
        args += ["--ranks", "0", "1"]
        ranks = {0, 1}
    if case == "metrics":
        args += ["--metrics", "avg,total", "--ranks", "1-2"]
        metrics, ranks = ["avg", "total"], {1, 2}
    subprocess.run(args, check=True)
    pngs = [f for f in os.listdir(out) if f.endswith(".png")]
    assert not pngs, f"--skip-plot-images wrote {pngs}"
    gantt, dur, colors = expected(h5, ranks, metrics, min_d, top, cmap)
    js = case in ("json", "cmap")
    ext = "json" if js else "csv"
    cols, rows, got_colors = load(os.path.join(out, f"gantt_data.{ext}"), js)
    assert cols == ["file", "rank", "region", "start_seconds", "end_seconds"], cols
    got = sorted((r["file"], int(r["rank"]), r["region"], float(r["start_seconds"]),
                  float(r["end_seconds"])) for r in rows)
    exp = sorted(gantt)
    assert len(got) == len(exp), f"gantt_data: {len(got)} rows, numpy {len(exp)}"
    for g, e in zip(got, exp):
        assert g[:3] == e[:3] and abs(g[3] - e[3]) < 1e-8 and abs(g[4] - e[4]) < 1e-8, (g, e)
    cols, rows, got_colors2 = load(os.path.join(out, f"durations_data.{ext}"), js)
    assert cols == ["file", "region", "metric", "value_seconds"], cols
    gd = {(r["file"], r["region"], r["metric"]): float(r["value_seconds"]) for r in rows}
    assert len(gd) == len(rows), "durations_data: duplicate rows"
    assert set(gd) == set(dur), f"durations_data keys differ: {sorted(set(gd) ^ set(dur))}"
    for k, v in dur.items():
        assert abs(gd[k] - v) <= 1e-9 + 1e-9 * abs(v), (k, gd[k], v)
    if js:
        for c in (got_colors, got_colors2):
            assert c == colors, f"colors {c} != {colors}"
    cols, rows, _ = load(os.path.join(out, f"flame_data.{ext}"), js)
    assert cols == ["file", "rank", "region", "depth", "start_seconds", "end_seconds"], cols
    gotf = sorted((r["file"], int(r["rank"]), r["region"], int(r["depth"]),
                   float(r["start_seconds"]), float(r["end_seconds"])) for r in rows)
    expf = sorted(flame_rows(h5, ranks if ranks else {0}, ranks))
    assert len(gotf) == len(expf), f"flame_data: {len(gotf)} rows, expected {len(expf)}"
    for g, e in zip(gotf, expf):
        assert g[:4] == e[:4] and abs(g[4] - e[4]) < 1e-8 and abs(g[5] - e[5]) < 1e-8, (g, e)
    print(f"{case}: {len(gotf)} flame rows, {len(got)} gantt rows and {len(gd)} duration rows match numpy")


if __name__ == "__main__":
    main()
