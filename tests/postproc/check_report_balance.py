#!/usr/bin/env python3
"""check_report_balance.py - the Load balance, Rank comparison and Hotspots
sections of report.html (report_balance.js) in Debian's real headless
Chromium, every number against an independent computation from the file
read with h5py/numpy (the calls' nesting rebuilt here: check_report.py's
file_paths).

Usage: check_report_balance.py CASE REPORT.html PROFILE.h5 OUTDIR [CHROMIUM]

Cases (PROFILE: balance.h5 of make_balance_file.py, 4 ranks, rank 2 slowest
in compute, rank 0 longest in MPI calls, io calls growing):
  balance   per region and per call path: min, mean, max over ranks of the
            rank's time (summed over threads; outermost calls of a region;
            0 for a rank without it), slowest rank, imbalance, cost; the
            captions state the rule; a header click sorts (both ways); no
            console error, no request; OUTDIR/balance.png to be looked at
  ranks     ranks x top regions: every cell, the slowest rank marked;
            clicking a rank highlights its lanes (spReport.highlightedRank,
            canvas dimmed), clicking again clears
  hotspots  top call paths by exclusive time with their share of the run
            (the roots' inclusive time over ranks and threads); the
            findings name compute / rank 2, rank 0 in MPI, io growing
  (hotspots and ranks also run on a real MPI run's file: the findings are
  then checked by the rules alone)
  filter    a search term (spReport.setFilter) narrows every table and the
            findings; clearing it restores them
Exit 0 when the case passes, 1 with the reason otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import (drive, canvas_box, coloured_fraction, fail, file_lanes,  # noqa: E402
                          file_paths, fmt_time)


def oracle(h5):
    """Per region and per call path, each rank's time, from h5py."""
    import numpy as np
    lanes = file_lanes(h5)
    ranks = sorted({rk for (_, rk, _) in lanes})
    reg = {}
    for (n, rk, th), calls in lanes.items():
        # Outermost calls of the region on this thread (recursion once).
        reach, tot = None, 0
        for s, e in sorted(calls, key=lambda c: (c[0], -c[1])):
            if reach is not None and s < reach and e <= reach:
                continue
            tot += e - s
            reach = e if reach is None or e > reach else reach
        reg.setdefault(n, np.zeros(len(ranks)))[ranks.index(rk)] += tot
    incl = {}
    for (n, rk, th), calls in file_paths(h5).items():
        for s, e, p in calls:
            incl.setdefault(p, np.zeros(len(ranks)))[ranks.index(rk)] += e - s
    excl = {p: v.copy() for p, v in incl.items()}
    for p, v in incl.items():
        if " / " in p:
            excl[p.rsplit(" / ", 1)[0]] -= v
    t0 = min(s for v in lanes.values() for s, _ in v)
    t1 = max(e for v in lanes.values() for _, e in v)
    thirds = {}
    for (n, rk, th), calls in lanes.items():
        t = thirds.setdefault(n, [0, 0, 0, 0])
        for s, e in calls:
            if s - t0 < (t1 - t0) / 3:
                t[0] += 1
                t[1] += e - s
            if s - t0 >= 2 * (t1 - t0) / 3:
                t[2] += 1
                t[3] += e - s
    roots = sum(v.sum() for p, v in incl.items() if " / " not in p)
    return ranks, reg, incl, excl, thirds, roots


def stats(v, ranks):
    mx = v.max()
    mean = v.mean()
    return {"min": v.min(), "mean": mean, "max": mx, "slow": ranks[int(v.argmax())],
            "imb": (mx - mean) / mx if mx > 0 else 0, "cost": (mx - mean) * len(ranks)}


def rows(b, table):
    return b.eval("[...document.querySelectorAll('#%s tbody tr')].filter(r => r.hasAttribute('data-name'))"
                  ".map(r => ({name: r.getAttribute('data-name'), v: [...r.cells].map(c => c.getAttribute('data-v')),"
                  " t: [...r.cells].map(c => c.textContent)}))" % table)


def heads(b, table):
    return b.eval("[...document.querySelectorAll('#%s th')].map(t => t.getAttribute('data-key'))" % table)


def shown(t, v):
    """The text of a time cell is fmtTime's (check_report.fmt_time); on an
    exact decimal tie JavaScript's toPrecision rounds up, Python's half to
    even, so a text one unit of its last digit off the tie is fine too."""
    if t == fmt_time(v):
        return True
    units = {"s": 1e9, "ms": 1e6, "\u00b5s": 1e3, "ns": 1}
    num, unit = t.split(" ")
    step = 10 ** -(len(num.split(".")[1]) if "." in num else 0) * units[unit]
    return abs(float(num) * units[unit] - v) <= step / 2 * (1 + 1e-9)


