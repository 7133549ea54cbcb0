"""check_aggregate_rule.py - the one aggregation rule of --compare, --compare
--tree, check and the % of --summary / --tree (issue 38), against numpy.

Writes its own runs with h5py in the documented layout
(rank<N>/regions/<link>/{start_times,end_times[,thread_ids]}):
  weakN.h5, N = 1, 2, 4 ranks: the same work per rank (weak scaling): main
      [0, 100 ms]; 5 compute calls of 12 ms on thread 0; an OpenMP region
      'omp' [40, 90 ms] as a root on threads 1..3 (worker roots); a 3 us
      'setup' region (4 us in weak4: +33%, noise).
  tree_a.h5 / tree_b.h5, 1 rank: tree_a has main/{x, post}, tree_b also
      main/x/y, main/z and a root 'late' (paths only the later file has).

usage: check_aggregate_rule.py PPROC OUTDIR CASE
CASE: compare_weak, compare_values, compare_tree_parents, summary_pct, tree_pct,
      check_weak, check_noise, check_floor_off, check_band, check_help,
      durations_total"""
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

T0, MS, US = 10**12, 10**6, 10**3


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def write(path, ranks):
    """ranks: list of dicts name -> list of (start, end, tid), stamps after T0."""
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r, calls in enumerate(ranks):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, v in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                v = sorted(v, key=lambda c: c[1])
                g.create_dataset("start_times", data=np.array([T0 + c[0] for c in v], np.int64))
                g.create_dataset("end_times", data=np.array([T0 + c[1] for c in v], np.int64))
                if any(c[2] for c in v):
                    g.create_dataset("thread_ids", data=np.array([c[2] for c in v], np.int32))


def weak_rank(r, setup_us):
    c = {"main": [(0, 100 * MS + 7 * r, 0)], "setup": [(1 * MS, 1 * MS + setup_us * US, 0)]}
    c["compute"] = [((5 + 15 * j) * MS, (17 + 15 * j) * MS + 11 * r, 0) for j in range(5)]
    c["omp"] = [(40 * MS, 90 * MS + t, t) for t in (1, 2, 3)]
    return c


def make(out):
    files = {}
    for n in (1, 2, 4):
        files[n] = os.path.join(out, f"weak{n}.h5")
        write(files[n], [weak_rank(r, 4 if n == 4 else 3) for r in range(n)])
    a = {"main": [(0, 100 * MS, 0)], "x": [(10 * MS, 40 * MS, 0)], "post": [(50 * MS, 60 * MS, 0)]}
    b = dict(a)
    b["y"] = [(20 * MS, 30 * MS, 0)]
    b["z"] = [(70 * MS, 80 * MS, 0)]
    b["late"] = [(200 * MS, 210 * MS, 0)]
    files["a"], files["b"] = os.path.join(out, "tree_a.h5"), os.path.join(out, "tree_b.h5")
    write(files["a"], [a])
    write(files["b"], [b])
    return files


def per_rank(path):
    """name -> list over ranks of (sum of durations, calls), with numpy."""
    res = {}
    with h5py.File(path, "r") as f:
        ranks = sorted(k for k in f if k.startswith("rank"))
        for j, rk in enumerate(ranks):
            for g in f[rk]["regions"].values():
                d = g["end_times"][()] - g["start_times"][()]
                v = res.setdefault(g.attrs["name"], [(0, 0)] * len(ranks))
                v[j] = (int(d.sum()), len(d))
    return res


