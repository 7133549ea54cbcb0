#!/usr/bin/python3
"""Checks profile mode's files against the trace of the same run.

check_profile_mode.py TRACE AGG MID NRANKS

TRACE: the trace file (schema 1) of a run with aggregate and time_trace on;
AGG: its aggregate file written at sp_finalize (the window after sp_reset);
MID: the sp_report file written mid-run (the window before). The moments
are in TRACE.times.rank<R> (ns, the ranks' own clocks, as the stamps).

From the trace alone (numpy, no code of the library): each call's thread,
its call path (the stack of enclosing calls of its thread, by the stamps'
nesting), its duration and exclusive time. Compared exactly: per (rank,
region) the reference layout's counts, totals, minimums, maximums and
exclusives; per (rank, thread, region) thread_region_index; per call path
call_paths' figures. Within 2 %: p50/p95/p99 from call_path_histograms
against numpy's inverted-CDF percentiles. Exit 0 when all hold."""
import sys

import h5py
import numpy as np

FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)


def calls_of_rank(f, rank):
    """[(thread, start, end, name)] of one rank's trace."""
    out = []
    regs = f["rank%d/regions" % rank]
    for link in regs:
        g = regs[link]
        name = g.attrs["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        s = g["start_times"][()]
        e = g["end_times"][()]
        t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int32)
        out += [(int(t[i]), int(s[i]), int(e[i]), name) for i in range(len(s))]
    return out


def reset_time(trace, rank):
    """The time of sp_reset (ns) that test_profile wrote beside TRACE for rank."""
    return int(open("%s.times.rank%d" % (trace, rank)).read().split()[1])


def durations_after_reset(trace, nranks):
    """{region: {rank: [durations, ns]}} of the calls in TRACE that end after sp_reset."""
    durs = {}
    with h5py.File(trace, "r") as f:
        for r in range(nranks):
            t_reset = reset_time(trace, r)
            for _, s, e, name in calls_of_rank(f, r):
                if e > t_reset:
                    durs.setdefault(name, {}).setdefault(r, []).append(e - s)
    return durs


def paths(calls):
    """Each call with its path (tuple of names), duration and exclusive ns."""
    res = []
    by_thread = {}
    for c in calls:
        by_thread.setdefault(c[0], []).append(c)
    for tid, cs in by_thread.items():
        cs.sort(key=lambda c: (c[1], -c[2]))
        stack = []  # [index into res]
        for th, s, e, name in cs:
            while stack and not e <= res[stack[-1]]["end"]:  # not inside the top call
                stack.pop()
            parent = stack[-1] if stack else None
            path = (res[parent]["path"] if parent is not None else ()) + (name,)
            res.append({"thread": th, "start": s, "end": e, "name": name, "path": path,
                        "dur": e - s, "kids": 0})
            if parent is not None:
                res[parent]["kids"] += e - s
            stack.append(len(res) - 1)
    for r in res:
        r["excl"] = r["dur"] - r["kids"]
    return res


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def expected(groups):
    return {k: (len(v), sum(x["dur"] for x in v), min(x["dur"] for x in v),
                max(x["dur"] for x in v), sum(x["excl"] for x in v)) for k, v in groups.items()}


def group(calls, key):
    g = {}
    for c in calls:
        g.setdefault(key(c), []).append(c)
    return g


