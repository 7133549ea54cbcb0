"""Writes the call-tree test profiles with h5py, in the documented layout
(rank<N>/regions/<link>/{start_times,end_times[,thread_ids]}, attributes
name and num_calls), independently of the C code under test.

usage: make_tree_files.py DIR   -> DIR/tree.h5, DIR/tree_b.h5, DIR/blocks.h5,
                                   DIR/repeats.h5, DIR/random.h5,
                                   DIR/durations.h5, DIR/backwards_P.h5

tree.h5, 3 ranks, stamps in ns after T0 (randomised per rank, seed 7):
  main [0, 100]                                      every rank
    step x 5 (calls j: [10 + 15 j, 20 + 15 j])       every rank
      compute [start + 1, end - 2]                   every rank
      comm    [end - 2, end]  (touches compute)      ranks 0 and 2 only
    fib recursion 3 deep at [80, 90]: fib/fib/fib    every rank
    a and b with identical stamps [92, 93]           every rank
    solver/rhs (name with '/', link solver%2Frhs) [94, 95] with a child
      zero-length call 'tick' [94, 94]
  omp [30, 60] on threads 1 and 2 (worker roots), and on thread 0 inside
      step 2 as a child
  lonely [200, 201] rank 1 only, a root
tree_b.h5: tree.h5 with every thread-0 'compute' call 1.2 x longer (--compare, check).
again/tree.h5: a copy of tree.h5 under another directory (labels).
blocks.h5: 2 ranks, one thread, every region's starts in order (the
  reader's block ordering, used from 4096 calls on a rank): main, 1500
  steps each with compute and comm (touching), a and b with identical
  stamps, a zero-length tick; 60 zero-length 'burst' calls at one stamp
  (a crowded bucket) in step 700; 'late' on rank 1 only, a root.
repeats.h5: 4 ranks, one thread, starts in order, 700 steps a rank: the
  reader takes runs of repeated steps whole, so each step breaks the
  pattern now and then in another way: an extra or a missing kernel, a
  region not in the pattern inside a step or between steps, touching
  siblings, a child starting with its parent, a call overlapping two steps,
  a zero-length call. Rank 0 has main around the steps, rank 1 none, rank 2
  substeps repeated inside each step, rank 3 steps of two shapes in turn.
random.h5: 4 ranks of a random call pattern (up to 4 deep, 8 region names)
  repeated until 6000 calls, each call perturbed with probability 1%, 5%,
  15% or 30% by rank: skipped, an equal stamp, an extra call inside,
  running past its parent's end, or a second call of its region.
durations.h5: 2 ranks, one thread, for the duration statistics' exact
  integer pass and its fallback (durations from 2^50 ns): 'spans' 9000
  calls, one of 2^53 ns in the second span of 4096 on rank 0 (its end the
  latest); 'first_long' whose first call is 2^53 ns; 'equal_ends' 5000
  calls ending at one stamp; 'tail' 4103 calls, the last 2^52 + 3 ns.
backwards_P.h5, P in BACKWARDS: 1 rank, main around 6000 steps, step P
  ending 1 ns before it starts (the load's check, at the first call, in a
  vector of the first and of the second span of 4096, and in the tail of
  the duration pass).
"""
import os
import sys

import h5py
import numpy as np

T0 = 10**12