def near(got, want, what, tol):
    if abs(float(got) - float(want)) > tol:
        fail("%s: report %s, h5py %s" % (what, got, want))


def check_table(b, table, want, tols):
    """Every row of the table against want {name: {key: value}}."""
    keys, got = heads(b, table), rows(b, table)
    if {r["name"] for r in got} != set(want):
        fail("%s rows %s, expected %s" % (table, sorted(r["name"] for r in got), sorted(want)))
    n = 0
    for r in got:
        for k, v, t in zip(keys, r["v"], r["t"]):
            if k == "name" or k not in want[r["name"]]:
                continue
            near(v, want[r["name"]][k], "%s %s %s" % (table, r["name"], k), tols.get(k, 0.5))
            if tols.get(k) is None and k not in ("slow", "ranks", "calls") and not shown(t, float(v)):
                fail("%s %s %s shows %r, not %r" % (table, r["name"], k, t, fmt_time(float(v))))
            n += 1
    return n


def case_balance(b, h5, out):
    ranks, reg, incl, excl, thirds, roots = oracle(h5)
    want = {n: dict(stats(v, ranks), ranks=int((v > 0).sum())) for n, v in reg.items()}
    n1 = check_table(b, "sp-balance-regions", want, {"imb": 1e-9, "slow": 0, "ranks": 0})
    wantp = {p: stats(v, ranks) for p, v in incl.items()}
    # The tree's JSON rounds rmean to 0.1 ns and imb to 1e-4.
    n2 = check_table(b, "sp-balance-paths", wantp, {"imb": 1e-4, "slow": 0, "mean": 0.1, "cost": 0.5})
    print("load balance: %d region numbers, %d path numbers equal h5py's" % (n1, n2))
    caps = b.eval("[...document.querySelectorAll('#sp-balance-section p.sp-help')].map(p => p.textContent)")
    for c in ("summed over its threads", "a rank without the region counts 0", "(max \u2212 mean) / max",
              "--summary", "--tree"):
        if not any(c in x for x in caps):
            fail("the Load balance captions do not say %r: %s" % (c, caps))
    order = [r["name"] for r in rows(b, "sp-balance-regions")]
    costs = sorted(want, key=lambda n: (-want[n]["cost"], n))
    if order != costs:
        fail("regions not by cost first: %s, expected %s" % (order, costs))
    b.eval("document.querySelector('#sp-balance-regions th[data-key=\"max\"]').click()")
    by_max = [r["name"] for r in rows(b, "sp-balance-regions")]
    b.eval("document.querySelector('#sp-balance-regions th[data-key=\"max\"]').click()")
    by_max_asc = [r["name"] for r in rows(b, "sp-balance-regions")]
    print("by cost %s\nby max %s\nby max ascending %s" % (order, by_max, by_max_asc))
    if by_max == order or by_max != sorted(want, key=lambda n: (-want[n]["max"], n)):
        fail("clicking max did not sort by max, descending")
    if by_max_asc != sorted(want, key=lambda n: (want[n]["max"], n)):
        fail("clicking max again did not sort ascending")
    errs = b.errors() + b.eval("[...document.querySelectorAll('#sp-errors p')].map(p => p.textContent)")
    if errs:
        fail("errors: %s" % errs)
    urls = [e["params"]["request"]["url"] for e in b.events if e["method"] == "Network.requestWillBeSent"]
    if [u for u in urls if not u.startswith("file://") and not u.startswith("data:")] or \
            len([u for u in urls if u.startswith("file://")]) != 1:
        fail("the page made requests besides itself: %s" % urls)
    shot(b, out, "balance.png")


def shot(b, out, name):
    import base64
    box = b.eval("(() => { const a = document.getElementById('sp-balance-section').getBoundingClientRect(),"
                 " z = document.getElementById('sp-hotspots-section').getBoundingClientRect();"
                 " return {x: 0, y: a.top + window.scrollY, width: 1280, height: z.bottom - a.top}; })()")
    r = b.send("Page.captureScreenshot", {"format": "png", "clip": dict(box, scale=1),
                                          "captureBeyondViewport": True})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "wb") as f:
        f.write(base64.b64decode(r["data"]))
    print("saved", os.path.join(out, name))


