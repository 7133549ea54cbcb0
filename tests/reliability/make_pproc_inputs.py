#!/usr/bin/python3
"""Writes the input files of the reliability.pproc.* cases with h5py, in
the documented layout and independently of scope-profiler's code.

usage: make_pproc_inputs.py DIR

plain.h5   one rank, region "work": 2 calls, [1 s, 2 s] and [3 s, 3.5 s]
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


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with new_file(os.path.join(out, "plain.h5")) as f:
        region(f, 0, "work", [1 * S, 3 * S], [2 * S, 3 * S + S // 2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
