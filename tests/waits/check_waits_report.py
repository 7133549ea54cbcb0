#!/usr/bin/python3
"""The Wait states section and the timeline's wait tooltips of report.html.

usage: check_waits_report.py PPROC FILE OUTDIR CHROMIUM

Writes OUTDIR/report.html of FILE (waits_delays.c's) and drives it in a
headless Chromium (check_report.py's Browser): the section's rows hold the
same seconds as `PPROC FILE --waits --format json` (its top rows, to the
microsecond), its causes name the late ranks and their regions, and
hovering rank 0's MPI_Recv at the start of its Late Sender call shows the
wait and its cause (rank 1 in late_send_work). Saves OUTDIR/waits.png, the
section, and OUTDIR/tip.png, the timeline with the tooltip.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postproc"))
import check_report as cr  # noqa: E402  (the Browser and hover of the report tests)


def main():
    pproc, path, outdir, chromium = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    subprocess.run([pproc, path, "--backend", "html", "-o", outdir, "-q"], check=True)
    got = json.loads(subprocess.run([pproc, path, "--waits", "--format", "json"], check=True,
                                    capture_output=True, text=True).stdout)
    fails = []
    b = cr.Browser(chromium, 1400, 1000)
    try:
        b.open("file://" + os.path.abspath(os.path.join(outdir, "report.html")))
        rows = b.eval("[...document.querySelectorAll('#sp-waits tbody tr')].map(r =>"
                      " [+r.getAttribute('data-rank'), r.getAttribute('data-path'),"
                      " +r.lastElementChild.textContent])")
        if not rows:
            fails.append("no rows in the Wait states section")
        want = {(w["rank"], w["path"]): w["wait_s"] for w in got["waits"]}
        for rank, p, secs in rows:
            if abs(want.get((rank, p), -1) - secs) > 1e-6:
                fails.append(f"row rank {rank} {p}: {secs} s, --waits {want.get((rank, p))}")
        causes = b.eval("[...document.querySelectorAll('#sp-waits-causes tbody tr')].map(r =>"
                        " [...r.cells].map(c => c.textContent))")
        named = {(c[0], c[1], c[2]) for c in causes}
        for need in [("Late Sender", "1", "late_send_work"), ("Late Receiver", "1", "late_recv_work"),
                     ("Early Reduce", "3", "reduce_work")]:
            if need not in named:
                fails.append(f"cause {need} not in the section: {causes[:8]}")
        # rank 0's Late Sender: its lane and the call's start (ns after t0)
        lane = b.eval("spReport.lanes.findIndex(l => spReport.data.regions[l.g].name === 'MPI_Recv'"
                      " && l.rank === 0)")
        call = b.eval("spReport.data.waits.calls.find(c => c[1] === 0 && c[3] === 0)")
        if lane < 0 or not call:
            fails.append(f"no MPI_Recv lane of rank 0 ({lane}) or no wait of it ({call})")
        else:
            tip = cr.hover(b, lane, call[2] + 1000)
            if not tip or "Late Sender" not in tip or "caused by rank 1 in late_send_work" not in tip:
                fails.append(f"tooltip of rank 0's MPI_Recv: {tip!r}")
            box = cr.canvas_box(b)
            with open(os.path.join(outdir, "tip.png"), "wb") as f:
                f.write(b.screenshot({"x": 0, "y": 0, "width": 1400, "height": box["y"] + 500}))
        b.eval("document.getElementById('sp-waits-section').scrollIntoView()")
        b.frames(2)
        r = b.eval("(() => { const r = document.getElementById('sp-waits-section')"
                   ".getBoundingClientRect(); return {x: 0, y: r.top + window.scrollY,"
                   " width: 1400, height: Math.min(r.height, 2000)}; })()")
        with open(os.path.join(outdir, "waits.png"), "wb") as f:
            f.write(b.screenshot(r))
        fails += b.errors()
    finally:
        b.close()
    for m in fails:
        print("FAIL", m)
    if fails:
        return 1
    print(f"ok: {len(rows)} rows as --waits, causes named, the tooltip names the Late Sender")
    return 0


if __name__ == "__main__":
    sys.exit(main())
