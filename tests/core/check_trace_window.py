#!/usr/bin/python3
"""check_trace_window.py CASE [FILE NRANKS] : the file(s) test_trace_window
CASE wrote (CASE.h5, CASE.aggregate.h5), read with h5py and checked against
what the program did (its comments): the calls the trace kept, their
nesting, the cap, the attributes, and in mode both the aggregates of the
same run counting every call. The cases window_both (FILE: the file of the
Fortran and Python programs doing the same on NRANKS ranks), threads, cap,
cap_both, misnested and recursion(_both) (stops among calls left out in a
pause; a region recursing across pauses) and example
(examples/c/time_window.c)."""
import sys

import h5py
import numpy as np

bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


def events(f, name, rank=0):
    """(start, end, thread) arrays of a region in rank<rank>, empty when absent."""
    g = f["rank%d/regions" % rank].get(name)
    if g is None or "start_times" not in g:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    s, e = g["start_times"][()], g["end_times"][()]
    t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int64)
    check(int(g.attrs["num_calls"]) == len(s), "%s: num_calls %d, %d events" %
          (name, int(g.attrs["num_calls"]), len(s)))
    check(np.all(e >= s), "%s: a call ends before it starts" % name)
    return s, e, t


def aggregate_counts(path, rank=0):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        return {names[idx["region_ids"][i]]: int(idx["aggregate_counts"][i])
                for i in range(len(idx["ranks"])) if int(idx["ranks"][i]) == rank}


def common(f, truncated, rank=0):
    check(int(f["metadata"].attrs["events_lost"]) == 0, "events_lost is not 0")
    check(("trace_truncated_at" in f["rank%d" % rank].attrs) == truncated,
          "trace_truncated_at %s" % ("missing" if truncated else "present"))


def window(case, path, rank):
    with h5py.File(path, "r") as f:
        common(f, False, rank)
        ss, se, _ = events(f, "step", rank)
        ws, we, _ = events(f, "work", rank)
        ls, le, _ = events(f, "long", rank)
        ps, _, _ = events(f, "span", rank)
        check(len(ss) == 11, "step: %d calls in the trace, want 11 (steps 100-110)" % len(ss))
        check(len(ws) == 22, "work: %d calls in the trace, want 22" % len(ws))
        check(len(ls) == 1, "long: %d calls, want 1 (open at the pause: kept whole)" % len(ls))
        check(len(ps) == 0, "span: %d calls, want 0 (started while paused)" % len(ps))
        if len(ss) == 11 and len(ws) == 22:
            o = np.argsort(ss)
            ss, se = ss[o], se[o]
            inside = [(np.sum((ws >= ss[i]) & (we <= se[i]))) for i in range(11)]
            check(inside == [2] * 11, "work calls per step %s, want 2 each" % inside)
            if len(ls) == 1:
                check(ls[0] < ss[5] and le[0] > se[10],
                      "long does not hold steps 105-110 (opened at 105, closed at 120)")
                check(ls[0] > se[4], "long starts before step 104 ends")
    if case == "window_both":
        got = aggregate_counts(path[:-3] + ".aggregate.h5", rank)
        want = {"step": 10000, "work": 20000, "long": 1, "span": 1}
        for k, v in want.items():
            check(got.get(k) == v, "aggregate %s: %s calls, want %d (every call)" % (k, got.get(k), v))


def threads():
    with h5py.File("threads.h5", "r") as f:
        common(f, False)
        cs, ce, ct = events(f, "tcall")
        os_, oe, ot = events(f, "outer")
        ids = sorted(set(ct.tolist()))
        check(len(ids) == 4, "tcall on %d threads, want 4" % len(ids))
        for t in ids:
            n = int(np.sum(ct == t))
            check(n == 70, "thread %d: %d tcall calls in the trace, want 70" % (t, n))
            mine = ot == t
            check(int(np.sum(mine)) == 1, "thread %d: %d outer calls, want 1" % (t, int(np.sum(mine))))
            if int(np.sum(mine)) == 1 and n:
                check(os_[mine][0] > ce[ct == t].max(),
                      "thread %d: the outer call kept is not the one after its traced calls" % t)


def cap(case):
    with h5py.File(case + ".h5", "r") as f:
        common(f, True)
        ts, te, _ = events(f, "tick")
        rs, re_, _ = events(f, "run")
        limit = (1 << 20) // 16  # 1 MB of (start, end) pairs
        n = len(ts) + len(rs)
        check(n <= limit, "%d calls in the trace: past the 1 MB cap (%d)" % (n, limit))
        check(n >= limit - 2 * 1000 - 2 * 256, "%d calls: the trace stopped far before the cap" % n)
        check(len(ts) < 200000, "every tick call is in the trace")
        check(len(rs) == 1, "run: %d calls, want 1 (open at the truncation: kept whole)" % len(rs))
        at = int(f["rank0"].attrs.get("trace_truncated_at", 0))
        if len(ts) and len(rs) == 1:
            check(np.all(np.diff(ts) > 0), "tick calls out of order: not the first ones")
            check(rs[0] < ts.min() and re_[0] > te.max(), "run does not hold the tick calls")
            check(ts.max() <= at <= re_[0], "trace_truncated_at %d not between the last tick "
                  "start %d and the end of run %d" % (at, ts.max(), re_[0]))
    if case == "cap_both":
        got = aggregate_counts(case + ".aggregate.h5")
        for k, v in {"tick": 200000, "run": 1}.items():
            check(got.get(k) == v, "aggregate %s: %s calls, want %d (every call)" % (k, got.get(k), v))


