#!/usr/bin/env python3
"""check_report.py - drive report.html in Debian's real headless Chromium.

Usage: check_report.py CASE REPORT.html PROFILE.h5[,MORE.h5...] OUTDIR [CHROMIUM]

Talks to Chromium over the DevTools protocol (--remote-debugging-pipe:
JSON messages ending in NUL on fds 3 and 4), standard library only. The
region names expected in the page are read from PROFILE.h5 with h5py, not
from the report. Cases:
  data         (no browser) the embedded data equals the file read with h5py:
               the same lanes, every exact interval, every coarse bin's busy
               fraction (an independent computation), every interval's call
               path (nesting rebuilt here), every tile's exact intervals
  colors       (no browser) default colours: tab10 over the sorted names
  window       the page opens on the --start-time/--end-time window
  load         no console message of level error, no exception, no error in
               the page's #sp-errors; the legend lists every region of the
               file exactly once; the page fetched nothing (every request is
               the file itself or data:)
  zoom         a real mouse-wheel event over the timeline narrows the
               window and changes the time-axis labels; drag pans it
  keys         '+' zooms in, '0' returns to the whole run
  screenshots  the timeline at two zoom levels: both non-blank (coloured
               pixels in the plot area) and different; saved as
               OUTDIR/timeline_{full,zoomed}.png to be looked at
  tooltip      hovering the first lane's bar shows its region and rank
  highlight    clicking a legend entry marks it and dims the other lanes
  flame        the flame chart: every call's depth against the file, non-blank
  callpath     hovering a nested call names its containing calls (the file's)
  durations    the duration bars' order and widths against the file's totals
  speedup      (several files) the speedup points against the rule computed
               here from every file
  tree         (call tree) the table lists every region; clicking a header
               sorts, clicking a row highlights its lanes
  pathhl       (a region with several paths, e.g. paths.h5: r under a and
               under b) clicking the row of its path with the fewest calls
               (a / r) highlights its calls only (canvas pixels at their
               times), the tooltips give each call's path (paths by the
               call ids in the reference tool's files); saved as
               OUTDIR/timeline_path.png
  pathhl_binned  (paths.h5, all binned) after clicking a / r, the tooltip over
               r's bins says they are highlighted by region, names both paths
  tiles        (a binned report with tiles) zoomed into an embedded tile,
               the tooltip gives an exact call (start and duration equal to
               h5py's); zoomed out, a busy fraction
Exit 0 when the case passes, 1 with the reason otherwise.
"""
import base64
import fcntl
import json
import math
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


class Browser:
    """A headless Chromium driven through --remote-debugging-pipe."""

    def __init__(self, exe, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="sp-chromium-")
        cmd_r, cmd_w = os.pipe()  # we write commands, Chromium reads fd 3
        res_r, res_w = os.pipe()  # Chromium writes fd 4, we read
        # Move the child's ends above 4 first so dup2 cannot clobber them.
        hi_r2, hi_w2 = dup_high(cmd_r), dup_high(res_w)

        def child():
            os.dup2(hi_r2, 3)
            os.dup2(hi_w2, 4)

        args = [exe, "--headless", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--window-size=%d,%d" % (width, height), "--hide-scrollbars",
                "--force-device-scale-factor=1", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root otherwise
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=child,
                                     pass_fds=(3, 4))  # the dup2 targets: kept open
        for fd in (hi_r2, hi_w2):
            os.close(fd)
        self.wfd, self.rfd = cmd_w, res_r
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.recv()
            if m.get("id") == want:
                if "error" in m:
                    fail("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def recv(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                fail("Chromium closed the DevTools pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(raw)
        if "method" in m:
            self.events.append(m)
        return m

    def wait_event(self, name, timeout=30):
        end = time.time() + timeout
        seen = 0
        while time.time() < end:
            for e in self.events[seen:]:
                if e["method"] == name:
                    return e
            seen = len(self.events)
            self.recv()
        fail("no %s within %d s" % (name, timeout))

    def open(self, url):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", 60)
        self.frames(2)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            fail("evaluating %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def frames(self, n=2):
        """Waits until the page has drawn n animation frames."""
        self.eval("new Promise(r => { let k = %d; (function f() { if (--k < 0) r(1); "
                  "else requestAnimationFrame(f); })(); })" % n)

    def mouse(self, kind, x, y, **extra):
        p = {"type": kind, "x": x, "y": y}
        p.update(extra)
        self.send("Input.dispatchMouseEvent", p)

    def key(self, key, code, text=None):
        for kind in ("keyDown", "keyUp"):
            p = {"type": kind, "key": key, "code": code}
            if text and kind == "keyDown":
                p["text"] = text
            self.send("Input.dispatchKeyEvent", p)

    def screenshot(self, clip):
        r = self.send("Page.captureScreenshot", {"format": "png", "clip": dict(clip, scale=1)})
        return base64.b64decode(r["data"])

    def errors(self):
        out = []
        for e in self.events:
            m, p = e["method"], e["params"]
            if m == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p["args"]]))
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append("log: %s" % p["entry"]["text"])
        return out

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(10)
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def dup_high(fd):
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return new


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("screenshot is not a PNG")
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                fail("unexpected PNG depth %d colour type %d" % (depth, ctype))
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def coloured_fraction(png, x0):
    """Fraction of pixels right of x0 that are neither white nor grey."""
    w, h, rows = png_pixels(png)
    n = tot = 0
    for row in rows:
        for (r, g, b) in row[x0:]:
            tot += 1
            n += max(r, g, b) - min(r, g, b) > 30
    return n / max(tot, 1), rows


def inked(rows):
    """Pixels that are neither white nor grey. Real runs can be sparse
    (threads started far apart under load, calls of tens of ns), and the
    charts are honest about it: blankness is checked by count, not share."""
    return sum(1 for row in rows for (r, g, b) in row if max(r, g, b) - min(r, g, b) > 30)


