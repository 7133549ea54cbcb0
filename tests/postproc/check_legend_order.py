"""check_legend_order.py - the Gantt legend lists the regions in the lanes'
order (call-tree order), each in its lane's colour (issue 45 item 5).

One rank written with h5py (ms): main [0, 1000] holds early [10, 200] and
late [300, 900]. By first start the regions are main, early, late; in the
call tree (children by inclusive time) main, late, early. The lanes'
order and the legend's are both read from the PNG by each region's colour
(from the JSON data file): the plot area for the lanes, the legend box at
its right for the legend.

usage: check_legend_order.py PPROC OUTDIR"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_lane_depth import colour_order, gantt_lane_order  # noqa: E402

CALLS = {"main": [(0, 1000)], "early": [(10, 200)], "late": [(300, 900)]}
WANT = ["main", "late", "early"]


def legend_order(out):
    # right of the plot area (1000 px wide chart: the plot ends near x = 830)
    return colour_order(out, (slice(None), slice(840, None)), 5, "legend box")


def main():
    pproc, outdir = sys.argv[1:3]
    out = os.path.join(outdir, "legend_order")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    lanes = gantt_lane_order(pproc, out, os.path.join(out, "legend.h5"), CALLS)
    legend = legend_order(out)
    print("lanes from the top:", lanes, "legend from the top:", legend, "want:", WANT)
    if lanes != WANT:
        print("FAIL: the lanes are not in call-tree order")
        sys.exit(1)
    if legend != lanes:
        print("FAIL: the legend does not list the regions in the lanes' order")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
