#!/usr/bin/python3
"""check_report_runs.py - the report's sections over several runs
(report_runs.js: Change, Speedup, Weak scaling) in a real headless Chromium,
every number against numpy from the files read with h5py.

usage: check_report_runs.py CASE --pproc EXE --writer EXE --mpiexec EXE --out DIR
                            [--chromium EXE] [--src DIR]

Files (CASE gen, under DIR):
  change/a.h5, change/b.h5 (h5py, known differences): a has 2 ranks, b 4;
      solve 3 x 10 ms a rank in a, 3 x 12 ms in b (+20%); io 5 ms on every
      rank of a, 4 ms on ranks 0 and 1 of b only (mean over 4 ranks: 2 ms,
      -60%); omp 4 ms on threads 1 and 2 of every rank of a, 5 ms in b (the
      sum over threads: +25%); old only in a, new only in b.
  scaling/s{1..4}.h5: runs_writer under mpirun (real Open MPI, OpenMP), each
      rank in its own UTS namespace named after its node: s1 2 ranks on 1
      node, 1 thread; s2 4 ranks on 2 nodes, 1 thread; s3 4 ranks on 2 nodes,
      2 threads; s4 2 ranks on 2 nodes, 2 threads. No work_per_rank.
  weak/w{1,2,3}.h5: 1, 2, 4 ranks, work_per_rank 100 in every file.
  strong/t{1,2,3}.h5: 1, 2, 4 ranks, work_per_rank 400, 200, 100.
  Their reports: DIR/<set>/report.html.

CASES
  gen            writes the files and reports (exit 77 when unshare --uts fails)
  schema         the reports' data against docs/report-data.md
  change         the Change table: every row's times and percentage against
                 numpy (per rank summed over threads, mean over the ranks),
                 sorted by change (largest increase first), old/new listed as
                 in one run only, the rule stated
  change_filter  a search term leaves only the matching rows; cleared, all
  scaling_filter a search term leaves only its region's lines in Speedup,
                 Weak scaling and the table; cleared, all
  weak_axes      per x axis of the select (ranks, nodes, threads, cores): the
                 Weak scaling points and table (time, efficiency) against
                 numpy, the x ticks those of numpy; switching the select
                 changes the chart
  speedup_axes   the Speedup points follow the same select (against numpy)
  study_weak     work_per_rank equal in every file: no Speedup chart, a note
                 says why; Weak scaling drawn
  study_strong   work_per_rank different: no Weak scaling chart, a note says
                 why; Speedup drawn
  load           no console error or exception, nothing fetched, in every report
  screenshots    PNGs of the sections (DIR/shots/*.png) to look at, non-blank
"""
import argparse
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402  (the DevTools driver)

