"""check_profile_pair.py - issue 52: profile mode's numbers as the outputs
show them. One serial run (test_profile_pair.c) wrote pair.h5 (the trace),
pair.aggregate.h5 (its aggregates) and open.h5 (an sp_report written while
time_loop and outer were open). Every output of scope-profiler-pproc and the
Python reader is run over the trace and the aggregates, and each figure that
both hold is compared with an oracle computed here with h5py/numpy from the
trace's stamps (never with our own code).

usage: check_profile_pair.py CASE PPROC DIR OUT [CHROMIUM]
  (the Python reader cases import scope_profiler_native from PYTHONPATH)

CASES
  summary_self   --summary: self_s of each region = the trace's exclusive time
                 (duration less the direct children's), both files (was 2.0x)
  summary_share  --summary: % = total / the roots' time, both files (was "-")
  open_report    open.h5: the open calls count with their time so far
                 (@open_calls 2), between what the trace allows; --tree's
                 shares at most 100 %
  report_open    report.html of open.h5 in headless Chromium: every Hotspots
                 share at most 100 %, together 100 %
  source         the sources of sp_region_at and SP_REGION_HERE in the
                 aggregate and report files, and --summary --columns source
  percentiles    --summary --columns p50,p95,p99 of the aggregates: within
                 [min, max]; a 1-call region's p50 is its duration
  never_called   both files name the same regions; check TRACE AGGREGATE
                 --fail-on-new exits 0
  python_std     the Python reader's std_duration of the aggregates = numpy's
                 std of the trace's durations
  rss_units      --export chrome-trace of the trace: RSS in MB of 10^6 bytes,
                 no negative ts (a sample precedes the first call)
  compare        --compare (each --metric, regions and --tree) of the pair:
                 equal figures, ratio 1, equal to the oracle
  check          check TRACE AGGREGATE: every region ok, change 0
  export         --export folded equal to the oracle's exclusive ns per path
                 for both; csv and chrome-trace of the aggregates hold no
                 events and print no HDF5 error
  tree           --tree --format csv: calls, incl, excl per path = oracle
  stats_json     -o DIR: region_statistics.json and call_tree.json of both
                 files against the oracle (std to 1e-6)
  charts         --export-data json of the charts both files draw
                 (durations_data, flame graph's call_tree): equal figures
  python_reader  the Python reader's region_statistics() of both files
                 against the oracle
  report         report.html's data of both files (regions, call tree, the
                 Load balance's rank times) against the oracle
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

CASE, PPROC, DIR, OUT = sys.argv[1:5]
CHROMIUM = sys.argv[5] if len(sys.argv) > 5 else None
TRACE = os.path.join(DIR, "pair.h5")
AGG = os.path.join(DIR, "pair.aggregate.h5")
OPEN = os.path.join(DIR, "open.h5")
FAIL = []
CHECKED = [0]


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def near(got, want, what, rel=1e-9, absol=0.0):
    CHECKED[0] += 1
    if got is None or want is None or abs(got - want) > absol + rel * abs(want):
        FAIL.append("%s: got %r, want %r" % (what, got, want))


def num(cell):
    """A table cell as a float; None for "-" (not known)."""
    return None if cell in ("-", "", None) else float(cell)


def run(args, rc=0):
    p = subprocess.run([PPROC] + args, capture_output=True, text=True)
    if rc is not None and p.returncode != rc:
        FAIL.append("%s: exit %d (want %d): %s" % (" ".join(args), p.returncode, rc, p.stderr[-500:]))
    if "HDF5-DIAG" in p.stderr:
        FAIL.append("%s: an HDF5 error stack on stderr" % " ".join(args))
    return p


def table(args):
    return list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]).stdout)))


# ---- the oracle: the trace's stamps with h5py and numpy -------------------
def trace_calls():
    """[(start, end, region)] of rank 0, thread 0 (the run is serial), and
    the regions' attributes."""
    calls, attrs = [], {}
    with h5py.File(TRACE, "r") as f:
        for g in f["rank0/regions"].values():
            name = text(g.attrs["name"])
            attrs[name] = {k: g.attrs[k] for k in g.attrs}
            s, e = g["start_times"][:], g["end_times"][:]
            calls += [(int(a), int(b), name) for a, b in zip(s, e)]
    calls.sort(key=lambda c: (c[0], -c[1]))
    return calls, attrs


