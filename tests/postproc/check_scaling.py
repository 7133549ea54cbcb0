"""check_scaling.py - weak_scaling and scaling_efficiency (plots and data)
against numpy.

The three runs of check_speedup.py (2 ranks twice, to be averaged, and 4
ranks; regions "solve", "io" and one region only in the 4-rank run, which is
not common). Runs scope-profiler-pproc --plots weak_scaling|scaling_efficiency
--export-data and compares every row of the data file with the reference
tool's rule computed here: mean duration per call over the ranks per file,
files with the same x averaged, baseline = smallest x (first in command-line
order for categories);
  weak_scaling_data        region,<x>,normalized_runtime = mean / baseline mean
  scaling_efficiency_data  region,<x>,efficiency = (baseline / mean) / (x / smallest x)

usage: check_scaling.py PPROC OUTDIR CASE
  CASE: weak_num_ranks, weak_category, weak_json_work, efficiency_num_ranks,
        efficiency_threads, all"""
import csv
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_speedup import RUNS, write  # noqa: E402  (the same three runs)

CASES = {  # case: (chart, x field, extra options)
    "weak_num_ranks": ("weak_scaling", "num_ranks", []),
    "weak_category": ("weak_scaling", "hostname", []),
    "weak_json_work": ("weak_scaling", "num_ranks",
                       ["--export-data-format", "json", "--work-per-rank", "1e6,1e6", "1e6"]),
    "efficiency_num_ranks": ("scaling_efficiency", "num_ranks", []),
    "efficiency_threads": ("scaling_efficiency", "omp_num_threads", []),
    "all": ("all", "num_ranks", []),
}


def expected(chart, means, xs, numeric):
    groups = sorted(set(xs)) if numeric else list(dict.fromkeys(xs))
    exp = {}
    for region in ("solve", "io"):
        per = [np.mean([m[region] for m, x in zip(means, xs) if x == g]) for g in groups]
        for g, v in zip(groups, per):
            if chart == "weak_scaling":
                exp[(region, str(g))] = v / per[0]
            else:
                exp[(region, str(g))] = (per[0] / v) / (g / groups[0])
    return exp, groups


def read_rows(path, json_format):
    if json_format:
        with open(path) as f:
            doc = json.load(f)
        cols = doc["columns"]
        return cols, [[str(r[c]) for c in cols] for r in doc["data"]], doc
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:], None


def check_file(out, chart, field, means, xs, json_format):
    numeric = field != "hostname"
    exp, groups = expected(chart, means, xs, numeric)
    col = {"weak_scaling": "normalized_runtime", "scaling_efficiency": "efficiency"}[chart]
    path = os.path.join(out, f"{chart}_data." + ("json" if json_format else "csv"))
    cols, rows, doc = read_rows(path, json_format)
    assert cols == ["region", field, col], cols
    got = {(r[0], r[1]): float(r[2]) for r in rows}
    assert set(got) == set(exp), f"rows {sorted(got)} != {sorted(exp)}"
    bad = 0
    for k, v in exp.items():
        ok = abs(got[k] - v) <= 1e-6 * abs(v)
        bad += not ok
        print(f"{chart} {k}: {got[k]:.6f} numpy {v:.6f} {'ok' if ok else 'WRONG'}")
    png = os.path.join(out, f"{chart}_plot.png")
    assert os.path.getsize(png) > 0, png
    return bad, doc, groups


def main():
    pproc, outdir, case = sys.argv[1:4]
    chart, field, extra = CASES[case]
    out = os.path.join(outdir, f"scaling_{case}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    means, xs, files = [], [], []
    for name, ranks, solve, io, threads, host in RUNS:
        path = os.path.join(out, name + ".h5")
        means.append(write(path, ranks, solve, io, threads, host, extra=ranks == 4))
        xs.append({"num_ranks": ranks, "omp_num_threads": threads, "hostname": host}[field])
        files.append(path)
    subprocess.run([pproc] + files + ["-o", out, "--plots", chart, "--export-data",
                                      "--x-field", field, "--width", "800"] + extra, check=True)
    json_format = "json" in extra
    charts = ["weak_scaling", "scaling_efficiency"] if chart == "all" else [chart]
    bad = 0
    for ch in charts:
        b, doc, groups = check_file(out, ch, field, means, xs, json_format)
        bad += b
        if doc is not None:
            opts = doc["options"]
            print("options:", opts)
            assert opts["x_field"] == field and opts["baseline"] == groups[0], opts
            assert opts["work_per_rank"] == 1e6, opts
            assert set(doc["colors"]) >= {"solve", "io"}, doc["colors"]
    if chart == "all":  # every chart of "all" is written, the scaling ones among them
        for name in ("speedup_plot", "gantt_plot", "durations_plot_avg"):
            assert os.path.getsize(os.path.join(out, name + ".png")) > 0, name
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
