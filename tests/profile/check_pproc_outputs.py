#!/usr/bin/python3
"""check_pproc_outputs.py CASE PPROC BASE NEW NRANKS OUTDIR [CHROMIUM]

scope-profiler-pproc's outputs on profile mode's aggregate files (BASE:
the sp_report file of the first window, NEW: the sp_finalize file of the
second) against an independent h5py/numpy reading of the same files: the
reference layout's rank_region_index for regions, call_paths (paths
rebuilt here from the parents column) for call paths; per rank the sum
over its threads, as postproc/cli/metric.h says. Cases:
  compare       --compare, every --metric, TSV: each region's value per file
  compare_tree  --compare --tree, TSV: each call path's inclusive time
  check         check BASE NEW, every --metric: values, change % and status
                where it is not noise
  region_stats  -o OUTDIR: region_statistics.json counts, totals, min, max,
                averages, per rank
  call_tree     -o OUTDIR: call_tree.json per path: calls, inclusive,
                exclusive, per rank
  flame_graph   -o OUTDIR --plots flame_graph: drawn (exit 0, one no-stamps
                line that does not name it), and in the PNG the bottom row's
                box of the widest root is as wide as its share of the roots'
                inclusive time
  report        --backend html -o OUTDIR: report.html's data (regions from
                rank_region_index, the call tree from call_paths), its keys
                against docs/report-data.md, and the page
                in headless Chromium: no error in it, the call tree shown, the
                timeline hidden
Exit 0 when all hold."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

CASE, PPROC, BASE, NEW, NR, OUT = sys.argv[1:7]
CHROMIUM = sys.argv[7] if len(sys.argv) > 7 else "chromium"
NR = int(NR)
FAIL = []


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def regions(path):
    """{name: {rank: (calls, total, excl, min, max)}} from rank_region_index."""
    with h5py.File(path, "r") as f:
        names = [text(x) for x in f["region_table/names"][()]]
        g = f["rank_region_index"]
        cols = [g[k][()] for k in ("region_ids", "ranks", "aggregate_counts", "aggregate_totals",
                                   "aggregate_exclusives", "aggregate_minimums",
                                   "aggregate_maximums")]
    out = {}
    for reg, rk, n, tot, ex, mn, mx in zip(*cols):
        out.setdefault(names[reg], {})[int(rk)] = (int(n), int(tot), int(ex), int(mn), int(mx))
    return out


def call_paths(path):
    """{path tuple: {rank: [calls, inclusive, exclusive]}} from call_paths."""
    with h5py.File(path, "r") as f:
        names = [text(x) for x in f["region_table/names"][()]]
        g = f["call_paths"]
        rk, reg, par = g["ranks"][()], g["region_ids"][()], g["parents"][()]
        n, inc, exc = g["counts"][()], g["inclusives"][()], g["exclusives"][()]
    tup, out = [], {}
    for i in range(len(rk)):
        tup.append((tup[par[i]] if par[i] >= 0 else ()) + (names[reg[i]],))
        c = out.setdefault(tup[i], {}).setdefault(int(rk[i]), [0, 0, 0])
        c[0] += int(n[i])
        c[1] += int(inc[i])
        c[2] += int(exc[i])
    return out


def metric(per, m):
    """A region's value under metric m (metric.h): ns or calls."""
    tot = [per.get(r, (0, 0, 0, 0, 0)) for r in range(NR)]
    if m == "rank_mean":
        return sum(t[1] for t in tot) / NR
    if m == "rank_max":
        return max(t[1] for t in tot)
    if m == "total":
        return sum(t[1] for t in tot)
    if m == "self":
        return sum(t[2] for t in tot) / NR
    if m == "calls":
        return sum(t[0] for t in tot) / NR
    return sum(t[1] for t in tot) / max(1, sum(t[0] for t in tot))  # mean


def near(got, want, what, rel=1e-6, absol=1e-9):
    if abs(got - want) > rel * abs(want) + absol:
        FAIL.append("%s: pproc %r, h5py %r" % (what, got, want))