def oracle():
    """Per call path (tuple of names): [calls, inclusive ns, exclusive ns];
    per region: durations (np array) and exclusive ns."""
    calls, _ = trace_calls()
    paths, stack = {}, []  # stack: (end, path, child ns)
    dur = {}

    def close(item):
        end, path, start, child = item
        d = end - start
        p = paths.setdefault(path, [0, 0, 0])
        p[0] += 1
        p[1] += d
        p[2] += d - child
        if stack:
            stack[-1][3] += d

    for s, e, name in calls:
        while stack and stack[-1][0] <= s:
            close(stack.pop())
        path = (stack[-1][1] if stack else ()) + (name,)
        stack.append([e, path, s, 0])
        dur.setdefault(name, []).append(e - s)
    while stack:
        close(stack.pop())
    excl = {}
    for p, v in paths.items():
        excl[p[-1]] = excl.get(p[-1], 0) + v[2]
    return paths, {n: np.array(v, np.int64) for n, v in dur.items()}, excl


PATHS, DUR, EXCL = oracle()
ROOTS = sum(v[1] for p, v in PATHS.items() if len(p) == 1)
LABEL = {TRACE: "trace", AGG: "aggregates"}


def by_region(rows):
    return {r["region"]: r for r in rows}


# ---- cases ------------------------------------------------------------------
def case_summary_self():
    for f in (TRACE, AGG):
        rows = by_region(table([f, "--summary"]))
        for name, d in DUR.items():
            near(float(rows[name]["self_s"]), EXCL[name] * 1e-9, "%s %s self_s" % (LABEL[f], name), 0, 1e-9)
            near(float(rows[name]["total_s"]), d.sum() * 1e-9, "%s %s total_s" % (LABEL[f], name), 0, 1e-9)
            near(int(rows[name]["calls"]), len(d), "%s %s calls" % (LABEL[f], name), 0, 0)


def case_summary_share():
    for f in (TRACE, AGG):
        rows = by_region(table([f, "--summary"]))
        for name, d in DUR.items():
            near(num(rows[name]["%"]), 100.0 * d.sum() / ROOTS,
                 "%s %s %%" % (LABEL[f], name), 0, 0.006)


def open_rows():
    with h5py.File(OPEN, "r") as f:
        names = [text(x) for x in f["region_table/names"][:]]
        cp = f["call_paths"]
        rows = {}
        for k in range(len(cp["counts"])):
            rows[names[cp["region_ids"][k]]] = (int(cp["counts"][k]), int(cp["inclusives"][k]),
                                                int(cp["exclusives"][k]))
        return rows, int(cp.attrs.get("open_calls", -1)), text(cp.attrs.get("open_calls_rule", ""))


def case_open_report():
    rows, nopen, rule = open_rows()
    near(nopen, 2, "open.h5 call_paths/@open_calls", 0, 0)
    if "open" not in rule:
        FAIL.append("open.h5: @open_calls_rule %r does not say how open calls count" % rule)
    # The report ran in outer's 5th call, after its 50th inner call and
    # before that outer call ended: the open calls' times lie between.
    calls, _ = trace_calls()
    tl = [c for c in calls if c[2] == "time_loop"][0]
    outer = [c for c in calls if c[2] == "outer"][:5]
    inner = [c for c in calls if c[2] == "inner"][:50]
    lo_loop, hi_loop = inner[-1][1] - tl[0], outer[-1][1] - tl[0]
    done = sum(e - s for s, e, _ in outer[:4])
    lo_outer, hi_outer = done + inner[-1][1] - outer[-1][0], done + outer[-1][1] - outer[-1][0]
    c, incl, excl = rows["time_loop"]
    near(c, 1, "open.h5 time_loop calls", 0, 0)
    CHECKED[0] += 2
    if not lo_loop <= incl <= hi_loop:
        FAIL.append("open.h5 time_loop inclusive %d outside [%d, %d]" % (incl, lo_loop, hi_loop))
    c, oincl, oexcl = rows["outer"]
    near(c, 5, "open.h5 outer calls (4 ended, 1 open)", 0, 0)
    if not lo_outer <= oincl <= hi_outer:
        FAIL.append("open.h5 outer inclusive %d outside [%d, %d]" % (oincl, lo_outer, hi_outer))
    near(rows["inner"][0], 50, "open.h5 inner calls", 0, 0)
    near(excl, incl - oincl, "open.h5 time_loop exclusive = its time less the open outer's", 0, 2)
    near(oexcl, oincl - rows["inner"][1], "open.h5 outer exclusive", 0, 4)
    for r in table([OPEN, "--tree"]):
        CHECKED[0] += 1
        if not 0 < num(r["incl_s"]) or not num(r["%"]) <= 100.0 + 1e-6:
            FAIL.append("open.h5 --tree: %s at %s %%, %s s" % (r["region"], r["%"], r["incl_s"]))
    summ = by_region(table([OPEN, "--summary"]))
    near(num(summ["time_loop"]["%"]), 100.0, "open.h5 --summary time_loop %", 0, 0.006)


