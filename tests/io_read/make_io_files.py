"""Adds the I/O records of docs/io.md (SCOPE_PROFILER_PROFILE_IO) to the
files io_base wrote, with h5py, so that the reader can be tested before and
apart from the recorder.

usage: make_io_files.py RANKS.h5 COLUMNAR.h5 AGGREGATE.h5 [PLAIN.h5]

PLAIN.h5: a copy of RANKS.h5 as io_base wrote it (no I/O records).

Each rank r has three files (rows of rank<N>/io/files, or io_files/):
  0 "out/ckpt_r<r>.dat"  POSIX + MPI-IO: io:write in checkpoint
                         (1000 (r + 1) + 10 i bytes, i the call on the rank;
                         rank 1's second write fails: -1), MPI_File_write_at
                         (4096 (r + 1) bytes), io:open and io:close of steps 0, 2
  1 "in/mesh.dat"        POSIX: io:read (512 (s + 1) bytes in step s),
                         io:lseek, io:open and io:close of step 1; one mmap
  2 "log.txt"            stdio: the last io:write (17 + r bytes), under main
Per call: bytes and file_ids of each I/O region (per-rank layout), or
events/mpi_bytes and mpi_peers (the file ids; -1 for other calls) in the
columnar file, as the recorder writes them there.
The records are computed from those calls and the file's own stamps (the
aggregate file, which has none, gets the per-rank file's records). Call i
of a region is its i-th interval as stored."""
import shutil
import sys

import h5py
import numpy as np

BINS = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1 << 30,
        np.iinfo(np.int64).max]
NAMES = ["out/ckpt_r{r}.dat", "in/mesh.dat", "log.txt"]
APIS = [1 | 4, 1, 2]
INT_COLS = ["opens", "reads", "writes", "seeks", "syncs", "meta_ops", "bytes_read",
            "bytes_written", "max_offset", "read_ns", "write_ns", "meta_ns", "first_ns",
            "last_ns", "slowest_ns", "slowest_start_ns", "mmaps"]
READS = {"io:read"}
WRITES = {"io:write", "MPI_File_write_at"}


def is_io(name):
    return name.startswith("io:") or name.startswith("MPI_File_")


def call_values(name, r, n):
    """(bytes[n], file_ids[n]) of region name's n calls on rank r."""
    b = np.zeros(n, np.int64)
    f = np.zeros(n, np.int32)
    i = np.arange(n)
    if name == "io:write":
        b[:] = 1000 * (r + 1) + 10 * i
        b[n - 1] = 17 + r
        f[n - 1] = 2
        if r == 1:
            b[1] = -1
    elif name == "MPI_File_write_at":
        b[:] = 4096 * (r + 1)
    elif name == "io:read":
        b[:] = 512 * (i + 1)
        f[:] = 1
    elif name == "io:lseek":
        f[:] = 1
    elif name in ("io:open", "io:close"):
        f[:] = i % 2
    return b, f


def records(r, calls):
    """Columns of rank r's files from calls {name: (start, end, bytes, fids)}."""
    F = len(NAMES)
    col = {c: np.zeros(F, np.int64) for c in INT_COLS}
    col["first_ns"][:] = np.iinfo(np.int64).max
    col["slowest_ns"][:] = -1
    hist = np.zeros((F, 10), np.int64)
    slow = [""] * F
    for name, (st, en, by, fi) in sorted(calls.items()):
        for s, e, b, f in zip(st, en, by, fi):
            d = int(e - s)
            if name in READS or name in WRITES:
                kind = "reads" if name in READS else "writes"
                col[kind][f] += 1
                if b >= 0:
                    col["bytes_read" if kind == "reads" else "bytes_written"][f] += b
                    hist[f, int(np.searchsorted(BINS, b, side="right"))] += 1
                col["read_ns" if kind == "reads" else "write_ns"][f] += d
            else:
                col["meta_ops"][f] += 1
                col["meta_ns"][f] += d
                col["opens"][f] += name == "io:open"
                col["seeks"][f] += name == "io:lseek"
            col["first_ns"][f] = min(col["first_ns"][f], int(s))
            col["last_ns"][f] = max(col["last_ns"][f], int(e))
            if d > col["slowest_ns"][f]:
                col["slowest_ns"][f], col["slowest_start_ns"][f], slow[f] = d, int(s), name
    col["max_offset"] = col["bytes_written"] + col["bytes_read"]
    col["mmaps"][1] = 1
    names = [n.format(r=r) for n in NAMES]
    return names, col, hist, slow


