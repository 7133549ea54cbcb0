#!/usr/bin/python3
"""Checks a scope-profiler file with h5py, a reader independent of ours.

usage: check_profile.py FILE [--ranks N] [--expect TAG] [--compare OTHER]
                        [--threads N] [--count-only] [--region NAME]...
                        [--count NAME=CALLS]... [--nested CHILD:PARENT]...
                        [--precedes A:B]...

Always checked, on every rank group: the root attribute
scope_profiler_schema = 1; the metadata attributes, with mpi_size = N;
exactly the groups rank0..rank<N-1>; per region the attributes name and
num_calls, the link name being the documented encoding of the name;
int64 start_times/end_times (and thread_ids when present) of num_calls
entries each, end >= start, starts non-decreasing per thread, the calls
of one thread nested or disjoint across regions, stamps in this
machine's CLOCK_MONOTONIC of the last hour. With --count-only (a file
written with time_trace off): no datasets at all.

Expectations, all optional:
  --expect TAG      every rank's {name: num_calls} equals
                    TAG.expect.rank<R>.json (the calls the program made)
  --compare OTHER   OTHER holds the same calls in the same order
  --threads N       no region has more than N thread ids
  --region NAME     the exact set of regions on each rank (repeat)
  --count NAME=CALLS, --nested CHILD:PARENT (every call of CHILD inside a
  call of PARENT), --precedes A:B (every call of A ends before any call
  of B starts). Names and counts may hold {expressions} of r (the rank)
  and n (the number of ranks): --count "rank {r} only=1", "work={r+1}".

Exit 0 when every check holds; otherwise each failure is printed with the
value found and the value wanted, and the exit code is 1.
"""
import argparse
import bisect
import json
import re
import sys
import time

import h5py
import numpy as np

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def expand(text, r, n):
    """Replaces each {expr} in text by its value for rank r of n."""
    return re.sub(r"\{([^}]*)\}", lambda m: str(eval(m.group(1), {}, {"r": r, "n": n})), text)


def link_name(name):
    """The reversible encoding of a region name as an HDF5 link name."""
    if name == ".":
        return "%2E"
    return name.replace("%", "%25").replace("/", "%2F").replace("\0", "%00")


def text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


class Region:
    """One rank's record of a region: calls, and the stamps unless count-only."""

    def __init__(self, calls, starts=None, ends=None, tids=None):
        self.calls, self.starts, self.ends, self.tids = calls, starts, ends, tids


def read_rank(f, rank, count_only):
    """{region name: Region} of one rank, after the per-region checks."""
    out = {}
    for link, g in f[f"rank{rank}/regions"].items():
        where = f"rank{rank}/regions/{link}"
        if "name" not in g.attrs or "num_calls" not in g.attrs:
            fail(f"{where}: attributes name and num_calls wanted, found {sorted(g.attrs)}")
            continue
        name = text(g.attrs["name"])
        if link_name(name) != link:
            fail(f"{where}: link name should be {link_name(name)!r} for name {name!r}")
        calls = int(g.attrs["num_calls"])
        if count_only:
            if "start_times" in g or "end_times" in g:
                fail(f"{where}: count-only mode wants no datasets, found {sorted(g)}")
            out[name] = Region(calls)
            continue
        if "start_times" not in g or "end_times" not in g:
            fail(f"{where}: start_times and end_times wanted, found {sorted(g)}")
            continue
        s, e = g["start_times"], g["end_times"]
        if s.dtype != np.int64 or e.dtype != np.int64:
            fail(f"{where}: dtypes {s.dtype}, {e.dtype}, want int64")
        s, e = s[()], e[()]
        t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), dtype=np.int32)
        if not (len(s) == len(e) == len(t) == calls):
            fail(f"{where}: {len(s)} starts, {len(e)} ends, {len(t)} thread ids; "
                 f"num_calls {calls}")
            continue
        out[name] = Region(calls, s, e, t)
    return out


def check_intervals(rank, regions):
    """Stamps: ordered, in this machine's clock, nested or disjoint per thread."""
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    per_thread = {}
    for name, reg in regions.items():
        s, e, t = reg.starts, reg.ends, reg.tids
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
                break
            stack.append((a, b, name))


def sequence(regions):
    """Region names of every call, in the order the calls started."""
    ivs = []
    for name, reg in regions.items():
        ivs += [(int(a), -int(b), name) for a, b in zip(reg.starts, reg.ends)]
    return [n for _, _, n in sorted(ivs)]


def contained(child, parent):
    """True when every call of child lies inside some call of parent."""
    order = sorted(zip(parent.starts.tolist(), parent.ends.tolist()))
    pstarts = [s for s, _ in order]
    reach, best = [], None
    for _, e in order:
        best = e if best is None else max(best, e)
        reach.append(best)
    for s, e in zip(child.starts.tolist(), child.ends.tolist()):
        i = bisect.bisect_right(pstarts, s) - 1
        if i < 0 or reach[i] < e:
            return False
    return True


