#!/usr/bin/python3
"""Checks mpi_comms.c's file with h5py: communicator ids agree across ranks.

usage: check_mpi_comms.py FILE DIR

DIR holds comms_<r>.txt as each rank of mpi_comms.c wrote it: the name of
the communicator of each of its MPI_Barrier calls in order, and each
communicator's members as world ranks. Per rank, the k-th MPI_Barrier's
`comm` is that communicator's id on that rank. Checked: every id is >= 0;
a communicator has the same id on all its members (an intercommunicator:
on both groups); the ids of the communicators one rank holds differ
(MPI_COMM_WORLD 0); rank<r>/mpi's comm_sizes[id] and comm_members give the
members the program printed (for the intercommunicator, the remote group).
"""
import sys

import h5py

N = 4


def read_text(path):
    barriers, comms = [], {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "barrier":
                barriers.append(w[1])
            elif w[0] == "comm":
                comms[w[1]] = [int(x) for x in w[2:]]
    return barriers, comms


def main():
    path, d = sys.argv[1], sys.argv[2]
    fails = []
    ids = {}  # communicator -> {rank: id}
    with h5py.File(path, "r") as f:
        for r in range(N):
            barriers, comms = read_text(f"{d}/comms_{r}.txt")
            regs = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                regs[name.decode() if isinstance(name, bytes) else str(name)] = g
            got = regs["MPI_Barrier"]["comm"][()].tolist()
            if len(got) != len(barriers):
                fails.append(f"rank{r}: {len(got)} barrier records, program made {len(barriers)}")
                continue
            mine = dict(zip(barriers, got))
            for name, i in mine.items():
                # A name stands for one communicator per group that made it
                # (split "a": one per color); the intercommunicator is one.
                key = name if name == "inter" else f"{name}{sorted(set(comms[name]) | {r})}"
                ids.setdefault(key, {})[r] = i
            if mine.get("world") != 0:
                fails.append(f"rank{r}: MPI_COMM_WORLD has id {mine.get('world')}, want 0")
            if len(set(mine.values())) != len(mine) or min(mine.values()) < 0:
                fails.append(f"rank{r}: ids {mine} not distinct and >= 0")
            m = f[f"rank{r}/mpi"].attrs
            sizes = m["comm_sizes"].tolist()
            allm = m["comm_members"].tolist()
            for name, want in comms.items():
                i = mine.get(name, -1)
                if not 0 <= i < len(sizes):
                    fails.append(f"rank{r} {name}: id {i} not in comm_sizes {sizes}")
                    continue
                off = sum(sizes[:i])
                have = allm[off:off + sizes[i]]
                if have != want:
                    fails.append(f"rank{r} {name} (id {i}): members {have}, program says {want}")
    for name, per in ids.items():
        if len(set(per.values())) != 1:
            fails.append(f"{name}: ids differ between ranks: {per}")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        return 1
    print(f"ok: {len(ids)} communicators, each with one id on all its members: "
          + ", ".join(f"{k}={min(v.values())}" for k, v in ids.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