def run(args):
    p = subprocess.run([PPROC] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        FAIL.append("%s: exit %d %s" % (args, p.returncode, p.stderr))
    return p


def tsv(out):
    lines = [x for x in out.splitlines() if x and not x.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"))) for x in lines[1:]]


def scale(m):
    return 1.0 if m == "calls" else 1e-9


METRICS = ("rank_mean", "rank_max", "total", "self", "calls", "mean")
rb, rn = regions(BASE), regions(NEW)
seen = 0
if CASE == "compare":
    for m in METRICS:
        rows = tsv(run([BASE, NEW, "--compare", "--metric", m, "--format", "tsv"]).stdout)
        for row in rows:
            g = row["region"]
            vals = [float(v) for k, v in row.items() if k.endswith(("_s", "_calls"))]
            for v, regs in zip(vals, (rb, rn)):
                near(v, metric(regs[g], m) * scale(m), "%s %s" % (m, g), 1e-6, 1.5e-9)
            seen += 1
        if {r["region"] for r in rows} != set(rb) | set(rn):
            FAIL.append("%s: regions %s, files %s" % (m, [r["region"] for r in rows], set(rb)))
elif CASE == "compare_tree":
    pb, pn = call_paths(BASE), call_paths(NEW)
    rows = tsv(run([BASE, NEW, "--compare", "--tree", "--format", "tsv"]).stdout)
    for row in rows:
        p = tuple(row["path"].split("/"))
        vals = [float(v) for k, v in row.items() if k.endswith("_s")]
        for v, ps in zip(vals, (pb, pn)):
            want = sum(c[1] for c in ps.get(p, {}).values()) / NR
            near(v, want * 1e-9, "path %s" % row["path"], 1e-6, 1.5e-9)
        seen += 1
    if {tuple(r["path"].split("/")) for r in rows} != set(pb) | set(pn):
        FAIL.append("paths differ: pproc %d, h5py %d" % (len(rows), len(set(pb) | set(pn))))
elif CASE == "check":
    for m in METRICS:
        p = run(["check", BASE, NEW, "--max-regression", "5%", "--metric", m, "--format", "tsv"])
        unit = "calls" if m == "calls" else "s"  # a count is labelled as one
        for row in tsv(p.stdout):
            g = row["region"]
            b, n = metric(rb[g], m), metric(rn[g], m)
            if "base_" + unit not in row:
                FAIL.append("check %s: columns %s, want base_%s" % (m, list(row), unit))
                break
            near(float(row["base_" + unit]), b * scale(m), "check %s %s base" % (m, g), 1e-6, 1.5e-9)
            near(float(row["new_" + unit]), n * scale(m), "check %s %s new" % (m, g), 1e-6, 1.5e-9)
            ch = 100.0 * (n - b) / b
            near(float(row["change_%"]), ch, "check %s %s change" % (m, g), 0, 0.01 + 1e-4 * abs(ch))
            want = None if row["status"] == "noise" else (
                "SLOWER" if ch > 5 else "faster" if ch < -5 else "ok")
            if want and row["status"].lower() != want.lower():
                FAIL.append("check %s %s: status %s, change %.2f%%" % (m, g, row["status"], ch))
            seen += 1
        slower = any(r["status"].lower() == "slower" for r in tsv(p.stdout))
        if p.returncode != (1 if slower else 0):
            FAIL.append("check %s: exit %d with slower=%s" % (m, p.returncode, slower))
elif CASE == "region_stats":
    run([NEW, "-o", OUT, "--export-data", "--skip-plot-images"])
    d = json.load(open(os.path.join(OUT, "region_statistics.json")))["files"][0]
    for g, per in rn.items():
        s = d["region_statistics"][g]
        rows = list(per.values())
        n, tot = sum(r[0] for r in rows), sum(r[1] for r in rows)
        near(s["count"], n, g + " count", 0, 0)
        near(s["total_duration_seconds"], tot * 1e-9, g + " total")
        near(s["average_duration_seconds"], tot / n * 1e-9, g + " average")
        near(s["min_duration_seconds"], min(r[3] for r in rows) * 1e-9, g + " min")
        near(s["max_duration_seconds"], max(r[4] for r in rows) * 1e-9, g + " max")
        for rk, r in per.items():
            q = s["per_rank"][str(rk)]
            near(q["count"], r[0], "%s r%d count" % (g, rk), 0, 0)
            near(q["total_duration_seconds"], r[1] * 1e-9, "%s r%d total" % (g, rk))
            near(q["min_duration_seconds"], r[3] * 1e-9, "%s r%d min" % (g, rk))
            near(q["max_duration_seconds"], r[4] * 1e-9, "%s r%d max" % (g, rk))
            seen += 1
    if set(d["region_statistics"]) != set(rn):
        FAIL.append("regions %s, file %s" % (sorted(d["region_statistics"]), sorted(rn)))
elif CASE == "call_tree":
    pn = call_paths(NEW)
    run([NEW, "-o", OUT, "--export-data", "--skip-plot-images"])
    nodes = json.load(open(os.path.join(OUT, "call_tree.json")))["nodes"]
    for nd in nodes:
        p = tuple(nd["path"])
        per = pn.get(p, {})
        near(nd["calls"], sum(c[0] for c in per.values()), "%s calls" % (p,), 0, 0)
        near(nd["inclusive_seconds"], sum(c[1] for c in per.values()) * 1e-9, "%s incl" % (p,))
        near(nd["exclusive_seconds"], sum(c[2] for c in per.values()) * 1e-9, "%s excl" % (p,))
        for rk, c in per.items():
            q = nd["per_rank"][str(rk)]
            near(q["calls"], c[0], "%s r%d calls" % (p, rk), 0, 0)
            near(q["inclusive_seconds"], c[1] * 1e-9, "%s r%d incl" % (p, rk))
            near(q["exclusive_seconds"], c[2] * 1e-9, "%s r%d excl" % (p, rk))
        seen += 1
    if {tuple(nd["path"]) for nd in nodes} != set(pn):
        FAIL.append("paths: pproc %d, h5py %d" % (len(nodes), len(pn)))
elif CASE == "flame_graph":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postproc"))
    from png_read import read_png
    pn = call_paths(NEW)
    p = run([NEW, "-o", OUT, "--plots", "flame_graph", "--width", "1600", "--height", "480"])
    lines = [x for x in p.stderr.splitlines() if "holds no stamps" in x]
    if p.returncode != 0 or len(lines) != 1 or "flame_graph" in lines[0].split(": ")[2]:
        FAIL.append("exit %d, lines %s" % (p.returncode, lines))
    img = read_png(os.path.join(OUT, "flame_graph_plot.png"))[:, :, :3].astype(int)
    roots = {p: sum(c[1] for c in per.values()) for p, per in pn.items() if len(p) == 1}
    share = max(roots.values()) / sum(roots.values())
    # The bottom row of boxes: the lowest image row, under the panel's middle,
    # with coloured (not grey/white/black) pixels; its longest coloured run
    # (the widest root, drawn first at the axis' left edge) against the axis.
    sat = img.max(axis=2) - img.min(axis=2) > 60
    rows = [y for y in range(img.shape[0]) if sat[y, :img.shape[1] * 84 // 100].sum() > 50]
    y = rows[-1] - 5
    xs = np.nonzero(sat[y, :img.shape[1] * 84 // 100])[0]
    dark = np.nonzero(img[y].sum(axis=1) < 150)[0]  # the axis' frame
    x0, x1 = dark.min(), dark[dark < img.shape[1] * 84 // 100].max()
    if xs[0] > x0 + 3:
        FAIL.append("the widest root does not start at the axis (%d, %d)" % (xs[0], x0))
    c = img[y, xs[0]]  # the widest root's colour; tick marks and names are dark
    end = xs[0]
    while end < x1 and (np.all(img[y, end] == c) or img[y, end].sum() < 150):
        end += 1
    run_px = end - x0
    near(run_px / (x1 - x0), share, "widest root's share of the width", 0, 0.01)
    print("flame graph: widest root %d of %d px (%.3f), h5py share %.3f"
          % (run_px, x1 - x0, run_px / (x1 - x0), share))
    seen = 1
elif CASE == "report":
    pn = call_paths(NEW)
    p = run([NEW, "--backend", "html", "-o", OUT])
    if p.returncode != 0:
        FAIL.append("--backend html: exit %d %s" % (p.returncode, p.stderr))
    page = open(os.path.join(OUT, "report.html"), encoding="utf-8").read()
    head = '<script type="application/json" id="sp-data">'
    a = page.index(head) + len(head)
    D = json.loads(page[a:page.index("</script>", a)])
    if D.get("stamps") != 0 or D["lanes"]:
        FAIL.append("stamps %r, %d lanes" % (D.get("stamps"), len(D["lanes"])))
    names = [r["name"] for r in D["regions"]]
    for r in D["regions"]:
        rows = list(rn[r["name"]].values())
        for k, want in (("calls", sum(x[0] for x in rows)), ("n", sum(x[0] for x in rows)),
                        ("total", sum(x[1] for x in rows)), ("min", min(x[3] for x in rows)),
                        ("max", max(x[4] for x in rows)), ("ranks", len(rows))):
            near(r[k], want, "report region %s %s" % (r["name"], k), 0, 0.5)
        seen += 1
    tup = []
    for nd in D["tree"]:
        tup.append((tup[nd["p"]] if nd["p"] >= 0 else ()) + (names[nd["g"]],))
        per = pn.get(tup[-1], {})
        incl = [per.get(rk, [0, 0, 0])[1] for rk in range(NR)]
        near(nd["calls"], sum(c[0] for c in per.values()), "tree %s calls" % (tup[-1],), 0, 0)
        near(nd["incl"], sum(incl), "tree %s incl" % (tup[-1],), 0, 0.5)
        near(nd["emean"], sum(c[2] for c in per.values()) / NR, "tree %s emean" % (tup[-1],), 0, 0.06)
        near(nd["rmean"], sum(incl) / NR, "tree %s rmean" % (tup[-1],), 0, 0.06)
        near(nd["rmin"], min(incl), "tree %s rmin" % (tup[-1],), 0, 0.5)
        near(nd["rmax"], max(incl), "tree %s rmax" % (tup[-1],), 0, 0.5)
        seen += 1
    if set(tup) != set(pn):
        FAIL.append("tree paths: report %d, h5py %d" % (len(tup), len(pn)))
    # Its keys against docs/report-data.md (the report's contract).
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sch = subprocess.run([sys.executable, os.path.join(src, "tests/postproc/check_report_schema.py"),
                          os.path.join(src, "docs/report-data.md"),
                          os.path.join(src, "postproc/report"),
                          os.path.join(OUT, "report.html")], capture_output=True, text=True)
    if sch.returncode != 0:
        FAIL.append("schema: " + sch.stdout + sch.stderr)
    # The page in headless Chromium: no error written into it, the call tree
    # shown with a row per open path, the timeline hidden.
    tmp = os.path.join(OUT, "profile")
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--user-data-dir=" + tmp, "--dump-dom",
                          "file://" + os.path.abspath(os.path.join(OUT, "report.html"))],
                         capture_output=True, text=True, timeout=120).stdout
    err = dom.split('id="sp-errors"', 1)[1].split("</div>", 1)[0]
    if "<p>" in err or "hidden" not in err.split(">", 1)[0]:
        FAIL.append("the page shows errors: %s" % err[:300])
    if 'id="sp-timeline-section" hidden' not in dom or 'id="sp-tree-section" hidden' in dom:
        FAIL.append("timeline not hidden or call tree hidden")
    if dom.count("<tr") < 3:
        FAIL.append("call tree table has %d rows" % dom.count("<tr"))
else:
    FAIL.append("unknown case " + CASE)
for b in FAIL:
    print("FAIL:", b)
print("%s: %d rows of %s and %s against h5py: %s" % (CASE, seen, BASE, NEW,
                                                     "FAILED" if FAIL or not seen else "ok"))
sys.exit(1 if FAIL or not seen else 0)
