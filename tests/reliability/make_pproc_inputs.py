#!/usr/bin/python3
"""Writes the input files of the reliability.pproc.* cases with h5py, in
the documented layout and independently of scope-profiler's code.

usage: make_pproc_inputs.py DIR

plain.h5   one rank, region "work": 2 calls, [1 s, 2 s] and [3 s, 3.5 s]

damaged_stamps.h5  stamps and counts at the ends of int64 (MIN, MAX), as a
           damaged or foreign file may hold; every interval has end >= start:
  rank0  whole      [MIN, MAX]                       (lasts 2^64 - 1 ns)
         huge       [MIN + 10, MAX - 10], [1000, 2000]
         counted    count-only, num_calls MAX
         point_max  [MAX, MAX]
         LIKWID "whole": 3 threads, counts MAX, 1, 1
  rank1  whole      [MIN, MAX]
         counted    count-only, num_calls MAX
         point_min  [MIN, MIN]
         sum        [-5e18, 0], [0, 5e18]            (total 1e19 > MAX)
  rank2  counted    count-only, num_calls MAX
  So: 3 intervals longer than MAX ns (whole twice, huge once); 3 sums past
  int64 (total of whole over the ranks, calls of counted over the ranks,
  total of sum on rank1); 1 LIKWID call count past int64. Sums that pass
  the limit twice (counted, the LIKWID calls) are still one clamped value.
"""
import os
import sys

import h5py
import numpy as np

S = 10**9  # ns per second


def new_file(path):
    f = h5py.File(path, "w")
    f.attrs.create("scope_profiler_schema", 1, dtype=np.int32)
    meta = f.create_group("metadata")
    meta.attrs["hostname"] = "testhost"
    meta.attrs["library_version"] = "0.1.0"
    meta.attrs["clock"] = "CLOCK_MONOTONIC"
    return f


def region(f, rank, name, starts=None, ends=None, num_calls=None):
    """rank<rank>/regions/<name>: the stamps, or num_calls only (count-only)."""
    g = f.require_group(f"rank{rank}/regions").create_group(name)
    g.attrs["name"] = name
    if num_calls is None:
        num_calls = len(starts)
    g.attrs.create("num_calls", num_calls, dtype=np.int64)
    if starts is not None:
        g.create_dataset("start_times", data=np.array(starts, dtype=np.int64))
        g.create_dataset("end_times", data=np.array(ends, dtype=np.int64))


def likwid_region(f, rank, name, counts, times, events, event_names):
    """rank<rank>/likwid/regions/<name> as the core writes LIKWID results."""
    lw = f.require_group(f"rank{rank}/likwid")
    lw.attrs["group"] = "FLOPS_DP"
    g = lw.require_group("regions").create_group(name)
    g.attrs["name"] = name
    g.attrs["tag"] = name
    g.create_dataset("cpus", data=np.arange(len(counts), dtype=np.int32))
    g.create_dataset("counts", data=np.array(counts, dtype=np.int64))
    g.create_dataset("times", data=np.array(times, dtype=np.float64))
    g.create_dataset("events", data=np.array(events, dtype=np.float64))
    g.create_dataset("event_names", data=event_names, dtype=h5py.string_dtype())


def damaged_stamps(path):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    with new_file(path) as f:
        for r in (0, 1):
            region(f, r, "whole", [lo], [hi])
            region(f, r, "counted", num_calls=hi)
        region(f, 0, "huge", [lo + 10, 1000], [hi - 10, 2000])
        region(f, 0, "point_max", [hi], [hi])
        likwid_region(f, 0, "whole", [hi, 1, 1], [1.0, 1.0, 1.0], [[1.0], [2.0], [3.0]],
                      ["CYCLES"])
        region(f, 1, "point_min", [lo], [lo])
        region(f, 1, "sum", [-5 * 10**18, 0], [0, 5 * 10**18])
        region(f, 2, "counted", num_calls=hi)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with new_file(os.path.join(out, "plain.h5")) as f:
        region(f, 0, "work", [1 * S, 3 * S], [2 * S, 3 * S + S // 2])
    damaged_stamps(os.path.join(out, "damaged_stamps.h5"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