def check_file(path, by_rank, tag):
    with h5py.File(path, "r") as a:
        check(int(a.attrs["scope_profiler_schema"]) == 2, tag + ": schema")
        check(text(a.attrs["storage_layout"]) == "aggregate", tag + ": storage_layout")
        names = [text(n) for n in a["region_table/names"][()]]
        idx = a["rank_region_index"]
        check(idx["region_ids"].dtype == np.uint32 and idx["ranks"].dtype == np.uint32, tag + ": id types")
        check(idx["aggregate_counts"].dtype == np.uint64, tag + ": counts type")
        got = {}
        for i in range(len(idx["ranks"])):
            got[(int(idx["ranks"][i]), names[idx["region_ids"][i]])] = tuple(
                int(idx[c][i]) for c in ("aggregate_counts", "aggregate_totals", "aggregate_minimums",
                                         "aggregate_maximums", "aggregate_exclusives"))
        allc = [dict(c, rank=r) for r, cs in by_rank.items() for c in cs]
        want = expected(group(allc, lambda c: (c["rank"], c["name"])))
        check(got == want, "%s: rank_region_index differs:\n got  %s\n want %s" % (tag, sorted(got.items()), sorted(want.items())))
        tr = a["thread_region_index"]
        got_t = {(int(tr["ranks"][i]), int(tr["threads"][i]), names[tr["region_ids"][i]]): tuple(
            int(tr[c][i]) for c in ("counts", "totals", "minimums", "maximums", "exclusives"))
            for i in range(len(tr["ranks"]))}
        want_t = expected(group(allc, lambda c: (c["rank"], c["thread"], c["name"])))
        check(got_t == want_t, tag + ": thread_region_index differs")
        cp = a["call_paths"]
        n = len(cp["ranks"])
        par = cp["parents"][()]
        reg = cp["region_ids"][()]

        def pth(i):
            p = ()
            while i >= 0:
                p = (names[reg[i]],) + p
                i = int(par[i])
            return p
        got_p, rows = {}, {}
        for i in range(n):
            if int(cp["counts"][i]) == 0:
                continue
            k = (int(cp["ranks"][i]), int(cp["threads"][i]), pth(i))
            check(k not in got_p, tag + ": path %s twice" % (k,))
            check(int(cp["depths"][i]) == len(k[2]) - 1, tag + ": depth of %s" % (k,))
            got_p[k] = tuple(int(cp[c][i]) for c in ("counts", "inclusives", "minimums", "maximums", "exclusives"))
            rows[i] = k
        gp = group(allc, lambda c: (c["rank"], c["thread"], c["path"]))
        want_p = expected(gp)
        check(got_p == want_p, "%s: call_paths differ: %d vs %d paths; first differences %s" % (
            tag, len(got_p), len(want_p), [(k, got_p.get(k), want_p.get(k)) for k in set(got_p) ^ set(want_p) or
                                           [k for k in want_p if got_p.get(k) != want_p[k]]][:3]))
        for i, k in rows.items():
            d = np.array([c["dur"] for c in gp.get(k, [])], dtype=np.float64)
            check(abs(float(cp["sum_squares"][i]) - float((d * d).sum())) <= 1e-9 * float((d * d).sum()) + 1,
                  tag + ": sum_squares of %s" % (k,))
        # percentiles per (rank, region) from the merged histograms
        h = a["call_path_histograms"]
        hist = {}
        for r, b, c in zip(h["rows"][()], h["buckets"][()], h["counts"][()]):
            k = rows.get(int(r))
            if k is None:
                continue
            hist.setdefault((k[0], k[2][-1]), {}).setdefault(int(b), 0)
            hist[(k[0], k[2][-1])][int(b)] += int(c)
        sub = int(h.attrs["sub_buckets"])
        for key, calls in group(allc, lambda c: (c["rank"], c["name"])).items():
            d = np.array(sorted(c["dur"] for c in calls))
            hb = hist.get(key, {})
            check(sum(hb.values()) == len(d), tag + ": histogram count of %s" % (key,))
            for q in (50, 95, 99):
                exact = float(np.percentile(d, q, method="inverted_cdf"))
                need, acc, est = int(np.ceil(q / 100 * len(d))), 0, None
                for b in sorted(hb):
                    acc += hb[b]
                    if acc >= need:
                        if b < sub:
                            est = b
                        else:
                            e = b // sub + 4
                            lo = (sub + b % sub) << (e - 5)
                            est = lo + ((1 << (e - 5)) - 1) // 2
                        break
                check(est is not None and abs(est - exact) <= 0.02 * exact + 0.5,
                      "%s: p%d of %s: %s vs %s" % (tag, q, key, est, exact))


def main():
    trace, agg, mid, nranks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    before, after = {}, {}
    with h5py.File(trace, "r") as f:
        for r in range(nranks):
            t_mid, t_reset = (int(x) for x in open("%s.times.rank%d" % (trace, r)).read().split())
            cs = paths(calls_of_rank(f, r))
            check(len(cs) > 0, "rank %d: no calls in the trace" % r)
            before[r] = [c for c in cs if c["end"] <= t_mid]
            after[r] = [c for c in cs if c["end"] > t_reset]
            check(len(before[r]) + len(after[r]) == len(cs), "rank %d: a call ended during the report" % r)
    check_file(mid, before, "mid report")
    check_file(agg, after, "final file")
    for m in FAIL:
        print("FAIL:", m)
    print("checked %s and %s against %s: %s" % (mid, agg, trace, "FAILED" if FAIL else "ok"))
    sys.exit(1 if FAIL else 0)


if __name__ == "__main__":
    main()
