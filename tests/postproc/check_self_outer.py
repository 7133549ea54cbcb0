"""check_self_outer.py - region charts and --summary that a nested or
threaded region cannot inflate (issue 38), against numpy on the HDF5 file.

Writes its runs with h5py (rank<N>/regions/<link>/{start_times,end_times
[,thread_ids]}), 2 ranks each:
  wrapped.h5  main [0, 100 ms] > wrap [5, 95 ms] > k1 (30 x 2 ms), k2
              (20 x 1.4 ms); a root 'small' of 1 ms after main. Totals: main
              > wrap > k1 > k2; self times: k1 > k2 > main > wrap > small.
  threads.h5  main [0, 100 ms] on thread 0; 'omp' [20, 80 ms] on threads 0-3
              (240 ms summed over threads); 'rec' 50 calls nested in each
              other in [10, 15 ms] (about 240 ms summed over the calls);
              'compute' 5 x 2 ms.
  recur.h5    main [0, 100 ms]; 'rec' 1000 calls nested in each other in
              [10, 60 ms] on thread 0, 10 more in [20, 30 ms] on thread 1.

CASES
  top_self      --top-n 2 and 3 keep the regions of largest self time
                (durations_data's regions against a numpy call tree): the
                kernels, not the wrapper of large total and little self time
  durations_wall  durations chart, total: durations_data's total_per_rank is
                per rank the busiest thread's outermost calls, mean over the
                ranks (numpy), never above the ranks' mean wall time; in the
                PNG no bar is taller than main's
  summary_recursion  --summary: total_s, rank_mean_s, rank_max_s and % of a
                recursive region count its outermost calls only (numpy),
                mean_s every call; the header says so
  compare_recursion  --compare --metric rank_mean|rank_max|total|mean: the
                same rule (outermost calls; mean over every call)

usage: check_self_outer.py PPROC OUTDIR CASE"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

# The h5py writer of the aggregation-rule tests: the same schema-1 layout.
from check_aggregate_rule import MS, T0, US, fail, write  # noqa: E402,F401


def read(path):
    """[(rank, name, start, end, tid)] with h5py."""
    out = []
    with h5py.File(path, "r") as f:
        for rk in sorted(k for k in f if k.startswith("rank")):
            for g in f[rk]["regions"].values():
                s, e = g["start_times"][()], g["end_times"][()]
                t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int32)
                out += [(int(rk[4:]), g.attrs["name"], int(a), int(b), int(c))
                        for a, b, c in zip(s, e, t)]
    return out


def numpy_self(calls):
    """Self time per region: a call's duration less its direct children's
    (the calls it encloses on its rank and thread, one level down)."""
    self = {}
    keys = sorted({(c[0], c[4]) for c in calls})
    for key in keys:
        v = sorted((c for c in calls if (c[0], c[4]) == key), key=lambda c: (c[2], -c[3]))
        stack = []
        for c in v:
            while stack and not (c[2] >= stack[-1][2] and c[3] <= stack[-1][3]):
                stack.pop()
            self[c[1]] = self.get(c[1], 0) + c[3] - c[2]
            if stack:
                self[stack[-1][1]] -= c[3] - c[2]
            stack.append(c)
    return self


def outermost(calls, name):
    """{(rank, tid): sum of the durations of name's calls that no other call
    of name on the same rank and thread encloses}."""
    res = {}
    for rank, tid in {(c[0], c[4]) for c in calls if c[1] == name}:
        v = np.array([(c[2], c[3]) for c in calls if c[1] == name and (c[0], c[4]) == (rank, tid)])
        s, e = v[:, 0], v[:, 1]
        inside = ((s[None, :] <= s[:, None]) & (e[None, :] >= e[:, None])
                  & ~np.eye(len(s), dtype=bool)).any(axis=1)
        res[(rank, tid)] = int((e - s)[~inside].sum())
    return res


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        fail("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p.stdout, p.stderr


def wrapped():
    r = {"main": [(0, 100 * MS, 0)], "wrap": [(5 * MS, 95 * MS, 0)],
         "k1": [((6 + 3 * j) * MS, (8 + 3 * j) * MS, 0) for j in range(30)],
         "k2": [((8 + 3 * j) * MS + 200 * US, (9 + 3 * j) * MS + 600 * US, 0) for j in range(20)],
         "small": [(101 * MS, 102 * MS, 0)]}
    return [r, r]


def data_rows(out):
    return json.load(open(os.path.join(out, "durations_data.json")))


def case_top_self(pp, out):
    h5 = os.path.join(out, "wrapped.h5")
    write(h5, wrapped())
    calls = read(h5)
    self = numpy_self(calls)
    total = {n: sum(c[3] - c[2] for c in calls if c[1] == n) for n in self}
    print("numpy self (ms):", {n: v / MS for n, v in self.items()})
    print("numpy total (ms):", {n: v / MS for n, v in total.items()})
    if max(total, key=total.get) != "main" or sorted(total, key=total.get)[-2] != "wrap":
        fail("the run is not what the case needs (wrappers of largest total)")
    for n in (2, 3):
        d = os.path.join(out, f"top{n}")
        run([pp, h5, "-q", "-o", d, "--plots", "durations", "--metrics", "total", "--top-n",
             str(n), "--export-data", "--export-data-format", "json", "--width", "800"])
        got = {r["region"] for r in data_rows(d)["data"]}
        want = set(sorted(self, key=self.get, reverse=True)[:n])
        print("--top-n %d: %s, numpy self time: %s" % (n, sorted(got), sorted(want)))
        if got != want:
            fail("--top-n %d chose %s, the largest self times are %s" % (n, sorted(got),
                                                                         sorted(want)))


def bar_heights(img, cols):
    """The tallest column (px) of each region's colour, below the title."""
    res = {}
    for name, hexc in cols.items():
        c = np.array([int(hexc[i:i + 2], 16) for i in (1, 3, 5)])
        hit = np.all(np.abs(img[60:, :, :3].astype(int) - c) <= 3, axis=-1).sum(axis=0)
        res[name] = int(hit.max())
    return res


