#!/usr/bin/env python3
"""bench_report.py REPORT.html [CHROMIUM] - load and draw time in headless Chromium.

Opens the report (check_report.py's DevTools driver), and prints the time
from navigation start to the end of the first drawing (spReport.loadedMs:
HTML parsing, JSON.parse, preparing the lanes, drawing), the first drawing
alone, and a zoom redraw. Target (issue 23): 1e6 intervals load and draw in
under 2 s. Prints figures; asserts nothing."""
import os
import pathlib
import shutil
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "postproc"))
import check_report  # noqa: E402


def main():
    report = sys.argv[1]
    exe = sys.argv[2] if len(sys.argv) > 2 else shutil.which("chromium")
    b = check_report.Browser(exe)
    try:
        t = time.time()
        b.open(pathlib.Path(os.path.abspath(report)).as_uri())
        wall = time.time() - t
        loaded = b.eval("spReport.loadedMs")
        first = b.eval("spReport.firstDrawMs")
        zoom = b.eval("(() => { const t = performance.now(); spReport.zoom(0.1, 0.5);"
                      " spReport.draw(); return performance.now() - t; })()")
        n = b.eval("spReport.data.counts")
        errs = b.errors()
    finally:
        b.close()
    print("report    %s (%.2f MB), %s" % (report, os.path.getsize(report) / 1e6, n))
    print("load+draw %.0f ms from navigation start to the end of the first drawing (target < 2000)"
          % loaded)
    print("draw      %.0f ms first drawing, %.0f ms a zoomed redraw" % (first, zoom))
    print("wall      %.2f s including Chromium start-up; errors: %s" % (wall, errs or "none"))


if __name__ == "__main__":
    main()
