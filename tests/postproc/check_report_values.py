"""check_report_values.py - the report's tooltip shows a call's values per
call (issue 53 item 2), in headless Chromium, against h5py.

usage: check_report_values.py tooltip REPORT H5 OUTDIR [CHROMIUM]

Hovers calls of every exact lane that holds values (each window zoomed on
the call), reads the tooltip and checks its "values" lines against the
call's values read with h5py (the call found by its start stamp through
spReport.lastHit); a call that set none shows no "values" line. Writes
OUTDIR/values_tooltip.png, a screenshot of one such tooltip."""
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import drive, fail, hover  # noqa: E402
from check_values_read import per_call, starts_of  # noqa: E402


def tip_values(tip):
    """{key: text} of the tooltip's values lines (None: no values line)."""
    lines = tip.split("\n")
    if "values" not in lines:
        return None
    out = {}
    for ln in lines[lines.index("values") + 1:]:
        if not ln.startswith("  ") or " = " not in ln:
            break
        k, v = ln[2:].split(" = ", 1)
        out[k] = v
    return out


def same(text, want):
    if isinstance(want, bool) or not isinstance(want, (int, float)):
        return text == want
    return float(text) == want if isinstance(want, float) else text == str(want)


def case_tooltip(b, h5, out):
    calls, starts = per_call(h5), starts_of(h5)
    t0 = min(int(s.min()) for s in starts.values() if len(s))
    by_start = {}
    for (rank, region), st in starts.items():
        for e, s in enumerate(st):
            by_start[(rank, region, int(s) - t0)] = calls[(rank, region)][e]
    lanes = b.eval("spReport.lanes.map((l, i) => ({i: i, g: l.g, rank: l.rank, thread: l.thread,"
                   " n: l.start ? l.start.length : 0, vals: l.vals ? Object.keys(l.vals) : []}))")
    names = b.eval("spReport.data.regions.map(r => r.name)")
    checked, none_seen, shot = 0, 0, False
    for ln in lanes:
        if not ln["vals"] or ln["n"] == 0:
            continue
        for k in sorted({0, ln["n"] // 3, ln["n"] // 2, ln["n"] - 1}):
            s, d = b.eval("[spReport.lanes[%d].start[%d], spReport.lanes[%d].dur[%d]]"
                          % (ln["i"], k, ln["i"], k))
            b.eval("spReport.setView(%r, %r)" % (s - 2 * d - 1, s + 3 * d + 1))
            # The timeline near the top of the window (below the sticky
            # header): a lane low in a long timeline is then in the viewport.
            b.eval("(() => { const r = document.getElementById('sp-scroll')"
                   ".getBoundingClientRect(); window.scrollBy(0, r.top - 150); })()")
            tip = hover(b, ln["i"], s + d / 2)
            hit = b.eval("spReport.lastHit()")
            if not tip or not hit:
                fail("no tooltip over lane %d call %d" % (ln["i"], k))
            key = (ln["rank"], names[ln["g"]], int(round(hit[0])))
            if key not in by_start:
                fail("the hovered call %r is not in the file" % (key,))
            want, got = by_start[key], tip_values(tip)
            if not want:
                if got is not None:
                    fail("%r set no value but the tooltip shows %r" % (key, got))
                none_seen += 1
                continue
            if got is None or got.keys() != want.keys() or not all(
                    same(got[x], want[x]) for x in want):
                fail("%r: tooltip values %r, want %r\n%s" % (key, got, want, tip))
            checked += 1
            if not shot and len(want) >= 3:
                # The clip is in page coordinates: the tooltip's box plus the scroll.
                r = b.eval("(() => { const t = document.getElementById('sp-tip')"
                           ".getBoundingClientRect(); return {x: Math.max(0, t.left - 220 +"
                           " window.scrollX), y: Math.max(0, t.top - 60 + window.scrollY),"
                           " width: t.width + 240, height: t.height + 80}; })()")
                pathlib.Path(out, "values_tooltip.png").write_bytes(b.screenshot(r))
                print("tooltip:", repr(tip))
                shot = True
    if checked < 6 or not shot:
        fail("only %d calls with values hovered (screenshot %s)" % (checked, shot))
    print("%d calls' tooltip values agree, %d calls without values show none" % (checked, none_seen))


if __name__ == "__main__":
    drive({"tooltip": case_tooltip}, __doc__)
