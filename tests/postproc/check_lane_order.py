"""check_lane_order.py - the Gantt chart's lanes in call-tree order.

Draws basic.h5 (sp_make_profile.c) and finds each region's lanes in the
PNG by colour (tab10 sampled over the 6 sorted names, palette.c). The
call tree of basic.h5, by hand: main > solver/step > 50%, then main's
other children by inclusive time (io 0.5 s, omp 0.3 s, a/b 0.1 s); so the
lanes from the top must be main, solver/step, 50%, io, omp, a/b (first
start order put omp above solver/step).

usage: check_lane_order.py PPROC BASIC_H5 OUTDIR"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

COLOURS = {"50%": (0x1f, 0x77, 0xb4), "a/b": (0x2c, 0xa0, 0x2c), "io": (0x94, 0x67, 0xbd),
           "main": (0xe3, 0x77, 0xc2), "omp": (0xbc, 0xbd, 0x22), "solver/step": (0x17, 0xbe, 0xcf)}
WANT = ["main", "solver/step", "50%", "io", "omp", "a/b"]


def main():
    pproc, h5, outdir = sys.argv[1:4]
    subprocess.run([pproc, h5, "-o", outdir, "--plots", "gantt", "--width", "1000",
                    "--height", "500", "-q"], check=True)
    img = read_png(os.path.join(outdir, "gantt_plot.png"))[:, :int(0.84 * 1000), :3].astype(int)
    top = {}
    for name, c in COLOURS.items():
        ys, _ = np.nonzero(np.all(np.abs(img - np.array(c)) <= 3, axis=-1))
        assert len(ys), f"{name}: no pixel of its colour {c}"
        top[name] = ys.min()
    got = sorted(top, key=top.get)
    print("lanes from the top:", got)
    sys.exit(0 if got == WANT else 1)


if __name__ == "__main__":
    main()
