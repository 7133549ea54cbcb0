"""check_aggregate_charts.py - the charts of the reference tool's aggregate
files (storage_layout "aggregate": no stamps, per (region, rank) counts,
totals, minimums, maximums and exclusive times; make_reference_files.py).

Runs scope-profiler-pproc FILE -o DIR --export-data and compares the
numbers with numpy over the aggregate columns read with h5py:
  single   ref_aggregate.h5, default charts: exit 0; durations_data (avg =
           sum of totals / sum of counts, min of minimums, max of maximums,
           sum of totals, per region over the ranks); the four duration
           charts and the rank heat map written, every heat map cell's colour
           = rank total / mean over ranks (check_heatmap.py's scale; grey
           where the rank has no row); no chart drawn from stamps, and one
           line saying the file holds no stamps
  counts   ref_aggregate_counts.h5 (counts only): exit 1, no chart,
           durations_data without a row (no time is invented)
  min_duration  --min-duration 0.009: only the regions whose stored min and
           max tell which calls pass (main: all, io: none) keep figures
  scaling  ref_aggregate.h5 (/metadata total_cores 3) and a copy with the
           times and calls of each region scaled by its own factors and
           total_cores 6, --x-field total_cores: speedup, weak_scaling and scaling_efficiency data =
           (baseline mean / mean), (mean / baseline mean), speedup / (6 / 3),
           mean = sum of totals / sum of counts; the three PNGs written

usage: check_aggregate_charts.py PPROC REFDIR OUTDIR CASE"""
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_heatmap import GREY, colour  # noqa: E402
from png_read import read_png  # noqa: E402

W, H = 800, 600
# The copy of the scaling case: times of region id i times SCALE[i], calls
# times CALLS[i] (every mean changes by its own factor).
SCALE = [(1, 2), (4, 5), (3, 10), (3, 2)]
CALLS = [1, 2, 1, 1]
STAMP_CHARTS = ("gantt_plot", "flame_plot", "flame_graph_plot", "duration_timeseries_plot",
                "histogram_plot", "timeline_density_plot")


def columns(path):
    """{region: {rank: (count, total, min, max)}} in ns (None: not stored)."""
    out = {}
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        col = {k: idx["aggregate_" + k][()] if "aggregate_" + k in idx else None
               for k in ("counts", "totals", "minimums", "maximums")}
        for i, (g, r) in enumerate(zip(idx["region_ids"][()], idx["ranks"][()])):
            vals = [None if col[k] is None else int(col[k][i])
                    for k in ("counts", "totals", "minimums", "maximums")]
            out.setdefault(names[g], {})[int(r)] = vals
    return out


def metrics(per_rank, nranks):
    """The reference tool's rule over the calls of the ranks, in seconds, and
    total_per_rank, the durations chart's bar: the stored totals (threads
    and nesting unknown) over the nranks ranks of the file."""
    v = list(per_rank.values())
    n = sum(x[0] for x in v)
    tot = sum(x[1] for x in v)
    return {"avg": tot / n / 1e9, "min": min(x[2] for x in v) / 1e9,
            "max": max(x[3] for x in v) / 1e9, "total": tot / 1e9,
            "total_per_rank": tot / nranks / 1e9}


def nranks_of(cols):
    return len({r for per in cols.values() for r in per})


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def run(pproc, args):
    p = subprocess.run([pproc] + args, capture_output=True, text=True)
    sys.stderr.write(p.stderr)
    return p


def close(a, b):
    return abs(a - b) <= 1e-9 + 1e-6 * abs(b)


def compare(what, got, exp):
    """Rows {key: value} against numpy's; returns the mismatches."""
    assert set(got) == set(exp), f"{what}: rows {sorted(got)} != {sorted(exp)}"
    bad = 0
    for k, v in sorted(exp.items()):
        ok = close(got[k], v)
        bad += not ok
        print(f"{what} {k}: {got[k]:.9f} numpy {v:.9f} {'ok' if ok else 'WRONG'}")
    return bad


def check_heatmap(png, cols, order):
    """Cells of rank_heatmap_plot (chart_heatmap.c's plot area, as in
    check_heatmap.py): order = the regions left to right."""
    img = read_png(png)[:, :, :3].astype(float)
    ranks = sorted({r for per in cols.values() for r in per})
    x0, x1, y0, y1 = 0.10 * W, 0.86 * W, 50.0, H - 180.0
    bad = 0
    for j, name in enumerate(order):
        tot = np.array([cols[name][r][1] if r in cols[name] else 0 for r in ranks], float)
        ratio = tot / tot.mean()
        for k, r in enumerate(ranks):
            cx = int(x0 + (j + 0.5) * (x1 - x0) / len(order))
            cy = int(y0 + (k + 0.5) * (y1 - y0) / len(ranks))
            got = img[cy - 2:cy + 3, cx - 2:cx + 3].reshape(-1, 3).mean(axis=0)
            want = GREY if r not in cols[name] else colour(ratio[k])
            ok = np.all(np.abs(got - want) <= 12)
            bad += not ok
            print(f"heat map {name} rank {r}: ratio {ratio[k]:.3f} colour {got.round()} "
                  f"expected {want.round()} {'ok' if ok else 'WRONG'}")
    return bad


