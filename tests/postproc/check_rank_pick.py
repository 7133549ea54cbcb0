"""check_rank_pick.py - representative ranks in the per-rank views (issue 47).

Writes with h5py a per-rank file of RANKS ranks (more than the 1024 that
fit, postproc/README.md), two regions a rank: io [0, 50 + r % 7] ms and
solve [100, 100 + d_r] ms with d_r = 300 + (37 r mod 101), except the
known outliers: rank 3 (50 ms), rank 500 (600 ms) and rank 777 (900 ms).
An independent numpy oracle of the documented rule (rank_pick.h): the
slowest region (largest total over the ranks: solve), the ranks of its
smallest, median (position (n - 1) // 2 sorted by (total, rank id)) and
largest total, and the outliers beyond 1.5 IQR (numpy.percentile's
quartiles), at most 13, the farthest from the median first.

Checks: the stderr line names exactly the oracle's min, median, max and
outliers; the Gantt chart draws one solve lane per chosen rank (bands of
solve's colour in the PNG), in rank order, each bar as wide as that
rank's d_r (within 2 px); the rank heat map is drawn; with --ranks the
chosen ranks are drawn and no representatives are named.

usage: check_rank_pick.py PPROC OUTDIR [RANKS]"""
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0, MS = 10**12, 10**6
OUTLIERS = {3: 50, 500: 600, 777: 900}


def solve_ms(ranks):
    d = 300 + (37 * np.arange(ranks)) % 101
    for r, v in OUTLIERS.items():
        d[r] = v
    return d


def write(path, ranks):
    d = solve_ms(ranks)
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r in range(ranks):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, s, e in (("io", 0, 50 + r % 7), ("solve", 100, 100 + int(d[r]))):
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(1)
                g.create_dataset("start_times", data=np.array([T0 + s * MS], np.int64))
                g.create_dataset("end_times", data=np.array([T0 + e * MS], np.int64))


def oracle(ranks):
    """(min, median, max, [outliers]) rank ids by the rule, from the data."""
    io = 50 + np.arange(ranks) % 7
    v = solve_ms(ranks).astype(float)
    if io.sum() > v.sum():
        v = io.astype(float)
    order = sorted(range(ranks), key=lambda r: (v[r], r))
    med = v[order[(ranks - 1) // 2]]
    q1, q3 = np.percentile(v, [25, 75])
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    out = [r for r in range(ranks) if v[r] < lo or v[r] > hi]
    out = sorted(out, key=lambda r: (-abs(v[r] - med), r))[:13]
    return order[0], order[(ranks - 1) // 2], order[-1], out


def run(pproc, h5, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = subprocess.run([pproc, h5, "-o", out, "--plots", "gantt,rank_heatmap", "--export-data",
                        "--export-data-format", "json", "--width", "1000", "--height", "500",
                        *extra], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        print(f"FAIL: exit {p.returncode}")
        sys.exit(1)
    return p.stderr


def solve_bands(out):
    """(top row, width in px) of each solve lane in the Gantt PNG, top first."""
    colors = json.load(open(os.path.join(out, "gantt_data.json")))["colors"]
    c = np.array([int(colors["solve"][i:i + 2], 16) for i in (1, 3, 5)])
    img = read_png(os.path.join(out, "gantt_plot.png"))[:, :848, :3].astype(int)
    hit = np.all(np.abs(img - c) <= 3, axis=-1)
    rows = hit.sum(axis=1)
    bands, y = [], 0
    while y < len(rows):
        if rows[y] < 3:
            y += 1
            continue
        top = y
        while y < len(rows) and rows[y] >= 3:
            y += 1
        bands.append((top, int(rows[top:y].max())))
    return bands


def main():
    pproc, outdir = sys.argv[1:3]
    ranks = int(sys.argv[3]) if len(sys.argv) > 3 else 1100
    base = os.path.join(outdir, "rank_pick")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    h5 = os.path.join(base, "many.h5")
    write(h5, ranks)
    mn, md, mx, outl = oracle(ranks)
    want = sorted({mn, md, mx, *outl})
    print("oracle: min", mn, "median", md, "max", mx, "outliers", outl)

    err = run(pproc, h5, os.path.join(base, "picked"))
    line = [x for x in err.splitlines() if "representative ranks" in x]
    print(line)
    m = re.search(r"min r(\d+), median r(\d+), max r(\d+)(, outliers((?: r\d+)+))?", "".join(line))
    if len(line) != 1 or not m:
        print("FAIL: no stderr line naming the representative ranks")
        sys.exit(1)
    got_out = [int(x) for x in re.findall(r"r(\d+)", m.group(5) or "")]
    got = (int(m.group(1)), int(m.group(2)), int(m.group(3)), got_out)
    if got != (mn, md, mx, outl):
        print("FAIL: stderr names", got, "the oracle", (mn, md, mx, outl))
        sys.exit(1)
    bands = solve_bands(os.path.join(base, "picked"))
    d = solve_ms(ranks)
    widths = [w for _, w in bands]
    print("solve lanes (top, px):", bands, "want ranks", want, "ms", [int(d[r]) for r in want])
    if len(bands) != len(want):
        print(f"FAIL: {len(bands)} solve lanes drawn, {len(want)} ranks chosen")
        sys.exit(1)
    # bar widths against the chosen ranks' durations: one px per ms scale
    scale = widths[want.index(mx)] / d[mx]
    for w, r in zip(widths, want):
        if abs(w - d[r] * scale) > 2:
            print(f"FAIL: lane of rank {r}: {w} px, want {d[r] * scale:.1f} (its {d[r]} ms)")
            sys.exit(1)
    if not os.path.exists(os.path.join(base, "picked", "rank_heatmap_plot.png")):
        print("FAIL: no rank heat map")
        sys.exit(1)

    err = run(pproc, h5, os.path.join(base, "chosen"), "--ranks", "10-12")
    if "representative" in err:
        print("FAIL: --ranks given, yet representatives named:", err)
        sys.exit(1)
    n = len(solve_bands(os.path.join(base, "chosen")))
    if n != 3:
        print(f"FAIL: --ranks 10-12 drew {n} solve lanes")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
