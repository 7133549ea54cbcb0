#!/usr/bin/env python3
"""check_report_filter.py - report.html's Search and filters and Run metadata
sections, in Debian's real headless Chromium (check_report.py's driver).

Usage: check_report_filter.py CASE REPORT.html PROFILE.h5 OUTDIR [CHROMIUM]
       check_report_filter.py usermeta SRC.h5 OUT.h5

What each section shows after a control changes is compared with what this
script computes from PROFILE.h5 (h5py): the regions whose names match, the
N largest by total time, the call paths (rebuilt from the stamps,
check_report.file_paths) of depth < d. Checked every time: the legend's
visible entries, the durations bars, the timeline's lanes (region, rank,
thread) and their layout height, the call-tree rows (a row of a hidden path
only above a shown one), the flame chart's calls of the first rank, the
"N of M regions shown" line; no console error, no request. Cases:
  search    types "^<first letter of one name>, <a substring of another>"
            in upper case into the search box
  top       the regions slider at 2 (and at its top: all again)
  depth     the call-depth slider at 1 and 2 (and at its top: all again)
  hash      the page opened with #q=...&top=...&depth=... shows that filter;
            moving a slider writes it back into the hash
  metadata  the Run metadata section: every scalar /metadata attribute of
            the file (h5py) with its value, the ranks, the hosts
  usermeta  (no browser) copies SRC.h5 to OUT.h5 and adds /metadata keys as
            sp_metadata_set writes them (text, int, float, a long text);
            writes depth.h5 beside it (region x as a root and under outer)
The depth case also checks the canvas: a call of a hidden (deeper) path in
a shown lane is not drawn where no shown call of the lane is.
Screenshots: OUTDIR/filter_<case>.png (the top of the page) to be looked at.
"""
import base64
import os
import pathlib
import re
import shutil
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402
from check_report import fail  # noqa: E402


class Oracle:
    """The file read with h5py: lanes, per-call paths, region totals."""

    def __init__(self, h5):
        self.paths = cr.file_paths(h5)  # {(name, rank, thread): [(s, e, 'a / b')]}
        self.names = sorted(cr.region_names(h5))
        self.total = {n: 0 for n in self.names}
        for (n, _, _), v in self.paths.items():
            self.total[n] += sum(e - s for s, e, _ in v)
        self.all_paths = {p for v in self.paths.values() for _, _, p in v}

    @staticmethod
    def depth(path):
        return path.count(" / ")

    @staticmethod
    def leaf(path):
        return path.split(" / ")[-1]

    def expect(self, terms=(), top=0, depth=0):
        """(regions shown, paths shown) by the rules of report_filter.js."""
        def match(n):
            n = n.lower()
            return not terms or any(n.startswith(t[1:]) if t.startswith("^") else t in n for t in terms)
        with_path = {self.leaf(p) for p in self.all_paths}
        within = {self.leaf(p) for p in self.all_paths if not depth or self.depth(p) < depth}
        within |= set(self.names) - with_path  # a region without a path: depth 0
        cand = sorted((n for n in self.names if match(n) and n in within),
                      key=lambda n: (-self.total[n], n))
        regions = set(cand[:top] if top else cand)
        paths = {p for p in self.all_paths if self.leaf(p) in regions and (not depth or self.depth(p) < depth)}
        return regions, paths

    def lanes(self, regions, paths):
        return sorted((n, rk, th) for (n, rk, th), v in self.paths.items()
                      if n in regions and any(p in paths for _, _, p in v))


def shown(b):
    """What the page shows now."""
    b.frames(2)
    return b.eval("""(() => {
      const R = spReport, D = R.data, names = D.regions.map(r => r.name);
      const path = i => { const n = D.tree[i]; return (n.p >= 0 ? path(n.p) + ' / ' : '') + names[n.g]; };
      const rows = [...document.querySelectorAll('#sp-tree tbody tr')];
      return {
        legend: [...document.querySelectorAll('#sp-legend li')].filter(li => !li.hidden).map(li => li.textContent),
        bars: [...document.querySelectorAll('#sp-durations rect')].map(r => names[+r.getAttribute('data-region')]),
        lanes: R.lanes.map(l => [names[l.g], l.rank, l.thread]),
        spacer: document.getElementById('sp-spacer').getBoundingClientRect().height +
                document.getElementById('sp-scroll').getBoundingClientRect().height,
        rows: rows.filter(r => !r.classList.contains('sp-ctx')).map(r => path(+r.getAttribute('data-node'))),
        ctx: rows.filter(r => r.classList.contains('sp-ctx')).map(r => path(+r.getAttribute('data-node'))),
        flame: R.flame().reduce((a, b) => a + b.shown, 0),
        exact: R.data.lanes.filter(l => l.iv && l.r === D.ranks[0]).map(l => names[l.g] + ':' + l.t),
        flameRank: D.ranks[0],
        count: document.getElementById('sp-filter-count').textContent,
        hash: location.hash,
        tracks: (D.samples || []).length
      };
    })()""")


