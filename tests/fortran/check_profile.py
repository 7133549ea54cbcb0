"""Checks a scope-profiler HDF5 file against what a test program did.

Reads the file with h5py, independently of the library, and asserts the
public layout (rank<N>/regions/<link name>/start_times, end_times, the
attributes name and num_calls) plus the expectations given on the command
line. Names and counts may contain {expressions} of r (the rank) and n (the
number of ranks), e.g. --count "rank {r} only=1" --count "work={r}+1".

Exit 0 when every check holds; otherwise each failure is printed with the
value found and the value wanted, and the exit code is 1.
"""
import argparse
import bisect
import re
import sys

import h5py

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, file=sys.stderr)


def expand(text, r, n):
    """Replaces each {expr} in text by its value for rank r of n."""
    return re.sub(r"\{([^}]*)\}", lambda m: str(eval(m.group(1), {}, {"r": r, "n": n})), text)


def link_name(name):
    """The reversible encoding of a region name as an HDF5 link name."""
    if name == ".":
        return "%2E"
    return name.replace("%", "%25").replace("/", "%2F")


def text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def read_rank(group, rank, count_only):
    """Returns {region name: (starts, ends)} after checking the invariants."""
    regions = {}
    for link, reg in group.items():
        where = f"rank{rank}/regions/{link}"
        if "name" not in reg.attrs or "num_calls" not in reg.attrs:
            fail(f"{where}: attributes name and num_calls wanted, found {sorted(reg.attrs)}")
            continue
        name = text(reg.attrs["name"])
        if link_name(name) != link:
            fail(f"{where}: link name should be {link_name(name)!r} for name {name!r}")
        calls = int(reg.attrs["num_calls"])
        if count_only:
            if "start_times" in reg or "end_times" in reg:
                fail(f"{where}: count-only mode wants no datasets, found {sorted(reg)}")
            regions[name] = (calls, None, None)
            continue
        starts, ends = reg["start_times"][()], reg["end_times"][()]
        if not (len(starts) == len(ends) == calls):
            fail(f"{where}: {len(starts)} starts, {len(ends)} ends, num_calls {calls}")
        if any(e < s for s, e in zip(starts, ends)):
            fail(f"{where}: a call ends before it starts")
        if "thread_ids" not in reg and any(b < a for a, b in zip(starts, starts[1:])):
            fail(f"{where}: start_times not non-decreasing")
        regions[name] = (calls, list(starts), list(ends))
    return regions


def contained(child, parent):
    """True when every call of child lies inside some call of parent."""
    order = sorted(zip(parent[1], parent[2]))
    pstarts = [s for s, _ in order]
    reach, best = [], None
    for _, e in order:
        best = e if best is None else max(best, e)
        reach.append(best)
    for s, e in zip(child[1], child[2]):
        i = bisect.bisect_right(pstarts, s) - 1
        if i < 0 or reach[i] < e:
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, default=1, help="rank groups wanted")
    ap.add_argument("--count", action="append", default=[], metavar="NAME=CALLS")
    ap.add_argument("--nested", action="append", default=[], metavar="CHILD:PARENT",
                    help="every call of CHILD lies inside a call of PARENT")
    ap.add_argument("--precedes", action="append", default=[], metavar="A:B",
                    help="every call of A ends before any call of B starts")
    ap.add_argument("--region", action="append", default=None, metavar="NAME",
                    help="the exact set of regions on each rank (repeat)")
    ap.add_argument("--count-only", action="store_true", help="file written with time_trace off")
    args = ap.parse_args()

    with h5py.File(args.file, "r") as f:
        schema = f.attrs.get("scope_profiler_schema")
        if schema is None or int(schema) != 1:
            fail(f"root attribute scope_profiler_schema: got {schema}, want 1")
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
        want = [f"rank{r}" for r in range(args.ranks)]
        if ranks != sorted(want):
            fail(f"rank groups: got {ranks}, want {sorted(want)}")
        n = args.ranks
        for r in range(n):
            if f"rank{r}/regions" not in f:
                fail(f"rank{r}/regions missing")
                continue
            regions = read_rank(f[f"rank{r}/regions"], r, args.count_only)
            if args.region is not None:
                wanted = sorted(expand(x, r, n) for x in args.region)
                if sorted(regions) != wanted:
                    fail(f"rank{r}: regions {sorted(regions)}, want {wanted}")
            for spec in args.count:
                name, _, calls = spec.rpartition("=")
                name, calls = expand(name, r, n), int(expand(calls, r, n))
                got = regions[name][0] if name in regions else None
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
                if spec in args.precedes and max(regions[a][2]) > min(regions[b][1]):
                    fail(f"rank{r}: a call of {a!r} ends after {b!r} starts")
    if failures:
        print(f"{len(failures)} check(s) failed in {args.file}", file=sys.stderr)
        return 1
    print(f"{args.file}: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