def run(args, rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != rc:
        fail("%s: exit %d (want %d)\n%s%s" % (" ".join(args), p.returncode, rc, p.stdout, p.stderr))
    return p.stdout, p.stderr


def json_rows(text):
    return json.loads(text)


def case_compare_weak(pp, f):
    out, _ = run([pp, f[1], f[2], f[4], "--compare", "--format", "tsv", "--include", "compute",
                  "main"])
    rows = [l.split("\t") for l in out.strip().split("\n")]
    print("\n".join("\t".join(r) for r in rows))
    for r in rows[1:]:
        for ratio in r[3:5]:
            if abs(float(ratio) - 1.0) > 0.01:
                fail("%s: ratio %s for the same work per rank (weak scaling)" % (r[-1], ratio))
    text, _ = run([pp, f[1], f[4], "--compare"])
    print(text)
    if "mean over the 4 ranks" not in text or "mean over the 1 rank" not in text:
        fail("the header does not say what the numbers aggregate")


def case_compare_values(pp, f):
    for metric in ("rank_mean", "rank_max", "total", "calls", "mean"):
        out, _ = run([pp, f[2], f[4], "--compare", "--format", "json", "--metric", metric])
        rows = json_rows(out)
        for k, n in ((0, 2), (1, 4)):
            want = per_rank(f[n])
            col = [c for c in rows[0] if c.endswith("_s") or c.endswith("_calls")][k]
            for row in rows:
                v = want[row["region"]]
                tot, calls = [x[0] for x in v], [x[1] for x in v]
                exp = {"rank_mean": np.mean(tot) * 1e-9, "rank_max": np.max(tot) * 1e-9,
                       "total": np.sum(tot) * 1e-9, "calls": np.mean(calls),
                       "mean": np.sum(tot) / np.sum(calls) * 1e-9}[metric]
                if abs(row[col] - exp) > 1e-9 * max(1.0, abs(exp)):
                    fail("%s %s %s: %r, numpy %r" % (metric, col, row["region"], row[col], exp))
        print(metric, "ok:", len(rows), "regions x 2 files")


def case_compare_tree_parents(pp, f):
    text, _ = run([pp, f["a"], f["b"], "--compare", "--tree"])
    tsv, _ = run([pp, f["a"], f["b"], "--compare", "--tree", "--format", "tsv"])
    print(text)
    lines = [l for l in text.split("\n") if l and not l.startswith("#")][1:]
    paths = [l.split("\t")[-1] for l in tsv.strip().split("\n")[1:]]
    if len(lines) != len(paths):
        fail("%d text rows, %d tsv rows" % (len(lines), len(paths)))
    stack = []
    for line, path in zip(lines, paths):
        # three number columns, one space, then the name indented two spaces a level
        rest = re.match(r"^\s*\S+\s+\S+\s+\S+ (.*)$", line).group(1)
        depth = (len(rest) - len(rest.lstrip(" "))) // 2
        stack = stack[:depth] + [rest.strip()]
        if "/".join(stack) != path:
            fail("text row '%s' reads as %s, its path is %s" % (rest.strip(), "/".join(stack), path))
    print(len(paths), "paths, each under its own parent")


def case_summary_pct(pp, f):
    out, _ = run([pp, f[2], "--summary", "--format", "json"])
    rows = {r["region"]: r for r in json_rows(out)}
    print({k: r["%"] for k, r in rows.items()})
    if abs(rows["main"]["%"] - 100.0) > 0.01:
        fail("main (outermost, thread 0) at %s%%, not 100%%" % rows["main"]["%"])
    want = per_rank(f[2])
    exp = 100.0 * sum(x[0] for x in want["compute"]) / sum(x[0] for x in want["main"])
    if abs(rows["compute"]["%"] - exp) > 0.01:
        fail("compute %s%%, numpy %.4f%%" % (rows["compute"]["%"], exp))


def case_tree_pct(pp, f):
    out, _ = run([pp, f[2], "--tree", "--format", "csv"])
    rows = [l.split(",") for l in out.strip().split("\n")]
    head = rows[0]
    pct = {r[-1]: float(r[head.index("%")]) for r in rows[1:]}
    print(pct)
    if abs(pct["main"] - 100.0) > 0.01:
        fail("main at %s%%, not 100%%" % pct["main"])
    if abs(pct["omp"] - 150.0) > 0.1:
        fail("omp on three worker threads at %s%% of the wall time (want 150%%)" % pct["omp"])


def case_check_weak(pp, f):
    out, err = run([pp, "check", f[1], f[4], "--max-regression", "5%"])
    print(out, err)
    if "mean over the 4 ranks" not in out:
        fail("the header does not state the rule")


def case_check_noise(pp, f):
    out, err = run([pp, "check", f[2], f[4], "--max-regression", "5%"])
    print(out, err)
    if "noise floor" not in out:
        fail("the header does not state the noise floor")
    if not any(l.endswith(" noise setup") for l in out.split("\n")):
        fail("setup (3 us -> 4 us) is not marked noise")


def case_check_floor_off(pp, f):
    out, err = run([pp, "check", f[2], f[4], "--max-regression", "5%", "--min-seconds", "0",
                    "--min-share", "0"], rc=1)
    print(out, err)
    if "setup: 33.33% slower" not in err:
        fail("without a floor, setup's +33% does not fail")


def case_check_band(pp, f):
    """The ok band is +-P both ways: two windows of one run that differ by
    noise (profile.pproc_check: -2.27% was called faster) are ok, a change
    beyond P either way is faster or slower. Statuses from numpy's changes."""
    d = os.path.dirname(f[1])
    # name -> (BASE ms, NEW ms): -2%, -4.9%, -10%, 0, +2%, +4.9%, +10%
    band = {"down2": (100, 98), "down49": (100, 95.1), "down10": (100, 90), "same": (100, 100),
            "up2": (100, 102), "up49": (100, 104.9), "up10": (100, 110)}
    for i, path in enumerate(("band_a.h5", "band_b.h5")):
        calls = {"main": [(0, 900 * MS, 0)]}
        for j, (name, v) in enumerate(sorted(band.items())):
            calls[name] = [(j * 120 * MS, j * 120 * MS + int(v[i] * MS), 0)]
        write(os.path.join(d, path), [calls])
    a, b = per_rank(os.path.join(d, "band_a.h5")), per_rank(os.path.join(d, "band_b.h5"))
    for p, rc in ((5, 1), (0, 1), (20, 0)):
        out, err = run([pp, "check", os.path.join(d, "band_a.h5"), os.path.join(d, "band_b.h5"),
                        "--max-regression", "%g%%" % p, "--format", "tsv"], rc=rc)
        rows = [l.split("\t") for l in out.split("\n") if l and not l.startswith("#")][1:]
        got = {r[4]: r[3] for r in rows}
        for name in band:
            ch = 100.0 * (b[name][0][0] - a[name][0][0]) / a[name][0][0]
            want = "slower" if ch > p else "faster" if ch < -p else "ok"
            if got.get(name) != want:
                fail("--max-regression %g%%: %s changed %.2f%%: status %s, want %s\n%s" % (
                    p, name, ch, got.get(name), want, out))
        print("--max-regression %g%%:" % p, sorted(got.items()))


def case_check_help(pp, f):
    out, _ = run([pp, "check", "--help"])
    if "fixed time" not in out or "use mean" not in out or "default 0.1%" not in out:
        fail("check --help does not suggest --metric mean or give the floor:\n" + out)


def bars(img, rgb, row0):
    """Heights (px) of the bars of colour rgb: runs of columns holding it,
    counted from row row0 down (the legend lies above)."""
    hit = (np.abs(img[row0:, :, :3].astype(int) - np.array(rgb)).sum(axis=2) < 10).sum(axis=0)
    res, run = [], []
    for h in list(hit) + [0]:
        if h:
            run.append(h)
        elif run:
            if len(run) >= 5:
                res.append(max(run))
            run = []
    return res


def case_durations_total(pp, f):
    d = os.path.join(os.path.dirname(f[1]), "dur")
    run([pp, f[1], f[4], "-q", "-o", d, "--plots", "durations", "--metrics", "total",
         "--width", "900", "--height", "700"])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from png_read import read_png
    img = read_png(os.path.join(d, "durations_plot.png"))
    one, four = bars(img, (0x1f, 0x77, 0xb4), 90), bars(img, (0xff, 0x7f, 0x0e), 90)
    print("bar heights, 1 rank:", one, "4 ranks:", four)
    if len(one) != 4 or len(four) != 4:
        fail("want 4 bars a file (the 3 us setup region too), got %d and %d" % (len(one), len(four)))
    for a, b in zip(one[:3], four[:3]):
        if abs(a - b) > 2:
            fail("the same work per rank draws %d px at 1 rank and %d px at 4" % (a, b))


def main():
    pp, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, "aggregate_rule_" + case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    globals()["case_" + case](pp, make(out))
    print("ok")


if __name__ == "__main__":
    main()
