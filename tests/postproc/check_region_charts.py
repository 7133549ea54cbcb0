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


def main():
    pp, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, "region_charts_" + case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    globals()["case_" + case](pp, out)
    print("ok")


if __name__ == "__main__":
    main()
