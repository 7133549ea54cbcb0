"""check_heatmap.py - rank_heatmap_plot read back against numpy.

Writes 8 ranks x 2 regions with h5py: "solve" takes 1 s on every rank but
rank 5 (3 s), "io" 0.5 s on every rank. Draws --plots rank_heatmap, reads
the PNG (png_read.py) and checks the colour of every cell against the
ratio numpy computes (rank total / mean over ranks, capped at 2) on the
chart's blue-white-red scale (chart_heatmap.c): rank 5's solve cell is the
red end's colour side, the other solve cells blue of ratio 0.8, io white.
Case "absent": rank 3 has no "io" region at all; its cell must be the
neutral grey (not the blue of a 0 ratio), the other io cells 8/7 of the
mean (ranks without the region count as 0 in the mean).

usage: check_heatmap.py PPROC OUTDIR [absent]"""
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0, S = 10**12, 10**9
W, H = 800, 600
# The scale of chart_heatmap.c: blue (0) - white (1) - red (2), linear in RGB.
STOPS = np.array([[0.23, 0.30, 0.75], [1, 1, 1], [0.71, 0.02, 0.15]]) * 255
# A region absent on a rank (chart_heatmap.c's SP_HEAT_ABSENT_RGB).
GREY = np.array([170, 170, 170])
ABSENT_RANK = 3


def colour(v):
    x = min(max(v / 2.0, 0), 1) * 2
    i = min(int(x), 1)
    return STOPS[i] + (STOPS[i + 1] - STOPS[i]) * (x - i)


def main():
    pproc, outdir = sys.argv[1:3]
    absent = sys.argv[3:4] == ["absent"]
    os.makedirs(outdir, exist_ok=True)
    h5 = os.path.join(outdir, "heatmap.h5")
    dur = {"solve": [3 * S if r == 5 else S for r in range(8)], "io": [S // 2] * 8}
    if absent:
        dur["io"][ABSENT_RANK] = None
    with h5py.File(h5, "w") as f:
        for r in range(8):
            regs = f.create_group(f"rank{r}").create_group("regions")
            start = T0
            for name in ("solve", "io"):
                if dur[name][r] is None:
                    continue
                g = regs.create_group(name)
                g.create_dataset("start_times", data=np.array([start], np.int64))
                g.create_dataset("end_times", data=np.array([start + dur[name][r]], np.int64))
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(1)
                start += dur[name][r]
    out = os.path.join(outdir, "heatmap")
    subprocess.run([pproc, h5, "-o", out, "--plots", "rank_heatmap", "--width", str(W),
                    "--height", str(H)], check=True)
    img = read_png(os.path.join(out, "rank_heatmap_plot.png"))[:, :, :3].astype(float)
    # Plot area of chart_heatmap.c: x 0.10..0.86 of W, y 50 px from the top
    # to 180 px from the bottom; 2 columns (solve, io) x 8 rows (rank 0 on top).
    x0, x1, y0, y1 = 0.10 * W, 0.86 * W, 50.0, H - 180.0
    bad = 0
    for j, name in enumerate(("solve", "io")):
        tot = np.array([d if d is not None else 0 for d in dur[name]], float)
        ratio = tot / tot.mean()
        for r in range(8):
            cx = int(x0 + (j + 0.5) * (x1 - x0) / 2)
            cy = int(y0 + (r + 0.5) * (y1 - y0) / 8)
            got = img[cy - 2:cy + 3, cx - 2:cx + 3].reshape(-1, 3).mean(axis=0)
            want = GREY if dur[name][r] is None else colour(ratio[r])
            ok = np.all(np.abs(got - want) <= 12)
            bad += not ok
            print(f"{name} rank {r}: ratio {ratio[r]:.3f} colour {got.round()} "
                  f"expected {want.round()} {'ok' if ok else 'WRONG'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
