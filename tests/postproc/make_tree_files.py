"""Writes the call-tree test profiles with h5py, in the documented layout
(rank<N>/regions/<link>/{start_times,end_times[,thread_ids]}, attributes
name and num_calls), independently of the C code under test.

usage: make_tree_files.py DIR   -> DIR/tree.h5, DIR/tree_b.h5

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


if __name__ == "__main__":
    os.makedirs(sys.argv[1] + "/again", exist_ok=True)
    write(sys.argv[1] + "/tree.h5")
    write(sys.argv[1] + "/tree_b.h5", scale_compute=1.2)
    write(sys.argv[1] + "/again/tree.h5")  # same label as tree.h5: "tree (2)"
