"""check_otf2_stream.py - the event order of a streamed --export otf2 of
several ranks and threads against an oracle from h5py.

usage: check_otf2_stream.py PPROC DIR

Writes DIR/stream_cases.h5 with h5py: 2 ranks x 4 threads, N rounds per
thread of
  a [0, 900] > b [10, 400], rec [410, 490] > rec [420, 480], c [500, 880]
(ns after the round's start; every stamp of a thread distinct, every call
nested, so each thread's events in time order are the one right sequence).
Each region's calls are stored in an order the export must merge: thread
by thread as the core stores them (a on rank 0: one run longer than the
export's 65,536-call chunks), threads in reverse (a on rank 1, c: a few
sorted runs), call by call across threads (b: one run per call, loaded
whole), each recursion's inner call first (rec on rank 0, by end), or in
start order (rec on rank 1). Rank 2 has one thread of 200,000 calls of
"long" [0, 50] every 100 ns: its location's 4.4 MB of events outgrow the
4 MiB OTF2 buffer the export allows a location, so OTF2 flushes mid-trace
(and must add no BUFFER_FLUSH record). Then runs PPROC DIR/stream_cases.h5 --export
otf2 -o DIR/stream -v (which must say the archive was written again:
c falls out of order past the merge's first chunk), validates the archive with otf2-print --silent, and
reads it with python3-otf2: per location ("thread T" of "MPI Rank N") the
sequence of (ENTER or LEAVE, stamp, region) must equal the oracle's, the
calls of h5py's arrays as events sorted by stamp; no extra location.
"""
import os
import subprocess
import sys
from collections import defaultdict

import h5py
import numpy as np
import otf2

T0 = 10**9
ROUNDS = 17000  # a on rank 0: 4 x 17,000 = 68,000 calls, one run over two chunks
THREADS = 4
LONG = 200000  # calls of rank 2's one thread: more than 4 MiB of events
SHAPE = {"a": [(0, 900)], "b": [(10, 400)], "rec": [(410, 490), (420, 480)], "c": [(500, 880)]}


def calls(name):
    """(start, end, thread) of region name, round-major then thread then call."""
    i = np.arange(ROUNDS, dtype=np.int64)
    out = []
    for t in range(THREADS):
        for s, e in SHAPE[name]:
            base = T0 + i * 1000
            out.append(np.stack([base + s, base + e, np.full(ROUNDS, t), i], axis=1))
    return np.concatenate(out)


def stored(name, rank):
    """The calls in the order the file keeps them (columns start, end, thread, round)."""
    c = calls(name)
    if name == "b":  # thread interleaved call by call: round, then thread
        return c[np.lexsort((c[:, 2], c[:, 3]))]
    if name == "rec" and rank == 0:  # thread by thread, each call as it ends
        return c[np.lexsort((c[:, 1], c[:, 2]))]
    if name == "c" or (name == "a" and rank == 1):  # threads in reverse, each in start order
        return c[np.lexsort((c[:, 0], -c[:, 2]))]
    return c[np.lexsort((c[:, 0], c[:, 2]))]  # the core's order


def write(path):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        g = f.create_group("rank2/regions/long")
        g.attrs["name"] = "long"
        g.attrs["num_calls"] = np.int64(LONG)
        g["start_times"] = T0 + 100 * np.arange(LONG, dtype=np.int64)
        g["end_times"] = g["start_times"][()] + 50
        for rank in range(2):
            regs = f.create_group(f"rank{rank}/regions")
            for name in SHAPE:
                c = stored(name, rank)
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(c))
                g["start_times"] = c[:, 0].astype(np.int64)
                g["end_times"] = c[:, 1].astype(np.int64)
                g["thread_ids"] = c[:, 2].astype(np.int32)


def oracle(path):
    """(rank, thread) -> [(kind, stamp, region)] from h5py: events in time order."""
    want = defaultdict(list)
    with h5py.File(path, "r") as f:
        for rank in range(3):
            for name, g in f[f"rank{rank}/regions"].items():
                s, e = g["start_times"][()], g["end_times"][()]
                t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int32)
                for th in np.unique(t):
                    m = t == th
                    want[(rank, int(th))] += [("ENTER", int(x), name) for x in s[m]]
                    want[(rank, int(th))] += [("LEAVE", int(x), name) for x in e[m]]
    for v in want.values():
        v.sort(key=lambda ev: ev[1])
    return want


def main():
    pproc, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    path = d + "/stream_cases.h5"
    write(path)
    out = d + "/stream"
    run = subprocess.run([pproc, path, "--export", "otf2", "-o", out, "-v"], check=True,
                         stderr=subprocess.PIPE, text=True)
    # c is stored threads in reverse, longer than the merge's first chunk:
    # the unscanned merge meets it out of order mid-rank and the export
    # starts again with scanned merges (rec on rank 0 is out of order in
    # its first chunk: scanned at the open).
    assert "writing the archive again, each pair scanned first" in run.stderr, run.stderr
    anchor = out + "/traces.otf2"
    subprocess.run(["otf2-print", "--silent", anchor], check=True)
    want = oracle(path)
    got = defaultdict(list)
    with otf2.reader.open(anchor) as tr:
        where = {}
        for loc in tr.definitions.locations:
            rank = int(loc.group.name.split()[-1])
            assert loc.name.startswith("thread ") and "overlap" not in loc.name, loc.name
            where[loc] = (rank, int(loc.name.split()[1]))
        for loc, ev in tr.events:
            kind = type(ev).__name__.upper()  # ENTER, LEAVE; anything else fails below
            region = ev.region.name if hasattr(ev, "region") else None
            got[where[loc]].append((kind, ev.time, region))
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    n = 0
    for key, evs in want.items():
        g = got[key]
        assert len(g) == len(evs), (key, len(g), len(evs))
        for i, (x, y) in enumerate(zip(g, evs)):
            assert x == y, f"rank {key[0]} thread {key[1]}: event {i} is {x}, oracle {y}"
        n += len(evs) // 2
    print(f"ok: {n} calls on {len(want)} locations in the oracle's order")


if __name__ == "__main__":
    main()