def cap_columnar():
    """cap in the columnar layout: the same calls, rank_info/trace_truncated_at."""
    with h5py.File("cap_columnar.h5", "r") as f:
        check(int(f["metadata"].attrs["events_lost"]) == 0, "events_lost is not 0")
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        ix = f["rank_region_index"]
        st, en = f["events/start_times"][()], f["events/end_times"][()]
        ev = {}
        for i in range(len(ix["ranks"])):
            o, c = int(ix["event_offsets"][i]), int(ix["event_counts"][i])
            ev[names[ix["region_ids"][i]]] = (st[o:o + c], en[o:o + c])
        ts, te = ev.get("tick", (np.zeros(0), np.zeros(0)))
        rs, re_ = ev.get("run", (np.zeros(0), np.zeros(0)))
        limit = (1 << 20) // 16
        n = len(ts) + len(rs)
        check(limit - 2 * 1000 - 2 * 256 <= n <= limit, "%d calls in the trace, cap %d" % (n, limit))
        check(len(rs) == 1, "run: %d calls, want 1" % len(rs))
        at = int(f["rank_info/trace_truncated_at"][0])
        if len(ts) and len(rs) == 1:
            check(ts.max() <= at <= re_[0], "rank_info/trace_truncated_at %d not between the last "
                  "tick start %d and the end of run %d" % (at, ts.max(), re_[0]))


def nested_ok(s, e, what):
    """every two calls of one thread either nest or are apart"""
    for i in range(len(s)):
        for j in range(len(s)):
            if i != j and s[i] < s[j] < e[i]:
                check(e[j] <= e[i], "%s: calls %d and %d overlap without nesting" % (what, i, j))


def misnested():
    """outer traced and whole, holding w; a (left out) and c (dropped) absent"""
    with h5py.File("misnested.h5", "r") as f:
        common(f, False)
        os_, oe, _ = events(f, "outer")
        as_, _, _ = events(f, "a")
        cs, _, _ = events(f, "c")
        ws, we, _ = events(f, "w")
        check(len(os_) == 1, "outer: %d calls, want 1" % len(os_))
        check(len(as_) == 0, "a: %d calls, want 0 (started while paused)" % len(as_))
        check(len(cs) == 0, "c: %d calls, want 0 (dropped by the misnested stop of a)" % len(cs))
        check(len(ws) == 1, "w: %d calls, want 1" % len(ws))
        if len(os_) == 1 and len(ws) == 1:
            check(os_[0] < ws[0] and we[0] < oe[0], "outer does not hold w")


def recursion(case):
    """rec: depths 1 and 4 in the trace, 4 inside 1; depth values 1 and 4;
    then a third traced call of rec holding mark"""
    with h5py.File(case + ".h5", "r") as f:
        common(f, False)
        rs, re_, _ = events(f, "rec")
        ms, me, _ = events(f, "mark")
        check(len(rs) == 3, "rec: %d calls in the trace, want 3 (depths 1 and 4, the last)" %
              len(rs))
        check(len(ms) == 1, "mark: %d calls, want 1" % len(ms))
        if len(rs) == 3:
            o = np.argsort(rs)
            rs, re_ = rs[o], re_[o]
            check(rs[0] < rs[1] and re_[1] < re_[0], "rec: depth 4 is not inside depth 1")
            check(rs[2] > re_[0], "rec: the last call starts before depth 1 ends")
            nested_ok(rs, re_, "rec")
            if len(ms) == 1:
                check(rs[2] < ms[0] and me[0] < re_[2],
                      "rec: the last traced call does not hold mark (ended by the stop of the "
                      "call left out in the pause?)")
            g = f["rank0/regions/rec"]
            v = g["call_values/depth"][()] if "call_values" in g and "depth" in g["call_values"] \
                else None
            check(v is not None and list(v[o][:2]) == [1, 4],
                  "rec: call_values/depth %s, want [1, 4, ...] (depth 5 was paused)" %
                  (None if v is None else list(v[o])))
    if case == "recursion_both":
        got = aggregate_counts(case + ".aggregate.h5")
        check(got.get("rec") == 8, "aggregate rec: %s calls, want 8 (every call)" % got.get("rec"))


def example():
    """examples/c/time_window.c: steps 100-110 traced, "output" every 10th step."""
    with h5py.File("example.h5", "r") as f:
        common(f, False)
        ss, se, _ = events(f, "step")
        vs, ve, _ = events(f, "solve")
        os_, oe, _ = events(f, "output")
        check(len(ss) == 11 and len(vs) == 11, "step/solve: %d/%d calls, want 11" % (len(ss), len(vs)))
        check(len(os_) == 2, "output: %d calls, want 2 (steps 100 and 110)" % len(os_))
        if len(ss) == 11 and len(vs) == 11:
            o = np.argsort(ss)
            check(np.all(np.sort(vs) >= ss[o]) and np.all(np.sort(ve) <= se[o]),
                  "a solve call is not inside its step")
    got = aggregate_counts("example.aggregate.h5")
    for k, v in {"step": 10000, "solve": 10000, "output": 1000}.items():
        check(got.get(k) == v, "aggregate %s: %s calls, want %d" % (k, got.get(k), v))


case = sys.argv[1]
if case == "example":
    example()
elif case.startswith("window"):
    path = sys.argv[2] if len(sys.argv) > 2 else case + ".h5"
    for r in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        window(case, path, r)
elif case == "threads":
    threads()
elif case == "misnested":
    misnested()
elif case.startswith("recursion"):
    recursion(case)
elif case == "cap_columnar":
    cap_columnar()
elif case.startswith("cap"):
    cap(case)
else:
    bad.append("unknown case " + case)
for b in bad:
    print("FAIL:", b)
print(case, "FAILED" if bad else "ok")
sys.exit(1 if bad else 0)