def page_data(path):
    page = open(path, encoding="utf-8").read()
    head = '<script type="application/json" id="sp-data">'
    a = page.index(head) + len(head)
    return json.loads(page[a:page.index("</script>", a)])


def case_report_open():
    out = os.path.join(OUT, "html")
    run([OPEN, "--backend", "html", "-o", out])
    D = page_data(os.path.join(out, "report.html"))
    names = [r["name"] for r in D["regions"]]
    rows, _, _ = open_rows()
    for nd in D["tree"]:
        near(nd["incl"], rows[names[nd["g"]]][1], "report tree %s incl" % names[nd["g"]], 0, 0.5)
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--user-data-dir=" + os.path.join(OUT, "profile"), "--dump-dom",
                          "file://" + os.path.abspath(os.path.join(out, "report.html"))],
                         capture_output=True, text=True, timeout=120).stdout
    tab = dom.split('id="sp-hotspots"', 1)[1].split("</table>", 1)[0]
    shares = []
    for tr in tab.split("<tr")[2:]:
        cells = tr.split("<td")
        shares.append(float(cells[4].split('data-v="', 1)[1].split('"', 1)[0]))
    print("report of open.h5: Hotspots shares", shares)
    if not shares:
        FAIL.append("no Hotspots rows in the page")
    for s in shares:
        CHECKED[0] += 1
        if not 0 <= s <= 1 + 1e-9:
            FAIL.append("a Hotspots share of %.2f %%" % (100 * s))
    near(sum(shares), 1.0, "the Hotspots shares together", 0, 1e-6)


def case_source():
    _, attrs = trace_calls()
    want = {n: (text(a["source_file"]), int(a["source_lineno"])) for n, a in attrs.items()
            if "source_file" in a}
    if set(want) != {"time_loop", "outer"}:
        FAIL.append("the trace's sources %s: want time_loop and outer" % want)
    for path in (AGG, OPEN):
        with h5py.File(path, "r") as f:
            names = [text(x) for x in f["region_table/names"][:]]
            files = [text(x) for x in f["region_table/source_files"][:]]
            lines = f["region_table/source_lines"][:]
        for n, fl, ln in zip(names, files, lines):
            near(fl == want.get(n, ("", 0))[0] and int(ln) == want.get(n, ("", 0))[1], True,
                 "%s: %s's source %s:%d, the trace's %s" % (path, n, fl, ln, want.get(n)), 0, 0)
    for path in (TRACE, AGG, OPEN):
        rows = by_region(table([path, "--summary", "--columns", "source"]))
        for n in rows:
            w = "%s:%d" % want[n] if n in want else "-"
            near(rows[n]["source"] == w, True, "%s --columns source of %s: %r, want %r"
                 % (path, n, rows[n]["source"], w), 0, 0)