def case_ranks(b, h5, out):
    ranks, reg, incl, excl, thirds, roots = oracle(h5)
    top = sorted((n for n in reg if reg[n].max() > 0), key=lambda n: -reg[n].mean())[:8]
    cols = b.eval("[...document.querySelectorAll('#sp-ranks thead th')].slice(1).map(t => t.textContent)")
    if cols != top:
        fail("rank comparison columns %s, expected %s" % (cols, top))
    got = b.eval("[...document.querySelectorAll('#sp-ranks tbody tr')].map(r => ({r: +r.getAttribute('data-rank'),"
                 " v: [...r.cells].slice(1).map(c => +c.getAttribute('data-v')),"
                 " t: [...r.cells].slice(1).map(c => c.textContent),"
                 " slow: [...r.cells].slice(1).map(c => c.classList.contains('sp-slow'))}))")
    if [g["r"] for g in got] != ranks:
        fail("rank rows %s, file ranks %s" % ([g["r"] for g in got], ranks))
    for g in got:
        j = ranks.index(g["r"])
        for k, n in enumerate(top):
            near(g["v"][k], reg[n][j], "rank %d %s" % (g["r"], n), 0.5)
            if not shown(g["t"][k], g["v"][k]):
                fail("rank %d %s shows %r" % (g["r"], n, g["t"][k]))
            if g["slow"][k] != (int(reg[n].argmax()) == j and reg[n].max() > reg[n].mean()):
                fail("rank %d %s: slowest mark %s" % (g["r"], n, g["slow"][k]))
    print("rank comparison: %d cells equal h5py's, slowest marked" % (len(got) * len(top)))
    cap = b.eval("document.querySelector('#sp-ranks-section p.sp-help').textContent")
    if "summed over its threads" not in cap or "0 where it lacks" not in cap:
        fail("the rank comparison caption does not state the rule: %s" % cap)
    box = canvas_box(b)
    before = b.screenshot(box)
    # The rank with the least time: its lanes hold the least colour, so dimming
    # the others must show whatever the run's balance (with the slowest rank,
    # whose lanes can hold most of it, a real np4 run once dimmed only 26 %).
    totals = [sum(float(reg[n][j]) for n in reg) for j in range(len(ranks))]
    least = ranks[totals.index(min(totals))]
    b.eval("document.querySelector('#sp-ranks tbody tr[data-rank=\"%d\"]').click()" % least)
    b.frames(2)
    after = b.screenshot(box)
    hl = b.eval("spReport.highlightedRank()")
    on = b.eval("[...document.querySelectorAll('#sp-ranks tr.sp-on')].map(r => +r.getAttribute('data-rank'))")
    f1, _ = coloured_fraction(before, 200)
    f2, _ = coloured_fraction(after, 200)
    print("clicked rank %d: highlighted %s, rows marked %s; coloured pixels %.3f -> %.3f" % (least, hl, on, f1, f2))
    if hl != least or on != [least]:
        fail("clicking rank %d highlighted %s (rows %s)" % (least, hl, on))
    if not f2 < 0.6 * f1:
        fail("the other ranks' lanes were not dimmed")
    with open(os.path.join(out, "timeline_rank.png"), "wb") as f:
        f.write(after)
    b.eval("document.querySelector('#sp-ranks tbody tr[data-rank=\"%d\"]').click()" % least)
    b.frames(2)
    if b.eval("spReport.highlightedRank()") is not None:
        fail("clicking the rank again did not clear the highlight")


