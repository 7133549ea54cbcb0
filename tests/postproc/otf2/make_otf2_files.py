"""Writes the profile the OTF2 export is checked on, with h5py, in the
layout the core writes (rank<N>/regions/<link> with name and num_calls
attributes, start_times, end_times, thread_ids; rank attributes hostname
and clock_offset_*; /metadata).

usage: make_otf2_files.py DIR   (writes DIR/otf2_cases.h5)

Four ranks 0-3; ranks 0 and 1 on host nodeA, 2 and 3 on nodeB. Each rank's
clock is ahead of rank 0's by (rank * 7) ms, measured once: the reader moves
the stamps of ranks 2 and 3 (another host) and leaves rank 1's (rank 0's
host). Times below in microseconds after T0, on every rank:
  main            [0, 1000]                      thread 0
  solver/step     [s, s+50], s = 10 110 310 545 610, thread 0 (in main); [110, 120] thread 1
  recurse         [200, 300] > [210, 290] > [220, 280] (recursion), thread 0
  with space      [400, 450] and [480, 480] (zero length), thread 0
  ünïcode ✓       [460, 470] thread 0
  MPI_Allreduce   [500, 520] thread 0 (an MPI call recorded as a region)
  50%             [530, 540] thread 0 (link 50%25)
  omp             [100, 300] thread 1, [150, 250] thread 2 (worker threads)
Rank 3 also: overlap A [600, 700], overlap B [650, 750] on thread 0: B
starts inside A (and solver/step [610, 660]) and ends after both (not
nested): the one call for an extra location.
"""
import sys

import h5py
import numpy as np

T0 = 10**12
US = 1000


def calls_of(rank):
    c = [("main", 0, 1000, 0)]
    c += [("solver/step", s, s + 50, 0) for s in (10, 110, 310, 545, 610)]
    c += [("solver/step", 110, 120, 1)]
    c += [("recurse", 200, 300, 0), ("recurse", 210, 290, 0), ("recurse", 220, 280, 0)]
    c += [("with space", 400, 450, 0), ("with space", 480, 480, 0)]
    c += [("ünïcode ✓", 460, 470, 0), ("MPI_Allreduce", 500, 520, 0), ("50%", 530, 540, 0)]
    c += [("omp", 100, 300, 1), ("omp", 150, 250, 2)]
    if rank == 3:
        c += [("overlap A", 600, 700, 0), ("overlap B", 650, 750, 0)]
    return c


def main():
    d = sys.argv[1]
    with h5py.File(d + "/otf2_cases.h5", "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        meta = f.create_group("metadata")
        meta.attrs["mpi_size"] = np.int64(4)
        meta.attrs["omp_num_threads"] = np.int64(3)
        meta.attrs["run label"] = "otf2 test run"
        meta.attrs["hostname"] = "nodeA"
        for rank in range(4):
            g = f.create_group(f"rank{rank}")
            g.attrs["hostname"] = "nodeA" if rank < 2 else "nodeB"
            # The core's clock attributes: this rank's clock minus rank 0's.
            if rank:
                g.attrs["clock_offset_ns"] = np.int64(rank * 7 * 1000 * US)
                g.attrs["clock_offset_at_ns"] = np.int64(T0)
                g.attrs["clock_offset_error_ns"] = np.int64(500)
            regs = g.create_group("regions")
            by_name = {}
            skew = rank * 7 * 1000 * US  # stamps as this rank's clock read them
            for name, s, e, t in calls_of(rank):
                by_name.setdefault(name, []).append((T0 + skew + s * US, T0 + skew + e * US, t))
            for name, v in by_name.items():
                v.sort(key=lambda c: c[1])  # the core stores calls in the order they end
                r = regs.create_group(name.replace("%", "%25").replace("/", "%2F"))
                r.attrs["name"] = name
                r.attrs["num_calls"] = np.int64(len(v))
                if name == "solver/step":  # a source location (sp_region_at), for its definition
                    r.attrs["source_file"] = "src/solver.c"
                    r.attrs["source_lineno"] = np.int64(42)
                r["start_times"] = np.array([c[0] for c in v], np.int64)
                r["end_times"] = np.array([c[1] for c in v], np.int64)
                if any(c[2] for c in v):
                    r["thread_ids"] = np.array([c[2] for c in v], np.int32)


if __name__ == "__main__":
    main()