def case_percentiles():
    rows = by_region(table([AGG, "--summary", "--columns", "p50,p95,p99"]))
    for n, d in DUR.items():
        r = rows[n]
        mn, mx = float(r["min_s"]), float(r["max_s"])
        near(mn, d.min() * 1e-9, "%s min_s" % n, 0, 1e-9)
        near(mx, d.max() * 1e-9, "%s max_s" % n, 0, 1e-9)
        for q in ("p50", "p95", "p99"):
            CHECKED[0] += 1
            if not mn <= float(r[q]) <= mx:
                FAIL.append("%s %s = %s outside [%s, %s]" % (n, q, r[q], r["min_s"], r["max_s"]))
        if len(d) == 1:
            near(float(r["p50"]), d[0] * 1e-9, "%s p50 of its one call" % n, 0, 1e-9)


def case_never_called():
    with h5py.File(AGG, "r") as f:
        agg = sorted(text(x) for x in f["region_table/names"][:])
    near(agg == sorted(DUR), True, "aggregate regions %s, the trace's %s" % (agg, sorted(DUR)), 0, 0)
    for f in (TRACE, AGG):
        got = sorted(by_region(table([f, "--summary"])))
        near(got == sorted(DUR), True, "%s --summary regions %s" % (LABEL[f], got), 0, 0)
    run(["check", TRACE, AGG, "--max-regression", "5%", "--fail-on-new"], rc=0)
    run(["check", AGG, TRACE, "--max-regression", "5%", "--fail-on-new"], rc=0)


def reader(path):
    from scope_profiler_native.h5reader import ProfilingH5Reader
    return ProfilingH5Reader(path)


def case_python_std():
    st = reader(AGG).region_statistics()
    for n, d in DUR.items():
        near(st[n]["std_duration"], float(np.std(d.astype(float))), "aggregates %s std_duration" % n, 1e-6, 1.0)
    r = reader(AGG)
    for reg in r.get_regions():
        pair = reg.regions[0]
        near(pair.std_duration, float(np.std(DUR[reg.name].astype(float))),
             "aggregates rank 0 %s Region.std_duration" % reg.name, 1e-6, 1.0)


def case_rss_units():
    with h5py.File(TRACE, "r") as f:
        t = f["rank0/samples/times"][:]
        rss = f["rank0/samples/rss_bytes"][:]
    calls, _ = trace_calls()
    first = min(c[0] for c in calls)
    if not (t < first).any():
        FAIL.append("no sample before the first call: the case tests nothing")
    ev = json.loads(run([TRACE, "--export", "chrome-trace"]).stdout)["traceEvents"]
    mem = [e for e in ev if e.get("ph") == "C" and e["name"] == "RSS"]
    near(len(mem), len(t), "RSS counter events", 0, 0)
    for e, b in zip(mem, rss):
        near(e["args"]["MB"], b / 1e6, "RSS MB (10^6 bytes)", 0, 0.0006)
    ts = [e["ts"] for e in ev if "ts" in e]
    near(min(ts), 0.0, "the earliest ts", 0, 1e-3)
    x = [e for e in ev if e.get("ph") == "X"]
    near(min(e["ts"] for e in x), (first - min(int(t.min()), first)) * 1e-3, "the first call's ts", 0, 1e-3)


METRICS = ("rank_mean", "rank_max", "total", "self", "calls", "mean")


def metric_of(m, v):
    calls, incl, excl = v
    return {"rank_mean": incl * 1e-9, "rank_max": incl * 1e-9, "total": incl * 1e-9,
            "self": excl * 1e-9, "calls": calls, "mean": incl * 1e-9 / calls}[m]


def case_compare():
    per_region = {n: (len(d), d.sum(), EXCL[n]) for n, d in DUR.items()}
    for tree in (False, True):
        for m in METRICS:
            rows = table([TRACE, AGG, "--compare", "--metric", m] + (["--tree"] if tree else []))
            for r in rows:
                # the columns: the trace's figure, the aggregates', their ratio, the region
                a, b, ratio = (num(x) for x in list(r.values())[:3])
                name = list(r.values())[-1]
                key = tuple(name.split("/")) if tree else name
                want = metric_of(m, PATHS[key] if tree else per_region[key])
                near(a, want, "compare %s %s trace" % (m, key), 1e-6, 1e-9)
                near(b, want, "compare %s %s aggregates" % (m, key), 1e-6, 1e-9)
                near(ratio, 1.0, "compare %s %s ratio" % (m, key), 0, 1e-4)
            near(len(rows), len(PATHS if tree else DUR), "compare %s rows" % m, 0, 0)