def open_all_folds(b):
    """Opens every folded row of the call tree (the user's clicks)."""
    for _ in range(64):
        if not b.eval("(() => { const t = [...document.querySelectorAll('#sp-tree .sp-toggle')]"
                      ".find(e => e.textContent === '\\u25b8'); if (t) t.click(); return !!t; })()"):
            return


def check(b, o, label, terms=(), top=0, depth=0, fold=True):
    if fold:
        open_all_folds(b)
    s = shown(b)
    regions, paths = o.expect(terms, top, depth)
    print("%s: %s" % (label, s["count"]))
    print("  expected regions %s" % sorted(regions))
    if sorted(s["legend"]) != sorted(regions):
        fail("%s: legend %s, expected %s" % (label, sorted(s["legend"]), sorted(regions)))
    with_calls = {n for n in regions if o.total[n] > 0 or any(k[0] == n for k in o.paths)}
    if sorted(s["bars"]) != sorted(with_calls):
        fail("%s: durations bars %s, expected %s" % (label, sorted(s["bars"]), sorted(with_calls)))
    want_lanes = o.lanes(regions, paths)
    if sorted(map(tuple, s["lanes"])) != want_lanes:
        fail("%s: lanes %s, expected %s" % (label, sorted(map(tuple, s["lanes"])), want_lanes))
    # The timeline's scroll height follows the lanes shown (16 px each).
    if want_lanes and abs(s["spacer"] - 16 * len(want_lanes) - 48 * s["tracks"]) > 3 and \
            s["spacer"] > 200 + 3:
        fail("%s: the timeline is %.0f px high for %d lanes" % (label, s["spacer"], len(want_lanes)))
    if sorted(s["rows"]) != sorted(paths):
        fail("%s: tree rows %s, expected the paths %s" % (label, sorted(s["rows"]), sorted(paths)))
    for c in s["ctx"]:
        if c in paths or not any(p.startswith(c + " / ") for p in s["rows"]):
            fail("%s: greyed row %s is not above a shown path" % (label, c))
    # The flame chart draws the exact lanes of the rank (binned calls: a note).
    exact = set(s["exact"])
    flame = sum(1 for (n, rk, th), v in o.paths.items() if rk == s["flameRank"] and
                "%s:%d" % (n, th) in exact for _, _, p in v if p in paths)
    if s["flame"] != flame:
        fail("%s: flame chart shows %d calls of rank %d, expected %d" % (label, s["flame"], s["flameRank"], flame))
    want = "%d of %d regions shown" % (len(regions), len(o.names))
    if not s["count"].startswith(want):
        fail("%s: the count says %r, expected %r" % (label, s["count"], want))
    print("  ok: %d regions, %d lanes, %d tree rows (+%d greyed), %d flame calls" %
          (len(regions), len(want_lanes), len(s["rows"]), len(s["ctx"]), flame))
    return s


def slider(b, id_, value):
    b.eval("(() => { const s = document.getElementById(%r); s.value = %s;"
           " s.dispatchEvent(new Event('input')); })()" % (id_, value))
    b.frames(3)


def shot(b, out, name):
    r = b.eval("(() => { window.scrollTo(0, 0); return {x: 0, y: 0, width: innerWidth,"
               " height: Math.min(document.body.scrollHeight, 1400)}; })()")
    os.makedirs(out, exist_ok=True)
    save_clip(b, r, os.path.join(out, "filter_%s.png" % name))


def save_clip(b, r, path):
    """A screenshot of page area r, also below the window."""
    png = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                            "clip": dict(r, scale=1)})["data"]
    pathlib.Path(path).write_bytes(base64.b64decode(png))