def write(path, scale_compute=1.0, seed=7):
    rng = np.random.default_rng(seed)
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank in range(3):
            calls = {}  # name -> list of (start, end, tid)

            def add(name, s, e, tid=0):
                calls.setdefault(name, []).append((T0 + int(s), T0 + int(e), tid))

            jit = lambda: int(rng.integers(0, 1000))  # noqa: E731, up to 1 us
            ms = 1_000_000
            add("main", 0, 100 * ms + jit())
            for j in range(5):
                s, e = (10 + 15 * j) * ms + jit(), (20 + 15 * j) * ms + jit()
                add("step", s, e)
                cs, ce = s + ms, e - 2 * ms
                ce = cs + int((ce - cs) * scale_compute)
                add("compute", cs, ce)
                if rank != 1:
                    add("comm", e - 2 * ms, e)
                if j == 2:
                    add("omp", s + 3 * ms, s + 4 * ms)
            add("fib", 80 * ms, 90 * ms)
            add("fib", 81 * ms, 89 * ms)
            add("fib", 82 * ms, 88 * ms + rank)
            add("a", 92 * ms, 93 * ms)
            add("b", 92 * ms, 93 * ms)
            add("solver/rhs", 94 * ms, 95 * ms)
            add("tick", 94 * ms, 94 * ms)
            for tid in (1, 2):
                add("omp", 30 * ms + tid, 60 * ms - tid, tid)
                add("compute", 31 * ms, 32 * ms + jit(), tid)
            if rank == 1:
                add("lonely", 200 * ms, 201 * ms)
            regs = f.create_group(f"rank{rank}").create_group("regions")
            for name, v in calls.items():
                link = name.replace("%", "%25").replace("/", "%2F")
                g = regs.create_group(link)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                # Stored in end order, as a recorder writes at stop.
                v = sorted(v, key=lambda c: c[1])
                g.create_dataset("start_times", data=np.array([c[0] for c in v], dtype=np.int64))
                g.create_dataset("end_times", data=np.array([c[1] for c in v], dtype=np.int64))
                if any(c[2] for c in v):
                    g.create_dataset("thread_ids", data=np.array([c[2] for c in v], dtype=np.int32))


def blocks_rank(add, rank, rng):
    """One rank of blocks.h5 (see the module's docstring); stamps in ns."""
    us = 1000
    add("main", 0, 1600 * 100 * us)
    for j in range(1500):
        s = (10 + 100 * j) * us + int(rng.integers(0, 50))
        e = s + 80 * us + int(rng.integers(0, 500))
        add("step", s, e)
        add("compute", s + us, e - 20 * us)
        add("comm", e - 20 * us, e)
        add("a", s + 2 * us, s + 3 * us)
        add("b", s + 2 * us, s + 3 * us)
        add("tick", s + 5 * us, s + 5 * us)
        if j == 700:
            for _ in range(60):
                add("burst", s + 7 * us, s + 7 * us)
    if rank == 1:
        add("late", 1700 * 100 * us, 1701 * 100 * us)


def repeats_rank(add, rank, rng):
    """One rank of repeats.h5 (see the module's docstring); stamps in ns."""
    us = 1000
    if rank == 0:
        add("main", 0, 800 * 100 * us)
    for j in range(700):
        s = (10 + 100 * j) * us + int(rng.integers(0, 50))
        e = s + 80 * us + int(rng.integers(0, 500))
        add("step", s, e)
        if rank == 2:  # substeps, each with a kernel: runs inside runs
            for q in range(4):
                qs = s + us + q * 15 * us
                add("sub", qs, qs + 12 * us)
                add("kern", qs + us, qs + 10 * us + int(rng.integers(0, 50)))
            continue
        if rank == 3 and j % 2:  # the other shape
            add("k3", s + us, s + 60 * us)
            continue
        pa = s + us if j % 109 != 19 else s  # child starting with its parent
        add("phaseA", pa, s + 40 * us)
        add("k1", pa if j % 109 == 19 else pa + us, s + 15 * us)
        if j % 97 == 5:
            add("k1", s + 16 * us, s + 17 * us)  # an extra call
        if j % 89 != 7:
            add("k2", s + 20 * us, s + 38 * us)  # else missing
        add("phaseB", s + 42 * us, e - us)
        add("k3", s + 43 * us, s + 60 * us)
        h0 = s + 61 * us
        for h in range(3):  # three calls per step
            hs = h0 + h * 5 * us
            he = hs + 4 * us if not (j % 107 == 17 and h == 0) else hs + 5 * us  # touching
            add("halo", hs, he)
        if j % 101 == 11:
            add("io", s + 50 * us, s + 51 * us)  # not in the pattern, inside a step
        if j % 103 == 13:
            add("between", e + us, e + 2 * us)  # not in the pattern, between steps
        if j % 113 == 23:
            add("async", e - 5 * us, e + 15 * us)  # overlaps two steps
        if j % 127 == 29:
            add("tick", s + 44 * us, s + 44 * us)  # zero length


