"""Independent oracle for the call tree: reads a profile with h5py, rebuilds
the nesting with a quadratic search (no code shared with reader_tree.c) and
compares every node of call_tree.json (from stdin or a file) with it.

usage: check_tree.py PROFILE.h5 CALL_TREE.json [--exclude NAME]... [RANK...]

Rules (postproc/include/scope_profiler_reader.h, "Call tree"): per rank and
thread, calls ordered by start ascending, end descending, name ascending;
a call's parent is the latest earlier call in that order that contains it.
The reference tool's columnar files (schema 2 and 3) are read too; where
they hold events/call_ids and events/parent_ids, a call's parent is the call
of the same rank with its parent id (none: a root), whatever the stamps say.
"""
import json
import re
import sys
from urllib.parse import unquote_to_bytes

import h5py
import numpy as np


def region_calls(f, rank_name):
    out = []
    regs = f[rank_name].get("regions", {})
    for link in regs:
        g = regs[link]
        # Without a name attribute the link is the name, %XX-escaped.
        name = g.attrs.get("name", unquote_to_bytes(link).decode())
        if isinstance(name, bytes):
            name = name.decode()
        if "start_times" not in g:
            continue
        s, e = g["start_times"][()], g["end_times"][()]
        t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), dtype=np.int32)
        out += [(int(t[i]), int(s[i]), int(e[i]), str(name)) for i in range(len(s))]
    return out


def columnar_calls(f):
    """rank -> list of (tid, start, end, name, call id, parent id) of a columnar file."""
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["region_table/names"][()]]
    idx, ev = f["rank_region_index"], f["events"]
    deltas = "start_deltas" in ev
    a = ev["start_deltas" if deltas else "start_times"][()]
    b = ev["durations" if deltas else "end_times"][()]
    n = len(a)
    tid = ev["thread_ids"][()] if "thread_ids" in ev else np.zeros(n, np.int64)
    has_ids = "call_ids" in ev and "parent_ids" in ev
    cid = ev["call_ids"][()] if has_ids else np.full(n, -1)
    pid = ev["parent_ids"][()] if has_ids else np.full(n, -1)
    out = {}
    for g, r, o, c in zip(idx["region_ids"][()], idx["ranks"][()], idx["event_offsets"][()],
                          idx["event_counts"][()]):
        o, c = int(o), int(c)
        s = np.cumsum(a[o:o + c]) if deltas else a[o:o + c]
        e = s + b[o:o + c] if deltas else b[o:o + c]
        out.setdefault(int(r), []).extend(
            (int(tid[o + i]), int(s[i]), int(e[i]), names[int(g)], int(cid[o + i]), int(pid[o + i]))
            for i in range(c))
    return out, has_ids


def by_ids(calls):
    """Parent index of each call by the ids: the first call with the parent id."""
    first = {}
    for i, c in enumerate(calls):
        if c[4] >= 0:
            first.setdefault(c[4], i)
    return [first.get(c[5]) if c[5] >= 0 and first.get(c[5]) != i else None
            for i, c in enumerate(calls)]


def by_stamps(calls):
    parents = []
    for i, (tid, s, e, *_) in enumerate(calls):
        parent = None
        for k in range(i - 1, -1, -1):
            pt, ps, pe = calls[k][:3]
            if pt == tid and ps <= s and e <= pe:
                parent = k
                break
        parents.append(parent)
    return parents


def rank_calls(f):
    """rank -> calls sorted as the rules say, and whether ids define the tree."""
    if "rank_region_index" in f:
        per, has_ids = columnar_calls(f)
    else:
        # Ranks are root groups rank<N> without leading zeros ("rank01" is not one).
        ids = sorted(int(k[4:]) for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k))
        per = {r: [c + (-1, -1) for c in region_calls(f, f"rank{r}")] for r in ids}
        has_ids = False
    return {r: sorted(v, key=lambda c: (c[0], c[1], -c[2], c[3])) for r, v in per.items()}, has_ids


def call_paths(calls, parents):
    """Each call's path (a tuple of names from its root), parents first
    (ids may point forward; a chain that comes back to a call makes a root)."""
    paths = [None] * len(calls)

    def path_of(i, seen=()):
        if paths[i] is None:
            p = parents[i]
            paths[i] = (path_of(p, seen + (i,)) if p is not None and p not in seen
                        else ()) + (calls[i][3],)
        return paths[i]

    for i in range(len(calls)):
        path_of(i)
    return paths


