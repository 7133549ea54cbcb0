#!/usr/bin/python3
"""Checks mpi_persist.c's file with h5py: persistent requests' bytes and peers.

usage: check_mpi_persist.py FILE NRANKS

Worked out from the program by hand (ring: rank r sends 3(r+1) ints to
r+1, receives from r-1), per rank, the (bytes, peer) of each call in order:
MPI_Startall the send's bytes and destination, MPI_Start 0/-1 for the
receive then the send's, MPI_Waitall and MPI_Wait on the receive the
received bytes and source (a send's wait: 0, -1), the last round with a
2-int MPI_Ssend_init.
"""
import sys

import h5py

INT, ROUNDS = 4, 5


def expected(r, n):
    left, right = (r - 1) % n, (r + 1) % n
    send, recv = 3 * (r + 1) * INT, 3 * (left + 1) * INT
    return {
        "MPI_Startall": [(send, right)] * ROUNDS + [(2 * INT, right)],
        "MPI_Waitall": [(recv, left)] * ROUNDS + [(2 * INT, left)],
        "MPI_Start": [(0, -1), (send, right)] * ROUNDS,
        "MPI_Wait": [(recv, left), (0, -1)] * ROUNDS,
    }


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(n):
            got = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                if "bytes" in g:
                    got[name] = [(int(b), int(p)) for b, p in zip(g["bytes"][()], g["peer"][()])]
                else:
                    got[name] = f"{int(g.attrs['num_calls'])} calls, no bytes"
            for name, want in expected(r, n).items():
                if got.get(name) != want:
                    fails.append(f"rank{r}/{name}: {got.get(name)}\n   want {want}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
