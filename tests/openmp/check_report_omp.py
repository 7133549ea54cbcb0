#!/usr/bin/env python3
"""check_report_omp.py - the report's OpenMP work-vs-wait table (Load
balance section, report_balance.js; "balance.omp" of html_balance.c) in
Debian's real headless Chromium, against the OpenMP file read with h5py.

Usage: check_report_omp.py CASE REPORT.html PROFILE.h5 OUTDIR [CHROMIUM]

Cases:
  sleep  (omp_regions sleep N: one thread sleeps 50 ms before a barrier)
         every (rank, thread) row's parallel, work and wait time equal the
         oracle here (outermost "omp parallel" calls of the thread; its calls
         of the OpenMP wait regions, docs/openmp.md's names); the sleeper
         (found from the barriers' stamps, as check_openmp.py) waits less
         than half as long as any other thread, every other thread at least
         50 ms (less its late arrival at the barrier); no console error;
         OUTDIR/omp_balance.png to be looked at
  none   (a file without OpenMP regions) no "omp" in the data, no table
Exit 0 when the case passes, 1 with the reason otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postproc"))
from check_report import drive, fail, file_lanes, fmt_time  # noqa: E402

# docs/openmp.md's region names: "<construct>" or "<construct> @ <where>".
WAITS = ("omp barrier", "omp implicit barrier", "omp runtime barrier", "omp taskwait",
         "omp taskgroup", "omp reduction", "omp critical wait", "omp lock wait", "omp ordered wait")


def construct(name):
    return name.split(" @ ", 1)[0]


def outer_sum(calls):
    """Summed duration of the calls not inside another call of the list."""
    reach, tot = None, 0
    for s, e in sorted(calls, key=lambda c: (c[0], -c[1])):
        if reach is not None and s < reach and e <= reach:
            continue
        tot += e - s
        reach = e if reach is None or e > reach else reach
    return tot


def oracle(h5):
    """{(rank, thread): [parallel ns, wait ns]} from h5py."""
    out = {}
    for (n, rk, th), calls in file_lanes(h5).items():
        c = construct(n)
        if c == "omp parallel":
            out.setdefault((rk, th), [0, 0])[0] += outer_sum(calls)
        elif c in WAITS:
            out.setdefault((rk, th), [0, 0])[1] += outer_sum(calls)
    return out


def sleeper(h5):
    """The thread that came to the later explicit barrier >= 50 ms after
    leaving the first, its arrival there and everyone's: from the stamps."""
    bars = {}
    for (n, rk, th), calls in file_lanes(h5).items():
        if construct(n) == "omp barrier":
            bars.setdefault(n, {})[th] = calls[0]
    if len(bars) != 2:
        fail("%d explicit barrier regions, want 2" % len(bars))
    first, second = sorted(bars.values(), key=lambda d: min(s for s, _ in d.values()))
    z = [t for t in second if second[t][0] - first[t][1] >= 50_000_000]
    if len(z) != 1:
        fail("threads %s came >= 50 ms after the first barrier, want exactly one" % z)
    return z[0], first[z[0]][1], {t: s for t, (s, _) in second.items()}


def rows(b):
    return b.eval("[...document.querySelectorAll('#sp-balance-omp tbody tr')].map(r => ({name: "
                  "r.getAttribute('data-name'), v: [...r.cells].map(c => c.getAttribute('data-v')),"
                  " t: [...r.cells].map(c => c.textContent)}))")


def case_sleep(b, h5, out):
    want = oracle(h5)
    heads = b.eval("[...document.querySelectorAll('#sp-balance-omp th')].map(t => t.getAttribute('data-key'))")
    got = rows(b)
    if len(got) != len(want):
        fail("%d thread rows, h5py has %d threads with OpenMP regions: %s" % (len(got), len(want), got))
    rep = {}
    for r in got:
        v = dict(zip(heads, r["v"]))
        t = dict(zip(heads, r["t"]))
        key = (int(v["rank"]), int(v["tid"]))
        if key not in want:
            fail("row %s: no such (rank, thread) in the file" % (key,))
        par, wait = want[key]
        exp = {"par": par, "wait": wait, "work": max(par - wait, 0), "share": wait / par if par else 0}
        for k, x in exp.items():
            if abs(float(v[k]) - x) > (1e-9 if k == "share" else 0.5):
                fail("rank %d thread %d %s: report %s, h5py %s" % (key + (k, v[k], x)))
            if k != "share" and t[k] != fmt_time(x):
                fail("rank %d thread %d %s shows %r, not %r" % (key + (k, t[k], fmt_time(x))))
        rep[key] = float(v["wait"])
    z, slept_from, came = sleeper(h5)
    own = rep[(0, z)]
    others = {t: w for (rk, t), w in rep.items() if t != z}
    print("report: sleeper thread %d waits %.3f ms; others %s" % (
        z, own / 1e6, ", ".join("%d: %.2f ms" % (t, w / 1e6) for t, w in sorted(others.items()))))
    for t, w in others.items():
        bound = 50_000_000 - max(0, came[t] - slept_from)  # 50 ms less its late arrival
        if w < bound:
            fail("thread %d waits %.0f ns in the report, want >= %d" % (t, w, bound))
    if own >= 0.5 * min(others.values()):
        fail("the sleeper (thread %d) waits %.0f ns, want < half the others' shortest %.0f" % (
            z, own, min(others.values())))
    errs = b.errors()
    if errs:
        fail("console errors: %s" % errs)
    import base64
    box = b.eval("(() => { const a = document.getElementById('sp-balance-section').getBoundingClientRect();"
                 " return {x: 0, y: a.top + window.scrollY, width: 1280, height: a.height}; })()")
    r = b.send("Page.captureScreenshot", {"format": "png", "clip": dict(box, scale=1),
                                          "captureBeyondViewport": True})
    with open(os.path.join(out, "omp_balance.png"), "wb") as f:
        f.write(base64.b64decode(r["data"]))
    print("saved", os.path.join(out, "omp_balance.png"))


def case_none(b, h5, out):
    if oracle(h5):
        fail("%s has OpenMP regions; this case wants a file without" % h5)
    if b.eval("'omp' in (spReport.data.balance || {})") or b.eval("!!document.getElementById('sp-balance-omp')"):
        fail("a file without OpenMP regions got the OpenMP table")
    if not b.eval("!!document.getElementById('sp-balance-regions')"):
        fail("no Load balance section")


CASES = {"sleep": case_sleep, "none": case_none}


if __name__ == "__main__":
    drive(CASES, __doc__)