def write_table(g, names, col, hist, slow, ranks=None):
    s = h5py.string_dtype("utf-8")
    if ranks is not None:
        g.create_dataset("ranks", data=np.asarray(ranks, np.int32))
    g.create_dataset("names", data=np.array(names, dtype=object), dtype=s)
    g.create_dataset("apis", data=np.asarray(np.tile(APIS, len(names) // 3), np.int32))
    for c in INT_COLS:
        g.create_dataset(c, data=np.asarray(col[c], np.int64))
    g.create_dataset("slowest_ops", data=np.array(slow, dtype=object), dtype=s)
    g.create_dataset("size_hist", data=np.asarray(hist, np.int64))


def per_rank(path):
    out = {}
    with h5py.File(path, "r+") as h:
        for rk in sorted(k for k in h if k.startswith("rank")):
            r = int(rk[4:])
            calls = {}
            for name, grp in h[rk]["regions"].items():
                if not is_io(name):
                    continue
                st, en = grp["start_times"][()], grp["end_times"][()]
                b, f = call_values(name, r, len(st))
                grp.create_dataset("bytes", data=b)
                grp.create_dataset("file_ids", data=f)
                calls[name] = (st, en, b, f)
            rec = records(r, calls)
            io = h[rk].create_group("io")
            io.attrs["size_bins"] = np.asarray(BINS, np.int64)
            write_table(io.create_group("files"), *rec)
            out[r] = rec
    return out


def columnar(path):
    with h5py.File(path, "r+") as h:
        names = [n.decode() if isinstance(n, bytes) else n for n in h["region_table/names"][()]]
        idx = h["rank_region_index"]
        ev = h["events"]
        E = ev["start_times"].shape[0]
        st, en = ev["start_times"][()], ev["end_times"][()]
        iob = np.full(E, -1, np.int64)
        iof = np.full(E, -1, np.int32)
        per = {}
        for r, g, o, n in zip(idx["ranks"][()], idx["region_ids"][()], idx["event_offsets"][()],
                              idx["event_counts"][()]):
            name = names[g]
            if not is_io(name):
                continue
            b, f = call_values(name, int(r), int(n))
            iob[o:o + n], iof[o:o + n] = b, f
            per.setdefault(int(r), {})[name] = (st[o:o + n], en[o:o + n], b, f)
        ev.create_dataset("mpi_bytes", data=iob)
        ev.create_dataset("mpi_peers", data=iof)
        rows = [records(r, per[r]) for r in sorted(per)]
        g = h.create_group("io_files")
        g.attrs["size_bins"] = np.asarray(BINS, np.int64)
        write_table(g, sum((x[0] for x in rows), []),
                    {c: np.concatenate([x[1][c] for x in rows]) for c in INT_COLS},
                    np.concatenate([x[2] for x in rows]), sum((x[3] for x in rows), []),
                    ranks=np.repeat(sorted(per), len(NAMES)))


def aggregate(path, recs):
    with h5py.File(path, "r+") as h:
        for r, rec in sorted(recs.items()):
            io = h.create_group("rank%d/io" % r)
            io.attrs["size_bins"] = np.asarray(BINS, np.int64)
            write_table(io.create_group("files"), *rec)


def main():
    if len(sys.argv) > 4:
        shutil.copyfile(sys.argv[1], sys.argv[4])
    recs = per_rank(sys.argv[1])
    columnar(sys.argv[2])
    aggregate(sys.argv[3], recs)


if __name__ == "__main__":
    main()
