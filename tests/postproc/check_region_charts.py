"""check_region_charts.py - the region charts pick and colour regions so a
reader can tell them apart (issue 38).

Writes runs with h5py (2 ranks):
  wrapped.h5  five nested single-call wrappers w0 > w1 > ... > w4 (one call
              each a rank) around three kernels k1, k2, k3 of 50 calls each
  many.h5     30 regions r00 .. r29, one after another

CASES
  timeseries_pick  duration_timeseries_plot shows the kernels, not the
                   wrappers (one dot each): the kernels' colours are in the
                   PNG, the wrappers' are not (colours from the JSON data)
  palette_many     past 20 regions every colour differs, and names next to
                   each other (the legend's neighbours) differ clearly
  histogram_multiples  histogram_plot of wrapped.h5: a sub-panel per region,
                   not 8 lines over each other: the regions' colour boxes in
                   the PNG do not overlap
  histogram_small  histogram_plot of spread.h5 (issue 52): 'spread' has 95
                   calls of 1 ms and one each of 10 us, 100 us, 10 ms, 100
                   ms, 1 s (shares 0.01), beside three regions of one
                   duration (small 2x2 panels): every bin numpy finds with
                   calls shows as a run of spread's colour at least 3 px
                   tall (a 0.01 bar was a pixel, under the ticks' comb)
  heatmap_weight   rank_heatmap_plot (4 ranks): main 100 ms; work 10 ms (20 ms
                   on rank 3) and a 3 us region 'tiny' (9 us on rank 1) in it;
                   a root 'post' 5 ms (7 ms on rank 2) after main. The reddest
                   cell is work's on rank 3, not tiny's (faded: under 1%);
                   columns by time (main, work, post, tiny; the call tree has
                   post last), so column 3 rank 2 is post's red cell

usage: check_region_charts.py PPROC OUTDIR CASE"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0, US = 10**12, 10**3


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def write(path, calls):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r in range(2):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, v in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                g.create_dataset("start_times", data=np.array([T0 + s for s, _ in v], np.int64))
                g.create_dataset("end_times", data=np.array([T0 + e + 7 * r for _, e in v],
                                                             np.int64))


def wrapped():
    calls = {f"w{i}": [(i * US, 100000 * US - i * US)] for i in range(5)}
    for k in range(3):
        calls[f"k{k + 1}"] = [(10 * US + (3 * j + k) * 600 * US,
                               10 * US + (3 * j + k) * 600 * US + (100 + 50 * k + j) * US)
                              for j in range(50)]
    return calls


def colours_of(out):
    return json.load(open(os.path.join(out, "gantt_data.json")))["colors"]


def present(img, hexc, least=10):
    c = np.array([int(hexc[i:i + 2], 16) for i in (1, 3, 5)])
    return int(np.all(np.abs(img - c) <= 3, axis=-1).sum()) >= least


def case_timeseries_pick(pp, out):
    h5 = os.path.join(out, "wrapped.h5")
    write(h5, wrapped())
    p = subprocess.run([pp, h5, "-o", out, "--plots", "gantt,duration_timeseries",
                        "--export-data", "--export-data-format", "json", "--width", "900"],
                       capture_output=True, text=True)
    print(p.stderr, end="")
    if p.returncode:
        fail("exit %d" % p.returncode)
    img = read_png(os.path.join(out, "duration_timeseries_plot.png"))[:, :, :3].astype(int)
    cols = colours_of(out)
    shown = {n: present(img, h) for n, h in cols.items()}
    print("colours in the timeseries:", shown)
    if not all(shown[k] for k in ("k1", "k2", "k3")):
        fail("a kernel is missing")
    # (a grey wrapper colour is left out: tick labels and text are grey-ish)
    grey = lambda h: h[1:3] == h[3:5] == h[5:7]  # noqa: E731
    if any(shown[w] for w in cols if w.startswith("w") and not grey(cols[w])):
        fail("a single-call wrapper has a panel")


def dist(a, b):
    x = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    y = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return sum((p - q) ** 2 for p, q in zip(x, y)) ** 0.5


def case_palette_many(pp, out):
    h5 = os.path.join(out, "many.h5")
    write(h5, {f"r{i:02d}": [(i * 1000 * US, i * 1000 * US + 900 * US)] for i in range(30)})
    subprocess.run([pp, h5, "-q", "-o", out, "--plots", "gantt", "--export-data",
                    "--export-data-format", "json", "--skip-plot-images"], check=True)
    cols = colours_of(out)
    names = sorted(cols)
    near = min(dist(cols[a], cols[b]) for a, b in zip(names, names[1:]))
    every = min(dist(cols[a], cols[b]) for i, a in enumerate(names) for b in names[i + 1:])
    print("30 regions: least distance of neighbours %.1f, of any two %.1f" % (near, every))
    if near < 80:
        fail("neighbours in the legend look alike (distance %.1f < 80)" % near)
    if every < 15:
        fail("two regions have nearly the same colour (distance %.1f < 15)" % every)


def case_histogram_multiples(pp, out):
    h5 = os.path.join(out, "wrapped.h5")
    write(h5, wrapped())
    subprocess.run([pp, h5, "-q", "-o", out, "--plots", "gantt,histogram", "--export-data",
                    "--export-data-format", "json", "--width", "900"], check=True)
    img = read_png(os.path.join(out, "histogram_plot.png"))[:, :int(0.80 * 900), :3].astype(int)
    boxes = {}
    for name, hexc in colours_of(out).items():
        c = np.array([int(hexc[i:i + 2], 16) for i in (1, 3, 5)])
        if hexc[1:3] == hexc[3:5] == hexc[5:7]:
            continue  # grey: text and ticks are grey-ish too
        ys, xs = np.nonzero(np.all(np.abs(img - c) <= 3, axis=-1))
        if len(ys) < 10:
            fail("%s: not drawn" % name)
        boxes[name] = (xs.min(), xs.max(), ys.min(), ys.max())
    print("colour boxes:", boxes)
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p, q = boxes[a], boxes[b]
            if p[0] <= q[1] and q[0] <= p[1] and p[2] <= q[3] and q[2] <= p[3]:
                fail("%s and %s are drawn over each other" % (a, b))


def case_histogram_small(pp, out):
    ms = 1000 * US
    spread = [1 * ms] * 95 + [10 * US, 100 * US, 10 * ms, 100 * ms, 1000 * ms]
    calls, t = {"spread": [], "a": [], "b": [], "c": []}, 0
    for d in spread:
        calls["spread"].append((t, t + d))
        t += d + 1000
    for name, d in (("a", 50 * US), ("b", 5 * ms), ("c", 300 * ms)):
        calls[name] = [(t, t + d), (t + d + 1000, t + 2 * d + 1000)]
        t += 2 * d + 2000
    h5 = os.path.join(out, "spread.h5")
    write(h5, calls)
    w, h = 900, 480
    subprocess.run([pp, h5, "-q", "-o", out, "--plots", "histogram", "--export-data",
                    "--export-data-format", "json", "--width", str(w), "--height", str(h)],
                   check=True)
    # The oracle: chart_histogram.c's bins (log10 of seconds, quarter decades
    # around the shortest and longest call of any region, 40 bins).
    d = np.array([e - s for s, e in calls["spread"]] + [e + 7 - s for s, e in calls["spread"]]) * 1e-9
    every = np.array([e - s for v in calls.values() for s, e in v]) * 1e-9
    lo = np.floor(np.log10(every.min()) * 4) / 4
    hi = np.ceil(np.log10((every.max() * 1e9 + 7) * 1e-9) * 4) / 4
    bins = np.clip(((np.log10(d) - lo) / ((hi - lo) / 40)).astype(int), 0, 39)
    used = sorted(set(bins.tolist()))
    groups = 1 + sum(1 for a, b in zip(used, used[1:]) if b != a + 1)
    hexc = colours_of(out)["spread"]
    c = np.array([int(hexc[i:i + 2], 16) for i in (1, 3, 5)])
    img = read_png(os.path.join(out, "histogram_plot.png"))[:, :, :3].astype(int)
    mask = np.all(np.abs(img - c) <= 3, axis=-1)
    tall = mask.sum(axis=0)  # per column, pixels of spread's colour
    cols = np.nonzero(tall > 0)[0]
    runs = np.split(cols, np.nonzero(np.diff(cols) > 1)[0] + 1) if len(cols) else []
    heights = [int(tall[r].max()) for r in runs]
    print("bins with calls %s (%d groups); runs of spread's colour %d, heights %s" %
          (used, groups, len(runs), heights))
    visible = [x for x in heights if x >= 3]
    if len(visible) != groups:
        fail("%d runs of spread's colour at least 3 px tall, want %d (bins %s)" %
             (len(visible), groups, used))


def case_heatmap_weight(pp, out):
    ms = 1000 * US
    h5 = os.path.join(out, "heat.h5")
    with h5py.File(h5, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r in range(4):
            calls = {"main": (0, 100 * ms), "work": (10 * ms, (30 if r == 3 else 20) * ms),
                     "tiny": (50 * ms, 50 * ms + (9 if r == 1 else 3) * US),
                     "post": (110 * ms, (117 if r == 2 else 115) * ms)}
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, (a, b) in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(1)
                g.create_dataset("start_times", data=np.array([T0 + a], np.int64))
                g.create_dataset("end_times", data=np.array([T0 + b], np.int64))
    w, h = 800, 600
    subprocess.run([pp, h5, "-q", "-o", out, "--plots", "rank_heatmap", "--width", str(w),
                    "--height", str(h)], check=True)
    img = read_png(os.path.join(out, "rank_heatmap_plot.png"))[:, :, :3].astype(int)
    x0, x1, y0, y1 = int(0.10 * w), int(0.86 * w), 50, h - 180  # chart_heatmap.c's viewport
    cw, rh = (x1 - x0) / 4, (y1 - y0) / 4

    def cell(col, rank):  # the centre pixel of a cell
        return img[int(y0 + (rank + 0.5) * rh), int(x0 + (col + 0.5) * cw)]

    red = np.array([[int(cell(c, r)[0]) - int(cell(c, r)[2]) for c in range(4)] for r in range(4)])
    print("redness (R - B) per rank (rows) and column:\n", red)
    r, c = np.unravel_index(np.argmax(red), red.shape)
    if (r, c) != (3, 1):
        fail("the reddest cell is rank %d column %d, want work's on rank 3 (column 1)" % (r, c))
    if red[2, 2] < 20:
        fail("column 2 on rank 2 is not post's reddish cell: columns not ordered by time")


def main():
    pp, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, "region_charts_" + case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    globals()["case_" + case](pp, out)
    print("ok")


if __name__ == "__main__":
    main()