def no_errors(b):
    errs = b.errors() + b.eval("[...document.querySelectorAll('#sp-errors p')].map(p => p.textContent)")
    if errs:
        fail("errors in the page: %s" % errs)
    urls = [e["params"]["request"]["url"] for e in b.events if e["method"] == "Network.requestWillBeSent"]
    if [u for u in urls if not u.startswith("file://") and not u.startswith("data:")]:
        fail("the page made requests: %s" % urls)


def case_search(b, h5, out):
    o = Oracle(h5)
    check(b, o, "no filter")
    # "^x": a prefix of a name that fewer names start with than contain it
    # (the anchor matters), and the end of the last name; in upper case.
    def n_with(t, start):
        return sum(1 for n in o.names if (n.lower().startswith(t) if start else t in n.lower()))
    pre = [n[:k].lower() for n in o.names for k in range(1, len(n) + 1)]
    pre = [t for t in pre if n_with(t, True) < len(o.names)]
    a = min(pre, key=lambda t: (n_with(t, True) >= n_with(t, False), len(t)))
    text = ("^%s, %s" % (a, o.names[-1][-2:])).upper()
    b.eval("document.getElementById('sp-search').focus()")
    b.send("Input.insertText", {"text": text})
    b.frames(3)
    terms = [t.strip().lower() for t in text.split(",")]
    s = check(b, o, "search %r" % text, terms)
    if len(s["legend"]) == len(o.names):
        fail("the search %r hid nothing: not a test" % text)
    shot(b, out, "search")
    b.eval("(() => { const s = document.getElementById('sp-search'); s.value = '';"
           " s.dispatchEvent(new Event('input')); })()")
    b.frames(3)
    check(b, o, "search cleared")
    no_errors(b)


def case_top(b, h5, out):
    o = Oracle(h5)
    mx = b.eval("+document.getElementById('sp-top').max")
    if mx != len(o.names):
        fail("the regions slider goes to %d, the file has %d regions" % (mx, len(o.names)))
    slider(b, "sp-top", 2)
    check(b, o, "top 2", top=2)
    shot(b, out, "top")
    slider(b, "sp-top", 1)
    check(b, o, "top 1", top=1)
    slider(b, "sp-top", mx)
    check(b, o, "top all")
    no_errors(b)


def case_depth(b, h5, out):
    o = Oracle(h5)
    levels = max(o.depth(p) for p in o.all_paths) + 1
    mx = b.eval("+document.getElementById('sp-depth').max")
    if mx != levels:
        fail("the depth slider goes to %d, the deepest path is at depth %d" % (mx, levels - 1))
    for d in range(1, levels):
        slider(b, "sp-depth", d)
        check(b, o, "depth %d" % d, depth=d)
        hidden_calls_blank(b, o, d)
        if d == 1:
            shot(b, out, "depth")
    slider(b, "sp-depth", mx)
    check(b, o, "depth all")
    no_errors(b)


def hidden_calls_blank(b, o, d):
    """A shown lane's call of a deeper path, that no shown call of the lane
    overlaps, is not drawn (white canvas pixel at its middle; coloured
    without the filter)."""
    t0 = min(s for v in o.paths.values() for s, _, _ in v)
    for (n, rk, th), v in sorted(o.paths.items()):
        shown = [(s, e) for s, e, p in v if o.depth(p) < d]
        alone = [(s, e) for s, e, p in v if o.depth(p) >= d and e > s and
                 not any(a <= e and s <= z for a, z in shown)]
        if not shown or not alone:
            continue
        s, e = alone[0]
        idx = b.eval("spReport.lanes.findIndex(l => spReport.data.regions[l.g].name === %r &&"
                     " l.rank === %d && l.thread === %d)" % (n, rk, th))
        b.eval("spReport.setView(%r, %r)" % (s - t0 - (e - s), e - t0 + (e - s)))
        b.eval("document.getElementById('sp-scroll').scrollTop = %d" % max(0, idx * 16 - 32))
        b.frames(2)
        px = cr.canvas_rgb(b, idx, (s + e) / 2 - t0)
        dep = b.eval("spReport.filter.depth")
        b.eval("spReport.setFilter({depth: 0})")
        b.frames(2)
        idx0 = b.eval("spReport.lanes.findIndex(l => spReport.data.regions[l.g].name === %r &&"
                      " l.rank === %d && l.thread === %d)" % (n, rk, th))
        b.eval("document.getElementById('sp-scroll').scrollTop = %d" % max(0, idx0 * 16 - 32))
        b.frames(2)
        px0 = cr.canvas_rgb(b, idx0, (s + e) / 2 - t0)
        b.eval("spReport.setFilter({depth: %d}); spReport.setView(0, spReport.data.span)" % dep)
        b.frames(2)
        print("  depth %d: the call of %s r%d t%d at [%d, %d] ns (deeper path) drawn %s, %s without the filter"
              % (d, n, rk, th, s - t0, e - t0, px, px0))
        if px != [255, 255, 255] or px0 == [255, 255, 255]:
            fail("depth %d: a call of a hidden path of a shown lane is drawn %s (%s without the filter)"
                 % (d, px, px0))
        return 1
    return 0


