"""check_lane_depth.py - a Gantt lane sits where most of its region's time is
(issue 38).

Writes one rank with h5py (ms): main [0, 1000] > a [0, 600] > b [0, 400] >
k [0, 1] (1 ms deep down), c [450, 500] inside a; and k [700, 799] directly
under main (99% of k's time, depth 1). The call tree's depth-first order is
main, a, b, k (1 ms), c, k (99 ms): lanes at k's first path put k above c at
depth 3; at the path with most of its time, below c at depth 1. The colours
come from the JSON data file ("colors"), the lanes' order from the PNG.

usage: check_lane_depth.py PPROC OUTDIR"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0, MS = 10**12, 10**6
CALLS = {"main": [(0, 1000)], "a": [(0, 600)], "b": [(0, 400)], "c": [(450, 500)],
         "k": [(0, 1), (700, 799)]}
WANT = ["main", "a", "b", "c", "k"]


def gantt_lane_order(pproc, out, h5, calls):
    """Writes calls ({region: [(start_ms, end_ms)]}, one rank) into h5 with
    h5py, draws its Gantt chart into out and returns the regions in the
    order of their lanes from the top, read from the PNG by each region's
    colour (check_lane_oracle.py uses it too)."""
    with h5py.File(h5, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        regs = f.create_group("rank0").create_group("regions")
        for name, v in calls.items():
            v = sorted(v)
            g = regs.create_group(name)
            g.attrs["name"] = name
            g.attrs["num_calls"] = np.int64(len(v))
            g.create_dataset("start_times", data=np.array([T0 + s * MS for s, _ in v], np.int64))
            g.create_dataset("end_times", data=np.array([T0 + e * MS for _, e in v], np.int64))
    subprocess.run([pproc, h5, "-o", out, "--plots", "gantt", "--export-data",
                    "--export-data-format", "json", "--width", "1000", "--height", "500", "-q"],
                   check=True)
    # the plot area only (no title, labels or legend); rows with a bar's
    # worth of the colour (not a grid line's grey dots)
    return colour_order(out, (slice(50, 450), slice(180, 830)), 10, "pixel")


def colour_order(out, box, min_px, what):
    """The regions of out's Gantt chart (gantt_plot.png, colours from
    gantt_data.json) from the top, by the first row of box (a (rows, columns)
    pair of slices) holding at least min_px pixels of a region's colour;
    exit 1 naming what was looked for when a region has none."""
    colors = json.load(open(os.path.join(out, "gantt_data.json")))["colors"]
    img = read_png(os.path.join(out, "gantt_plot.png"))[box[0], box[1], :3].astype(int)
    top = {}
    for name, hexc in colors.items():
        c = np.array([int(hexc[i:i + 2], 16) for i in (1, 3, 5)])
        ys = np.nonzero(np.all(np.abs(img - c) <= 3, axis=-1).sum(axis=1) >= min_px)[0]
        if not len(ys):
            print(f"FAIL: {name}: no {what} of its colour {hexc}")
            sys.exit(1)
        top[name] = ys.min()
    return sorted(top, key=top.get)


def main():
    pproc, outdir = sys.argv[1:3]
    out = os.path.join(outdir, "lane_depth")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    got = gantt_lane_order(pproc, out, os.path.join(out, "depth.h5"), CALLS)
    print("lanes from the top:", got, "want:", WANT)
    if got != WANT:
        print("FAIL: k is not at the path with most of its time")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
