#!/usr/bin/python3
"""Checks the bytes and peer of every MPI call of mpi_bytes.{c,F90} with h5py.

usage: check_mpi_bytes.py FILE LANG

The table below is worked out by hand from the program's messages (4 ranks,
left = r-1, right = r+1 mod 4), not from the library's code: per rank and
region, the (bytes, peer) of each call. Calls whose order is not fixed (the
wildcard receives) are compared as sorted lists. Every MPI region of the
file must be in the table, with one value per stamp.
"""
import sys

import h5py
import numpy as np

N = 4
INT, DBL = 4, 8


def expected(r, lang):
    left, right = (r + N - 1) % N, (r + 1) % N
    w = {}
    # wildcard receives on rank 0 of (s+1) ints from each s > 0
    if r == 0:
        w["MPI_Recv"] = [((s + 1) * INT, s) for s in range(1, N)]
    else:
        w["MPI_Send"] = [((r + 1) * INT, 0)]
    if r == 1:
        w["MPI_Send"].append((5 * INT, 3))
    if r == 3:
        w["MPI_Probe"] = [(0, 1)]
        w["MPI_Recv"] = [(5 * INT, 1)]
    w["MPI_Irecv"] = [(0, -1)]
    w["MPI_Isend"] = [((r + 2) * INT, right)]
    w["MPI_Waitall"] = [((left + 2) * INT, left)]  # the receive's bytes and source
    w["MPI_Sendrecv"] = [(2 * 2 * 2 * INT * 2, -1)]  # 2 vectors of 4 ints each way
    # A rooted collective's peer is its root (issue 50: Late Broadcast, Early
    # Reduce), from C and from both Fortran bindings.
    root = lambda q: q  # noqa: E731
    w["MPI_Bcast"] = [(2 * 3 * DBL, root(0))]
    uneven = sum(range(1, N + 1)) * INT  # counts 1, 2, 3, 4
    mine = (r + 1) * INT
    w["MPI_Gatherv"] = [(mine + (uneven if r == 0 else 0), root(0))]
    w["MPI_Scatterv"] = [(mine + (uneven if r == 0 else 0), root(0))]
    w["MPI_Allgatherv"] = [(mine + uneven, -1)]
    w["MPI_Alltoallv"] = [(uneven + N * mine, -1)]
    w["MPI_Reduce_scatter"] = [(uneven + mine, -1)]
    w["MPI_Reduce_scatter_block"] = [((N + 1) * 2 * DBL, -1)]
    w["MPI_Allreduce"] = [(2 * 3 * INT, -1)] * 2
    w["MPI_Reduce"] = [(4 * DBL * (2 if r == 2 else 1), root(2))]
    w["MPI_Scan"] = [(2 * 2 * INT, -1)]
    w["MPI_Exscan"] = [(2 * 2 * INT, -1)]
    w["MPI_Gather"] = [(2 * INT + (N * 2 * INT if r == 1 else 0), root(1))]
    w["MPI_Iallreduce"] = [(2 * 5 * DBL, -1)]
    w["MPI_Wait"] = [(0, -1)] * 2
    w["MPI_Ibarrier"] = [(0, -1)]
    w["MPI_Barrier"] = [(0, -1)]
    w["MPI_Win_fence"] = [(0, -1)] * 2
    w["MPI_Put"] = [(2 * INT, right), (3 * INT, left)]
    w["MPI_Get"] = [(2 * 2, left)]  # two shorts
    w["MPI_Accumulate"] = [(INT, 0)]
    w["MPI_Win_lock"] = [(0, left)]
    w["MPI_Win_unlock"] = [(0, left)]
    w["MPI_File_write_at"] = [(10 * INT, -1)]
    w["MPI_File_write_at_all"] = [(3 * DBL, -1)]
    w["MPI_File_read_at"] = [(10 * INT, -1)]
    w["MPI_File_read_at_all"] = [(5 * INT, -1)]
    w["MPI_File_open"] = [(0, -1)]  # recorded since issue 49 (file ids -1 without PROFILE_IO)
    w["MPI_File_close"] = [(0, -1)]
    return w


def main():
    path, lang = sys.argv[1], sys.argv[2]
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(N):
            want = expected(r, lang)
            got = {}
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                if not name.startswith("MPI_"):
                    continue
                n = len(g["start_times"])
                # MPI-IO calls store the file's id (docs/io.md), -1 without profile_io
                pname = "file_ids" if name.startswith("MPI_File_") else "peer"
                if "bytes" not in g or pname not in g:
                    fails.append(f"rank{r}/{name}: no bytes/{pname} datasets")
                    continue
                b, p = g["bytes"], g[pname]
                if b.dtype != np.int64 or p.dtype != np.int32 or len(b) != n or len(p) != n:
                    fails.append(f"rank{r}/{name}: bytes {b.dtype} {len(b)}, peer {p.dtype} "
                                 f"{len(p)} for {n} stamps")
                    continue
                got[name] = list(zip(b[()].tolist(), p[()].tolist()))
            for name in sorted(set(want) | set(got)):
                w, g = want.get(name), got.get(name)
                if name == "MPI_Recv" and w and g:
                    w, g = sorted(w), sorted(g)
                if w != g:
                    fails.append(f"rank{r}/{name}: got {g}, want {w}")
            # the sums a user would take, with numpy
            tot = sum(np.int64(b) for v in want.values() for b, _ in v)
            gtot = sum(np.int64(b) for v in got.values() for b, _ in v)
            if tot != gtot:
                fails.append(f"rank{r}: {gtot} bytes in all, want {tot}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print(f"ok ({lang})")


main()