def case_check():
    for m in METRICS:
        rows = table(["check", TRACE, AGG, "--max-regression", "0%", "--fail-on-new", "--metric", m])
        near(len(rows), len(DUR), "check %s rows" % m, 0, 0)
        for r in rows:
            near(num(r["change_%"]), 0.0, "check %s %s change" % (m, r["region"]), 0, 1e-6)
            CHECKED[0] += 1
            if r["status"] not in ("ok", "noise"):
                FAIL.append("check %s: %s is %s" % (m, r["region"], r["status"]))


def case_export():
    for f in (TRACE, AGG):
        got = {}
        for line in run([f, "--export", "folded"]).stdout.splitlines():
            stack, ns = line.rsplit(" ", 1)
            got[tuple(stack.split(";"))] = int(ns)
        want = {p: v[2] for p, v in PATHS.items()}
        near(got == want, True, "%s folded %s, want %s" % (LABEL[f], got, want), 0, 0)
    rows = list(csv.DictReader(io.StringIO(run([TRACE, "--export", "csv"]).stdout)))
    near(len(rows), sum(len(d) for d in DUR.values()), "trace csv rows", 0, 0)
    got = sorted(round((float(r["end_s"]) - float(r["start_s"])) * 1e9) for r in rows)
    near(np.abs(np.array(got) - np.sort(np.concatenate(list(DUR.values())))).max(), 0, "csv durations", 0, 2)
    near(len(run([AGG, "--export", "csv"]).stdout.splitlines()), 1, "aggregates csv: the header only", 0, 0)
    ev = json.loads(run([AGG, "--export", "chrome-trace"]).stdout)["traceEvents"]
    near(len([e for e in ev if e.get("ph") in ("X", "C")]), 0, "aggregates chrome-trace events", 0, 0)


def case_tree():
    for f in (TRACE, AGG):
        rows = table([f, "--tree"])
        near(len(rows), len(PATHS), "%s --tree rows" % LABEL[f], 0, 0)
        stack = []
        for r in rows:
            d = int(r["depth"])
            stack = stack[:d] + [r["region"].strip()]
            c, incl, excl = PATHS[tuple(stack)]
            near(int(r["calls"]), c, "%s %s calls" % (LABEL[f], stack), 0, 0)
            near(float(r["incl_s"]), incl * 1e-9, "%s %s incl" % (LABEL[f], stack), 0, 1e-9)
            near(float(r["excl_s"]), excl * 1e-9, "%s %s excl" % (LABEL[f], stack), 0, 1e-9)
            near(float(r["%"]), 100.0 * incl / ROOTS, "%s %s %%" % (LABEL[f], stack), 0, 0.006)


def stats_want(n):
    d = DUR[n].astype(float)
    return {"count": len(d), "average_duration_seconds": d.mean() * 1e-9, "min_duration_seconds": d.min() * 1e-9,
            "max_duration_seconds": d.max() * 1e-9, "std_duration_seconds": d.std() * 1e-9,
            "total_duration_seconds": d.sum() * 1e-9}


def case_stats_json():
    for f in (TRACE, AGG):
        out = os.path.join(OUT, LABEL[f])
        run([f, "-q", "-o", out, "--export-data", "--skip-plot-images"])
        st = json.load(open(os.path.join(out, "region_statistics.json")))["files"][0]["region_statistics"]
        near(sorted(st) == sorted(DUR), True, "%s region_statistics regions %s" % (LABEL[f], sorted(st)), 0, 0)
        for n in DUR:
            for k, w in stats_want(n).items():
                near(st[n][k], w, "%s region_statistics %s %s" % (LABEL[f], n, k), 1e-6, 1e-9)
        nodes = json.load(open(os.path.join(out, "call_tree.json")))["nodes"]
        near(len(nodes), len(PATHS), "%s call_tree nodes" % LABEL[f], 0, 0)
        for nd in nodes:
            c, incl, excl = PATHS[tuple(nd["path"])]
            near(nd["calls"], c, "%s call_tree %s calls" % (LABEL[f], nd["path"]), 0, 0)
            near(nd["inclusive_seconds"], incl * 1e-9, "%s call_tree %s incl" % (LABEL[f], nd["path"]), 1e-9, 1e-9)
            near(nd["exclusive_seconds"], excl * 1e-9, "%s call_tree %s excl" % (LABEL[f], nd["path"]), 1e-9, 1e-9)


