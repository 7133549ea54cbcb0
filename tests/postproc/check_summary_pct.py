"""--summary --columns pN and bytes,msgs on pairs past the stream bound:
the percentiles as numpy.percentile's linear default, the MPI columns as
numpy's sums, whether the row's durations were kept in memory or (past the
bound) found by the histogram passes of summary_pct.c.

usage: check_summary_pct.py PPROC DIR CASE

Writes DIR/pct_CASE.h5 with h5py (independently of the C code), per-rank
layout, two ranks:
  wide: 300,000 calls on rank 0 (and 5 on rank 1), durations log-uniform
    from 1 ns to 1,000 s: the log-linear histogram's buckets at every scale;
  narrow: 300,000 calls whose durations all lie in [1e9, 1e9 + 2^22) ns,
    one bucket of the histogram holding more than the 65,536 values
    collected at once: a pass of finer buckets first; on threads 0 and 1
    (each thread's calls together), for --by-thread;
  same: 200,000 calls of 12,345 ns and 3 of 12,346: a run of equal values
    narrowed down to one value;
  MPI_Send: 300,000 calls with bytes and peer datasets (bytes -1 where
    unknown, peer -1 where none).
Calls of a pair follow one another on their thread (all outermost), so
--summary reads each pair in chunks. CASE: summary, by_thread (rows per
thread), mpi (bytes, msgs). Runs PPROC with the default bound and with
SCOPE_PROFILER_READER_STREAM=0 (every row through the histogram) and
checks both against numpy. Prints "ok".
"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

PCTS = [0, 1, 25, 50, 95, 99.9, 100]
N = 300000


def put(f, rank, name, d, t=None, extra=None):
    """Calls of durations d one after another (10 ns apart) on each thread."""
    g = f.require_group(f"rank{rank}/regions").create_group(name)
    g.attrs["name"] = name
    g.attrs["num_calls"] = np.int64(len(d))
    d = np.asarray(d, np.int64)
    s = np.empty_like(d)
    tt = np.zeros(len(d), np.int32) if t is None else np.asarray(t, np.int32)
    for th in np.unique(tt):
        m = tt == th
        dd = d[m]
        s[m] = 10**12 + np.concatenate(([0], np.cumsum(dd[:-1] + 10)))
    g["start_times"] = s
    g["end_times"] = s + d
    if t is not None:
        g["thread_ids"] = tt
    for k, v in (extra or {}).items():
        g[k] = v


def write(path):
    rng = np.random.default_rng(47)
    want = {}
    wide = np.exp(rng.uniform(0, np.log(1e12), N)).astype(np.int64)
    wide1 = np.array([3, 70, 900, 12345, 10**9], np.int64)
    narrow = 10**9 + rng.integers(0, 1 << 22, N)
    nt = np.repeat(np.array([0, 1], np.int32), [N // 2, N - N // 2])
    same = np.concatenate((np.full(200000, 12345), np.full(3, 12346))).astype(np.int64)
    md = rng.integers(1000, 5000, N)
    mb = rng.integers(-1, 1 << 20, N).astype(np.int64)
    mp = rng.integers(-1, 8, N).astype(np.int32)
    with h5py.File(path, "w") as f:
        put(f, 0, "wide", wide)
        put(f, 1, "wide", wide1)
        put(f, 0, "narrow", narrow, nt)
        put(f, 1, "narrow", narrow[:7], np.zeros(7, np.int32))
        put(f, 0, "same", same)
        put(f, 0, "MPI_Send", md, extra={"bytes": mb, "peer": mp})
    want["wide"] = {None: np.concatenate((wide, wide1)), 0: np.concatenate((wide, wide1))}
    want["narrow"] = {None: np.concatenate((narrow, narrow[:7])),
                      0: np.concatenate((narrow[nt == 0], narrow[:7])), 1: narrow[nt == 1]}
    want["same"] = {None: same, 0: same}
    want["MPI_Send"] = {None: md, 0: md}
    mpi = (int(mb[mb > 0].sum()), int(((mp >= 0) | (mb > 0)).sum()))
    return want, mpi


def run(pproc, path, args, stream):
    env = dict(os.environ)
    env.pop("SCOPE_PROFILER_READER_STREAM", None)
    if stream is not None:
        env["SCOPE_PROFILER_READER_STREAM"] = stream
    p = subprocess.run([pproc, path] + args + ["--format", "json"], capture_output=True, env=env,
                       timeout=600)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr[:300]!r}"
    return json.loads(p.stdout), None


def close(a, b):
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def check(rows, want, mpi, case):
    fails = []
    for row in rows:
        name = row["region"]
        if name not in want:
            continue
        thread = row.get("thread") if case == "by_thread" else None
        if thread not in want[name]:
            fails.append(f"{name}: row of thread {thread!r} not expected")
            continue
        d = want[name][thread]
        if case == "mpi":
            if name == "MPI_Send" and (row["bytes"], row["msgs"]) != mpi:
                fails.append(f"{name}: bytes, msgs {row['bytes']}, {row['msgs']}; numpy {mpi}")
            continue
        for p in PCTS:
            key = "p" + (str(p) if p != int(p) else str(int(p)))
            np_s = float(np.percentile(d, p)) * 1e-9
            if key not in row or not close(row[key], np_s):
                fails.append(f"{name} thread {thread}: {key} {row.get(key)} s, numpy {np_s!r} s")
    return fails


def main():
    pproc, d, case = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"pct_{case}.h5")
    want, mpi = write(path)
    cols = ",".join("p" + (str(p) if p != int(p) else str(int(p))) for p in PCTS)
    args = {"summary": ["--summary", "--columns", cols],
            "by_thread": ["--summary", "--by-thread", "--columns", cols],
            "mpi": ["--summary", "--columns", "p50,bytes,msgs"]}[case]
    fails = []
    outs = []
    for stream in (None, "0"):
        rows, err = run(pproc, path, args, stream)
        if err:
            fails.append(f"STREAM={stream}: {err}")
            continue
        outs.append(rows)
        seen = {r["region"] for r in rows}
        for name in want:
            if name not in seen:
                fails.append(f"STREAM={stream}: no row of {name}")
        fails += [f"STREAM={stream}: {m}" for m in check(rows, want, mpi, case)]
    if len(outs) == 2 and outs[0] != outs[1]:
        fails.append("the default bound and STREAM=0 give different rows")
    os.remove(path)
    for m in fails:
        print("FAIL", m)
    print("ok" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
