#!/usr/bin/python3
"""Checks a scope-profiler file with h5py, an independent reader.

usage: check_profile.py FILE TAG NRANKS [--count-only] [--compare OTHER]
                        [--threads N]

Compares every rank's regions and num_calls with TAG.expect.rank<R>.json
(written by the test program: the calls it made) and checks the layout's
invariants: int64 start/end datasets of equal length, end >= start, starts
non-decreasing per thread, intervals of one thread nested or disjoint,
stamps in this machine's CLOCK_MONOTONIC domain, link names decoding to
the "name" attribute. --compare also requires OTHER to hold the same calls
in the same order.
"""
import argparse
import json
import re
import sys
import time
from urllib.parse import unquote_to_bytes

import h5py
import numpy as np

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def region_table(f, rank, count_only):
    """{name: (num_calls, start, end, thread_ids)} of one rank."""
    out = {}
    regions = f[f"rank{rank}/regions"]
    for link, g in regions.items():
        name = attr_str(g.attrs["name"])
        decoded = unquote_to_bytes(link).decode("utf-8", "surrogateescape")
        if decoded != name:
            fail(f"rank{rank}: link {link!r} decodes to {decoded!r}, name attribute {name!r}")
        if "/" in link:
            fail(f"rank{rank}: link name {link!r} contains '/'")
        calls = int(g.attrs["num_calls"])
        if count_only:
            if "start_times" in g or "end_times" in g:
                fail(f"rank{rank}/{link}: count-only mode wrote datasets")
            out[name] = (calls, None, None, None)
            continue
        s, e = g["start_times"], g["end_times"]
        if s.dtype != np.int64 or e.dtype != np.int64:
            fail(f"rank{rank}/{link}: dtypes {s.dtype}, {e.dtype} (want int64)")
        s, e = s[()], e[()]
        t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), dtype=np.int32)
        if not (len(s) == len(e) == len(t) == calls):
            fail(f"rank{rank}/{link}: lengths {len(s)}, {len(e)}, {len(t)}; num_calls {calls}")
        out[name] = (calls, s, e, t)
    return out


def check_intervals(rank, table):
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    per_thread = {}
    for name, (calls, s, e, t) in table.items():
        if s is None or len(s) == 0:
            continue
        if np.any(e < s):
            fail(f"rank{rank}/{name}: {int(np.sum(e < s))} end_times before start_times")
        if e.max() > now or s.min() < now - 3600 * 10**9:
            fail(f"rank{rank}/{name}: stamps {s.min()}..{e.max()} not in CLOCK_MONOTONIC "
                 f"of the last hour (now {now})")
        for tid in np.unique(t):
            st = s[t == tid]
            if np.any(np.diff(st) < 0):
                fail(f"rank{rank}/{name}: starts decrease within thread {tid}")
            for a, b in zip(st, e[t == tid]):
                per_thread.setdefault(int(tid), []).append((int(a), -int(b), name))
    for tid, ivs in per_thread.items():
        ivs.sort()
        stack = []
        for a, nb, name in ivs:
            b = -nb
            while stack and stack[-1][1] <= a and not (stack[-1][1] == a == b):
                stack.pop()
            if stack and b > stack[-1][1]:
                fail(f"rank{rank} thread {tid}: {name} [{a},{b}] overlaps "
                     f"{stack[-1][2]} [{stack[-1][0]},{stack[-1][1]}] without nesting")
                return
            stack.append((a, b, name))


def sequence(table):
    ivs = []
    for name, (calls, s, e, t) in table.items():
        ivs += [(int(a), -int(b), name) for a, b in zip(s, e)]
    return [n for _, _, n in sorted(ivs)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("tag")
    ap.add_argument("nranks", type=int)
    ap.add_argument("--count-only", action="store_true")
    ap.add_argument("--compare")
    ap.add_argument("--threads", type=int, default=0,
                    help="regions recorded by several threads must have thread_ids")
    a = ap.parse_args()

    with h5py.File(a.file, "r") as f:
        if int(f.attrs.get("scope_profiler_schema", 0)) != 1:
            fail("root attribute scope_profiler_schema is not 1")
        meta = f["metadata"].attrs
        for key in ("mpi_size", "hostname", "timestamp", "library_version", "clock", "omp_threads"):
            if key not in meta:
                fail(f"metadata attribute {key} missing")
        if int(meta["mpi_size"]) != a.nranks:
            fail(f"metadata mpi_size {int(meta['mpi_size'])} != {a.nranks}")
        ranks = sorted(k for k in f if re.fullmatch(r"rank\d+", k))
        if ranks != sorted(f"rank{r}" for r in range(a.nranks)):
            fail(f"rank groups {ranks}, want rank0..rank{a.nranks - 1}")
        other = h5py.File(a.compare, "r") if a.compare else None
        for r in range(a.nranks):
            if f"rank{r}/regions" not in f:
                fail(f"rank{r}/regions missing")
                continue
            table = region_table(f, r, a.count_only)
            with open(f"{a.tag}.expect.rank{r}.json") as ef:
                want = json.load(ef)
            got = {n: v[0] for n, v in table.items()}
            if got != want:
                fail(f"rank{r}: calls {got}, want {want}")
            if not a.count_only:
                check_intervals(r, table)
            if a.threads:
                for name, (calls, s, e, t) in table.items():
                    if len(np.unique(t)) > a.threads:
                        fail(f"rank{r}/{name}: more thread ids than threads")
            if other is not None:
                if sequence(table) != sequence(region_table(other, r, False)):
                    fail(f"rank{r}: call sequence differs from {a.compare}")
    if failures:
        print(f"{len(failures)} check(s) failed for {a.file}", file=sys.stderr)
        return 1
    print(f"{a.file}: all checks passed ({a.nranks} ranks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
