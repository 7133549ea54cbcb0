"""check_panels.py - one panel per file in the charts that show files apart.

Draws CHART (--plots CHART) for FILE_A alone, FILE_B alone, then both, and
reads the PNGs back (png_read.py). A panel is framed by plbox: its frame's
top and bottom edges are rows that are dark across the middle of the image.
The two-file image must hold the frames of both single-file images (one
panel per file, stacked: the count adds up), be as tall as the panel rule
makes it (taller than either alone, unless --height or the 2400 px cap
bounds it), have a title's ink just above the first frame of the second
panel, and coloured ink inside each panel's band. With --export-data the
gantt_data and flame_data rows of both files are counted against h5py.

usage: check_panels.py PPROC OUTDIR FILE_A FILE_B CHART"""
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

W = 1000
NAMES = {"gantt": "gantt_plot", "flame": "flame_plot", "flame_graph": "flame_graph_plot",
         "rank_heatmap": "rank_heatmap_plot", "duration_timeseries": "duration_timeseries_plot",
         "histogram": "histogram_plot", "timeline_density": "timeline_density_plot"}


def frames(img):
    """First rows of the groups of rows dark (max channel < 180) over 90% of
    the middle 40% of the width: the frames' horizontal edges."""
    mid = img[:, int(0.3 * W):int(0.7 * W)]
    dark = (mid.max(axis=2) < 180).mean(axis=1) >= 0.9
    rows, prev = [], False
    for y, d in enumerate(dark):
        if d and not prev:
            rows.append(y)
        prev = d
    return rows


def draw(pproc, out, files, chart, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    # Three regions' panels are enough for the time series (the PNG is read in Python).
    few = ["--top-n", "3"] if chart == "duration_timeseries" else []
    subprocess.run([pproc] + files + ["-o", out, "--plots", chart, "--width", str(W), "-q"]
                   + few + list(extra), check=True)
    return read_png(os.path.join(out, NAMES[chart] + ".png"))[:, :, :3].astype(int)


def intervals(path, rank=None):
    n = 0
    with h5py.File(path, "r") as f:
        for r in f:
            if not r.startswith("rank") or (rank is not None and r != f"rank{rank}"):
                continue
            for g in f[r]["regions"].values():
                n += len(g["start_times"])
    return n


def main():
    pproc, outdir, fa, fb, chart = sys.argv[1:6]
    out = os.path.join(outdir, f"panels_{chart}")
    a = draw(pproc, out + "_a", [fa], chart)
    b = draw(pproc, out + "_b", [fb], chart)
    two = draw(pproc, out, [fa, fb], chart, ["--label", "runA", "--label", "runB",
                                             "--export-data"])
    fa_rows, fb_rows, rows = frames(a), frames(b), frames(two)
    print(f"{chart}: frame edges A {fa_rows} B {fb_rows} both {rows}; heights "
          f"{a.shape[0]} {b.shape[0]} {two.shape[0]}")
    assert fa_rows and fb_rows, "no frame found in a single-file image"
    assert len(rows) == len(fa_rows) + len(fb_rows), \
        f"{len(rows)} frame edges with two files, expected {len(fa_rows)} + {len(fb_rows)}"
    assert two.shape[0] > max(a.shape[0], b.shape[0]) or two.shape[0] == 2400, two.shape
    second = rows[len(fa_rows)]  # top edge of the second panel's first frame
    title = two[second - 35:second - 3, int(0.1 * W):int(0.9 * W)]
    assert (title.max(axis=2) < 100).sum() > 30, "no title above the second panel"
    # Coloured ink (not white, grey or black) inside each panel's band.
    for lo, hi in ((rows[0], rows[len(fa_rows) - 1]), (second, rows[-1])):
        band = two[lo + 2:hi - 1, int(0.05 * W):int(0.85 * W)]
        colour = (band.max(axis=2) - band.min(axis=2)) > 40
        assert colour.sum() > 50, f"no coloured ink in the band {lo}..{hi}"
    # The data behind the charts holds both files' rows.
    with open(os.path.join(out, "gantt_data.csv"), newline="") as f:
        got = [r[0] for r in list(csv.reader(f))[1:]]
    want = {"runA": intervals(fa), "runB": intervals(fb)}
    have = {k: got.count(k) for k in want}
    print("gantt_data rows per file", have, "h5py", want)
    assert have == want, (have, want)
    with open(os.path.join(out, "flame_data.csv"), newline="") as f:
        got = [r[0] for r in list(csv.reader(f))[1:]]
    want = {"runA": intervals(fa, 0), "runB": intervals(fb, 0)}
    have = {k: got.count(k) for k in want}
    print("flame_data rows per file (rank 0)", have, "h5py", want)
    assert have == want, (have, want)


if __name__ == "__main__":
    main()
