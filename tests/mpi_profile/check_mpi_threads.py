#!/usr/bin/python3
"""Checks mpi_threads.c's file with h5py: every received byte counted.

usage: check_mpi_threads.py FILE [THREADS ROUNDS]

Per rank: MPI_Irecv, MPI_Isend and MPI_Waitall THREADS x ROUNDS calls each;
the MPI_Waitall bytes sum to THREADS x sum over rounds i of (16 + i % 13)
(the received messages; sends store theirs at MPI_Isend), each Waitall
naming the other rank; the MPI_Isend bytes sum to the same.
"""
import sys

import h5py
import numpy as np


def main():
    path = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    want_bytes = threads * int(np.sum(16 + np.arange(rounds) % 13))
    calls = threads * rounds
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(2):
            regs = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                regs[name.decode() if isinstance(name, bytes) else str(name)] = g
            for name in ("MPI_Irecv", "MPI_Isend", "MPI_Waitall"):
                n = int(regs[name].attrs["num_calls"]) if name in regs else 0
                if n != calls:
                    fails.append(f"rank{r}/{name}: {n} calls, want {calls}")
            if fails:
                continue
            w = regs["MPI_Waitall"]
            got = int(np.sum(w["bytes"][()]))
            peers = set(int(p) for p in w["peer"][()])
            sent = int(np.sum(regs["MPI_Isend"]["bytes"][()]))
            print(f"rank{r}: Waitall bytes {got} of {want_bytes}, peers {peers}, Isend bytes {sent}")
            if got != want_bytes:
                fails.append(f"rank{r}: MPI_Waitall bytes {got}, want {want_bytes}")
            if peers != {1 - r}:
                fails.append(f"rank{r}: MPI_Waitall peers {peers}, want {{{1 - r}}}")
            if sent != want_bytes:
                fails.append(f"rank{r}: MPI_Isend bytes {sent}, want {want_bytes}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