def region_names(h5path):
    import h5py
    if is_columnar(h5path):
        return {k[0] for k in columnar_paths(h5path)}
    names = set()
    with h5py.File(h5path, "r") as f:
        for rk in f:
            if not rk.startswith("rank") or "regions" not in f[rk]:
                continue
            for link, grp in f[rk]["regions"].items():
                # Without a name attribute the name is the decoded link name ("a%2Fb").
                n = grp.attrs.get("name", urllib.parse.unquote(link))
                names.add(n.decode() if isinstance(n, bytes) else str(n))
    return names


def canvas_box(b):
    return b.eval("(() => { const r = document.getElementById('sp-canvas').getBoundingClientRect();"
                  " return {x: r.left, y: r.top, width: r.width, height: r.height}; })()")


def ticks(b):
    return b.eval("[...document.querySelectorAll('#sp-axis .sp-tick')].map(e => e.textContent)")


def case_load(b, h5, out):
    errs = b.errors() + b.eval("[...document.querySelectorAll('#sp-errors p')].map(p => p.textContent)")
    if errs:
        fail("errors while loading: %s" % errs)
    legend = b.eval("[...document.querySelectorAll('#sp-legend li')].map(e => e.textContent)")
    want = region_names(h5)
    if sorted(legend) != sorted(want):
        fail("legend %s, file has %s" % (sorted(legend), sorted(want)))
    urls = [e["params"]["request"]["url"] for e in b.events if e["method"] == "Network.requestWillBeSent"]
    foreign = [u for u in urls if not u.startswith("file://") and not u.startswith("data:")]
    if len([u for u in urls if u.startswith("file://")]) != 1 or foreign:
        fail("the page made requests besides itself: %s" % urls)
    print("ok: no errors; %d regions in the legend: %s" % (len(legend), sorted(legend)))


def case_zoom(b, h5, out):
    box = canvas_box(b)
    before, view0 = ticks(b), b.eval("spReport.view()")
    x, y = box["x"] + 190 + (box["width"] - 190) / 2, box["y"] + 20
    b.mouse("mouseWheel", x, y, deltaX=0, deltaY=-600)
    b.frames(2)
    after, view1 = ticks(b), b.eval("spReport.view()")
    print("axis before:", before, view0)
    print("axis after: ", after, view1)
    if not before or not after:
        fail("no axis labels")
    if after == before:
        fail("the wheel did not change the axis labels")
    if not view1[1] - view1[0] < 0.5 * (view0[1] - view0[0]):
        fail("the wheel did not narrow the window: %s -> %s" % (view0, view1))
    b.mouse("mousePressed", x, y, button="left", clickCount=1)
    b.mouse("mouseMoved", x - 200, y, button="left")
    b.mouse("mouseReleased", x - 200, y, button="left", clickCount=1)
    b.frames(2)
    view2 = b.eval("spReport.view()")
    print("after drag:", ticks(b), view2)
    if not view2[0] > view1[0]:
        fail("dragging left did not move the window later: %s -> %s" % (view1, view2))


def case_keys(b, h5, out):
    box = canvas_box(b)
    b.mouse("mousePressed", box["x"] + 5, box["y"] + 5, button="left", clickCount=1)
    b.mouse("mouseReleased", box["x"] + 5, box["y"] + 5, button="left", clickCount=1)
    v0, t0 = b.eval("spReport.view()"), ticks(b)
    b.key("+", "Equal", "+")
    b.frames(2)
    v1, t1 = b.eval("spReport.view()"), ticks(b)
    b.key("0", "Digit0", "0")
    b.frames(2)
    v2 = b.eval("spReport.view()")
    print("views:", v0, v1, v2, "ticks:", t0, t1)
    if not abs((v1[1] - v1[0]) - 0.5 * (v0[1] - v0[0])) < 1e-6 * (v0[1] - v0[0]) or t1 == t0:
        fail("'+' did not halve the window and relabel the axis")
    if v2 != v0:
        fail("'0' did not return to the whole run")


def first_bar_frac(b):
    """Where the first lane's first bar is, as a fraction of the plot width."""
    return b.eval("(() => { const l = spReport.lanes[0], v = spReport.view(), D = spReport.data;"
                  " let t = v[0] + (v[1] - v[0]) / 2;"
                  " if (l.start) t = l.start[0] + l.dur[0] / 2;"
                  " else { const lv = l.levels[l.levels.length - 1], w = D.span / lv.length;"
                  "   const k = lv.findIndex(x => x > 0); t = (k + 0.5) * w; }"
                  " return (t - v[0]) / (v[1] - v[0]); })()")


def case_screenshots(b, h5, out):
    box = canvas_box(b)
    full = b.screenshot(box)
    # Zoom in around the first lane's first bar, so the zoomed picture shows it.
    x, y = box["x"] + 190 + (box["width"] - 190) * first_bar_frac(b), box["y"] + 8
    b.mouse("mouseWheel", x, y, deltaX=0, deltaY=-800)
    b.frames(2)
    zoomed = b.screenshot(box)
    os.makedirs(out, exist_ok=True)
    for name, png in (("full", full), ("zoomed", zoomed)):
        pathlib.Path(out, "timeline_%s.png" % name).write_bytes(png)
    f1, rows1 = coloured_fraction(full, 200)
    f2, rows2 = coloured_fraction(zoomed, 200)
    n1, n2 = inked(rows1), inked(rows2)
    print("coloured pixels: full %.3f (%d), zoomed %.3f (%d); saved in %s" % (f1, n1, f2, n2, out))
    if n1 < 10 or n2 < 10:
        fail("a screenshot is blank (coloured pixels %d, %d)" % (n1, n2))
    if rows1 == rows2:
        fail("zooming did not change the picture")


