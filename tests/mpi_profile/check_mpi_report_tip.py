#!/usr/bin/python3
"""The HTML report's tooltips of MPI call regions, in a real headless Chromium.

usage: check_mpi_report_tip.py REPORT.html OUT_DIR [CHROMIUM]

Hovers a call of the MPI_Isend lane of rank 0 and of a user-less region
without values, and checks the tooltip: the MPI lane's says "MPI  <bytes>
in <msgs> messages (all ranks)" with the report's own regions[].bytes and
.msgs, the legend entry's title the same; a region without values has no
"MPI" line. Saves the hovered timeline as OUT_DIR/mpi_tip.png.
"""
import os
import pathlib
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "postproc"))
import check_report as cr  # noqa: E402  (the Browser and hover of the report tests)


def main():
    report, out = sys.argv[1], sys.argv[2]
    exe = sys.argv[3] if len(sys.argv) > 3 else shutil.which("chromium")
    if not exe:
        cr.fail("chromium not found (Debian package chromium, tests/debian-packages.txt)")
    b = cr.Browser(exe)
    try:
        b.open(pathlib.Path(os.path.abspath(report)).as_uri())
        regs = b.eval("spReport.data.regions.map(r => [r.name, r.bytes, r.msgs])")
        lanes = b.eval("spReport.lanes.map(l => [l.g, l.rank, l.thread])")
        want = {}
        for name, target in [("MPI_Isend", True), ("MPI_Win_fence", True)]:
            g = [i for i, r in enumerate(regs) if r[0] == name][0]
            want[name] = regs[g]
            li = [i for i, l in enumerate(lanes) if l[0] == g and l[1] == 0][0]
            src = b.eval("(() => { const s = spReport.exactSource(spReport.lanes[%d]);"
                         " return [s.start[0], s.dur[0]]; })()" % li)
            b.eval("spReport.setView(%d, %d)" % (src[0] - 2 * src[1] - 1000, src[0] + 3 * src[1] + 1000))
            b.frames(2)
            tip = cr.hover(b, li, src[0] + src[1] / 2)
            if tip is None:
                cr.fail(f"no tooltip over {name}")
            line = [s for s in tip.split("\n") if s.startswith("MPI  ")]
            n = regs[g][1]
            text = (f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB") + f" in {regs[g][2]} messages"
            if not line or text not in line[0]:
                cr.fail(f"{name} tooltip {tip!r} lacks {text!r}")
            if name == "MPI_Isend":
                pathlib.Path(out, "mpi_tip.png").write_bytes(
                    b.screenshot({"x": 0, "y": 0, "width": 1280, "height": 900}))
        title = b.eval("document.querySelector('[data-region] ') &&"
                       " [...document.querySelectorAll('li.sp-region')].map(e => e.title)")
        if not any("messages (all ranks)" in t for t in title):
            cr.fail(f"no legend title names messages: {title[:3]}")
        errs = b.errors()
        if errs:
            cr.fail(f"page errors: {errs}")
    finally:
        b.close()
    print("PASS", want)


main()
