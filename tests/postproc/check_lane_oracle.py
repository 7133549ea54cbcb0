"""check_lane_oracle.py - the Gantt chart's lane order against an
independent oracle of its rule, on a random call tree (issue 45 item 5).

Writes one rank with h5py: main [0, 1000] ms around a random nesting of 7
regions (seed SEED; up to 4 deep; every call at least 30 ms so that its
lane shows full-height bars), where several regions are called at more
than one call path. The rule (postproc/README.md "Lanes are in call-tree
order", tree_order.c), recomputed here from the stamps with numpy: a call's
parent is the innermost call containing it (calls sorted by start, end
descending, name); calls aggregate by call path; siblings in inclusive
time descending, calls descending, name; a region's lane at its path with
the largest inclusive time (the first in depth-first order on ties); lanes
in the depth-first order of those paths. The oracle's order must differ
from the first-start order (else the file would not tell the two apart),
and the PNG's lanes, found by colour (the data file's "colors"), must be
in the oracle's order.

usage: check_lane_oracle.py PPROC OUTDIR [SEED]"""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_lane_depth import gantt_lane_order  # noqa: E402

NAMES = ["a", "b", "c", "d", "e", "f", "g"]


def random_calls(rng):
    """{name: [(start_ms, end_ms)]}: main around random nested calls."""
    calls = {"main": [(0, 1000)]}

    def fill(lo, hi, depth):
        t = lo
        while depth < 4 and hi - t >= 40:
            gap = int(rng.integers(0, 8))
            length = int(rng.integers(30, max(31, min(hi - t - gap, 400))))
            if t + gap + length > hi:
                break
            name = NAMES[int(rng.integers(len(NAMES)))]
            calls.setdefault(name, []).append((t + gap, t + gap + length))
            fill(t + gap, t + gap + length, depth + 1)
            t += gap + length
            if rng.random() < 0.2:
                break

    fill(0, 1000, 1)
    return calls


def oracle(calls):
    """Regions in call-tree lane order, by the rule, from the stamps."""
    flat = sorted(((s, -e, n) for n, v in calls.items() for s, e in v))
    incl, count, stack = {}, {}, []  # stack: (end, path)
    for s, neg_e, n in flat:
        e = -neg_e
        while stack and not (s >= stack[-1][2] and e <= stack[-1][0]):
            stack.pop()
        path = (stack[-1][1] if stack else ()) + (n,)
        incl[path] = incl.get(path, 0) + (e - s)
        count[path] = count.get(path, 0) + 1
        stack.append((e, path, s))
    kids = {}
    for p in incl:
        kids.setdefault(p[:-1], []).append(p)
    order = []

    def visit(p):
        for k in sorted(kids.get(p, []), key=lambda q: (-incl[q], -count[q], q[-1])):
            order.append(k)
            visit(k)

    visit(())
    main_path = {}
    for p in order:  # depth-first: the first path wins ties
        n = p[-1]
        if n not in main_path or incl[p] > incl[main_path[n]]:
            main_path[n] = p
    return sorted(main_path, key=lambda n: order.index(main_path[n]))


def main():
    pproc, outdir = sys.argv[1:3]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 45
    out = os.path.join(outdir, f"lane_oracle_{seed}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    calls = random_calls(np.random.default_rng(seed))
    want = oracle(calls)
    first = sorted(calls, key=lambda n: (min(s for s, _ in calls[n]), n))
    print("oracle:", want, "first start:", first)
    if want == first:
        print("FAIL: this seed's file does not tell tree order from first-start order")
        sys.exit(1)
    got = gantt_lane_order(pproc, out, os.path.join(out, "oracle.h5"), calls)
    print("lanes from the top:", got)
    if got != want:
        print("FAIL: the lanes are not in the oracle's call-tree order")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