def case_tooltip(b, h5, out):
    box = canvas_box(b)
    lane = b.eval("(() => { const l = spReport.lanes[0]; return {g: l.g, rank: l.rank}; })()")
    name = b.eval("spReport.data.regions[%d].name" % lane["g"])
    mid = first_bar_frac(b)
    x = box["x"] + 190 + (box["width"] - 190) * mid
    b.mouse("mouseMoved", x, box["y"] + 8)
    b.frames(1)
    tip = b.eval("(() => { const t = document.getElementById('sp-tip');"
                 " return t.hidden ? null : t.textContent; })()")
    print("tooltip:", repr(tip))
    if not tip or ("region  " + name) not in tip or ("rank  %d" % lane["rank"]) not in tip:
        fail("hovering lane 0 (%s r%d) gave tooltip %r" % (name, lane["rank"], tip))
    for word in ("call path", "thread", "start" if b.eval("!!spReport.lanes[0].start") else "busy"):
        if word not in tip:
            fail("tooltip lacks %r" % word)


def case_highlight(b, h5, out):
    box = canvas_box(b)
    before = b.screenshot(box)
    b.eval("document.querySelector('#sp-legend li').click()")
    b.frames(2)
    after = b.screenshot(box)
    on = b.eval("[...document.querySelectorAll('#sp-legend li.sp-on')].map(e => e.textContent)")
    print("highlighted:", on)
    if len(on) != 1:
        fail("clicking the first legend entry marked %s" % on)
    f1, _ = coloured_fraction(before, 200)
    f2, _ = coloured_fraction(after, 200)
    print("coloured pixels before %.3f, after %.3f" % (f1, f2))
    if not f2 < f1:
        fail("the other lanes were not dimmed")


def case_tree(b, h5, out):
    """The call-tree table: every region of the file has a row; a root that
    is its region's only node has the region's total time as inclusive time
    (h5py); lanes follow the tree; a header click sorts, a toggle folds, a
    row click highlights the region."""
    spans = file_lanes(h5)
    want = {n for (n, _, _) in spans}
    nodes = b.eval("spReport.data.tree.map(n => ({name: spReport.data.regions[n.g].name, d: n.d,"
                   " p: n.p, incl: n.incl}))")
    rows = b.eval("[...document.querySelectorAll('#sp-tree tbody tr')].map(r => r.getAttribute('data-name'))")
    print("nodes:", [(n["name"], n["d"]) for n in nodes], "rows:", rows)
    if {n["name"] for n in nodes} != want:
        fail("tree regions %s, file has %s" % (sorted({n["name"] for n in nodes}), sorted(want)))
    # One aggregation rule (issue 38): the first time columns are the mean per
    # rank, the sum over ranks is named so; excl / ranks in the data.
    heads = b.eval("[...document.querySelectorAll('#sp-tree th')].map(t => t.textContent)")
    print("tree columns:", heads)
    if not heads[2].startswith("inclusive, mean/rank") or "inclusive, sum of ranks" not in heads[-1]:
        fail("the call tree does not lead with the per-rank mean: %s" % heads)
    nranks = len({r for (_, r, _) in spans})
    em = b.eval("spReport.data.tree.map(n => [n.excl, n.emean])")
    if any(abs(e / nranks - m) > 0.1 for e, m in em):
        fail("emean is not excl / %d ranks: %s" % (nranks, em[:5]))
    for n in nodes:
        if n["p"] < 0 and [m["name"] for m in nodes].count(n["name"]) == 1:
            total = sum(e - s for (nm, _, _), v in spans.items() if nm == n["name"] for s, e in v)
            if n["incl"] != total:
                fail("root %s: inclusive %d, file total %d" % (n["name"], n["incl"], total))
    order = b.eval("spReport.lanes.map(l => spReport.data.regions[l.g].name)")
    firsts = list(dict.fromkeys(n["name"] for n in nodes))
    if list(dict.fromkeys(order)) != [f for f in firsts if f in order]:
        fail("lanes %s not in call-tree order %s" % (list(dict.fromkeys(order)), firsts))
    b.eval("document.querySelector('#sp-tree th[data-key=\"incl\"]').click()")
    b.eval("document.querySelector('#sp-tree th[data-key=\"incl\"]').click()")  # ascending
    asc = b.eval("[...document.querySelectorAll('#sp-tree tbody tr')].map(r => r.getAttribute('data-name'))")
    print("sorted by inclusive, ascending:", asc)
    sibs = {}
    for n in nodes:
        sibs[n["p"]] = sibs.get(n["p"], 0) + 1
    if asc == rows and max(sibs.values()) > 1:  # a chain (recursion) has nothing to sort
        fail("clicking the inclusive header twice did not change the order")
    nrows = len(asc)
    b.eval("document.querySelector('#sp-tree tbody tr .sp-toggle:not(:empty)').click()")
    folded = b.eval("document.querySelectorAll('#sp-tree tbody tr').length")
    print("rows %d, after folding one %d" % (nrows, folded))
    if folded == nrows:
        fail("folding a row hid nothing")
    b.eval("document.querySelector('#sp-tree tbody tr').click()")
    b.frames(2)
    hl = b.eval("spReport.highlighted()")
    first = b.eval("+document.querySelector('#sp-tree tbody tr').getAttribute('data-region')")
    if hl != [first]:
        fail("clicking the first row highlighted %s, not region %d" % (hl, first))

def fmt_time(ns):
    """The viewer's fmtTime (viewer.js), for comparing tooltips."""
    if ns == 0:
        return "0 s"
    for f, u in ((1e9, "s"), (1e6, "ms"), (1e3, "\u00b5s"), (1, "ns")):
        if abs(ns) >= f or u == "ns":
            v = ns / f
            if abs(v) >= 100:
                return "%.1f %s" % (v, u)
            return "%s %s" % (js_precision4(v), u)


def js_precision4(v):
    """Number.prototype.toPrecision(4) for 1e-7 < |v| < 100."""
    s = "%.4g" % v
    if "e" in s:
        return s
    digits = len(s.replace("-", "").replace(".", "").lstrip("0"))
    if "." not in s and digits < 4:
        s += "."
    return s + "0" * (4 - digits) if digits < 4 else s