def case_single(pproc, ref, out):
    h5 = os.path.join(ref, "ref_aggregate.h5")
    p = run(pproc, [h5, "-o", out, "--export-data", "--width", str(W), "--height", str(H)])
    assert p.returncode == 0, f"exit {p.returncode}"
    lines = [x for x in p.stderr.splitlines() if "holds no stamps" in x]
    assert len(lines) == 1 and lines[0].startswith("scope-profiler-pproc: "), lines
    cols = columns(h5)
    head, rows = read_csv(os.path.join(out, "durations_data.csv"))
    assert head == ["file", "region", "metric", "value_seconds"], head
    got = {(r[1], r[2]): float(r[3]) for r in rows}
    exp = {(g, m): v for g, per in cols.items() for m, v in metrics(per, nranks_of(cols)).items()}
    bad = compare("durations", got, exp)
    for m in ("avg", "min", "max", "total"):
        assert os.path.getsize(os.path.join(out, f"durations_plot_{m}.png")) > 0, m
    for name in STAMP_CHARTS:
        assert not os.path.exists(os.path.join(out, name + ".png")), name
    order = list(dict.fromkeys(r[1] for r in rows))  # the charts' region order
    # the heat map's columns: the most time per rank first (ties: chart order)
    mean = {g: sum(v[1] for v in cols[g].values()) for g in order}
    order = sorted(order, key=lambda g: -mean[g])
    return bad + check_heatmap(os.path.join(out, "rank_heatmap_plot.png"), cols, order)


def case_counts(pproc, ref, out):
    h5 = os.path.join(ref, "ref_aggregate_counts.h5")
    p = run(pproc, [h5, "-o", out, "--export-data"])
    assert p.returncode == 1, f"exit {p.returncode}"
    assert "holds no stamps" in p.stderr and "nothing to draw" in p.stderr, p.stderr
    pngs = [f for f in os.listdir(out) if f.endswith(".png")]
    assert not pngs, f"charts drawn without stored times: {pngs}"
    head, rows = read_csv(os.path.join(out, "durations_data.csv"))
    assert rows == [], f"times invented: {rows}"
    print("counts only: exit 1, no chart, no duration row")
    return 0


def case_min_duration(pproc, ref, out):
    """--min-duration 0.009 s: main (every call >= 0.098 s) keeps its stored
    figures, io (every call <= 0.005 s) has none left; solver/rhs and omp
    have calls on both sides of 0.009 s on some rank: unknown, left out (not
    the figures of their other ranks alone)."""
    h5 = os.path.join(ref, "ref_aggregate.h5")
    p = run(pproc, [h5, "-o", out, "--export-data", "--plots", "durations,rank_heatmap",
                    "--min-duration", "0.009"])
    assert p.returncode == 0, f"exit {p.returncode}"
    head, rows = read_csv(os.path.join(out, "durations_data.csv"))
    got = {(r[1], r[2]): float(r[3]) for r in rows}
    cols = columns(h5)
    exp = {("main", m): v for m, v in metrics(cols["main"], nranks_of(cols)).items()}
    bad = compare("durations", got, exp)
    for region in ("solver/rhs", "omp"):
        assert f"region '{region}' left out" in p.stderr, region
    return bad


def case_scaling(pproc, ref, out):
    a = os.path.join(out, "ref_aggregate.h5")
    b = os.path.join(out, "ref_aggregate_half.h5")
    shutil.copy(os.path.join(ref, "ref_aggregate.h5"), a)
    shutil.copy(a, b)
    with h5py.File(a, "r+") as f:
        f["metadata"].attrs["total_cores"] = 3
    with h5py.File(b, "r+") as f:
        idx = f["rank_region_index"]
        num, den = np.array(SCALE).T[:, idx["region_ids"][()]]
        for k in ("totals", "minimums", "maximums", "exclusives"):
            idx["aggregate_" + k][...] = idx["aggregate_" + k][()] * num // den
        idx["aggregate_counts"][...] = idx["aggregate_counts"][()] * np.array(CALLS)[
            idx["region_ids"][()]]
        f["metadata"].attrs["total_cores"] = 6
    plots = "speedup,weak_scaling,scaling_efficiency"
    p = run(pproc, [a, b, "-o", out, "--plots", plots, "--export-data", "--x-field",
                    "total_cores", "--width", "800"])
    assert p.returncode == 0, f"exit {p.returncode}"
    ma = {g: metrics(per, 1)["avg"] for g, per in columns(a).items()}
    mb = {g: metrics(per, 1)["avg"] for g, per in columns(b).items()}
    bad = 0
    for chart, col in (("speedup", "speedup"), ("weak_scaling", "normalized_runtime"),
                       ("scaling_efficiency", "efficiency")):
        head, rows = read_csv(os.path.join(out, f"{chart}_data.csv"))
        assert head == ["region", "total_cores", col], head
        got = {(r[0], r[1]): float(r[2]) for r in rows}
        exp = {}
        for g in ma:
            val = {"speedup": (1.0, ma[g] / mb[g]), "weak_scaling": (1.0, mb[g] / ma[g]),
                   "scaling_efficiency": (1.0, ma[g] / mb[g] / 2)}[chart]
            exp[(g, "3")], exp[(g, "6")] = val
        bad += compare(chart, got, exp)
        assert os.path.getsize(os.path.join(out, f"{chart}_plot.png")) > 0, chart
    return bad


def main():
    pproc, ref, outdir, case = sys.argv[1:5]
    out = os.path.join(outdir, f"aggregate_{case}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    bad = {"single": case_single, "scaling": case_scaling, "counts": case_counts,
           "min_duration": case_min_duration}[case](
        pproc, ref, out)
    print(f"{bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
