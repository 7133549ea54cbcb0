"""check_scaling_missing.py - the scaling charts when a file has no timed call
of a common region.

Writes small runs with h5py (check_speedup.py's writer: regions "solve" and
"io", mean per call known), then empties "io" in one of them (its datasets
kept, with no calls: the region stays common to all files). The reference
tool (plotting_scripts/scaling.py) leaves such a file out of the region's
samples: a group mean is over the files with a timed call, a group with
none has no point, a region with no point at the baseline (smallest x) has
no line. Runs --plots speedup,weak_scaling,scaling_efficiency --export-data
and compares every row of the three data files with that rule computed here
with numpy; stderr must name the file and the region once (not once per
chart), and hold no PLplot error. In the "point" case the io line of
speedup_plot.png must cross x = 6 (joining its points at 2 and 8).

usage: check_scaling_missing.py PPROC OUTDIR CASE
  CASE: group    2 ranks twice (io empty in the second), 4 ranks: the 2-rank
                 mean of io is the first file's alone
        point    2, 4 (io empty), 8 ranks: io has no point at 4
        baseline 2 (io empty), 4, 8 ranks: io has no line, solve has"""
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_speedup import write  # noqa: E402
from png_read import read_png  # noqa: E402

CASES = {  # case: runs (name, ranks, solve s, io s, io emptied)
    "group": [("a2", 2, 1.00, 0.20, False), ("b2", 2, 1.10, 0.22, True),
              ("c4", 4, 0.52, 0.25, False)],
    "point": [("a2", 2, 1.00, 0.20, False), ("c4", 4, 0.52, 0.25, True),
              ("d8", 8, 0.27, 0.30, False)],
    "baseline": [("a2", 2, 1.00, 0.20, True), ("c4", 4, 0.52, 0.25, False),
                 ("d8", 8, 0.27, 0.30, False)],
}
COLUMN = {"speedup": "speedup", "weak_scaling": "normalized_runtime",
          "scaling_efficiency": "efficiency"}


def empty_io(path):
    """Every rank's io with zero calls (the group and its datasets kept)."""
    with h5py.File(path, "r+") as f:
        for r in f:
            if not r.startswith("rank"):
                continue
            g = f[r]["regions"]["io"]
            for ds in ("start_times", "end_times"):
                del g[ds]
                g.create_dataset(ds, data=np.zeros(0, dtype=np.int64))
            g.attrs["num_calls"] = np.int64(0)


def expected(chart, samples):
    """The reference tool's rows: {(region, x): value}."""
    xs = sorted({x for per in samples.values() for x in per})
    exp = {}
    for region, per in samples.items():
        base = per.get(xs[0], [])
        if not base:
            continue  # no baseline: no line
        b = float(np.mean(base))
        for x in xs:
            if not per.get(x):
                continue  # no sample: no point
            m = float(np.mean(per[x]))
            exp[(region, str(x))] = {"speedup": b / m, "weak_scaling": m / b,
                                     "scaling_efficiency": (b / m) / (x / xs[0])}[chart]
    return exp


def lines_at(png, x, xs):
    """Coloured lines crossing the pixel column of x in a scaling chart
    (viewport 0.08..0.80 of the width, world x from the smallest to the
    largest x with 5% padding): runs of pixels with chroma > 40."""
    img = read_png(png)[:, :, :3].astype(int)
    lo, hi = xs[0], xs[-1]
    pad = 0.05 * (hi - lo)
    col = int(img.shape[1] * (0.08 + 0.72 * (x - lo + pad) / (hi - lo + 2 * pad)))
    c = img[:, col]
    colour = (c.max(axis=1) - c.min(axis=1)) > 40
    return int(np.sum(colour[1:] & ~colour[:-1]) + colour[0])


def main():
    pproc, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, f"scaling_missing_{case}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    files, samples, emptied = [], {"solve": {}, "io": {}}, []
    for name, ranks, solve, io, empty in CASES[case]:
        path = os.path.join(out, name + ".h5")
        means = write(path, ranks, solve, io, 8, "alpha", extra=False)
        if empty:
            empty_io(path)
            emptied.append(path)
        for region in ("solve", "io"):
            if not (empty and region == "io"):
                samples[region].setdefault(ranks, []).append(means[region])
        files.append(path)
    cmd = [pproc] + files + ["-o", out, "--plots", "speedup,weak_scaling,scaling_efficiency",
                             "--export-data", "--width", "800"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(" ".join(cmd), "\nexit", r.returncode, "\nstderr:\n" + r.stderr)
    assert r.returncode == 0, f"exit {r.returncode}"
    assert "PLPLOT" not in r.stderr and "plotting error" not in r.stderr, "PLplot error"
    for path in emptied:
        lines = [ln for ln in r.stderr.splitlines() if path in ln and "'io'" in ln]
        assert len(lines) == 1, f"{len(lines)} lines name {path} and io, expected 1"
        assert lines[0].startswith("scope-profiler-pproc: ") and "left out" in lines[0], lines[0]
    named = [ln for ln in r.stderr.splitlines() if "left out" in ln]
    assert len(named) == len(emptied), f"{len(named)} 'left out' lines for {len(emptied)} files"
    bad = 0
    for chart, col in COLUMN.items():
        exp = expected(chart, samples)
        with open(os.path.join(out, f"{chart}_data.csv"), newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0] == ["region", "num_ranks", col], rows[0]
        got = {(row[0], row[1]): float(row[2]) for row in rows[1:]}
        assert set(got) == set(exp), f"{chart}: rows {sorted(got)} != numpy {sorted(exp)}"
        for k, v in sorted(exp.items()):
            ok = abs(got[k] - v) <= 1e-6 * abs(v)
            bad += not ok
            print(f"{chart} {k}: {got[k]:.6f} numpy {v:.6f} {'ok' if ok else 'WRONG'}")
        assert os.path.getsize(os.path.join(out, f"{chart}_plot.png")) > 0, chart
    if case == "point":  # io has no point at 4: its line joins 2 and 8, across x = 6
        n = lines_at(os.path.join(out, "speedup_plot.png"), 6, [2, 4, 8])
        print(f"coloured lines across x = 6 in speedup_plot.png: {n}")
        assert n == 2, f"{n} coloured lines across x = 6, expected 2 (solve and io)"
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
