"""Writes the Load balance test profile with h5py, in the documented layout
(rank<N>/regions/<link>/{start_times,end_times[,thread_ids]}, attributes
name and num_calls), independently of the C code under test.

usage: make_balance_file.py DIR   -> DIR/balance.h5

4 ranks, times in ms after T0, 6 steps k = 0..5 on every rank:
  main [0, 610]
    step [100k, 100k + 95]
      compute [100k + 1, +C[r]]       C = 40, 45, 70, 50 ms: rank 2 slowest
      MPI_Allreduce [after compute, 100k + 90]: rank 0 waits longest
      io [100k + 90, +(1 + k)]        1..6 ms: its calls grow over the run
      tick [100k + 0.5, +T[k]]        25 ns to 160 ns: grows more, but under the
                                      noise floor (0.1 % of the run, 100 us a rank)
    MPI_Allreduce [596, 600]          a second call path of the region
    MPI_Barrier [600, 605]
    checkpoint [605, 608]             rank 0 only (the others count 0)
    fib [608, 609] > fib [608.2, 608.8]  rank 0: recursion counts once
  rank 3 also runs compute on thread 1 [100k + 1, +10]: a worker root,
  summed into rank 3's compute time (50 + 10 = 60 a step).
"""
import os
import sys

import h5py
import numpy as np

T0 = 10**12
MS = 1_000_000
C = [40, 45, 70, 50]
T = [25e-6, 25e-6, 50e-6, 90e-6, 160e-6, 160e-6]  # ms: an empty region's calls


def calls_of(r):
    out = {"main": [(0, 610, 0)], "step": [], "compute": [], "MPI_Allreduce": [], "io": [], "tick": [],
           "MPI_Barrier": [(600, 605, 0)]}
    for k in range(6):
        b = 100 * k
        out["step"].append((b, b + 95, 0))
        out["compute"].append((b + 1, b + 1 + C[r], 0))
        out["MPI_Allreduce"].append((b + 1 + C[r], b + 90, 0))
        out["io"].append((b + 90, b + 91 + k, 0))
        out["tick"].append((b + 0.5, b + 0.5 + T[k], 0))
        if r == 3:
            out["compute"].append((b + 1, b + 11, 1))
    out["MPI_Allreduce"].append((596, 600, 0))
    if r == 0:
        out["checkpoint"] = [(605, 608, 0)]
        out["fib"] = [(608, 609, 0), (608.2, 608.8, 0)]
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "balance.h5"), "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r in range(4):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, v in calls_of(r).items():
                g = regs.create_group(name)
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                g.create_dataset("start_times", data=np.array([T0 + round(s * MS) for s, _, _ in v], dtype=np.int64))
                g.create_dataset("end_times", data=np.array([T0 + round(e * MS) for _, e, _ in v], dtype=np.int64))
                if any(t for _, _, t in v):
                    g.create_dataset("thread_ids", data=np.array([t for _, _, t in v], dtype=np.int32))


if __name__ == "__main__":
    main()
