"""The streamed way (a rank's calls merged in chunks, reader_merge.c) and the
loaded way (the rank in memory) give the same bytes, on a rank large enough
that the default bound streams it; the summary's figures against numpy.

usage: check_stream_same.py PPROC DIR CASE

Writes DIR/stream_big.h5 with h5py (independently of the C code): rank 0
holds about 460,000 timed calls, more than 2^18 (SP_READER_STREAM_DEFAULT),
rank 1 a few:
  main [0, span] around everything on thread 0;
  step x STEPS on thread 0, each holding kernel (touching its end), a and b
    with identical stamps, a zero-length tick at the step's start;
  fib: recursion 3 deep in every 50th step, stored as the core stores calls
    (as they end: starts decrease);
  work on threads 1 to 3, 270,000 calls stored call by call in turn
    (threads interleaved: the merge cuts the pair into more than 64 runs
    and loads it whole; --summary reads it in chunks, each thread's calls
    one after another);
  omp on threads 1 and 2, each thread's calls together (one run a thread);
  counted: a count-only region (no stamps).
With CASE summary_recursion the file also holds two recursive regions past
the bound, 150,000 roots each holding 0 to 2 nested calls of the same
region on threads 0 and 1 taking turns: rec stored as each thread's calls
start (the core's order), rec_end as they end (innermost first);
--summary finds their outermost calls in chunks (sp_outer_bits_read) and is
also run with SCOPE_PROFILER_READER_STREAM=0; their totals are the roots'
durations summed by numpy.
CASE is an output: tree, tree_text, summary, summary_thread, summary_self,
folded, summary_recursion, charts (-o DIR with the charts that read pairs
or ranks in slices, issue 47: gantt, durations, rank_heatmap, histogram,
flame, timeline_density, flame_graph, duration_timeseries (its series' values
against numpy: check_timeseries_steps.py), with --export-data; the file holds rec and rec_end too, is
also run with SCOPE_PROFILER_READER_STREAM=0, and every file of DIR, the
PNGs too, must be the same bytes; the durations data's calls and totals
of step, work, omp, rec and rec_end against numpy). Runs PPROC on the file with the default bound and with
SCOPE_PROFILER_READER_STREAM=10^12 (nothing streamed), asserts the same
stdout, stderr and status, and for the summaries checks calls and totals of
step, work and omp against numpy. Prints "ok".
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

STEPS = 30000
WORK = 90000  # work calls per thread: the pair passes 2^18, --summary reads it in chunks
OMP = 20000
CASES = {
    "tree": ["--tree", "--format", "json"],
    "tree_text": ["--tree"],
    "summary": ["--summary", "--format", "tsv"],
    "summary_thread": ["--summary", "--by-thread", "--format", "tsv"],
    "summary_self": ["--summary", "--sort-by", "self", "--format", "tsv"],
    "folded": ["--export", "folded"],
    "summary_recursion": ["--summary", "--format", "tsv"],
    "charts": ["-o", None, "--plots",
               "gantt,durations,rank_heatmap,histogram,flame,flame_graph,timeline_density,"
               "duration_timeseries",
               "--export-data"],
}
ROOTS = 150000  # recursive roots of rec and rec_end: about 300,000 calls each, past 2^18


def recursion(t0, by_end):
    """Starts, ends, threads of a recursive region: root k on thread k % 2
    holds k % 3 nested calls; returns them and the roots' summed duration."""
    s, e, t = [], [], []
    for k in range(ROOTS):
        a = t0 + 200 * (k // 2) + 3 * (k % 2)
        calls = [(a + 5 * q, a + 90 - 5 * q) for q in range(k % 3 + 1)]
        if by_end:
            calls.reverse()  # innermost first: as they end
        for x, y in calls:
            s.append(x), e.append(y), t.append(k % 2)
    return s, e, t, 90 * ROOTS


def put(f, rank, name, s, e, t=None, calls=None):
    g = f.require_group(f"rank{rank}/regions").create_group(name)
    g.attrs["name"] = name
    g.attrs["num_calls"] = np.int64(len(s) if calls is None else calls)
    if s is None:
        return
    g["start_times"] = np.asarray(s, np.int64)
    g["end_times"] = np.asarray(e, np.int64)
    if t is not None:
        g["thread_ids"] = np.asarray(t, np.int32)


def write(path, rec=False):
    """The file; returns {region: (calls, total ns)} of rank 0 and 1 together."""
    t0 = 10**12
    k = np.arange(STEPS, dtype=np.int64)
    ss = t0 + 100 + 100 * k  # step starts, 90 ns long
    se = ss + 90
    regs = {"step": (ss, se), "kernel": (ss + 10, se), "a": (ss + 5, ss + 8),
            "b": (ss + 5, ss + 8), "tick": (ss, ss)}
    fs, fe = [], []
    for j in range(0, STEPS, 50):  # recursion, innermost call stored first
        for d in (2, 1, 0):
            fs.append(ss[j] + 20 + d)
            fe.append(ss[j] + 30 - d)
    wn = WORK  # work: 3 threads, call by call in turn
    wk = np.repeat(np.arange(wn, dtype=np.int64), 3)
    wt = np.tile(np.array([1, 2, 3], np.int32), wn)
    ws = t0 + 100 + 40 * wk + 7 * wt
    we = ws + 30 + wt
    on = OMP  # omp: thread 1's calls, then thread 2's
    ot = np.repeat(np.array([1, 2], np.int32), on)
    os_ = t0 + 50 + 150 * np.tile(np.arange(on, dtype=np.int64), 2) + ot
    oe = os_ + 100
    span = int(se[-1]) + 10
    want = {}
    with h5py.File(path, "w") as f:
        put(f, 0, "main", [t0], [span])
        for name, (s, e) in regs.items():
            put(f, 0, name, s, e)
        put(f, 0, "fib", fs, fe)
        put(f, 0, "work", ws, we, wt)
        put(f, 0, "omp", os_, oe, ot)
        put(f, 0, "counted", None, None, calls=12345)
        put(f, 1, "main", [t0], [t0 + 1000])
        put(f, 1, "step", [t0 + 10, t0 + 200], [t0 + 100, t0 + 290])
        put(f, 1, "work", [t0 + 20], [t0 + 60], [1])
        for name, by_end in (("rec", False), ("rec_end", True)) if rec else ():
            rs, re_, rt, total = recursion(t0 + 10**9, by_end)
            put(f, 0, name, rs, re_, rt)
            want[name] = (len(rs), total)
    want["step"] = (STEPS + 2, int((se - ss).sum()) + 180)
    want["work"] = (3 * wn + 1, int((we - ws).sum()) + 40)
    want["omp"] = (2 * on, int((oe - os_).sum()))
    return want


def run(pproc, path, args, env_extra):
    env = dict(os.environ)
    env.pop("SCOPE_PROFILER_READER_STREAM", None)
    env.update(env_extra)
    out = None
    if None in args:  # -o DIR: a directory of its own, its files (name, bytes) in the result
        out = f"{path}.{len(os.listdir(os.path.dirname(path)))}.d"
        shutil.rmtree(out, ignore_errors=True)
        args = [out if a is None else a for a in args]
    p = subprocess.run([pproc, path] + args, capture_output=True, env=env, timeout=600)
    if out is None:
        return p.returncode, p.stdout, p.stderr
    files = {}
    for name in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        with open(os.path.join(out, name), "rb") as fh:
            files[name] = fh.read()
    shutil.rmtree(out, ignore_errors=True)
    return p.returncode, p.stdout, p.stderr.replace(out.encode(), b"DIR"), files


def check_summary(out, want):
    lines = out.decode().splitlines()
    head = [h.strip() for h in lines[0].lstrip("#").split("\t")]
    col = {h: i for i, h in enumerate(head)}
    seen = {}
    for ln in lines[1:]:
        v = ln.split("\t")
        if len(v) != len(head):
            continue
        name = v[col["region"]].strip()
        if name in want and name not in seen:
            seen[name] = (int(v[col["calls"]]), float(v[col["total_s"]]))
    fails = []
    for name, (calls, total) in want.items():
        if name not in seen:
            fails.append(f"{name}: no row")
            continue
        c, t = seen[name]
        if c != calls or abs(t - total * 1e-9) > 1e-9 * max(1.0, total * 1e-9) + 1e-9:
            fails.append(f"{name}: calls {c} total {t} s, numpy {calls} {total * 1e-9} s")
    return fails


def check_durations(files, path):
    """durations_data.csv's avg, min, max and total (the reference tool's
    rule: over every call of the ranks) of each region against numpy over
    the file's arrays (h5py), and rec's and rec_end's total_per_rank (per
    rank its busiest thread's outermost calls, mean over the 2 ranks: one
    thread's 75,000 roots of 90 ns on rank 0)."""
    text = files.get("durations_data.csv", b"").decode().splitlines()
    if len(text) < 2:
        return ["no durations_data.csv"]
    got = {}
    for ln in text[1:]:
        _, region, metric, value = ln.split(",")
        got[(region, metric)] = float(value)
    want = {}
    with h5py.File(path, "r") as f:
        durs = {}
        for rank in f:
            for name, g in f[rank]["regions"].items():
                if "start_times" in g:
                    d = g["end_times"][()] - g["start_times"][()]
                    durs.setdefault(name, []).append(d)
    for name, parts in durs.items():
        d = np.concatenate(parts)
        want.update({(name, "avg"): d.mean(), (name, "min"): d.min(), (name, "max"): d.max(),
                     (name, "total"): d.sum()})
    for name in ("rec", "rec_end"):
        want[(name, "total_per_rank")] = 90 * (ROOTS // 2) / 2
    fails = []
    for key, ns in want.items():
        v = got.get(key)
        if v is None or abs(v - ns * 1e-9) > 1e-9 * max(1.0, ns * 1e-9) + 1e-9:
            fails.append(f"durations_data: {key}: {v} s, numpy {ns * 1e-9} s")
    return fails


def main():
    pproc, d, case = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"stream_big_{case}.h5")
    want = write(path, rec=case in ("summary_recursion", "charts"))
    args = CASES[case]
    streamed = run(pproc, path, args, {})
    loaded = run(pproc, path, args, {"SCOPE_PROFILER_READER_STREAM": str(10**12)})
    fails = []
    both = [("streamed", streamed)]
    if case in ("summary_recursion", "charts"):
        both.append(("all streamed", run(pproc, path, args, {"SCOPE_PROFILER_READER_STREAM": "0"})))
    for label, got in both:
        if got != loaded:
            diff = [n for n in set(got[3]) | set(loaded[3]) if got[3].get(n) != loaded[3].get(n)] \
                if len(got) > 3 else []
            fails.append(f"{label} and loaded differ: status {got[0]} / {loaded[0]}, files {diff}\n"
                         f"stderr {got[2][:300]!r} / {loaded[2][:300]!r}\n"
                         f"stdout {got[1][:300]!r} / {loaded[1][:300]!r}")
    if streamed[0] != 0:
        fails.append(f"exit {streamed[0]}: {streamed[2][:300]!r}")
    if case.startswith("summary") and case != "summary_thread" and streamed[0] == 0:
        fails += check_summary(streamed[1], want)
    if case == "charts" and streamed[0] == 0:
        fails += check_durations(streamed[3], path)
        if len(streamed[3]) < 9:
            fails.append(f"only {sorted(streamed[3])} written")
    os.remove(path)
    for m in fails:
        print("FAIL", m)
    print("ok" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
