#!/usr/bin/python3
"""Checks mpi_comms.c's file with h5py: communicator ids agree across ranks.

usage: check_mpi_comms.py FILE DIR [--columnar]

With --columnar FILE is the columnar layout's file: the MPI_Barrier calls'
ids come from events/mpi_comms and the table from mpi_comms/{ranks, ids,
sizes, member_offsets, members} (issue 50 item 1).

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


def per_rank(f, r):
    """The per-rank layout: rank r's barrier comm ids, comm_sizes, comm_members."""
    for g in f[f"rank{r}/regions"].values():
        name = g.attrs["name"]
        if (name.decode() if isinstance(name, bytes) else str(name)) == "MPI_Barrier":
            got = g["comm"][()].tolist()
    m = f[f"rank{r}/mpi"].attrs
    return got, m["comm_sizes"].tolist(), m["comm_members"].tolist()


def columnar(f, r):
    """The columnar layout: the same three, from the columns."""
    names = [x.decode() if isinstance(x, bytes) else str(x)
             for x in f["region_table/names"][()]]
    ix = f["rank_region_index"]
    got = []
    for k in range(len(ix["ranks"])):
        if ix["ranks"][k] == r and names[ix["region_ids"][k]] == "MPI_Barrier":
            o, c = int(ix["event_offsets"][k]), int(ix["event_counts"][k])
            got = f["events/mpi_comms"][o:o + c].tolist()
    t = f["mpi_comms"]
    rows = [k for k in range(len(t["ranks"])) if t["ranks"][k] == r]
    top = max(int(t["ids"][k]) for k in rows)
    sizes, members = [0] * (top + 1), []
    for k in sorted(rows, key=lambda k: int(t["ids"][k])):
        o, c = int(t["member_offsets"][k]), int(t["sizes"][k])
        sizes[int(t["ids"][k])] = c
        members += t["members"][o:o + c].tolist()
    return got, sizes, members


def main():
    path, d = sys.argv[1], sys.argv[2]
    read = columnar if "--columnar" in sys.argv[3:] else per_rank
    fails = []
    ids = {}  # communicator -> {rank: id}
    with h5py.File(path, "r") as f:
        for r in range(N):
            barriers, comms = read_text(f"{d}/comms_{r}.txt")
            got, sizes, allm = read(f, r)
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