def case_durations_wall(pp, out):
    r = {"main": [(0, 100 * MS, 0)], "omp": [(20 * MS, 80 * MS, t) for t in range(4)],
         "rec": [(10 * MS + i * 50 * US, 15 * MS - i * 50 * US, 0) for i in range(50)],
         "compute": [((82 + 3 * j) * MS, (84 + 3 * j) * MS, 0) for j in range(5)]}
    r1 = dict(r, main=[(0, 90 * MS, 0)])
    h5 = os.path.join(out, "threads.h5")
    write(h5, [r, r1])
    calls = read(h5)
    wall = np.mean([c[3] - c[2] for c in calls if c[1] == "main"]) * 1e-9
    d = os.path.join(out, "dur")
    run([pp, h5, "-q", "-o", d, "--plots", "durations", "--metrics", "total", "--export-data",
         "--export-data-format", "json", "--width", "800", "--height", "600"])
    js = data_rows(d)
    got = {x["region"]: x["value_seconds"] for x in js["data"] if x["metric"] == "total_per_rank"}
    print("total_per_rank:", got, "mean wall time %.3f s" % wall)
    for name in ("main", "omp", "rec", "compute"):
        o = outermost(calls, name)
        want = np.mean([max([v for (rk, _), v in o.items() if rk == rank] or [0])
                        for rank in (0, 1)]) * 1e-9
        if abs(got[name] - want) > 1e-9:
            fail("%s: total_per_rank %r, numpy (busiest thread, outermost) %r"
                 % (name, got[name], want))
        if got[name] > wall + 1e-9:
            fail("%s: %r s, more than the mean wall time %r s" % (name, got[name], wall))
    img = read_png(os.path.join(d, "durations_plot.png"))
    h = bar_heights(img, js["colors"])
    print("bar heights (px):", h)
    if min(h.values()) < 5:
        fail("a bar is not drawn")
    for name in ("omp", "rec"):
        if h[name] > h["main"]:
            fail("%s's bar (%d px) is taller than main's (%d px), the whole run"
                 % (name, h[name], h["main"]))