def skip_excluded(calls, parents, excluded):
    """Each call's nearest ancestor whose region is not excluded (as the tree
    of the selected regions links them)."""
    out = []
    for i in range(len(calls)):
        p, seen = parents[i], {i}
        while p is not None and calls[p][3] in excluded and p not in seen:
            seen.add(p)
            p = parents[p]
        out.append(None if p in seen else p)
    return out


def oracle(path, ranks, excluded=()):
    nodes = {}  # path tuple -> {"calls", "incl", "excl", "per_rank": {rank: [c, i, x]}}
    with h5py.File(path, "r") as f:
        per, has_ids = rank_calls(f)
        ranks = ranks or sorted(per)
        for rank in ranks:
            calls = per.get(rank, [])
            parents = by_ids(calls) if has_ids else by_stamps(calls)
            parents = skip_excluded(calls, parents, excluded)
            paths, child_sum = call_paths(calls, parents), [0] * len(calls)
            for i in range(len(calls)):
                if parents[i] is not None and calls[i][3] not in excluded:
                    child_sum[parents[i]] += calls[i][2] - calls[i][1]
            for i, (tid, s, e, name, *_) in enumerate(calls):
                if name in excluded:
                    continue
                n = nodes.setdefault(paths[i], {"calls": 0, "incl": 0, "excl": 0, "per_rank": {}})
                pr = n["per_rank"].setdefault(rank, [0, 0, 0])
                d, x = e - s, e - s - child_sum[i]
                n["calls"] += 1
                n["incl"] += d
                n["excl"] += x
                pr[0] += 1
                pr[1] += d
                pr[2] += x
    return nodes, ranks


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def main():
    path, doc = sys.argv[1], json.load(open(sys.argv[2]) if sys.argv[2] != "-" else sys.stdin)
    args, excluded = sys.argv[3:], set()
    while args[:1] == ["--exclude"]:
        excluded.add(args[1])
        args = args[2:]
    nodes, ranks = oracle(path, [int(r) for r in args], excluded)
    got = {tuple(n["path"]): n for n in doc["nodes"]}
    errors = []
    if set(got) != set(nodes):
        errors.append(f"paths differ: only ours {sorted(set(got) - set(nodes))}, "
                      f"only oracle {sorted(set(nodes) - set(got))}")
    for p, want in nodes.items():
        n = got.get(p)
        if n is None:
            continue
        checks = [("calls", n["calls"], want["calls"]),
                  ("inclusive", n["inclusive_seconds"], want["incl"] * 1e-9),
                  ("exclusive", n["exclusive_seconds"], want["excl"] * 1e-9)]
        per = [want["per_rank"].get(r, [0, 0, 0])[1] * 1e-9 for r in ranks]
        mean, mx = sum(per) / len(per), max(per)
        checks += [("rank_min", n["rank_min_seconds"], min(per)),
                   ("rank_mean", n["rank_mean_seconds"], mean),
                   ("rank_max", n["rank_max_seconds"], mx),
                   ("max_rank", n["max_rank"], ranks[per.index(mx)]),
                   ("imbalance", n["imbalance"], (mx - mean) / mx if mx > 0 else 0.0)]
        root = nodes[p[:1]]["incl"]
        checks.append(("share", n["share"], want["incl"] / root if root else 0.0))
        if set(n["per_rank"]) != {str(r) for r in want["per_rank"]}:
            errors.append(f"{p}: per_rank ranks {sorted(n['per_rank'])} != {sorted(want['per_rank'])}")
        for r, (c, i, x) in want["per_rank"].items():
            g = n["per_rank"].get(str(r), {})
            checks += [(f"rank {r} calls", g.get("calls"), c),
                       (f"rank {r} inclusive", g.get("inclusive_seconds"), i * 1e-9),
                       (f"rank {r} exclusive", g.get("exclusive_seconds"), x * 1e-9)]
        for what, a, b in checks:
            if a is None or not close(a, b):
                errors.append(f"{'/'.join(p)}: {what}: ours {a}, oracle {b}")
    # Parents come before their children (depth-first order).
    seen = set()
    for n in doc["nodes"]:
        if len(n["path"]) > 1 and tuple(n["path"][:-1]) not in seen:
            errors.append(f"{n['path']}: listed before its parent")
        seen.add(tuple(n["path"]))
    for e in errors:
        print("MISMATCH", e)
    print(f"{len(nodes)} paths compared, {len(errors)} mismatches")
    sys.exit(1 if errors or not nodes else 0)


if __name__ == "__main__":
    main()
