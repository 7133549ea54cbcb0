#!/usr/bin/python3
"""Checks the bytes and peer that mpi_waits.c's waits and tests store, with h5py.

usage: check_mpi_waits.py FILE

Worked out by hand from the program's messages (2 ranks, each sends the
other rank the same sizes), not from the library's code. The tests loop
until done, so a call that completed nothing stores (0, -1) any number of
times; the calls that completed receives are compared exactly (sorted where
the order is not fixed), and their bytes summed with numpy.
"""
import sys

import h5py
import numpy as np

INT = 4


def expected(other):
    """Per region: the (bytes, peer) of the calls that completed a receive,
    sorted, and whether calls that completed nothing may be there."""
    return {
        "MPI_Sendrecv_replace": ([(2 * 6 * INT, other)], False),
        "MPI_Waitany": (sorted([(3 * INT, other), (5 * INT, other)]), False),
        "MPI_Testany": ([(7 * INT, other)], True),
        # the second Waitall of each exchange: the sends only; after
        # Testany: the other receive and the two sends
        "MPI_Waitall": ([(7 * INT, other)], True),
        "MPI_Testall": ([((2 + 4) * INT, other)], True),
        # both receives in one call or one each
        "MPI_Waitsome": (None, False),
        "MPI_Testsome": (None, True),
    }


def main():
    path = sys.argv[1]
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(2):
            other = 1 - r
            got = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                if name.startswith("MPI_"):
                    got[name] = list(zip(g["bytes"][()].tolist(), g["peer"][()].tolist()))
            for name, (want, idle_ok) in expected(other).items():
                calls = got.get(name)
                if not calls:
                    fails.append(f"rank{r}/{name}: no calls")
                    continue
                busy = sorted(c for c in calls if c != (0, -1))
                idle = len(calls) - len(busy)
                if idle and not idle_ok:
                    fails.append(f"rank{r}/{name}: {idle} calls stored (0, -1): {calls}")
                if want is not None and busy != want:
                    fails.append(f"rank{r}/{name}: got {busy}, want {want}")
            some = {"MPI_Waitsome": (1, 9), "MPI_Testsome": (2, 3)}
            for name, (a, b) in some.items():
                busy = sorted(c for c in got.get(name, []) if c != (0, -1))
                one_call = [((a + b) * INT, other)]
                each = sorted([(a * INT, other), (b * INT, other)])
                if busy not in (one_call, each):
                    fails.append(f"rank{r}/{name}: got {busy}, want {one_call} or {each}")
            waits = set(expected(other)) | set(some)
            total = np.sum(np.array([b for k in waits for b, _ in got.get(k, [])], dtype=np.int64))
            want_total = INT * (2 * 6 + 3 + 5 + 7 + 7 + 2 + 4 + 1 + 9 + 2 + 3)
            if total != want_total:
                fails.append(f"rank{r}: {total} bytes in all, want {want_total}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