def random_rank(add, rank, rng):
    """One rank of random.h5 (see the module's docstring); stamps in ns."""

    def pattern(depth):
        n = int(rng.integers(1, 4))
        return [(f"r{rng.integers(0, 8)}", pattern(depth - 1) if depth and rng.random() < 0.6 else [])
                for _ in range(n)]

    p = [0.01, 0.05, 0.15, 0.3][rank]
    now = [0]
    count = [0]

    def emit(nodes):
        for name, kids in nodes:
            if rng.random() < p:
                continue  # skipped
            s = now[0] + (0 if rng.random() < p else int(rng.integers(1, 30)))
            now[0] = s
            if rng.random() < p:
                add(f"x{rng.integers(0, 3)}", s + 1, s + int(rng.integers(1, 40)))
                count[0] += 1
            emit(kids)
            now[0] += 0 if rng.random() < p else int(rng.integers(1, 30))
            e = now[0] + (int(rng.integers(1, 100)) if rng.random() < p else 0)
            add(name, s, e)
            count[0] += 1
            if rng.random() < p:
                add(name, min(e, s + int(rng.integers(0, 3))), e)
                count[0] += 1

    tpl = pattern(3)
    if rank == 0:
        add("main", 0, 10**9)
    while count[0] < 6000:
        now[0] += int(rng.integers(0, 5))
        emit(tpl)


def durations_rank(add, rank, rng):
    """One rank of durations.h5 (see the module's docstring); stamps in ns."""
    far = 2**53  # past the exact integer sums (2^50 ns) and exact doubles
    for j in range(9000):
        s = j * 1000
        add("spans", s, s + far if rank == 0 and j == 6000 else s + 100 + int(rng.integers(0, 500)))
    if rank == 1:
        return
    for j in range(5000):
        add("first_long", j * 1000, j * 1000 + (far if j == 0 else 50 + j % 7))
        add("equal_ends", j, 10**7)
    for j in range(4103):
        add("tail", j * 1000, j * 1000 + (2**52 + 3 if j == 4102 else 200 - j % 150))


BACKWARDS = (0, 5, 4100, 5999)


def backwards_rank(bad):
    """rank_calls of backwards_<bad>.h5: step number bad ends before it starts."""

    def calls(add, rank, rng):
        add("main", 0, 700000)
        for j in range(6000):
            s = 10 + 100 * j
            add("step", s, s - 1 if j == bad else s + 50)

    return calls


def write_ranks(path, nranks, rank_calls, seed):
    """One thread, every region's starts in order: rank_calls(add, rank, rng)
    gives each rank's calls."""
    rng = np.random.default_rng(seed)
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank in range(nranks):
            calls = {}

            def add(name, s, e):
                calls.setdefault(name, []).append((T0 + int(s), T0 + int(e)))

            rank_calls(add, rank, rng)
            regs = f.create_group(f"rank{rank}").create_group("regions")
            for name, v in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                v = sorted(v)
                g.create_dataset("start_times", data=np.array([c[0] for c in v], dtype=np.int64))
                g.create_dataset("end_times", data=np.array([c[1] for c in v], dtype=np.int64))


if __name__ == "__main__":
    os.makedirs(sys.argv[1] + "/again", exist_ok=True)
    write(sys.argv[1] + "/tree.h5")
    write(sys.argv[1] + "/tree_b.h5", scale_compute=1.2)
    write(sys.argv[1] + "/again/tree.h5")  # same label as tree.h5: "tree (2)"
    write_ranks(sys.argv[1] + "/blocks.h5", 2, blocks_rank, seed=11)
    write_ranks(sys.argv[1] + "/repeats.h5", 4, repeats_rank, seed=13)
    write_ranks(sys.argv[1] + "/random.h5", 4, random_rank, seed=17)
    write_ranks(sys.argv[1] + "/durations.h5", 2, durations_rank, seed=19)
    for bad in BACKWARDS:
        write_ranks(f"{sys.argv[1]}/backwards_{bad}.h5", 1, backwards_rank(bad), seed=0)
