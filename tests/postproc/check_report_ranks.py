#!/usr/bin/env python3
"""check_report_ranks.py - report.html on more ranks than fit (issue 47,
html_dist.c, report_dist.js) in Debian's real headless Chromium, against
numpy over the file read with h5py.

Usage: check_report_ranks.py CASE REPORT.html PROFILE.h5 OUTDIR [CHROMIUM]

PROFILE: a columnar file of make_read_files.py (tests/bench/scale) with
100,000 ranks, few regions and calls, and --slow RANK (a known outlier).
Cases:
  ranks  the oracle: per (region, rank) the total of the calls' durations
         (0 without calls); the slowest region (largest sum over ranks); its
         min, median ((n - 1) // 2 of the ranks sorted by (total, rank)),
         max and outliers (beyond 1.5 IQR of the linear quartiles, at most
         13, farthest from the median first) are the report's
         representative ranks, and the only ranks of its lanes; per region
         the quantiles (numpy.percentile), the mean, the histogram (32 equal
         bins from min to max, every rank once) and the outliers as numpy
         finds them; the regions' figures (calls, total, rank min/mean/max)
         over all ranks. In the page: no error; the Distribution over ranks,
         Timeline, Regions, Call tree, Load balance, Rank comparison and
         Durations sections are there; the distribution table has a row per
         region and names the slow rank; the caption names min, median, max
         and the outliers; the page holds far fewer table rows and lanes than
         ranks (no row per rank).
  balance  (a file of a few thousand ranks) Load balance and its findings
         over every rank, not over the representative ones: per region
         dist.regions[].bal and the table's min, mean/rank, max/rank, slowest
         rank and cost = (max - mean) x all ranks equal numpy's over all
         ranks, as do the call paths' costs; the "Most imbalanced" finding
         names numpy's costliest region, its slowest rank and "x N ranks";
         the captions say "all N ranks". Saves OUTDIR/balance.png (the
         section) to be looked at.
Exit 0 when the case passes, 1 with the reason otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import drive, fail, report_data  # noqa: E402

BINS = 32
OUTLIERS = 13


def oracle(h5):
    """(names, totals[region, rank], calls[region], min[region], max[region], rank ids)."""
    import h5py
    import numpy as np
    with h5py.File(h5, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][:]]
        idx = f["rank_region_index"]
        gids, ranks = idx["region_ids"][:], idx["ranks"][:]
        offs, cnts = idx["event_offsets"][:], idx["event_counts"][:]
        dur = f["events/end_times"][:] - f["events/start_times"][:]
    ids = np.unique(ranks)
    col = np.searchsorted(ids, ranks)
    offs, cnts = offs.astype(np.int64), cnts.astype(np.int64)
    cs = np.concatenate(([0], np.cumsum(dur)))
    tot = np.zeros((len(names), len(ids)))
    np.add.at(tot, (gids, col), cs[offs + cnts] - cs[offs])
    calls = np.bincount(gids, weights=cnts, minlength=len(names)).astype(np.int64)
    # Each event's region (the pairs' events cover the arrays, each pair's contiguous).
    order = np.argsort(offs, kind="stable")
    if not np.array_equal(np.concatenate(([0], np.cumsum(cnts[order])))[:-1], offs[order]):
        fail("the file's pairs do not cover the events one after another")
    reg = np.repeat(gids[order], cnts[order])
    dmin = np.array([dur[reg == g].min() if (reg == g).any() else 0 for g in range(len(names))])
    dmax = np.array([dur[reg == g].max() if (reg == g).any() else 0 for g in range(len(names))])
    return names, tot, calls, dmin, dmax, ids


def outliers(v, ids):
    """The rule of rank_pick.h: (rank id, value) farthest from the median first."""
    import numpy as np
    order = np.lexsort((ids, v))
    s, sid = v[order], ids[order]
    q1, q3 = np.percentile(s, 25), np.percentile(s, 75)
    med = s[(len(s) - 1) // 2]
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    out = [(abs(x - med), int(r), x) for x, r in zip(s, sid) if x < lo or x > hi]
    out.sort(key=lambda t: (-t[0], t[1]))
    return out, sid


def close(a, b, what):
    if abs(a - b) > 1e-6 * max(1.0, abs(b)) + 0.51:
        fail("%s: report %r, numpy %r" % (what, a, b))


def check_data(d, h5):
    import numpy as np
    names, tot, calls, dmin, dmax, ids = oracle(h5)
    dist = d.get("dist")
    if not dist:
        fail("no 'dist' in the report's data (%d ranks)" % len(ids))
    if dist["nranks"] != len(ids):
        fail("dist.nranks %d, the file has %d ranks" % (dist["nranks"], len(ids)))
    slow = int(np.argmax(tot.sum(axis=1)))
    if dist["region"] != slow:
        fail("slowest region %d, numpy %d (%s)" % (dist["region"], slow, names[slow]))
    out, sid = outliers(tot[slow], ids)
    want = {"min": int(sid[0]), "median": int(sid[(len(sid) - 1) // 2]), "max": int(sid[-1])}
    for k, v in want.items():
        if dist[k] != v:
            fail("representative %s: report r%d, numpy r%d" % (k, dist[k], v))
    if dist["outliers"] != [r for _, r, _ in out[:OUTLIERS]]:
        fail("outliers %s, numpy %s" % (dist["outliers"], [r for _, r, _ in out[:OUTLIERS]]))
    reps = sorted(set(list(want.values()) + dist["outliers"]))
    if sorted(d["ranks"]) != reps:
        fail("the report's ranks %s, the representative ranks %s" % (d["ranks"][:20], reps))
    lane_ranks = sorted({ln["r"] for ln in d["lanes"]})
    if not set(lane_ranks) <= set(reps):
        fail("lanes of ranks %s beyond the representative %s" % (lane_ranks[:20], reps))
    for rg in dist["regions"]:
        g, v = rg["g"], tot[rg["g"]]
        q = np.percentile(v, [0, 25, 50, 75, 100])
        for a, b, w in zip(rg["q"], q, ("min", "25%", "median", "75%", "max")):
            close(a, b, "%s %s" % (names[g], w))
        close(rg["mean"], v.mean(), names[g] + " mean")
        if rg["ranks"] != int((v > 0).sum()):
            fail("%s: %d ranks with calls, numpy %d" % (names[g], rg["ranks"], (v > 0).sum()))
        lo, w = v.min(), (v.max() - v.min()) / BINS
        b = np.minimum(((v - lo) / w).astype(np.int64) if w > 0 else np.zeros(len(v), np.int64),
                       BINS - 1)
        if rg["hist"] != np.bincount(b, minlength=BINS).tolist():
            fail("%s: histogram %s, numpy %s" % (names[g], rg["hist"],
                                                 np.bincount(b, minlength=BINS).tolist()))
        o, _ = outliers(v, ids)
        if rg["nout"] != len(o) or [x[0] for x in rg["out"]] != [r for _, r, _ in o[:OUTLIERS]]:
            fail("%s: outliers %d %s, numpy %d %s" % (names[g], rg["nout"], rg["out"], len(o),
                                                      [r for _, r, _ in o[:OUTLIERS]]))
        for (r, x), (_, _, y) in zip(rg["out"], o):
            close(x, y, "%s outlier r%d" % (names[g], r))
    for g, r in enumerate(d["regions"]):
        if r["calls"] != calls[g]:
            fail("%s: %d calls, numpy %d" % (names[g], r["calls"], calls[g]))
        close(r["total"], tot[g].sum(), names[g] + " total")
        close(r["min"], dmin[g], names[g] + " shortest call")
        close(r["max"], dmax[g], names[g] + " longest call")
        close(r["rank_max"], tot[g].max(), names[g] + " rank_max")
        close(r["rank_mean"], tot[g].mean(), names[g] + " rank_mean")
    return names, dist, len(ids)


def case_ranks(b, h5, out):
    d = report_data(sys.argv[2])
    names, dist, nranks = check_data(d, h5)
    errs = b.errors() + b.eval("[...document.querySelectorAll('#sp-errors p')].map(p => p.textContent)")
    if errs:
        fail("errors while loading: %s" % errs)
    for sec in ("sp-dist-section", "sp-timeline-section", "sp-legend-section", "sp-tree-section",
                "sp-balance-section", "sp-ranks-section", "sp-durations-section"):
        if not b.eval("(() => { const e = document.getElementById('%s');"
                      " return !!e && !e.hidden; })()" % sec):
            fail("section %s missing or hidden" % sec)
    rows = b.eval("[...document.querySelectorAll('#sp-dist tr')].slice(1)"
                  ".map(r => [...r.cells].map(c => c.textContent))")
    if sorted(r[0] for r in rows) != sorted(names):
        fail("distribution rows %s, regions %s" % ([r[0] for r in rows], names))
    if not all("r%d " % dist["max"] in r[-1] for r in rows):
        fail("the slow rank r%d is not named in every region's outliers: %s"
             % (dist["max"], [r[-1] for r in rows]))
    caption = b.eval("document.getElementById('sp-dist-reps').textContent")
    for r in [dist["min"], dist["median"], dist["max"]] + dist["outliers"]:
        if "r%d" % r not in caption:
            fail("caption does not name r%d: %s" % (r, caption))
    info = b.eval("document.getElementById('sp-info').textContent")
    if "of %d" % nranks not in info:
        fail("the header does not say the ranks are representative of %d: %s" % (nranks, info))
    ntr = b.eval("document.querySelectorAll('tr').length")
    nlanes = b.eval("spReport.lanes.length")
    if ntr > 1000 or nlanes > 1000:
        fail("%d table rows and %d lanes for %d ranks: a row per rank?" % (ntr, nlanes, nranks))
    print("ok: %d ranks, %d representative (%s); %d table rows, %d lanes; %d regions' "
          "distributions equal numpy's" % (nranks, len(d["ranks"]), caption[:120], ntr, nlanes,
                                           len(rows)))


def case_balance(b, h5, out):
    import numpy as np
    d = report_data(sys.argv[2])
    names, tot, _, _, _, ids = oracle(h5)
    n = len(ids)
    dist = d.get("dist")
    if not dist or dist["nranks"] != n:
        fail("no 'dist' over the file's %d ranks" % n)
    want = {}
    for g, name in enumerate(names):
        v = tot[g]
        want[name] = (v.min(), v.mean(), v.max(), int(ids[int(np.argmax(v))]),
                      (v.max() - v.mean()) * n)
    errs = b.errors()
    if errs:
        fail("errors while loading: %s" % errs)
    rows = b.eval("[...document.querySelectorAll('#sp-balance-regions tbody tr')].map(r => "
                  "[r.getAttribute('data-name'), ...[...r.cells].slice(1).map(c => "
                  "+c.getAttribute('data-v'))])")
    if sorted(r[0] for r in rows) != sorted(names):
        fail("Load balance rows %s, regions %s" % ([r[0] for r in rows], names))
    for r in rows:
        w = want[r[0]]
        # columns: ranks with it, min, mean, max, slowest rank, imbalance, cost
        close(r[1], n, r[0] + " ranks with it")
        for x, y, what in zip((r[2], r[3], r[4], r[5], r[7]), (w[0], w[1], w[2], w[3], w[4]),
                              ("min/rank", "mean/rank", "max/rank", "slowest rank", "cost")):
            if abs(x - y) > 1e-6 * abs(y) + 1.0:
                fail("Load balance %s %s: page %r, numpy over %d ranks %r" % (r[0], what, x, n, y))
    paths = b.eval("[...document.querySelectorAll('#sp-balance-paths tbody tr')].map(r => "
                   "[r.getAttribute('data-name'), +r.cells[r.cells.length - 1]"
                   ".getAttribute('data-v')])")
    for name, cost in paths:
        if name in want and abs(cost - want[name][4]) > 1e-6 * want[name][4] + 1.0:
            fail("call path %s cost: page %r, numpy over %d ranks %r" % (name, cost, n,
                                                                          want[name][4]))
    worst = max(names, key=lambda k: want[k][4])
    li = b.eval("(() => { const e = document.querySelector('#sp-findings li[data-kind=imbalance]');"
                " return e && [e.getAttribute('data-region'), +e.getAttribute('data-rank'),"
                " e.textContent]; })()")
    if not li:
        fail("no imbalance finding")
    if li[0] != worst or li[1] != want[worst][3] or ("\u00d7 %d ranks" % n) not in li[2]:
        fail("finding %s; numpy: %s, rank %d, x %d ranks" % (li, worst, want[worst][3], n))
    for rg in dist["regions"]:
        if "bal" not in rg:
            fail("dist.regions[%d] has no 'bal'" % rg["g"])
        for x, y, what in zip(rg["bal"], want[names[rg["g"]]][:4],
                              ("min", "mean", "max", "slowest rank")):
            close(x, y, "dist %s %s" % (names[rg["g"]], what))
    cap = b.eval("document.querySelector('#sp-balance-section p.sp-help').textContent")
    if "all %d ranks" % n not in cap:
        fail("the Load balance caption does not say all %d ranks: %s" % (n, cap))
    box = b.eval("(() => { const s = document.getElementById('sp-balance-section');"
                 " s.scrollIntoView(); const r = s.getBoundingClientRect(),"
                 " t = document.getElementById('sp-balance-paths').getBoundingClientRect();"
                 " return {x: 0, y: r.top + window.scrollY, width: Math.max(r.right, 800),"
                 " height: t.bottom - r.top}; })()")
    import base64
    import pathlib
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                             "clip": dict(box, scale=1)})
    pathlib.Path(out, "balance.png").write_bytes(base64.b64decode(shot["data"]))
    print("ok: Load balance over all %d ranks: %s costs %.1f us (numpy %.1f us), slowest r%d; "
          "%d regions and %d paths equal numpy's" % (n, worst, rows[0][7] / 1e3 if rows else 0,
                                                     want[worst][4] / 1e3, li[1], len(rows),
                                                     len(paths)))


if __name__ == "__main__":
    drive({"ranks": case_ranks, "balance": case_balance}, __doc__)