def case_durations_unit(pp, out):
    """Sub-millisecond totals: a linear axis in seconds made PLplot add its
    exponent label ("(x10^-4)") above the axis's top left, where the margin
    cut it: the bars read 7 for 7e-4 s. The axis is now in a unit that
    needs none (us here), said in the title; nothing is drawn in that corner
    and the bars keep numpy's proportions."""
    r = {"main": [(0, 700 * US, 0)], "a": [(10 * US, 400 * US, 0)],
         "b": [(400 * US, 650 * US, 0)]}
    h5 = os.path.join(out, "small.h5")
    write(h5, [r, r])
    d = os.path.join(out, "dur")
    run([pp, h5, "-q", "-o", d, "--plots", "durations", "--metrics", "total", "--export-data",
         "--export-data-format", "json", "--width", "800", "--height", "600"])
    img = read_png(os.path.join(d, "durations_plot.png"))
    corner = img[:40, :int(0.08 * img.shape[1]), :3].astype(int)
    dark = int((corner.max(axis=-1) < 128).sum())
    print("dark pixels above the y axis:", dark)
    if dark:
        fail("something (PLplot's exponent label) is drawn above the y axis, cut by the margin")
    h = bar_heights(img, data_rows(d)["colors"])
    print("bar heights (px):", h)
    for name, ns in (("a", 390 * US), ("b", 250 * US)):
        want = h["main"] * ns / (700 * US)
        if abs(h[name] - want) > 3:
            fail("%s: %d px, numpy's proportion of main gives %.1f" % (name, h[name], want))


def recur(out):
    rank = {"main": [(0, 100 * MS, 0)],
            "rec": [(10 * MS + i * 20 * US, 60 * MS - i * 20 * US, 0) for i in range(1000)]
            + [(20 * MS + i * 100 * US, 30 * MS - i * 100 * US, 1) for i in range(10)]}
    h5 = os.path.join(out, "recur.h5")
    write(h5, [rank, dict(rank, main=[(0, 80 * MS, 0)])])
    return h5


def case_compare_recursion(pp, out):
    h5 = recur(out)
    h5b = os.path.join(out, "recur_b.h5")
    shutil.copy(h5, h5b)
    calls = read(h5)
    o = outermost(calls, "rec")
    per_rank = [sum(v for (rk, _), v in o.items() if rk == k) for k in (0, 1)]
    allsum = sum(c[3] - c[2] for c in calls if c[1] == "rec")
    n = sum(1 for c in calls if c[1] == "rec")
    want = {"rank_mean": np.mean(per_rank) * 1e-9, "rank_max": max(per_rank) * 1e-9,
            "total": sum(per_rank) * 1e-9, "mean": allsum / n * 1e-9}
    for metric, exp in want.items():
        js, _ = run([pp, h5, h5b, "--compare", "--format", "json", "--metric", metric])
        row = {r["region"]: r for r in json.loads(js)}["rec"]
        vals = [row[k] for k in ("recur_s", "recur_b_s")]
        print(metric, vals, "numpy", exp)
        if any(abs(v - exp) > 1e-6 * max(1.0, exp) for v in vals):
            fail("--compare --metric %s: rec %r, numpy %r" % (metric, vals, exp))


def case_summary_recursion(pp, out):
    rank = {"main": [(0, 100 * MS, 0)],
            "rec": [(10 * MS + i * 20 * US, 60 * MS - i * 20 * US, 0) for i in range(1000)]
            + [(20 * MS + i * 100 * US, 30 * MS - i * 100 * US, 1) for i in range(10)]}
    h5 = os.path.join(out, "recur.h5")
    write(h5, [rank, dict(rank, main=[(0, 80 * MS, 0)])])
    calls = read(h5)
    o = outermost(calls, "rec")
    per_rank = [sum(v for (rk, _), v in o.items() if rk == k) for k in (0, 1)]
    allsum = sum(c[3] - c[2] for c in calls if c[1] == "rec")
    n = sum(1 for c in calls if c[1] == "rec")
    wall = sum(c[3] - c[2] for c in calls if c[1] == "main")
    want = {"total_s": sum(per_rank) * 1e-9, "rank_mean_s": np.mean(per_rank) * 1e-9,
            "rank_max_s": max(per_rank) * 1e-9, "mean_s": allsum / n * 1e-9,
            "%": 100.0 * sum(per_rank) / wall, "calls": n}
    js, _ = run([pp, h5, "--summary", "--format", "json"])
    row = {r["region"]: r for r in json.loads(js)}["rec"]
    print("rec:", {k: row[k] for k in want}, "\nnumpy:", want)
    print("every call summed: %.3f s" % (allsum * 1e-9))
    for k, v in want.items():
        if abs(row[k] - v) > 1e-6 * max(1.0, abs(v)):
            fail("rec %s: %r, numpy %r" % (k, row[k], v))
    text, _ = run([pp, h5, "--summary"])
    print(text)
    if "outermost calls only" not in text:
        fail("the header does not say that a recursive region counts its outermost calls")


def main():
    pp, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, "self_outer_" + case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    globals()["case_" + case](pp, out)
    print("ok")


if __name__ == "__main__":
    main()