def case_charts():
    got = {}
    for f in (TRACE, AGG):
        out = os.path.join(OUT, LABEL[f])
        run([f, "-q", "-o", out, "--plots", "durations,rank_heatmap,flame_graph", "--export-data",
             "--export-data-format", "json"])
        data = json.load(open(os.path.join(out, "durations_data.json")))["data"]
        got[f] = {(r["region"], r["metric"]): r["value_seconds"] for r in data}
        for p in ("durations_plot_avg.png", "rank_heatmap_plot.png", "flame_graph_plot.png"):
            near(os.path.getsize(os.path.join(out, p)) > 1000, True, "%s %s written" % (LABEL[f], p), 0, 0)
    want = {}
    for n, d in DUR.items():
        want.update({(n, "avg"): d.mean() * 1e-9, (n, "min"): d.min() * 1e-9, (n, "max"): d.max() * 1e-9,
                     (n, "total"): d.sum() * 1e-9, (n, "total_per_rank"): d.sum() * 1e-9})
    for f in (TRACE, AGG):
        near(set(got[f]) == set(want), True, "%s durations_data keys %s" % (LABEL[f], sorted(got[f])), 0, 0)
        for k, w in want.items():
            near(got[f].get(k), w, "%s durations_data %s" % (LABEL[f], k), 1e-9, 1e-9)


def case_python_reader():
    for f in (TRACE, AGG):
        r = reader(f)
        st = r.region_statistics()
        near(sorted(st) == sorted(DUR), True, "%s python regions %s" % (LABEL[f], sorted(st)), 0, 0)
        for n, d in DUR.items():
            d = d.astype(float)
            for k, w in (("count", len(d)), ("total_duration", d.sum()), ("min_duration", d.min()),
                         ("max_duration", d.max()), ("average_duration", d.mean()), ("std_duration", d.std())):
                near(st[n][k], w, "%s python %s %s" % (LABEL[f], n, k), 1e-6, 1.0)


def case_report():
    for f in (TRACE, AGG):
        out = os.path.join(OUT, LABEL[f])
        run([f, "-q", "--backend", "html", "-o", out])
        D = page_data(os.path.join(out, "report.html"))
        names = [r["name"] for r in D["regions"]]
        near(sorted(names) == sorted(DUR), True, "%s report regions %s" % (LABEL[f], names), 0, 0)
        for r in D["regions"]:
            d = DUR[r["name"]]
            for k, w in (("calls", len(d)), ("total", d.sum()), ("min", d.min()), ("max", d.max()),
                         ("rank_mean", d.sum())):
                near(r[k], w, "%s report %s %s" % (LABEL[f], r["name"], k), 0, 0.5)
        for g, row in enumerate(D["balance"]["rt"]):
            near(row[0], DUR[names[g]].sum(), "%s report balance %s" % (LABEL[f], names[g]), 0, 0.5)
        tup = []
        for nd in D["tree"]:
            tup.append((tup[nd["p"]] if nd["p"] >= 0 else ()) + (names[nd["g"]],))
            c, incl, excl = PATHS[tup[-1]]
            near(nd["calls"], c, "%s report tree %s calls" % (LABEL[f], tup[-1]), 0, 0)
            near(nd["incl"], incl, "%s report tree %s incl" % (LABEL[f], tup[-1]), 0, 0.5)
            near(nd["excl"], excl, "%s report tree %s excl" % (LABEL[f], tup[-1]), 0, 0.5)
        near(len(tup), len(PATHS), "%s report tree nodes" % LABEL[f], 0, 0)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}

if __name__ == "__main__":
    if CASE not in CASES:
        print("unknown case", CASE)
        sys.exit(2)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    CASES[CASE]()
    for m in FAIL:
        print("FAIL:", m)
    print("%s: %d figures checked against h5py/numpy: %s" % (CASE, CHECKED[0], "FAILED" if FAIL else "ok"))
    sys.exit(1 if FAIL or not CHECKED[0] else 0)
