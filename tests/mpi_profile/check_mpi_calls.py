#!/usr/bin/python3
"""Checks the MPI call regions of mpi_calls.{c,f90} with h5py.

usage: check_mpi_calls.py FILE NRANKS [--off] [--user-region]

Per rank exactly: MPI_Barrier 3, MPI_Bcast 3, MPI_Reduce 1, MPI_Allreduce 4,
MPI_Allgather 1, MPI_Alltoall 1, MPI_Sendrecv 2, MPI_Irecv 2, MPI_Isend 2,
MPI_Waitall 1, MPI_Wait 2, MPI_Send 1 on rank 0 only, MPI_Recv 1 on the
last rank only; nothing else (in particular none of sp_finalize's own MPI
calls). --off: no MPI regions at all. Stamps: one per call, end >= start.
"""
import sys

import h5py
import numpy as np


def main():
    path, nranks = sys.argv[1], int(sys.argv[2])
    off = "--off" in sys.argv
    user = "--user-region" in sys.argv
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(nranks):
            want = {} if off else {
                "MPI_Barrier": 3, "MPI_Bcast": 3, "MPI_Reduce": 1, "MPI_Allreduce": 4,
                "MPI_Allgather": 1, "MPI_Alltoall": 1, "MPI_Sendrecv": 2, "MPI_Irecv": 2,
                "MPI_Isend": 2, "MPI_Waitall": 1, "MPI_Wait": 2}
            if not off and r == 0:
                want["MPI_Send"] = 1
            if not off and r == nranks - 1:
                want["MPI_Recv"] = 1
            if user:
                want["user region"] = 1
            got = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                got[name] = int(g.attrs["num_calls"])
                s, e = g["start_times"][()], g["end_times"][()]
                if len(s) != got[name] or not np.all(e >= s):
                    fails.append(f"rank{r}/{name}: {len(s)} stamps for {got[name]} calls")
            if got != want:
                fails.append(f"rank{r}: {got}\n   want {want}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