T0, MS = 10**12, 10**6
SCALING = [("s1", 2, 2, 1), ("s2", 4, 2, 1), ("s3", 4, 2, 2), ("s4", 2, 1, 2)]  # np, per node, threads
AXES = ["ranks", "nodes", "threads", "cores"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)
    if r.returncode:
        fail("%s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r


# ---- the files ----------------------------------------------------------------

def write_h5(path, ranks):
    """ranks: list of dicts name -> list of (start_ms, end_ms, tid)."""
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r, calls in enumerate(ranks):
            g = f.create_group(f"rank{r}")
            g.attrs["hostname"] = "h"
            regs = g.create_group("regions")
            for name, v in calls.items():
                rg = regs.create_group(name)
                rg.attrs["name"] = name
                rg.attrs["num_calls"] = np.int64(len(v))
                rg.create_dataset("start_times", data=np.array([T0 + int(c[0] * MS) for c in v], np.int64))
                rg.create_dataset("end_times", data=np.array([T0 + int(c[1] * MS) for c in v], np.int64))
                if any(c[2] for c in v):
                    rg.create_dataset("thread_ids", data=np.array([c[2] for c in v], np.int32))


def change_rank(r, second):
    d = 12 if second else 10
    c = {"solve": [(20 * j, 20 * j + d, 0) for j in range(3)]}
    if not second or r < 2:
        c["io"] = [(70, 70 + (4 if second else 5), 0)]
    w = 5 if second else 4
    c["omp"] = [(80, 80 + w, t) for t in (1, 2)]
    c["new" if second else "old"] = [(90, 92, 0)]
    return c


def gen(a):
    out = a.out
    shutil.rmtree(out, ignore_errors=True)
    for d in ("change", "scaling", "weak", "strong", "shots"):
        os.makedirs(os.path.join(out, d))
    write_h5(os.path.join(out, "change/a.h5"), [change_rank(r, False) for r in range(2)])
    write_h5(os.path.join(out, "change/b.h5"), [change_rank(r, True) for r in range(4)])
    # Each rank in its own UTS namespace, named after its node: real host names.
    if subprocess.run(["unshare", "--uts", "true"], capture_output=True).returncode:
        print("SKIP: unshare --uts fails here (needs root or user namespaces)")
        sys.exit(77)
    host = os.path.join(out, "host.sh")
    with open(host, "w") as f:
        f.write('#!/bin/sh\n# host.sh PER CMD...: rank R runs CMD on host rnR/PER\nper=$1; shift\n'
                'exec unshare --uts sh -c \'hostname "rn$(( ${OMPI_COMM_WORLD_RANK:-0} / $0 ))" '
                '&& exec "$@"\' "$per" "$@"\n')
    os.chmod(host, 0o755)

    def mpi(path, np_, per, threads, work):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        run([a.mpiexec, "--oversubscribe", "-np", str(np_), host, str(per), a.writer, path, str(work)],
            env=env)

    for name, np_, per, th in SCALING:
        mpi(os.path.join(out, "scaling", name + ".h5"), np_, per, th, 0)
    for k, n in enumerate((1, 2, 4)):
        mpi(os.path.join(out, "weak/w%d.h5" % (k + 1)), n, 1, 1, 100)
        mpi(os.path.join(out, "strong/t%d.h5" % (k + 1)), n, 1, 1, 400 // n)
    for d in ("change", "scaling", "weak", "strong"):
        files = sorted(glob.glob(os.path.join(out, d, "*.h5")))
        run([a.pproc, *files, "--backend", "html", "-o", os.path.join(out, d)])
    print("PASS gen")


# ---- numpy: the figures of each file ------------------------------------------

def rank_means(path):
    """Per region: each rank's time summed over its threads, mean over the
    ranks of the file (a rank without the region counts 0); and the mean per
    call over every call (the speedup's figure). No region here nests in
    itself, so every call is an outermost one."""
    with h5py.File(path, "r") as f:
        nranks = len([k for k in f if k.startswith("rank")])
    tot, calls = {}, {}
    for (n, _, _), v in cr.file_lanes(path).items():
        tot[n] = tot.get(n, 0) + sum(e - s for s, e in v)
        calls[n] = calls.get(n, 0) + len(v)
    return {n: t / nranks for n, t in tot.items()}, {n: tot[n] / calls[n] for n in tot}


def axes_of(path):
    with h5py.File(path, "r") as f:
        ranks = [k for k in f if k.startswith("rank")]
        hosts = {f[rk].attrs["hostname"] for rk in ranks}
        th = int(f["metadata"].attrs["omp_num_threads"])
        return {"ranks": len(ranks), "nodes": len(hosts), "threads": th, "cores": th * len(ranks)}


def expected(paths, axis, kind):
    """{(region, x): value}: kind 'weak' -> (time, efficiency), 'speedup' -> speedup."""
    figs = [(axes_of(p)[axis],) + rank_means(p) for p in paths]
    xs = sorted({x for x, _, _ in figs})
    idx = 1 if kind == "weak" else 2
    names = set.intersection(*(set(f[idx]) for f in figs))
    want = {}
    for n in names:
        v = [np.mean([f[idx][n] for f in figs if f[0] == x]) for x in xs]
        for x, t in zip(xs, v):
            want[(n, x)] = (t, v[0] / t) if kind == "weak" else v[0] / t
    return xs, want


# ---- the page -----------------------------------------------------------------

def browser(a, rep):
    b = cr.Browser(a.chromium)
    b.open(pathlib.Path(os.path.abspath(os.path.join(a.out, rep, "report.html"))).as_uri())
    return b


def no_errors(b, rep):
    errs = b.errors() + b.eval("[...document.querySelectorAll('#sp-errors p')].map(p => p.textContent)")
    if errs:
        fail("%s: errors while loading: %s" % (rep, errs))
    urls = [e["params"]["request"]["url"] for e in b.events if e["method"] == "Network.requestWillBeSent"]
    if [u for u in urls if not u.startswith("file://") and not u.startswith("data:")] or \
            len([u for u in urls if u.startswith("file://")]) != 1:
        fail("%s: the page made requests besides itself: %s" % (rep, urls))


def close(x, y, rel=1e-9):
    return abs(x - y) <= rel * max(1.0, abs(y))


def case_change(a):
    pa, pb = (os.path.join(a.out, "change", n) for n in ("a.h5", "b.h5"))
    (ma, _), (mb, _) = rank_means(pa), rank_means(pb)
    b = browser(a, "change")
    try:
        if b.eval("document.getElementById('sp-change-section').hidden"):
            fail("the Change section is hidden with two runs")
        if not b.eval("document.getElementById('sp-weak-section').hidden"):
            fail("Weak scaling shown with two runs")
        rows = b.eval("[...document.querySelectorAll('#sp-change tr[data-name]')].map(r => "
                      "[r.dataset.name, r.getAttribute('data-pct'), [...r.cells].map(c => c.textContent),"
                      " [...r.cells].slice(1, 3).map(c => c.getAttribute('data-t'))])")
        rule = b.eval("document.getElementById('sp-change-rule').textContent")
    finally:
        b.close()
    print("rows:", rows)
    both = sorted((n for n in ma if n in mb), key=lambda n: -(mb[n] - ma[n]) / ma[n])
    want_order = both + sorted(set(ma) ^ set(mb))
    if [r[0] for r in rows] != want_order:
        fail("order %s, expected %s (largest increase first, then one-run-only)" %
             ([r[0] for r in rows], want_order))
    for name, pct, cells, ts in rows:
        if name in both:
            want = 100 * (mb[name] - ma[name]) / ma[name]
            if pct is None or not close(float(pct), want):
                fail("%s: change %s, numpy %r" % (name, pct, want))
            if cells[3] != "%+.1f%%" % want:
                fail("%s: shows %r, expected %+.1f%%" % (name, cells[3], want))
            if not (close(float(ts[0]), ma[name]) and close(float(ts[1]), mb[name])):
                fail("%s: times %s, numpy %r %r" % (name, ts, ma[name], mb[name]))
        else:
            want = "only in the first run" if name in ma else "only in the second run"
            if pct is not None or cells[3] != want:
                fail("%s: %r / %r, expected %r and no percentage" % (name, pct, cells[3], want))
    # The known differences, so the numpy side is checked too.
    for n, p in (("solve", 20.0), ("io", -60.0), ("omp", 25.0)):
        if not close(100 * (mb[n] - ma[n]) / ma[n], p, 1e-6):
            fail("the generated files do not have %s %+g%%" % (n, p))
    # The same numbers as --compare (its ratio column, 4 decimals; '-' for one-run-only).
    cmp = run([a.pproc, pa, pb, "--compare", "--format", "csv"]).stdout.splitlines()
    ratio = {ln.split(",")[3]: ln.split(",")[2] for ln in cmp[1:]}
    for name, pct, _, _ in rows:
        r = ratio.get(name)
        if (pct is None) != (r == "-") or (pct is not None and abs(1 + float(pct) / 100 - float(r)) > 5e-5):
            fail("%s: the page's change %s%% disagrees with --compare's ratio %s" % (name, pct, r))
    print("--compare agrees:", ratio)
    for word in ("summed over its threads", "mean over the selected ranks", "largest increase first"):
        if word not in rule:
            fail("the rule %r does not say %r" % (rule, word))
    print("ok: %d rows; rule: %s" % (len(rows), rule))


def case_change_filter(a):
    b = browser(a, "change")
    try:
        def names():
            return b.eval("[...document.querySelectorAll('#sp-change tr[data-name]')].map(r => r.dataset.name)")
        full = names()
        b.eval("window.spReport.setFilter({terms: ['^so', 'new']})")
        some = names()
        b.eval("window.spReport.setFilter({terms: []})")
        back = names()
    finally:
        b.close()
    print("all:", full, "filtered:", some, "cleared:", back)
    if some != ["solve", "new"]:
        fail("terms ^so,new leave %s, expected solve and new" % some)
    if back != full or len(full) != 5:
        fail("cleared filter: %s, before %s" % (back, full))


def case_scaling_filter(a):
    b = browser(a, "scaling")
    q = ("[...document.querySelectorAll('#sp-weak circle, #sp-speedup circle, #sp-weak-table tr[data-name]')]"
         ".map(e => e.dataset.name)")
    try:
        full = b.eval(q)
        b.eval("window.spReport.setFilter({terms: ['^sol']})")
        some = b.eval(q)
        b.eval("window.spReport.setFilter({terms: []})")
        back = b.eval(q)
    finally:
        b.close()
    print("all:", sorted(set(full)), len(full), "filtered:", some)
    if set(full) != {"solve", "halo", "omp_work"} or set(some) != {"solve"} or len(some) != 2 * 2 + 1:
        fail("term ^sol: %s (from %s), expected solve's 2 + 2 points and 1 row" % (some, full))
    if back != full:
        fail("cleared filter: %s, before %s" % (back, full))


def weak_points(b):
    return b.eval("[...document.querySelectorAll('#sp-weak circle')].map(c => [c.dataset.name,"
                  " +c.dataset.x, +c.dataset.t, +c.dataset.eff])")


def set_axis(b, k):
    b.eval("(() => { const s = document.getElementById('sp-x-axis'); s.value = %s;"
           " s.dispatchEvent(new Event('change')); })()" % json.dumps(k))
    b.frames(2)


def case_weak_axes(a):
    paths = [os.path.join(a.out, "scaling", n + ".h5") for n, _, _, _ in SCALING]
    print("axes of the files (h5py):", [axes_of(p) for p in paths])
    b = browser(a, "scaling")
    seen = {}
    try:
        opts = b.eval("[...document.querySelectorAll('#sp-x-axis option')].map(o => o.value)")
        if opts != AXES:
            fail("x axis options %s, expected %s" % (opts, AXES))
        for k in AXES:
            set_axis(b, k)
            xs, want = expected(paths, k, "weak")
            got = weak_points(b)
            ticks = b.eval("[...document.querySelectorAll('#sp-weak [data-xtick]')].map(t => +t.dataset.xtick)")
            label = b.eval("document.querySelector('#sp-weak [data-xlabel]').textContent")
            cells = b.eval("[...document.querySelectorAll('#sp-weak-table tr[data-name]')].map(r =>"
                           " [r.dataset.name, [...r.querySelectorAll('[data-t]')].map(c => +c.dataset.t),"
                           " [...r.querySelectorAll('[data-eff]')].map(c => +c.dataset.eff)])")
            print(k, "x:", ticks, "label:", label, "points:", got)
            if ticks != xs:
                fail("%s: x ticks %s, numpy %s" % (k, ticks, xs))
            if {(n, x) for n, x, _, _ in got} != set(want):
                fail("%s: points %s, expected %s" % (k, sorted((n, x) for n, x, _, _ in got), sorted(want)))
            for n, x, t, e in got:
                if not (close(t, want[(n, x)][0]) and close(e, want[(n, x)][1])):
                    fail("%s: %s at %s: %r %r, numpy %r" % (k, n, x, t, e, want[(n, x)]))
            for n, ts, es in cells:
                wt = [want[(n, x)][0] for x in xs]
                we = [want[(n, x)][1] for x in xs]
                if not all(close(p, q) for p, q in zip(ts + es, wt + we)) or len(ts) != len(xs):
                    fail("%s: table row %s %s %s, numpy %s %s" % (k, n, ts, es, wt, we))
            if len(cells) != len({n for n, _ in want}):
                fail("%s: %d table rows for %d regions" % (k, len(cells), len({n for n, _ in want})))
            seen[k] = (tuple(ticks), b.eval("document.getElementById('sp-weak').innerHTML"))
    finally:
        b.close()
    if len({v[1] for v in seen.values()}) != len(AXES):
        fail("switching the x axis does not change the chart every time")
    print("ok: %d axes, each against numpy" % len(AXES))


def case_speedup_axes(a):
    paths = [os.path.join(a.out, "scaling", n + ".h5") for n, _, _, _ in SCALING]
    b = browser(a, "scaling")
    try:
        for k in AXES:
            set_axis(b, k)
            xs, want = expected(paths, k, "speedup")
            got = b.eval("[...document.querySelectorAll('#sp-speedup circle')].map(c => [c.dataset.name,"
                         " +c.dataset.x, +c.dataset.speedup])")
            print(k, got)
            if {(n, x) for n, x, _ in got} != set(want):
                fail("%s: points %s, expected %s" % (k, sorted((n, x) for n, x, _ in got), sorted(want)))
            for n, x, v in got:
                if not close(v, want[(n, x)]):
                    fail("%s: %s at %s: speedup %r, numpy %r" % (k, n, x, v, want[(n, x)]))
            if b.eval("document.querySelectorAll('#sp-speedup [data-ideal]').length") != 1:
                fail("%s: not one ideal line" % k)
    finally:
        b.close()
    print("ok: the speedup follows the x axis")


def case_study(a, rep):
    b = browser(a, rep)
    try:
        st = b.eval("({sp: document.getElementById('sp-speedup').hidden,"
                    " spn: document.getElementById('sp-speedup-note').textContent,"
                    " wk: document.getElementById('sp-weak').hidden,"
                    " wkn: document.getElementById('sp-weak-note').textContent,"
                    " study: document.getElementById('sp-study').textContent,"
                    " pts: document.querySelectorAll('#sp-weak circle, #sp-speedup circle').length})")
    finally:
        b.close()
    print(st)
    if rep == "weak" and not (st["sp"] and not st["wk"] and "weak-scaling study" in st["spn"]):
        fail("equal work_per_rank: Speedup should be left out with a note, Weak scaling drawn")
    if rep == "strong" and not (st["wk"] and not st["sp"] and "not a weak-scaling study" in st["wkn"]):
        fail("different work_per_rank: Weak scaling should be left out with a note, Speedup drawn")
    if not st["pts"]:
        fail("no chart drawn")


def case_load(a):
    for rep in ("change", "scaling", "weak", "strong"):
        b = browser(a, rep)
        try:
            b.frames(2)
            no_errors(b, rep)
        finally:
            b.close()
    print("ok: four reports, no error, nothing fetched")


def shoot(b, sel, path):
    box = b.eval("(() => { const e = document.querySelector(%s); e.scrollIntoView();"
                 " const r = e.getBoundingClientRect();"
                 " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()"
                 % json.dumps(sel))
    b.frames(2)
    png = b.screenshot(box)
    with open(path, "wb") as f:
        f.write(png)
    if cr.coloured_fraction(png, 0)[0] <= 0:
        fail("%s is blank" % path)
    print("wrote", path)


def case_screenshots(a):
    shots = os.path.join(a.out, "shots")
    b = browser(a, "change")
    try:
        shoot(b, "#sp-change-section", os.path.join(shots, "change.png"))
    finally:
        b.close()
    b = browser(a, "scaling")
    try:
        for k in ("ranks", "cores"):
            set_axis(b, k)
            shoot(b, "#sp-scaling", os.path.join(shots, "scaling_%s.png" % k))
    finally:
        b.close()


def case_schema(a):
    for rep in ("change", "scaling", "weak", "strong"):
        r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "check_report_schema.py"),
                            os.path.join(a.src, "docs/report-data.md"), os.path.join(a.src, "postproc/report"),
                            os.path.join(a.out, rep, "report.html")], capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode or " 0 problems" not in r.stdout:
            fail("%s: schema problems" % rep)


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("case")
    for k in ("pproc", "writer", "mpiexec", "out", "chromium", "src"):
        ap.add_argument("--" + k)
    a = ap.parse_args()
    a.chromium = a.chromium or shutil.which("chromium")
    cases = {"change": case_change, "change_filter": case_change_filter,
             "scaling_filter": case_scaling_filter, "weak_axes": case_weak_axes,
             "speedup_axes": case_speedup_axes, "study_weak": lambda a: case_study(a, "weak"),
             "study_strong": lambda a: case_study(a, "strong"), "load": case_load,
             "screenshots": case_screenshots, "schema": case_schema, "gen": gen}
    if a.case not in cases:
        print(__doc__)
        sys.exit(2)
    cases[a.case](a)
    if a.case != "gen":
        print("PASS", a.case)


if __name__ == "__main__":
    main()
