#!/usr/bin/python3
"""Checks mpi_tags.c's file with h5py: each MPI call's tag and communicator.

usage: check_mpi_tags.py FILE

Worked out from the program by hand, per rank r of 4: the (peer, tag,
comm) of each MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Barrier and
MPI_Allreduce in order, and rank<r>/mpi's table of communicators: id 0 is
MPI_COMM_WORLD, 1 MPI_COMM_SELF, then ids in the order of creation, agreed
by all members: 2 split A (same parity, descending world rank), 3 split B
(r // 2, ascending), which A's MPI_Comm_free must not let share an id with
A (the library's own communicators may follow). A receive's tag is the one
matched (MPI_ANY_TAG included).
"""
import sys

import h5py

N, ROUNDS = 4, 3


def expected(r):
    left, right = (r - 1) % N, (r + 1) % N
    ring_send = [(right, 10 + k, 0) for k in range(ROUNDS)]
    ring_recv = [(left, 10 + k, 0) for k in range(ROUNDS)]
    a = sorted((q for q in range(N) if q % 2 == r % 2), reverse=True)
    b = [q for q in range(N) if q // 2 == r // 2]
    want = {"MPI_Send": list(ring_send), "MPI_Recv": list(ring_recv),
            "MPI_Barrier": [(-1, -1, 2)], "MPI_Allreduce": [(-1, -1, 0)]}
    if a.index(r) == 0:
        want["MPI_Send"] += [(1, t, 2) for t in (7, 8, 9)]
    else:
        want["MPI_Recv"] += [(0, t, 2) for t in (7, 8, 9)]
    if b.index(r) == 0:
        want["MPI_Isend"] = [(1, 42, 3)]
    else:
        want["MPI_Irecv"] = [(-1, 42, 3)]  # the source is the wait's to tell
    comms = [list(range(N)), [r], a, b]
    return want, comms


def main():
    path = sys.argv[1]
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(N):
            want, comms = expected(r)
            got = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                if name in want:
                    if "tag" not in g or "comm" not in g:
                        fails.append(f"rank{r} {name}: no tag or comm dataset")
                        continue
                    got[name] = list(zip(g["peer"][()].tolist(), g["tag"][()].tolist(),
                                         g["comm"][()].tolist()))
            for name, w in want.items():
                if got.get(name) != w:
                    fails.append(f"rank{r} {name}: (peer, tag, comm) {got.get(name)}, want {w}")
            if f"rank{r}/mpi" not in f:
                fails.append(f"rank{r}: no rank{r}/mpi group")
                continue
            m = f[f"rank{r}/mpi"].attrs
            sizes = m["comm_sizes"].tolist()
            members = m["comm_members"].tolist()
            k = len(comms)
            if (sizes[:k] != [len(c) for c in comms]
                    or members[:sum(sizes[:k])] != [q for c in comms for q in c]):
                fails.append(f"rank{r} comms: sizes {sizes} members {members}, want {comms}")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        return 1
    print(f"ok: tags and communicators of {N} ranks as the program made them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
