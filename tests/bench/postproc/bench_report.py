#!/usr/bin/env python3
"""bench_report.py REPORT.html [CHROMIUM] - load and draw time in headless Chromium.

Opens the report (check_report.py's DevTools driver), and prints the time
from navigation start to the end of the first drawing (spReport.loadedMs:
HTML parsing, JSON.parse, preparing the lanes, drawing), the first drawing
alone, a zoom redraw, and, over the windows of one time tile each, how
many are drawn exactly on every lane (and one's redraw time), and the time
of a setFilter (search, top N, depth, all) with the frame it redraws. Target (issue 23): 1e6 intervals load and draw in
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
        ready = b.eval("spReport.readyMs || 0")
        first = b.eval("spReport.firstDrawMs")
        # The sections after the timeline (report_*.js) run after its first
        # drawing: their build time, and navigation start to the load event.
        sections = b.eval("spReport.balanceMs || 0")
        onload = b.eval("performance.getEntriesByType('navigation')[0].loadEventEnd")
        zoom = b.eval("(() => { const t = performance.now(); spReport.zoom(0.1, 0.5);"
                      " spReport.draw(); return performance.now() - t; })()")
        # Windows of one time tile: how many have every lane drawn exactly
        # (exact lanes, binned lanes whose tiles are embedded), and the
        # redraw time of the tile with the most exact lanes.
        tile = b.eval("(() => { const D = spReport.data, n = D.tiles.n, w = D.span / n;"
                      " let best = -1, bk = 0, full = 0;"
                      " for (let k = 0; k < n; k++) { spReport.setView((k + 1e-6) * w, (k + 1 - 1e-6) * w);"
                      "   const e = spReport.lanes.filter(l => spReport.exactSource(l)).length;"
                      "   if (e === spReport.lanes.length) full++;"
                      "   if (e > best) { best = e; bk = k; } }"
                      " spReport.setView((bk + 1e-6) * w, (bk + 1 - 1e-6) * w); const t = performance.now();"
                      " spReport.draw(); const ms = performance.now() - t;"
                      " return [ms, bk, best, spReport.lanes.length, full, n]; })()")
        # The filter (report_filter.js): setFilter and the redraw it asks
        # for, each of search, top 4 regions, depth 1, all again.
        filt = b.eval("(async () => { const out = [], R = spReport;"
                      " const frame = () => new Promise(r => requestAnimationFrame(() => r()));"
                      " for (const f of [{terms: ['^region_0']}, {terms: [], top: 4}, {top: 0, depth: 1},"
                      "                  {depth: 0}]) {"
                      "   const t = performance.now(); R.setFilter(f); const a = performance.now() - t;"
                      "   await frame(); out.push([a, performance.now() - t, R.lanes.length]); }"
                      " return out; })()") if b.eval("!!spReport.setFilter") else []
        n = b.eval("spReport.data.counts")
        errs = b.errors()
    finally:
        b.close()
    print("report    %s (%.2f MB), %s" % (report, os.path.getsize(report) / 1e6, n))
    print("load+draw %.0f ms from navigation start to the end of the first drawing (target < 2000)"
          % loaded)
    if ready:
        print("ready     %.0f ms from navigation start to every section built and the filter applied"
              % ready)
    print("draw      %.0f ms first drawing, %.0f ms a zoomed redraw" % (first, zoom))
    print("sections  %.0f ms Load balance, Rank comparison, Hotspots; %.0f ms to the load event"
          % (sections, onload))
    print("tiles     %.0f ms redraw of tile %d: %d of %d lanes drawn exactly there; %d of %d"
          " tile windows exact on every lane" % tuple(tile))
    for (name, (a, f, lanes)) in zip(("search ^region_0", "top 4", "depth 1", "all"), filt):
        print("filter    %-16s setFilter %.1f ms, with the next frame %.1f ms (%d lanes shown)"
              % (name, a, f, lanes))
    print("wall      %.2f s including Chromium start-up; errors: %s" % (wall, errs or "none"))


if __name__ == "__main__":
    main()
