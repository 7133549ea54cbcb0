#!/usr/bin/env python3
"""check_plain.py - the profile the tool wrote on its own for omp_plain.c,
an OpenMP program that never calls scope-profiler, run with
OMP_TOOL_LIBRARIES=libscope_profiler.so SCOPE_PROFILER_OPENMP=1 (issue 48,
docs/openmp.md "Unmodified programs"). Read with h5py, counted with numpy.

usage: check_plain.py FILE

omp_plain.c runs 2 parallel regions of 2 threads (line 15), each a
worksharing loop (line 17) ending in its implicit barrier: on each thread
2 'omp parallel', 2 'omp loop' and 2 loop barriers, every loop inside a
parallel region of its thread."""
import sys

import h5py
import numpy as np

fails = []


def calls(g):
    n = int(g.attrs["num_calls"])
    th = g["thread_ids"][()] if "thread_ids" in g else np.zeros(n, np.int64)
    return np.asarray(th, np.int64), g["start_times"][()], g["end_times"][()]


def main():
    with h5py.File(sys.argv[1], "r") as f:
        ranks = [k for k in f if k.startswith("rank")]
        if ranks != ["rank0"]:
            fails.append(f"groups {ranks}, want one rank0")
        regs = {}
        for g in f["rank0/regions"].values():
            name = g.attrs["name"]
            regs[name.decode() if isinstance(name, bytes) else str(name)] = calls(g)
    want = {
        "omp parallel @ omp_plain.c:15": [2, 2],
        "omp loop @ omp_plain.c:17": [2, 2],
        "omp implicit barrier @ omp_plain.c:17": [2, 2],
    }
    for name, per in want.items():
        if name not in regs:
            fails.append(f"no region '{name}' (have {sorted(regs)})")
            continue
        th = regs[name][0]
        got = np.bincount(th, minlength=2).tolist() if len(th) else []
        if got != per:
            fails.append(f"'{name}': calls per thread {got}, want {per}")
    par = regs.get("omp parallel @ omp_plain.c:15")
    loop = regs.get("omp loop @ omp_plain.c:17")
    if par and loop:
        for t, s, e in zip(*loop):
            if not np.any((par[0] == t) & (par[1] <= s) & (par[2] >= e)):
                fails.append(f"loop call [{s}, {e}] of thread {t} in no parallel call of it")
    other = [n for n in regs if not n.startswith("omp ") or "@ omp_plain.c:" not in n]
    if other:
        fails.append(f"regions not of omp_plain.c's constructs: {other}")
    for m in fails:
        print("check_plain:", m, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