def case_hotspots(b, h5, out):
    expect = os.path.basename(h5) == "balance.h5"
    ranks, reg, incl, excl, thirds, roots = oracle(h5)
    top = sorted(excl, key=lambda p: (-excl[p].sum(), p))[:10]  # ties by name, as the page
    want = {p: {"emean": excl[p].mean(), "excl": excl[p].sum(), "share": excl[p].sum() / roots,
                "calls": None} for p in top}
    for p in top:
        del want[p]["calls"]
    n = check_table(b, "sp-hotspots", want, {"emean": 0.1, "share": 1e-9})
    order = [r["name"] for r in rows(b, "sp-hotspots")]
    if order != top:
        fail("hotspots %s, expected %s" % (order, top))
    total = sum(v.sum() for v in excl.values()) / roots
    print("hotspots: %d numbers equal h5py's; the run %d ns; all paths' shares add up to %.6f" % (n, roots, total))
    cap = b.eval("document.querySelector('#sp-hotspots-section p.sp-help').textContent")
    if fmt_time(roots) not in cap or "summed over ranks and threads" not in cap:
        fail("the hotspots caption does not state the run: %s" % cap)
    f = b.eval("Object.fromEntries([...document.querySelectorAll('#sp-findings li[data-kind]')].map(l =>"
               " [l.getAttribute('data-kind'), [l.getAttribute('data-region'), l.getAttribute('data-rank'), l.textContent]]))")
    for k, v in f.items():
        print("finding %s: %s" % (k, v[2]))
    cost = {n: stats(v, ranks)["cost"] for n, v in reg.items()}
    top_cost = max(cost.values())
    worst = f.get("imbalance", [None])[0]  # ties (within rounding) may name either
    if worst not in cost or cost[worst] < top_cost * (1 - 1e-9) or \
            int(f["imbalance"][1]) != ranks[int(reg[worst].argmax())]:
        worst = max(cost, key=lambda n: cost[n])
        fail("the imbalance finding %s, expected %s on rank %d" % (f.get("imbalance"), worst, reg[worst].argmax()))
    mpi = sum(v for n, v in reg.items() if n.startswith("MPI_"))
    if isinstance(mpi, int):
        if "mpi" in f:
            fail("an MPI finding without MPI regions: %s" % f["mpi"])
    elif "mpi" not in f or int(f["mpi"][1]) != ranks[int(mpi.argmax())] or fmt_time(mpi.max()) not in f["mpi"][2]:
        fail("the MPI finding %s, expected rank %d with %s" % (f.get("mpi"), mpi.argmax(), fmt_time(mpi.max())))
    # The noise floor of check: a region under 0.1 % of the run or 100 us per rank is never named.
    floor = max(1e5, 0.001 * roots / len(ranks))
    ratio = {n: (t[3] / t[2]) / (t[1] / t[0]) for n, t in thirds.items()
             if t[0] >= 3 and t[2] >= 3 and t[1] > 0 and n in reg and reg[n].mean() >= floor}
    grow = max(ratio, key=lambda n: ratio[n]) if ratio else None
    print("growth ratios (last third / first third mean per call):",
          {n: round(r, 3) for n, r in ratio.items()})
    if grow is None or ratio[grow] < 1.5:
        if "growth" in f:
            fail("a growth finding %s, none expected" % f["growth"])
    elif "growth" not in f or f["growth"][0] != grow or "%.2f" % ratio[grow] not in f["growth"][2]:
        fail("the growth finding %s, expected %s (ratio %.3f)" % (f.get("growth"), grow, ratio[grow]))
    if expect:  # balance.h5: the regions and ranks it was made with
        if (worst, int(f["imbalance"][1]), int(f["mpi"][1]), grow) != ("compute", 2, 0, "io"):
            fail("findings %s, expected compute / rank 2, MPI rank 0, io" % f)


def case_filter(b, h5, out):
    b.eval("spReport.setFilter({terms: ['mpi_']})")
    regs = sorted(r["name"] for r in rows(b, "sp-balance-regions"))
    paths = [r["name"] for r in rows(b, "sp-balance-paths")]
    hot = [r["name"] for r in rows(b, "sp-hotspots")]
    cols = b.eval("[...document.querySelectorAll('#sp-ranks thead th')].slice(1).map(t => t.textContent)")
    kinds = b.eval("[...document.querySelectorAll('#sp-findings li[data-kind]')].map(l => l.getAttribute('data-kind') + ':' + l.getAttribute('data-region'))")
    print("filtered to 'mpi_': regions %s, paths %s, hotspots %s, rank columns %s, findings %s"
          % (regs, paths, hot, cols, kinds))
    if regs != ["MPI_Allreduce", "MPI_Barrier"] or sorted(cols) != regs:
        fail("the filter did not narrow the region tables")
    if not paths or any(not p.split(" / ")[-1].startswith("MPI_") for p in paths + hot):
        fail("the filter did not narrow the path tables")
    if "imbalance:MPI_Allreduce" not in kinds or any(k.startswith("growth") for k in kinds):
        fail("the findings did not follow the filter: %s" % kinds)
    b.eval("spReport.setFilter({terms: []})")
    if len(rows(b, "sp-balance-regions")) <= 2:
        fail("clearing the filter did not restore the rows")


CASES = {"balance": case_balance, "ranks": case_ranks, "hotspots": case_hotspots, "filter": case_filter}


if __name__ == "__main__":
    drive(CASES, __doc__)
