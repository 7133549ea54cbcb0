"""check_speedup.py - speedup_plot and speedup_data against numpy.

Writes three runs with h5py: 2 ranks (twice, to be averaged) and 4 ranks,
regions "solve" (scaling) and "io" (not), plus one region only in the
4-rank run (not common: left out), and /metadata attributes. Runs
scope-profiler-pproc --plots speedup --export-data and compares every row
of speedup_data (region,<x_field>,speedup) with the reference tool's rule
computed here: mean duration per call over the ranks per file, files with
the same x averaged, baseline = smallest x, speedup = baseline / mean.

usage: check_speedup.py PPROC OUTDIR CASE   (CASE: num_ranks, threads, category)"""
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

T0, S = 10**12, 10**9
RUNS = [  # (file, ranks, solve seconds per call, io seconds per call, threads, host)
    ("a2", 2, 1.00, 0.20, 8, "alpha"),
    ("b2", 2, 1.10, 0.22, 8, "alpha"),
    ("c4", 4, 0.52, 0.25, 16, "beta"),
]


def write(path, ranks, solve, io, threads, host, extra):
    rng = np.random.default_rng(ranks)
    calls = {}
    with h5py.File(path, "w") as f:
        md = f.create_group("metadata")
        md.attrs["omp_num_threads"] = np.int64(threads)
        md.attrs["hostname"] = host
        for r in range(ranks):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, d in (("solve", solve), ("io", io)) + (("extra", 0.1),) * extra:
                n = 5
                dur = (d * S * (1 + 0.1 * rng.standard_normal(n))).astype(np.int64)
                st = T0 + np.arange(n) * 3 * S
                g = regs.create_group(name)
                g.create_dataset("start_times", data=st)
                g.create_dataset("end_times", data=st + dur)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(n)
                calls.setdefault(name, []).append(dur * 1e-9)
    return {k: np.concatenate(v).mean() for k, v in calls.items()}


def main():
    pproc, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, f"speedup_{case}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    means, xs = [], []
    field = {"num_ranks": "num_ranks", "threads": "omp_num_threads", "category": "hostname"}[case]
    files = []
    for name, ranks, solve, io, threads, host in RUNS:
        path = os.path.join(out, name + ".h5")
        means.append(write(path, ranks, solve, io, threads, host, extra=ranks == 4))
        xs.append({"num_ranks": ranks, "omp_num_threads": threads, "hostname": host}[field])
        files.append(path)
    subprocess.run([pproc] + files + ["-o", out, "--plots", "speedup", "--export-data",
                                      "--x-field", field, "--width", "800"], check=True)
    groups = sorted(set(xs)) if case != "category" else list(dict.fromkeys(xs))
    exp = {}
    for region in ("solve", "io"):
        per = [np.mean([m[region] for m, x in zip(means, xs) if x == g]) for g in groups]
        for g, v in zip(groups, per):
            exp[(region, str(g))] = per[0] / v
    with open(os.path.join(out, "speedup_data.csv"), newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["region", field, "speedup"], rows[0]
    got = {(r[0], r[1]): float(r[2]) for r in rows[1:]}
    assert set(got) == set(exp), f"rows {sorted(got)} != {sorted(exp)}"
    bad = 0
    for k, v in exp.items():
        ok = abs(got[k] - v) <= 1e-6 * v
        bad += not ok
        print(f"{k}: {got[k]:.6f} numpy {v:.6f} {'ok' if ok else 'WRONG'}")
    assert os.path.getsize(os.path.join(out, "speedup_plot.png")) > 0
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
