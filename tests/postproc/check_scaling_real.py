"""check_scaling_real.py - the scaling charts on data shaped like real runs
(issue 38): a region that does nothing on the baseline, values that span
decades, a weak-scaling set, labels and titles.

Writes runs of 1, 2 and 4 ranks with h5py (5 calls a region a rank):
  solve   strong scaling: 1.0, 0.5, 0.25 s a call
  idle    0.2 us a call on the baseline (does nothing there), 1.2 ms later
  grow    1 ms, 100 ms, 500 ms a call (spans decades)
  mild    10 ms, 15 ms, 20 ms a call

CASES
  near_zero   speedup_data and weak_scaling_data have no row for idle, and
              one stderr line names it (before: idle at x6000)
  log_axis    weak_scaling_plot: the 'mild' line (1 -> 2) is not flattened
              by 'grow' (1 -> 500): it spans > 20 px in the PNG
  labels      every line is labelled at its end: its colour right of the last
              x in the plot; the speedup chart has a y title
  weak_strong --work-per-rank with --plots all: no speedup or efficiency
              chart (a word on stderr); naming speedup with it: exit 2

usage: check_scaling_real.py PPROC OUTDIR CASE"""
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0, S = 10**12, 10**9
RUNS = [(1, {"solve": 1.0, "idle": 0.2e-6, "grow": 1e-3, "mild": 10e-3}),
        (2, {"solve": 0.5, "idle": 1.2e-3, "grow": 100e-3, "mild": 15e-3}),
        (4, {"solve": 0.25, "idle": 1.2e-3, "grow": 500e-3, "mild": 20e-3})]
W, H = 1000, 700


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def write(path, ranks, means):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r in range(ranks):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, d in means.items():
                dur = np.full(5, max(1, int(round(d * S))), dtype=np.int64)
                st = T0 + np.arange(5, dtype=np.int64) * 2 * S
                g = regs.create_group(name)
                g.create_dataset("start_times", data=st)
                g.create_dataset("end_times", data=st + dur)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(5)


def runs(out):
    os.makedirs(out, exist_ok=True)
    files = []
    for ranks, means in RUNS:
        files.append(os.path.join(out, f"r{ranks}.h5"))
        write(files[-1], ranks, means)
    return files


def pproc(pp, files, out, args, rc=0):
    p = subprocess.run([pp] + files + ["-o", out, "--width", str(W), "--height", str(H)] + args,
                       capture_output=True, text=True)
    print(p.stderr, end="")
    if p.returncode != rc:
        fail("exit %d (want %d)" % (p.returncode, rc))
    return p


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def case_near_zero(pp, out):
    p = pproc(pp, runs(out), out, ["--plots", "speedup,weak_scaling", "--export-data"])
    for name in ("speedup_data.csv", "weak_scaling_data.csv"):
        got = rows(os.path.join(out, name))
        idle = [r for r in got if r["region"] == "idle"]
        print(name, len(got), "rows; idle:", idle)
        if idle:
            fail("%s: idle (0.2 us a call at the baseline) has ratios" % name)
        if not any(r["region"] == "solve" for r in got):
            fail("%s: solve has no row" % name)
    said = [l for l in p.stderr.split("\n") if "left out of the ratios" in l]
    if len(said) != 2 or not all("idle" in l for l in said):
        fail("want one line per chart naming idle, got %s" % said)


def legend_colours(img):
    """The solid swatch colours of the legend (right of the plot)."""
    box = img[:, int(0.80 * W):, :3].reshape(-1, 3).astype(int)
    sat = box[box.max(axis=1) - box.min(axis=1) > 80]
    cs, n = np.unique(sat, axis=0, return_counts=True)
    return [tuple(c) for c, k in zip(cs, n) if k >= 100]


def colours(img, x0, x1, y0, y1, tol=40, least=10):
    """Per legend colour, the pixel rows of the box near it (anti-aliased
    edges are left out)."""
    box = img[y0:y1, x0:x1, :3].astype(int)
    res = {}
    for c in legend_colours(img):
        near = np.abs(box - np.array(c)).sum(axis=2) < tol
        ys = np.nonzero(near)[0]
        if len(ys) >= least:
            res[c] = list(ys + y0)
    return res


def plot_box():
    """Pixel columns of the data x range (1 .. 4 ranks) and rows of the plot
    area (the viewport of chart_speedup.c: x 0.11 .. 0.80, y 70 px from the
    bottom, 50 px from the top; x window 1 - 0.15 .. 4 + 0.66)."""
    vx0, vx1 = 0.11 * W, 0.80 * W
    lo, hi = 1 - 0.05 * 3, 4 + 0.22 * 3
    col = lambda x: int(vx0 + (x - lo) / (hi - lo) * (vx1 - vx0))  # noqa: E731
    return col, 50, H - 70, int(vx1)


def case_log_axis(pp, out):
    pproc(pp, runs(out), out, ["--plots", "weak_scaling"])
    img = read_png(os.path.join(out, "weak_scaling_plot.png"))
    col, top, bottom, _ = plot_box()
    # the middle of the data x range: line segments only (no labels, no legend)
    cs = colours(img, col(1.6), col(3.4), top, bottom)
    ext = sorted((max(v) - min(v), c) for c, v in cs.items())
    print("line colours and their vertical extent (px):", ext)
    if len(ext) < 3:
        fail("want the lines of solve, grow and mild, found %d colours" % len(ext))
    if ext[0][0] < 20:
        fail("a line spans %d px: flattened by the others (linear axis)" % ext[0][0])


def case_labels(pp, out):
    pproc(pp, runs(out), out, ["--plots", "speedup,weak_scaling"])
    col, top, bottom, vx1 = plot_box()
    for chart in ("speedup", "weak_scaling"):
        img = read_png(os.path.join(out, chart + "_plot.png"))
        lines = colours(img, col(1.6), col(3.4), top, bottom)
        right = colours(img, col(4) + 8, vx1 - 2, top, bottom, tol=100, least=8)
        print(chart, "line colours", sorted(lines), "right of the last x", sorted(right))
        missing = [c for c in lines if c not in right]
        if missing:
            fail("%s: lines %s have no label at their end" % (chart, missing))
        # y title: dark pixels left of the tick labels (x 40 .. 80 px), mid height
        left = img[H // 3:2 * H // 3, 40:80, :3].astype(int).sum(axis=2)
        if (left < 300).sum() < 30:
            fail("%s: no y title" % chart)


def case_weak_strong(pp, out):
    files = runs(out)
    p = pproc(pp, files, out, ["--plots", "all", "--work-per-rank", "1", "1", "1"])
    for chart in ("speedup_plot.png", "scaling_efficiency_plot.png"):
        if os.path.exists(os.path.join(out, chart)):
            fail("%s drawn for a set --work-per-rank declares weak scaling" % chart)
    if not os.path.exists(os.path.join(out, "weak_scaling_plot.png")):
        fail("no weak_scaling_plot")
    if "declares a weak-scaling study" not in p.stderr:
        fail("no word on stderr")
    p = pproc(pp, files, out, ["--plots", "weak_scaling,speedup", "--work-per-rank", "1", "1", "1"],
              rc=2)


def main():
    pp, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, "scaling_real_" + case)
    shutil.rmtree(out, ignore_errors=True)
    globals()["case_" + case](pp, out)
    print("ok")


if __name__ == "__main__":
    main()