def check_expectations(args, r, n, regions, other):
    if args.expect is not None:
        with open(f"{args.expect}.expect.rank{r}.json") as ef:
            want = json.load(ef)
        got = {name: reg.calls for name, reg in regions.items()}
        if got != want:
            fail(f"rank{r}: calls {got}, want {want}")
    if args.region is not None:
        wanted = sorted(expand(x, r, n) for x in args.region)
        if sorted(regions) != wanted:
            fail(f"rank{r}: regions {sorted(regions)}, want {wanted}")
    for spec in args.count:
        name, _, calls = spec.rpartition("=")
        name, calls = expand(name, r, n), int(expand(calls, r, n))
        got = regions[name].calls if name in regions else None
        if got != calls:
            fail(f"rank{r}: calls of {name!r}: got {got}, want {calls}")
    for spec in args.nested + args.precedes:
        a, _, b = spec.partition(":")
        a, b = expand(a, r, n), expand(b, r, n)
        if a not in regions or b not in regions or args.count_only:
            fail(f"rank{r}: {spec}: regions {a!r} and {b!r} with stamps wanted")
            continue
        if spec in args.nested and not contained(regions[a], regions[b]):
            fail(f"rank{r}: a call of {a!r} is not inside any call of {b!r}")
        if spec in args.precedes and regions[a].ends.max() > regions[b].starts.min():
            fail(f"rank{r}: a call of {a!r} ends after {b!r} starts")
    if args.threads:
        for name, reg in regions.items():
            if reg.tids is not None and len(np.unique(reg.tids)) > args.threads:
                fail(f"rank{r}/{name}: {len(np.unique(reg.tids))} thread ids, "
                     f"at most {args.threads} wanted")
    if other is not None and sequence(regions) != sequence(other):
        fail(f"rank{r}: call sequence differs from {args.compare}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, default=1, help="number of ranks that wrote the file")
    ap.add_argument("--expect", metavar="TAG", help="compare with TAG.expect.rank<R>.json")
    ap.add_argument("--compare", metavar="OTHER", help="same calls in the same order as OTHER")
    ap.add_argument("--threads", type=int, default=0, help="at most N thread ids per region")
    ap.add_argument("--count-only", action="store_true", help="file written with time_trace off")
    ap.add_argument("--region", action="append", default=None, metavar="NAME",
                    help="the exact set of regions on each rank (repeat)")
    ap.add_argument("--count", action="append", default=[], metavar="NAME=CALLS")
    ap.add_argument("--nested", action="append", default=[], metavar="CHILD:PARENT",
                    help="every call of CHILD lies inside a call of PARENT")
    ap.add_argument("--precedes", action="append", default=[], metavar="A:B",
                    help="every call of A ends before any call of B starts")
    args = ap.parse_args()
    n = args.ranks

    with h5py.File(args.file, "r") as f:
        schema = f.attrs.get("scope_profiler_schema")
        if schema is None or int(schema) != 1:
            fail(f"root attribute scope_profiler_schema: got {schema}, want 1")
        meta = f["metadata"].attrs if "metadata" in f else {}
        for key in ("mpi_size", "hostname", "timestamp", "library_version", "clock",
                    "omp_threads", "omp_num_threads", "total_cores"):
            if key not in meta:
                fail(f"metadata attribute {key} missing")
        # The reference tool's keys: total_cores = ranks x threads.
        if "total_cores" in meta and "omp_num_threads" in meta and "mpi_size" in meta:
            if int(meta["omp_num_threads"]) < 1 or \
                    int(meta["total_cores"]) != int(meta["mpi_size"]) * int(meta["omp_num_threads"]):
                fail(f"metadata total_cores {int(meta['total_cores'])} != mpi_size "
                     f"{int(meta['mpi_size'])} x omp_num_threads {int(meta['omp_num_threads'])}")
        if "mpi_size" in meta and int(meta["mpi_size"]) != n:
            fail(f"metadata mpi_size: got {int(meta['mpi_size'])}, want {n}")
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
        want = sorted(f"rank{r}" for r in range(n))
        if ranks != want:
            fail(f"rank groups: got {ranks}, want {want}")
        other = h5py.File(args.compare, "r") if args.compare else None
        for r in range(n):
            if f"rank{r}/regions" not in f:
                fail(f"rank{r}/regions missing")
                continue
            regions = read_rank(f, r, args.count_only)
            if not args.count_only:
                check_intervals(r, regions)
            theirs = None
            if other is not None:
                if f"rank{r}/regions" in other:
                    theirs = read_rank(other, r, False)
                else:
                    fail(f"rank{r}/regions missing in {args.compare}")
            check_expectations(args, r, n, regions, theirs)
        if other is not None:
            other.close()
    if failures:
        print(f"{len(failures)} check(s) failed in {args.file}", file=sys.stderr)
        return 1
    print(f"{args.file}: all checks passed ({n} rank(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