def hover(b, lane_index, t):
    """Moves the mouse over lane lane_index at time t (ns since the first
    start) in the current window; returns the tooltip text (None if hidden)."""
    b.eval("document.getElementById('sp-scroll').scrollTop = %d" % max(0, lane_index * 16 - 32))
    b.frames(2)
    box = canvas_box(b)
    top = b.eval("document.getElementById('sp-scroll').scrollTop")
    v = b.eval("spReport.view()")
    x = box["x"] + 190 + (box["width"] - 190) * (t - v[0]) / (v[1] - v[0])
    b.mouse("mouseMoved", x, box["y"] + lane_index * 16 - top + 8)
    b.frames(1)
    return b.eval("(() => { const t = document.getElementById('sp-tip');"
                  " return t.hidden ? null : t.textContent; })()")


def canvas_rgb(b, lane_index, t):
    """The canvas pixel of lane lane_index at time t (the drawn colour)."""
    return b.eval("(() => { const c = document.getElementById('sp-canvas'), v = spReport.view();"
                  " const top = document.getElementById('sp-scroll').scrollTop;"
                  " const x = Math.round(190 + (c.width - 190) * (%r - v[0]) / (v[1] - v[0]));"
                  " const y = Math.round(%d * 16 - top + 8);"
                  " return Array.from(c.getContext('2d').getImageData(x, y, 1, 1).data).slice(0, 3); })()"
                  % (t, lane_index))