def case_hash(b, h5, out):
    o = Oracle(h5)
    levels = max(o.depth(p) for p in o.all_paths) + 1
    depth = 2 if levels > 2 else 0
    # The anchored first letter that keeps the most regions within the depth.
    term = max(("^" + n[0].lower() for n in o.names), key=lambda t: (len(o.expect([t], 0, depth)[0]), t))
    if not o.expect([term], 2, depth)[0]:
        fail("no region to show: not a test")
    url = b.eval("location.href.split('#')[0]")
    q = "q=%s&top=2%s&x=keep" % (urllib.parse.quote(term), "&depth=%d" % depth if depth else "")
    # A link with the hash (hashchange), then a reload of that address.
    for how in ("hashchange", "reload"):
        if how == "hashchange":
            b.eval("location.href = %r" % (url + "#" + q))
        else:
            b.events = [e for e in b.events if e["method"] != "Page.loadEventFired"]
            b.eval("setTimeout(() => location.reload(), 0)")
            b.wait_event("Page.loadEventFired", 60)
        b.frames(3)
        got = b.eval("[document.getElementById('sp-search').value, +document.getElementById('sp-top').value,"
                     " +document.getElementById('sp-depth').value, location.hash]")
        print("controls after the %s of #%s: %s" % (how, q, got))
        if got[0] != term or got[1] != 2 or (depth and got[2] != depth):
            fail("the controls %s do not follow the hash %s" % (got, q))
        check(b, o, "hash, " + how, [term], 2, depth)
    slider(b, "sp-top", 1)
    h = b.eval("location.hash")
    print("hash after moving the regions slider to 1:", h)
    p = urllib.parse.parse_qs(h[1:])
    if p.get("top") != ["1"] or p.get("q") != [term] or p.get("x") != ["keep"]:
        fail("the hash %s does not hold the filter (top=1, q=%s) and the other key" % (h, term))
    shot(b, out, "hash")
    no_errors(b)


