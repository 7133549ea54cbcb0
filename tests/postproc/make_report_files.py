"""Writes the report's call-path test profile with h5py, in the documented
layout (rank<N>/regions/<link>/{start_times,end_times}, attributes name and
num_calls), independently of the C code under test.

usage: make_report_files.py DIR   -> DIR/paths.h5

paths.h5, 2 ranks, stamps in ns after T0 (rank r shifted by r us):
  a [10, 40] ms  with r [15, 25] ms   (path a / r)
  b [50, 90] ms  with r [60, 80] ms   (path b / r)
so region r runs under two parents: its lane has two call paths.
"""
import os
import sys

import h5py
import numpy as np

T0 = 10**12
MS = 1_000_000


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "paths.h5"), "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank in range(2):
            sh = T0 + rank * 1000
            calls = {"a": [(10, 40)], "b": [(50, 90)], "r": [(15, 25), (60, 80)]}
            regs = f.create_group(f"rank{rank}").create_group("regions")
            for name, v in calls.items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                g.create_dataset("start_times", data=np.array([sh + s * MS for s, _ in v], dtype=np.int64))
                g.create_dataset("end_times", data=np.array([sh + e * MS for _, e in v], dtype=np.int64))


if __name__ == "__main__":
    main()