def case_pathhl(b, h5, out):
    """Region r runs under a and under b (paths.h5): clicking the call-tree
    row a / r highlights the calls of r under a only, checked on the canvas
    at the times of each call of r (from h5py), on every lane of r. Any
    file with a region of several paths: the same with its path of fewest
    calls."""
    calls = file_paths(h5)
    t0 = min(c[0] for v in calls.values() for c in v)
    # The file's region with several paths (r) and its path with the fewest
    # calls, the first by name on ties (a / r).
    per = {}
    for (n, _, _), v in calls.items():
        for c in v:
            per.setdefault(n, {}).setdefault(c[2], 0)
            per[n][c[2]] += 1
    r = min(n for n in per if len(per[n]) > 1)
    want = min(per[r], key=lambda p: (per[r][p], p))
    print("region %s, paths %s: clicking %s" % (r, per[r], want))
    d = b.eval("({tree: spReport.data.tree, regions: spReport.data.regions.map(r => [r.name, r.color])})")
    names = [n for n, _ in d["regions"]]
    paths = tree_paths({"regions": [{"name": n} for n in names], "tree": d["tree"]})
    node = paths.index(want)
    rows = b.eval("[...document.querySelectorAll('#sp-tree tbody tr')].map(r => +r.getAttribute('data-node'))")
    if node not in rows:
        fail("no visible call-tree row for %s (node %d): rows %s" % (want, node, rows))
    b.eval("document.querySelector('#sp-tree tbody tr[data-node=\"%d\"]').click()" % node)
    b.frames(2)
    col = d["regions"][names.index(r)][1]
    col = [int(col[i:i + 2], 16) for i in (1, 3, 5)]
    lanes = b.eval("spReport.lanes.map(l => [spReport.data.regions[l.g].name, l.rank, l.thread])")
    checked = 0
    for i, (n, rk, th) in enumerate(lanes):
        if n != r:
            continue
        b.eval("document.getElementById('sp-scroll').scrollTop = 0")
        b.frames(2)
        for s, e, path in calls[(n, rk, th)]:
            px = canvas_rgb(b, i, (s + e) / 2 - t0)
            full = max(abs(p - q) for p, q in zip(px, col)) <= 3
            dimmed = all(p > 200 for p in px) and not full
            print("lane %d (r, rank %d) call %s at %d: pixel %s, region colour %s"
                  % (i, rk, path, (s + e) // 2 - t0, px, col))
            if path == want and not full:
                fail("the call of %s on %s is not drawn highlighted: %s vs %s" % (r, path, px, col))
            if path != want and not dimmed:
                fail("the call of %s on %s is not dimmed: %s" % (r, path, px))
            checked += 1
    if checked < 2:
        fail("no call of r checked")
    got = b.eval("spReport.highlightedNode()")
    if got != node:
        fail("clicking the row %s highlighted node %s, not %d" % (want, got, node))
    box = canvas_box(b)
    os.makedirs(out, exist_ok=True)
    pathlib.Path(out, "timeline_path.png").write_bytes(b.screenshot(box))
    # Tooltips: each call of r on the first lane of r names its path.
    i = [l[0] for l in lanes].index(r)
    for s, e, path in calls[tuple(lanes[i])]:
        tip = hover(b, i, (s + e) / 2 - t0)
        print("tooltip over %s: %r" % (path, tip))
        if not tip or ("call path  " + path + "\n") not in tip:
            fail("the tooltip over the call of %s lacks 'call path  %s'" % (r, path))


def case_pathhl_binned(b, h5, out):
    """paths.h5 with every lane binned: clicking the row a / r keeps r's
    binned lanes highlighted by region (its bins hold both paths), and the
    tooltip says so and names both paths."""
    calls = file_paths(h5)
    t0 = min(c[0] for v in calls.values() for c in v)
    d = b.eval("({tree: spReport.data.tree, regions: spReport.data.regions.map(r => ({name: r.name}))})")
    node = tree_paths(d).index("a / r")
    b.eval("document.querySelector('#sp-tree tbody tr[data-node=\"%d\"]').click()" % node)
    b.frames(2)
    lanes = b.eval("spReport.lanes.map(l => [spReport.data.regions[l.g].name, l.rank, l.thread, !!l.start])")
    i = [l[0] for l in lanes].index("r")
    if lanes[i][3]:
        fail("lane r is exact: the report should bin it (--html-exact 0)")
    s, e, path = [c for c in calls[tuple(lanes[i][:3])] if c[2] == "b / r"][0]
    tip = hover(b, i, (s + e) / 2 - t0)
    print("tooltip over r's bins under b:", repr(tip))
    for want in ("busy  ", "highlighted by region", "call paths  "):
        if not tip or want not in tip:
            fail("the tooltip lacks %r" % want)
    if "b / r" not in tip or "a / r" not in tip:
        fail("the tooltip does not name both paths of r")


def case_tiles(b, h5, out):
    """A binned lane's call inside an embedded tile: zoomed to a tile-wide window on it,
    the tooltip gives that exact call (start and duration as h5py's);
    zoomed out to the whole run, a busy fraction."""
    d = b.eval("({span: spReport.data.span, n: (spReport.data.tiles || {n: 0}).n, tiles: (spReport.data.tiles || {lanes: []}).lanes.map(t => [t.l, t.k]),"
               " lanes: spReport.data.lanes.map(l => [spReport.data.regions[l.g].name, l.r, l.t, !!l.iv])})")
    want = file_lanes(h5, set(b.eval("spReport.data.ranks")))
    t0 = min(v[0][0] for v in want.values())
    T, span = d["n"], d["span"]
    if not d["tiles"]:
        fail("the report has no tiles")
    order = b.eval("spReport.lanes.map(l => spReport.data.lanes.findIndex(L => L.g === l.g && L.r === l.rank && L.t === l.thread))")
    for li, ks in d["tiles"]:
        name, rk, th, exact = d["lanes"][li]
        if exact:
            fail("lane %d has tiles but is exact" % li)
        for k in ks:
            tile = [(s, e) for s, e in want[(name, rk, th)]
                    if min(T - 1, math.floor(float(s - t0) * T / span)) == k]  # starting in tile k
            if not tile:
                continue
            s, e = tile[0]
            mid, w = (s + e) / 2 - t0, max(span / T, 2 * (e - s))  # the call in a tile-wide window
            b.eval("spReport.setView(%r, %r)" % (mid - w / 2, mid + w / 2))
            b.frames(2)
            i = order.index(li)
            if not b.eval("!!spReport.exactSource(spReport.lanes[%d])" % i):
                continue  # an earlier tile this window needs is not embedded
            tip = hover(b, i, (s + e) / 2 - t0)
            print("lane %d (%s r%d t%d) tile %d, call [%d, %d] ns after the first start: %r"
                  % (li, name, rk, th, k, s - t0, e - t0, tip))
            want_txt = "start  %s\nduration  %s\n" % (fmt_time(s - t0), fmt_time(e - s))
            if not tip or want_txt not in tip or "region  " + name not in tip:
                fail("zoomed into tile %d, expected %r in the tooltip" % (k, want_txt))
            hit = b.eval("spReport.lastHit()")
            if hit != [s - t0, e - s]:
                fail("the hovered call is %s, h5py's is %s" % (hit, [s - t0, e - s]))
            b.eval("spReport.setView(0, %r)" % span)
            b.frames(2)
            tip = hover(b, i, (s + e) / 2 - t0)
            print("zoomed out:", repr(tip))
            if not tip or "busy  " not in tip:
                fail("zoomed out, the tooltip gives no busy fraction: %r" % tip)
            return
    fail("no tile with a call could be drawn exactly")


def report_data(path):
    text = pathlib.Path(path).read_text(encoding="utf-8")
    head = '<script type="application/json" id="sp-data">'
    a = text.index(head) + len(head)
    return json.loads(text[a:text.index("</script>", a)])


def columnar_paths(h5path, ranks=None):
    """The reference tool's columnar files (check_tree.py reads them):
    {(region, rank, thread): sorted [(start, end, 'a / r')]}, each call's
    path by its call ids where the file has them (the tree's rules), else
    by the stamps."""
    import h5py
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import check_tree
    out = {}
    with h5py.File(h5path, "r") as f:
        per, has_ids = check_tree.rank_calls(f)
    for rk, calls in per.items():
        if ranks is not None and rk not in ranks:
            continue
        parents = check_tree.by_ids(calls) if has_ids else check_tree.by_stamps(calls)
        for c, path in zip(calls, check_tree.call_paths(calls, parents)):
            out.setdefault((c[3], rk, c[0]), []).append((c[1], c[2], " / ".join(path)))
    return {k: sorted(v) for k, v in out.items()}


def is_columnar(h5path):
    import h5py
    with h5py.File(h5path, "r") as f:
        return "rank_region_index" in f


def file_lanes(h5path, ranks=None):
    """{(region, rank, thread): sorted [(start, end)]} read with h5py (of the
    given rank ids only, when ranks is not None)."""
    import h5py
    import numpy as np
    if is_columnar(h5path):
        return {k: [c[:2] for c in v] for k, v in columnar_paths(h5path, ranks).items()}
    out = {}
    with h5py.File(h5path, "r") as f:
        for rk in f:
            if not rk.startswith("rank") or "regions" not in f[rk]:
                continue
            if ranks is not None and int(rk[4:]) not in ranks:
                continue
            for link, grp in f[rk]["regions"].items():
                if "start_times" not in grp:
                    continue
                n = grp.attrs.get("name", urllib.parse.unquote(link))
                n = n.decode() if isinstance(n, bytes) else str(n)
                st, en = grp["start_times"][()], grp["end_times"][()]
                th = grp["thread_ids"][()] if "thread_ids" in grp else np.zeros(len(st), int)
                for s, e, t in zip(st.tolist(), en.tolist(), th.tolist()):
                    out.setdefault((n, int(rk[4:]), int(t)), []).append((s, e))
    return {k: sorted(v) for k, v in out.items()}


def file_paths(h5path, ranks=None):
    """{(region, rank, thread): sorted [(start, end, 'a / r')]}: each call's
    path rebuilt here from the stamps (the reader header's rules: per rank
    and thread, calls by start, then end descending, then name; the parent
    is the innermost open call that contains it; the reference tool's
    files with call ids: by the ids)."""
    if is_columnar(h5path):
        return columnar_paths(h5path, ranks)
    lanes = file_lanes(h5path, ranks)
    by = {}
    for (n, rk, th), v in lanes.items():
        by.setdefault((rk, th), []).extend((s, e, n) for s, e in v)
    out = {}
    for (rk, th), calls in by.items():
        calls.sort(key=lambda c: (c[0], -c[1], c[2].encode()))
        stack = []  # (end, path)
        for s, e, n in calls:
            while stack and stack[-1][0] < e:
                stack.pop()
            path = (stack[-1][1] + " / " if stack else "") + n
            out.setdefault((n, rk, th), []).append((s, e, path))
            stack.append((e, path))
    return {k: sorted(v) for k, v in out.items()}


def tree_paths(d):
    """Node index -> 'a / r' from the report's tree."""
    names, paths = [r["name"] for r in d["regions"]], []
    for n in d["tree"]:
        paths.append((paths[n["p"]] + " / " if n["p"] >= 0 else "") + names[n["g"]])
    return paths


def leb128(b64):
    b, out, v, mul = base64.b64decode(b64), [], 0, 1
    for c in b:
        v += (c & 127) * mul
        mul *= 128
        if not c & 128:
            out.append(v)
            v, mul = 0, 1
    return out


def check_paths_tiles(d, h5, t0):
    """Every interval's call path (exact lanes, tiles) and every tile's
    exact intervals against h5py; returns (paths checked, tile intervals)."""
    want = file_paths(h5, set(d["ranks"]))
    names, tp = [r["name"] for r in d["regions"]], tree_paths(d)
    npath = ntiled = 0
    T = d["tiles"]["n"]
    tiles = {t["l"]: t for t in d["tiles"]["lanes"]}
    for li, lane in enumerate(d["lanes"]):
        calls = want[(names[lane["g"]], lane["r"], lane["t"])]
        paths = [tp[p] for p in lane["paths"]]
        if sorted(set(paths)) != sorted({c[2] for c in calls}):
            fail("lane %d: paths %s, file %s" % (li, paths, sorted({c[2] for c in calls})))
        if "iv" in lane:
            pi = lane.get("pi", [0] * len(calls))
            got = [paths[k] for k in pi]
            if got != [c[2] for c in calls]:
                fail("lane %d: call paths %s, file %s" % (li, got[:4], [c[2] for c in calls][:4]))
            npath += len(calls)
            continue
        # Binned: the calls overlapping tile k, tile(start) to tile(end), as html_tiles.c.
        per = {}
        tile = lambda t: min(T - 1, max(0, math.floor(float(t - t0) * T / d["span"])))  # noqa: E731, as C and JS
        for c in calls:
            for k in range(tile(c[0]), tile(c[1]) + 1):
                per.setdefault(k, []).append(c)
        z = int(lane["z"], 16)
        for k in range(T):
            if bool(z >> k & 1) != (k not in per):
                fail("lane %d: tile %d empty bit %d, file has %d calls there" % (li, k, z >> k & 1, len(per.get(k, []))))
        t = tiles.get(li)
        for k, data in zip(t["k"] if t else [], t["d"] if t else []):
            v, step, mine, prev = leb128(data), 3 if len(paths) > 1 else 2, [], t0
            for i in range(0, len(v), step):
                prev += v[i]
                mine.append((prev, prev + v[i + 1], paths[v[i + 2]] if step == 3 else paths[0]))
            if mine != per.get(k):
                fail("lane %d tile %d: %s, file %s" % (li, k, mine[:2], per.get(k, [])[:2]))
            ntiled += len(mine)
    if ntiled != d["counts"]["tiled"]:
        fail("counts say %d tiled intervals, checked %d" % (d["counts"]["tiled"], ntiled))
    return npath, ntiled


def busy_bins(spans, t0, span, bins):
    """Busy fraction per bin of the union of spans (an independent reimplementation)."""
    occ, merged = [0.0] * bins, []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    w = span / bins
    for s, e in merged:
        a, b = (s - t0) / w, min((e - t0) / w, bins)
        k = int(a)
        while k < bins and k < b:
            occ[k] += min(b, k + 1) - max(a, k)
            k += 1
    return occ


def case_data(path, h5, out):
    """The embedded data against the file read with h5py: every lane, every
    exact interval to the nanosecond, the busy fraction of every coarse bin."""
    d = report_data(path)
    want = file_lanes(h5, set(d["ranks"]))  # the report's --ranks
    names = [r["name"] for r in d["regions"]]
    got = {(names[l["g"]], l["r"], l["t"]): l for l in d["lanes"]}
    if set(got) != set(want):
        fail("lanes differ: only in report %s, only in file %s"
             % (sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
    t0 = min(v[0][0] for v in want.values())
    t1 = max(e for v in want.values() for _, e in v)
    if d["span"] != max(t1 - t0, 1):
        fail("span %s, file %s" % (d["span"], t1 - t0))
    nexact = nbinned = 0
    for key, spans in want.items():
        lane = got[key]
        if lane["n"] != len(spans):
            fail("%s: %d intervals in the report, %d in the file" % (key, lane["n"], len(spans)))
        if "iv" in lane:
            t, mine = t0, []
            for i in range(0, len(lane["iv"]), 2):
                t += lane["iv"][i]
                mine.append((t, t + lane["iv"][i + 1]))
            if mine != spans:
                fail("%s: intervals differ, first %s vs %s" % (key, mine[:2], spans[:2]))
            nexact += len(spans)
        else:
            lv = base64.b64decode(lane["occ"][0])
            ref = busy_bins(spans, t0, d["span"], len(lv))
            bad = [k for k in range(len(lv)) if abs(lv[k] / 255 - min(ref[k], 1)) > 0.6 / 255 + 1e-9]
            if bad:
                k = bad[0]
                fail("%s: bin %d busy %.4f in the report, %.4f in the file" % (key, k, lv[k] / 255, ref[k]))
            nbinned += 1
    # The duration bars' figures: per region over the selected ranks.
    for r in d["regions"]:
        durs = [e - s for (n, _, _), v in want.items() if n == r["name"] for s, e in v]
        ref = (len(durs), sum(durs), min(durs, default=0), max(durs, default=0))
        if (r["n"], r["total"], r["min"], r["max"]) != ref:
            fail("region %s: n, total, min, max %s in the report, %s in the file"
                 % (r["name"], (r["n"], r["total"], r["min"], r["max"]), ref))
    if d["counts"]["exact"] != nexact or d["counts"]["binned"] != nbinned:
        fail("counts %s, checked %d exact intervals, %d binned lanes" % (d["counts"], nexact, nbinned))
    npath, ntiled = check_paths_tiles(d, h5, t0)
    print("ok: %d lanes, %d exact intervals equal, %d binned lanes within 1/510; %d call paths"
          " equal, %d tile intervals equal" % (len(want), nexact, nbinned, npath, ntiled))


TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
         "#bcbd22", "#17becf"]


def case_colors(path, h5, out):
    """Default colours (up to 10 regions): tab10 sampled as matplotlib's
    cmap(linspace(0, 1, n)) over the sorted names, as the PNG charts."""
    d = report_data(path)
    names = sorted(r["name"].encode() for r in d["regions"])
    n = len(names)
    want = {nm.decode(): TAB10[min(int(k / (n - 1) * 10) if n > 1 else 0, 9)] for k, nm in enumerate(names)}
    got = {r["name"]: r["color"] for r in d["regions"]}
    if got != want:
        fail("colours %s, expected %s" % (got, want))
    print("ok:", got)


def case_window(b, h5, out):
    """--start-time/--end-time: the page opens on that window."""
    v, w = b.eval("spReport.view()"), b.eval("spReport.data.window")
    print("view", v, "window", w, ticks(b))
    if abs(v[0] - w[0]) > 1 or abs(v[1] - w[1]) > 1:
        fail("the page opened on %s, not %s" % (v, w))


def case_flame(b, h5, out):
    """The flame chart of the first rank: each call's depth (calls still open,
    per thread) as computed here from the file, and a non-blank canvas."""
    rank = b.eval("spReport.data.ranks[0]")
    want = {}
    for (name, rk, th), spans in file_lanes(h5).items():
        if rk == rank:
            want.setdefault(th, []).extend((s, e, name) for s, e in spans)
    t0 = min(s for v in file_lanes(h5).values() for s, _ in v)
    ref = {}
    for th, calls in want.items():
        calls.sort(key=lambda c: (c[0], -c[1]))
        stack, out_d = [], []
        for s, e, name in calls:
            while stack and stack[-1] < e:
                stack.pop()
            out_d.append((name, s - t0, len(stack)))
            stack.append(e)
        ref[th] = sorted(out_d)
    got = {band["thread"]: sorted(tuple(x) for x in band["depths"]) for band in b.eval("spReport.flame()")}
    print("flame depths:", got)
    if got != ref:
        fail("flame chart depths %s, expected %s" % (got, ref))
    # The window of the rank's calls (another rank may run much longer).
    a = min(c[1] for calls in ref.values() for c in calls)
    ends = [e - t0 for th, calls in want.items() for s, e, _ in calls]
    b.eval("spReport.setView(%r, %r)" % (a, max(ends)))
    b.frames(2)
    # Screenshot clips are in page coordinates.
    r = b.eval("(() => { const c = document.getElementById('sp-flame'); c.scrollIntoView();"
               " const r = c.getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,"
               " width: r.width, height: r.height}; })()")
    png = b.screenshot(r)
    os.makedirs(out, exist_ok=True)
    pathlib.Path(out, "flame.png").write_bytes(png)
    frac, rows = coloured_fraction(png, 0)
    n = inked(rows)
    print("flame coloured pixels %.4f (%d)" % (frac, n))
    if n < 10:
        fail("the flame chart is blank")


def case_callpath(b, h5, out):
    """Hovering a nested call names its call path: the calls of the file
    (same rank and thread) that contain it, outermost first."""
    lanes = b.eval("spReport.lanes.map(l => ({name: spReport.data.regions[l.g].name, rank: l.rank,"
                   " thread: l.thread, s: l.start ? l.start[0] : null, d: l.start ? l.dur[0] : null}))")
    spans, t0 = file_lanes(h5), None
    t0 = min(s for v in spans.values() for s, _ in v)
    # The first lane's first call that another call contains; for recursion
    # (one region) the innermost call of the first lane.
    for i, l in enumerate(lanes):
        if l["s"] is None:
            continue
        if len(lanes) == 1 or len({x["name"] for x in lanes}) == 1:
            name, rk, th = l["name"], l["rank"], l["thread"]
            inner = max(spans[(name, rk, th)], key=lambda c: (c[0], -c[1]))
            l = dict(l, s=inner[0] - t0, d=inner[1] - inner[0])
        s, e = l["s"] + t0, l["s"] + l["d"] + t0
        outer = sorted((cs, -(ce - cs), name) for (name, rk, th), v in spans.items()
                       if rk == l["rank"] and th == l["thread"]
                       for cs, ce in v if cs <= s and ce >= e
                       and (name != l["name"] or cs < s or ce > e))
        if outer:
            break
    else:
        fail("no nested call in the report")
    want = " / ".join([o[2] for o in outer] + [l["name"]])
    # Zoom to the call (10 times its duration) so that the mouse hits it.
    b.eval("spReport.setView(%r, %r)" % (l["s"] - 5 * l["d"] - 5, l["s"] + 6 * l["d"] + 5))
    b.eval("document.getElementById('sp-scroll').scrollTop = %d" % (i * 16))
    b.frames(2)
    box = canvas_box(b)
    top = b.eval("document.getElementById('sp-scroll').scrollTop")
    v = b.eval("spReport.view()")
    x = box["x"] + 190 + (box["width"] - 190) * (l["s"] + l["d"] / 2 - v[0]) / (v[1] - v[0])
    b.mouse("mouseMoved", x, box["y"] + i * 16 - top + 8)
    b.frames(1)
    tip = b.eval("document.getElementById('sp-tip').textContent")
    print("lane", i, l, "tooltip:", repr(tip))
    if ("call path  " + want + "\n") not in tip:
        fail("expected call path %r" % want)


def case_durations(b, h5, out):
    """The duration bars: one per region with calls, longest first, widths
    in proportion to the metric; switching the metric redraws them."""
    bars = b.eval("[...document.querySelectorAll('#sp-durations rect')].map(r =>"
                  " [spReport.data.regions[+r.getAttribute('data-region')].name, +r.getAttribute('width')])")
    totals = {}
    for (n, rk, th), v in file_lanes(h5).items():
        totals[n] = totals.get(n, 0) + sum(e - s for s, e in v)
    want = sorted(totals, key=lambda n: (-totals[n], n.encode()))  # ties by name
    print("bars:", bars)
    if [n for n, _ in bars] != want:
        fail("bars %s, expected the order %s" % ([n for n, _ in bars], want))
    top = totals[want[0]]
    for n, w in bars:
        if abs(w / bars[0][1] - totals[n] / top) > 0.01 and w > 0.5:
            fail("bar %s width %.1f, expected %.1f" % (n, w, bars[0][1] * totals[n] / top))
    b.eval("(() => { const s = document.getElementById('sp-metric'); s.value = 'max';"
           " s.dispatchEvent(new Event('change')); })()")
    after = b.eval("[...document.querySelectorAll('#sp-durations rect')].map(r => +r.getAttribute('width'))")
    if after == [w for _, w in bars]:
        fail("switching the metric to max did not redraw the bars")


def case_speedup(b, h5s, out):
    """Several files (H5 is FILE1,FILE2,...): the speedup points against the
    reference tool's rule computed here with h5py."""
    files = []
    for path in h5s.split(","):
        spans = file_lanes(path)
        ranks = {rk for (_, rk, _) in spans}
        reg = {}
        for (n, _, _), v in spans.items():
            t, c = reg.get(n, (0, 0))
            reg[n] = (t + sum(e - s for s, e in v), c + len(v))
        files.append((len(ranks), reg))
    common = set.intersection(*(set(r) for _, r in files))
    xs = sorted({x for x, _ in files})
    want = {}
    for n in common:
        means = []
        for x in xs:
            m = [r[n][0] / r[n][1] for fx, r in files if fx == x]
            means.append(sum(m) / len(m))
        for x, m in zip(xs, means):
            want[(n, x)] = means[0] / m
    got = b.eval("[...document.querySelectorAll('#sp-speedup circle')].map(c =>"
                 " [c.getAttribute('data-name'), +c.getAttribute('data-x'), +c.getAttribute('data-speedup')])")
    print("speedup points:", got)
    print("expected:      ", sorted(want.items()))
    if b.eval("document.getElementById('sp-speedup-section').hidden"):
        fail("the speedup section is hidden")
    if {(n, x) for n, x, _ in got} != set(want):
        fail("points for %s, expected %s" % (sorted((n, x) for n, x, _ in got), sorted(want)))
    for n, x, v in got:
        if abs(v - want[(n, x)]) > 1e-9 * max(1, want[(n, x)]):
            fail("%s at %d ranks: speedup %r, expected %r" % (n, x, v, want[(n, x)]))
    if b.eval("document.querySelectorAll('#sp-speedup [data-ideal]').length") != 1:
        fail("no ideal line")


CASES = {"speedup": case_speedup, "durations": case_durations, "callpath": case_callpath, "flame": case_flame, "window": case_window, "load": case_load, "zoom": case_zoom, "keys": case_keys, "screenshots": case_screenshots,
         "tooltip": case_tooltip, "highlight": case_highlight, "tree": case_tree,
         "pathhl": case_pathhl, "pathhl_binned": case_pathhl_binned, "tiles": case_tiles}


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in list(CASES) + ["data", "colors"]:
        print(__doc__)
        sys.exit(2)
    case, report, h5, out = sys.argv[1:5]
    if case in ("data", "colors"):  # no browser
        (case_data if case == "data" else case_colors)(report, h5, out)
        print("PASS", case)
        return
    exe = sys.argv[5] if len(sys.argv) > 5 else shutil.which("chromium")
    if not exe:
        fail("chromium not found (Debian package chromium, tests/debian-packages.txt)")
    if not os.path.isfile(report):
        fail("%s was not written" % report)
    if case != "speedup":
        h5 = h5.split(",")[0]  # several files: the timeline shows the first
    run_case(CASES, case, report, h5, out, exe, 100)


def run_case(cases, case, report, h5, out, exe, seconds):
    """Opens report in headless Chromium (exe), runs cases[case](browser, h5,
    out) within seconds, prints PASS; shared by the check_report_*.py drivers."""
    signal.signal(signal.SIGALRM, lambda *a: fail("timed out"))
    signal.alarm(seconds)
    b = Browser(exe)
    try:
        b.open(pathlib.Path(os.path.abspath(report)).as_uri())
        cases[case](b, h5, out)
    finally:
        b.close()
    print("PASS", case)


def drive(cases, doc, seconds=100):
    """The command line of a check_report_*.py driver: CASE REPORT H5 OUTDIR
    [CHROMIUM]; runs cases[CASE] through run_case, or prints doc (exit 2)."""
    if len(sys.argv) < 5 or sys.argv[1] not in cases:
        print(doc)
        sys.exit(2)
    case, report, h5, out = sys.argv[1:5]
    exe = sys.argv[5] if len(sys.argv) > 5 else shutil.which("chromium")
    if not exe:
        fail("chromium not found (Debian package chromium, tests/debian-packages.txt)")
    if not os.path.isfile(report):
        fail("%s was not written" % report)
    os.makedirs(out, exist_ok=True)
    run_case(cases, case, report, h5, out, exe, seconds)


if __name__ == "__main__":
    main()