def case_metadata(b, h5, out):
    import h5py
    import numpy as np
    want = {}
    with h5py.File(h5, "r") as f:
        # Rank groups as the reader takes them: rank<N>, N without leading 0.
        rk = [k for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k)]
        ranks = len(rk)
        hosts = {}
        for k in rk:
            if "hostname" in f[k].attrs:
                h = f[k].attrs["hostname"]
                h = h.decode() if isinstance(h, bytes) else str(h)
                hosts[h] = hosts.get(h, 0) + 1
        for k, v in (f["metadata"].attrs.items() if "metadata" in f else []):
            if isinstance(v, bytes):
                v = v.decode()
            elif isinstance(v, np.ndarray) and v.shape != ():
                continue  # arrays are not shown
            elif isinstance(v, (np.integer, int)):
                v = str(int(v))
            elif isinstance(v, (np.floating, float)):
                v = float(v)
            want[k] = v
    heading = b.eval("document.querySelector('#sp-run-section h2').textContent")
    if heading != "Run metadata":
        fail("the section's heading is %r" % heading)
    got = b.eval("[...document.querySelectorAll('#sp-meta tr[data-key], #sp-lib tr[data-key]')].map(r =>"
                 " [r.getAttribute('data-key'), r.cells[1].title || r.cells[1].textContent])")
    got = dict(got)
    print("file /metadata:", {k: str(v)[:60] for k, v in want.items()})
    print("page:          ", {k: str(v)[:60] for k, v in got.items()})
    if set(got) != set(want):
        fail("the section lists %s, the file has %s" % (sorted(got), sorted(want)))
    for k, v in want.items():
        g = got[k]
        if isinstance(v, float):
            if float(g) != v:
                fail("%s: %r in the page, %r in the file" % (k, g, v))
        elif g != v[:4096]:
            fail("%s: %r in the page, %r in the file" % (k, g[:80], v[:80]))
    run = dict(b.eval("[...document.querySelectorAll('#sp-run tr')].map(r => [r.getAttribute('data-key'),"
                      " r.cells[1].textContent])"))
    print("run rows:", run)
    sel = b.eval("spReport.data.ranks.length")
    if not run["ranks"].startswith("%d of %d in the file" % (sel, ranks)):
        fail("ranks row %r, expected %d of %d" % (run["ranks"], sel, ranks))
    if hosts:
        for h, n in hosts.items():
            if "%s (%d rank" % (h, n) not in run["hosts"]:
                fail("hosts row %r lacks %s with %d ranks" % (run["hosts"], h, n))
    lib = want.get("library_version") or want.get("scope_profiler_version") or "not recorded"
    if run["library version"] != lib:
        fail("library version %r, file %r" % (run["library version"], lib))
    r = b.eval("(() => { const s = document.getElementById('sp-run-section'); const r = s.getBoundingClientRect();"
               " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()")
    os.makedirs(out, exist_ok=True)
    save_clip(b, r, os.path.join(out, "metadata.png"))
    # The header's button scrolls to the section without an #anchor (the
    # hash holds the filter).
    b.eval("window.scrollTo(0, 0); document.getElementById('sp-run-link').click()")
    b.frames(2)
    top, h, y, ymax = b.eval("[document.getElementById('sp-run-section').getBoundingClientRect().top,"
                             " location.hash, scrollY, document.documentElement.scrollHeight - innerHeight]")
    print("after the Run metadata button: section at %.0f px, scrollY %.0f of %.0f, hash %r" % (top, y, ymax, h))
    if not (abs(top) <= 2 or (y > 0 and abs(y - ymax) <= 2)) or h:
        fail("the Run metadata button left the section at %r px (scrollY %r of %r), hash %r"
             % (top, y, ymax, h))
    no_errors(b)


def gen_depth(dst):
    """depth.h5 (2 ranks): region x runs at the top (a root) and under outer,
    at other times; y under the root x. Stamps in ms after 1e12 ns."""
    import h5py
    import numpy as np
    calls = {"outer": [(10, 40)], "x": [(15, 25), (60, 80)], "y": [(62, 70)]}
    with h5py.File(dst, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank in range(2):
            regs = f.create_group("rank%d" % rank).create_group("regions")
            for name, v in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                for k, key in ((0, "start_times"), (1, "end_times")):
                    g.create_dataset(key, data=np.array([10**12 + rank * 1000 + c[k] * 10**6 for c in v],
                                                        dtype=np.int64))


def usermeta(src, dst):
    """A copy of src with /metadata keys as sp_metadata_set writes them."""
    import h5py
    import numpy as np
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        m = f.require_group("metadata")
        m.attrs["case"] = np.bytes_(b"cavity <3d> & more")
        m.attrs["nx"] = np.int64(512)
        m.attrs["dt"] = np.float64(0.1)
        m.attrs["long_text"] = np.bytes_(("x" * 5000).encode())


CASES = {"search": case_search, "top": case_top, "depth": case_depth, "hash": case_hash,
         "metadata": case_metadata}


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "usermeta":
        usermeta(sys.argv[2], sys.argv[3])
        gen_depth(os.path.join(os.path.dirname(sys.argv[3]), "depth.h5"))
        print("PASS usermeta")
        return
    if len(sys.argv) < 5 or sys.argv[1] not in CASES:
        print(__doc__)
        sys.exit(2)
    case, report, h5, out = sys.argv[1:5]
    exe = sys.argv[5] if len(sys.argv) > 5 else shutil.which("chromium")
    if not os.path.isfile(report):
        fail("%s was not written" % report)
    cr.run_case(CASES, case, report, h5, out, exe, 120)


if __name__ == "__main__":
    main()
