"""check_timeseries_steps.py - duration_timeseries' series against numpy, the
same picture streamed and loaded (issue 47: the steps binned per pixel column
as they are read, timeseries_steps.c).

Writes DIR/steps.h5 with h5py, 3 ranks, calls on 2 to 4 threads stored
thread by thread (the core's order), many of them starting at the same
nanosecond on several threads with different durations (the step order is
start, then stored order: the reader's merge by start puts the longer call
first, which must not show), some shorter than --min-duration (no steps):
  few    14 to 27 start slots a rank (at most 83 steps): fewer steps than
         columns (a column a step)
  many   1,100 to 2,200 slots a rank (at most 6,725 steps): more than the
         688 columns of --width 800 (9 or 10 steps a column, over the ranks)
For each region (--include) draws --plots duration_timeseries --format svg
--width 800 --min-duration 1e-6 with every pair streamed
(SCOPE_PROFILER_READER_STREAM=0: the reader's merge by start) and loaded
(10^12), asserts the same bytes (the PNGs too), and reads the SVG's mean line
(a polyline) and min..max band (a polygon): numpy's binning of the steps
(per column over its steps of every rank: min, max, mean) mapped to the page
by the first column (its min and max fix the y scale; the columns' ends the x
scale) must lie on them within 0.1 pt at every column.

usage: check_timeseries_steps.py PPROC DIR"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

T0 = 10**12
MIN_D = 1e-6
WIDTH = 800
NCOLS = int(0.86 * WIDTH)
RANKS = {"few": (20, 14, 27), "many": (1500, 1100, 2200)}  # start slots a rank


def calls(rank, slots, seed):
    """Starts, ends, threads of one pair, stored thread by thread: slot j
    starts at T0 + 10 us * j on threads 0..2 (thread 3 every 5th slot), the
    later threads' calls longer (so the merge's longer-first order of a tie
    is the stored order reversed); every 7th call of thread 1 lasts 0.5 us
    (under --min-duration)."""
    rng = np.random.default_rng(seed + 17 * rank)
    s, e, t = [], [], []
    for th in range(4):
        j = np.arange(slots) if th < 3 else np.arange(0, slots, 5)
        st = T0 + 10000 * j.astype(np.int64)
        d = (1000 + 600 * th + rng.integers(0, 2000, len(j)) + 40 * rank).astype(np.int64)
        if th == 1:
            d[::7] = 500
        s.append(st), e.append(st + d), t.append(np.full(len(j), th, np.int32))
    return np.concatenate(s), np.concatenate(e), np.concatenate(t)


def write(path):
    pairs = {}
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for name, slots in RANKS.items():
            for r, n in enumerate(slots):
                s, e, t = calls(r, n, len(name))
                g = f.require_group(f"rank{r}/regions").create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(s))
                g["start_times"], g["end_times"], g["thread_ids"] = s, e, t
                pairs.setdefault(name, []).append((s, e))
    return pairs


def oracle(pairs):
    """Per column: x (its steps' middle), min, max, mean of its steps over
    the ranks (seconds)."""
    steps = []
    for s, e in pairs:
        order = np.argsort(s, kind="stable")  # start, then stored order
        d = (e - s)[order] * 1e-9
        steps.append(d[d >= MIN_D])
    n = max(len(d) for d in steps)
    nb = min(n, NCOLS)
    cols = []
    for b in range(nb):
        a, z = n * b // nb, n * (b + 1) // nb
        v = np.concatenate([d[a:z] for d in steps])
        cols.append((0.5 * (a + z - 1), v.min(), v.max(), v.mean()))
    return np.array(cols), n, nb


def paths(svg):
    """(band polygon, mean polyline) of the panel, as (N, 2) arrays: the
    region colour's filled path, and its stroked ones (a long line comes in
    several pieces, each starting where the last one ended) joined."""
    band, line = None, []
    for m in re.finditer(r'<path style="([^"]*)" d="([^"]*)"', svg):
        style, d = m.group(1), m.group(2)
        pts = [[float(a), float(b)] for a, b in re.findall(r"[ML] ([-0-9.]+) ([-0-9.]+)", d)]
        if "fill-opacity:0.3" in style:
            band = np.array(pts)
        elif "fill:none" in style and "stroke:rgb(0%,0%,0%)" not in style and len(pts) > 2:
            line += pts[1:] if line and line[-1] == pts[0] else pts
    return band, np.array(line) if line else None


def near(poly, xs, ys):
    """Distance in y of each point (xs, ys) from the polyline poly (x
    increasing) at its vertex within 0.1 pt of xs, or where none is (a
    point on a straight run may be left out), from the segment under xs,
    less what 0.05 pt of rounding in x moves it along that segment."""
    out = np.empty(len(xs))
    for i, (x, y) in enumerate(zip(xs, ys)):
        k = int(np.argmin(np.abs(poly[:, 0] - x)))
        if abs(poly[k, 0] - x) <= 0.1:
            out[i] = abs(poly[k, 1] - y)
            continue
        j = min(max(int(np.searchsorted(poly[:, 0], x)), 1), len(poly) - 1)
        (xa, ya), (xb, yb) = poly[j - 1], poly[j]
        slope = (yb - ya) / (xb - xa) if xb != xa else 0.0
        out[i] = max(0.0, abs(ya + slope * (x - xa) - y) - 0.05 * abs(slope))
    return out


def check_svg(svg, want, fails, name):
    band, line = paths(svg)
    if band is None or line is None:
        fails.append(f"{name}: no band or no mean line in the SVG")
        return
    # the band: the columns' mins left to right, then their maxes back (a
    # last column's min and max alike are one point)
    if band[0, 0] == band[-1, 0] and band[0, 1] == band[-1, 1]:
        band = band[:-1]  # a closing point
    right = np.flatnonzero(band[:, 0] == band[:, 0].max())
    lower, upper = band[:right[0] + 1], band[right[-1]:][::-1]
    x0, x1 = line[0, 0], line[-1, 0]
    ax = (x1 - x0) / (want[-1, 0] - want[0, 0])
    lo0, hi0 = lower[0, 1], upper[0, 1]
    ay = (hi0 - lo0) / (want[0, 2] - want[0, 1])
    by = lo0 - ay * want[0, 1]
    xs = x0 + ax * (want[:, 0] - want[0, 0])
    worst = 0.0
    for label, poly, col in (("min", lower, 1), ("max", upper, 2), ("mean", line, 3)):
        err = near(poly, xs, by + ay * want[:, col])
        k = int(np.argmax(err))
        worst = max(worst, err[k])
        if err[k] > 0.1:
            fails.append(f"{name}: column {k} {label}: {err[k]:.3f} pt from numpy's")
    print(f"{name}: {len(want)} columns, worst distance {worst:.4f} pt")


def run(pproc, h5, out, fmt, name, stream):
    env = dict(os.environ, SCOPE_PROFILER_READER_STREAM=stream)
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([pproc, h5, "-q", "-o", out, "--plots", "duration_timeseries",
                        "--include", name, "--format", fmt, "--width", str(WIDTH),
                        "--min-duration", str(MIN_D)], capture_output=True, env=env, timeout=120)
    if p.returncode:
        return None, f"exit {p.returncode}: {p.stderr[:300]!r}"
    with open(os.path.join(out, f"duration_timeseries_plot.{fmt}"), "rb") as fh:
        return fh.read(), None


def main():
    pproc, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    h5 = os.path.join(d, "steps.h5")
    pairs = write(h5)
    fails = []
    for name in RANKS:
        want, n, nb = oracle(pairs[name])
        print(f"{name}: {n} steps in {nb} columns")
        for fmt in ("svg", "png"):
            got = {}
            for stream in ("0", str(10**12)):
                got[stream], err = run(pproc, h5, os.path.join(d, f"o_{stream}"), fmt, name, stream)
                if err:
                    fails.append(f"{name} {fmt} stream={stream}: {err}")
            if got["0"] != got[str(10**12)]:
                fails.append(f"{name}: the {fmt} streamed and loaded differ")
            if fmt == "svg" and got["0"]:
                check_svg(got["0"].decode(), want, fails, name)
    for m in fails:
        print("FAIL", m)
    print("ok" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
