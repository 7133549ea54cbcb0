"""Writes a per-rank trace of 100 ranks with I/O records (docs/io.md), with
h5py, for the report's bounded I/O section (check_io_report.py many).

usage: make_many_ranks.py OUT.h5

Rank r: main (one call) > io:write (2 calls of 100 r + 1 bytes, file 0) and
io:read (1 call, file 1); files "shared.dat" (every rank) and "own_<r>.dat"
(rank 0's named "dir/</script><b>\u00e9_0.dat": the report must keep it text).
Durations grow with (r * 37) % 100 so that the slowest ranks are not the
last ones."""
import sys

import h5py
import numpy as np

BINS = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1 << 30,
        np.iinfo(np.int64).max]
COLS = ["opens", "reads", "writes", "seeks", "syncs", "meta_ops", "bytes_read",
        "bytes_written", "max_offset", "read_ns", "write_ns", "meta_ns", "first_ns",
        "last_ns", "slowest_ns", "slowest_start_ns", "mmaps"]
NRANKS = 100


def region(g, name, st, en, **extra):
    grp = g.create_group(name)
    grp.attrs["num_calls"] = np.int64(len(st))
    grp.create_dataset("start_times", data=np.asarray(st, np.int64))
    grp.create_dataset("end_times", data=np.asarray(en, np.int64))
    for k, v in extra.items():
        grp.create_dataset(k, data=v)


def main():
    s = h5py.string_dtype("utf-8")
    with h5py.File(sys.argv[1], "w") as h:
        for r in range(NRANKS):
            k = (r * 37) % 100 + 1
            t0 = 1_000_000
            w = [(t0 + 100, t0 + 100 + 1000 * k), (t0 + 2000 * k, t0 + 3000 * k)]
            rd = (t0 + 4000 * k, t0 + 4500 * k)
            regs = h.create_group("rank%d/regions" % r)
            region(regs, "main", [t0], [t0 + 5000 * k])
            region(regs, "io:write", [a for a, _ in w], [b for _, b in w],
                   bytes=np.array([100 * r + 1] * 2, np.int64), file_ids=np.zeros(2, np.int32))
            region(regs, "io:read", [rd[0]], [rd[1]], bytes=np.array([64], np.int64),
                   file_ids=np.ones(1, np.int32))
            io = h.create_group("rank%d/io" % r)
            io.attrs["size_bins"] = np.asarray(BINS, np.int64)
            f = io.create_group("files")
            col = {c: np.zeros(2, np.int64) for c in COLS}
            col["writes"][0], col["bytes_written"][0] = 2, 2 * (100 * r + 1)
            col["write_ns"][0] = sum(b - a for a, b in w)
            col["reads"][1], col["bytes_read"][1], col["read_ns"][1] = 1, 64, rd[1] - rd[0]
            col["opens"][:] = 1
            for c in COLS:
                f.create_dataset(c, data=col[c])
            own = "dir/</script><b>\u00e9_0.dat" if r == 0 else "own_%d.dat" % r
            f.create_dataset("names", data=np.array(["shared.dat", own],
                                                    dtype=object), dtype=s)
            f.create_dataset("slowest_ops", data=np.array(["io:write", "io:read"], dtype=object),
                             dtype=s)
            f.create_dataset("apis", data=np.ones(2, np.int32))
            f.create_dataset("size_hist", data=np.zeros((2, 10), np.int64))


if __name__ == "__main__":
    main()
