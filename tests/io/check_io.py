#!/usr/bin/python3
"""Holds a profile_io profile (SCOPE_PROFILER_PROFILE_IO=1) of io_calls.c to
the program's own counts, with h5py.

usage: check_io.py FILE.h5 DIR NRANKS main|split|errors|many|fortran|fmpi|crash
                   [--off|--profile|--columnar]

For every rank: each I/O call region's events (io:*, MPI_File_*) grouped by
the user region whose call holds them (by the stamps), the call's name and
its file (rank<N>/io/files/names[file_ids]): the calls and the sum of their
bytes equal DIR/expect_r<N>.tsv exactly (regions posix, stdio, mpiio,
errors, split); the per-file records agree with the program's counts (opens,
reads, writes, bytes read and written, largest offset) and their read, write
and metadata times with the durations of the file's calls (a split
collective's end in its operation's time); HDF5's files
(hdf5_sec2, hdf5_mpio, whose calls HDF5 chooses) have records whose bytes
are the sums of their calls and whose largest offset is the file's size
(sec2: at most the file's size, beyond its 40,000 bytes of data). The library's own output file
and spill files appear nowhere. --off: profile_io off (PROFILE_MPI=1): no
io:* call and no record, the MPI-IO calls as MPI calls with file ids -1;
crash: the file scope-profiler-merge rebuilt from the spill files;
--profile: profile mode's file, its rank<N>/io/files; --columnar: the
columnar file's io_files/ table, both against the program's counts.
Exit 0 when all holds, 1 with one line per failure.
"""
import os
import sys
from collections import defaultdict

import h5py
import numpy as np

EXACT = {"posix", "stdio", "mpiio", "errors", "split"}  # regions whose every call the program counted
READS = {"io:read", "io:pread", "io:readv", "io:preadv", "io:fread"}
WRITES = {"io:write", "io:pwrite", "io:writev", "io:pwritev", "io:fwrite", "io:fprintf",
          "io:fputs"}
OPENS = {"io:open", "io:openat", "io:creat", "io:fopen", "MPI_File_open"}


def name_of(g):
    n = g.attrs["name"]
    return n.decode() if isinstance(n, bytes) else str(n)


def io_call(name):
    return name.startswith("io:") or name.startswith("MPI_File_")


def is_read(op):
    """A read operation; a split collective's end is not one (its begin is)."""
    return op in READS or (op.startswith(("MPI_File_read", "MPI_File_iread")) and
                           not op.endswith("_end"))


def is_write(op):
    return op in WRITES or (op.startswith(("MPI_File_write", "MPI_File_iwrite")) and
                            not op.endswith("_end"))


def read_expect(path):
    want, moved = defaultdict(lambda: [0, 0]), defaultdict(int)
    read_expect.fortran = []
    with open(path) as f:
        for line in f:
            if line.startswith("FILE\t"):  # io_fortran.f90: path, bytes written and read
                _, file, wrote, got = line.rstrip("\n").split("\t")
                read_expect.fortran.append((file, int(wrote), int(got)))
                continue
            region, op, file, calls, nbytes, ok = line.rstrip("\n").split("\t")
            w = want[(region, op, file)]
            w[0] += int(calls)
            w[1] += int(nbytes)
            moved[(region, op, file)] += int(ok)
    read_expect.moved = moved
    return {k: tuple(v) for k, v in want.items()}


def files_from_expect(want):
    """{file: {column: value}} the program's own counts give, per file."""
    out = defaultdict(lambda: defaultdict(int))
    for (region, op, file), (calls, _) in want.items():
        if file == "-" or region not in EXACT:
            continue
        nbytes = read_expect.moved[(region, op, file)]
        pf = out[file]
        if is_read(op):
            pf["reads"] += calls
            pf["bytes_read"] += max(nbytes, 0)
        elif is_write(op):
            pf["writes"] += calls
            pf["bytes_written"] += max(nbytes, 0)
        elif op in OPENS:
            pf["opens"] += calls
    return out


def check_files(names, files, want, r, fails, where):
    """The records of the files the program counted, against its counts."""
    for file, cols in files_from_expect(want).items():
        if file not in names:
            fails.append(f"{where}: no record of {file}")
            continue
        i = names.index(file)
        for col in ("opens", "reads", "writes", "bytes_read", "bytes_written"):
            if int(files[col][i]) != cols.get(col, 0):
                fails.append(f"{where} {file}: {col} {int(files[col][i])}, the program counted "
                             f"{cols.get(col, 0)}")


def check_profile(f, r, d, fails):
    """Profile mode's file: rank<N>/io/files against the program's counts."""
    io = f.get(f"rank{r}/io/files")
    if io is None:
        fails.append(f"rank{r}: no io/files in the profile")
        return
    names = [n.decode() for n in io["names"][()]]
    check_files(names, io, read_expect(os.path.join(d, f"expect_r{r}.tsv")), r, fails, f"rank{r}")


def check_columnar(f, nranks, d, fails):
    """The columnar file: io_files/ rows (rank, file) against the program's counts."""
    g = f.get("io_files")
    if g is None:
        fails.append("no io_files/ in the columnar file")
        return
    ranks = g["ranks"][()]
    names = [n.decode() for n in g["names"][()]]
    for r in range(nranks):
        rows = np.flatnonzero(ranks == r)
        sub = {c: g[c][()][rows] for c in ("opens", "reads", "writes", "bytes_read",
                                           "bytes_written")}
        check_files([names[i] for i in rows], sub,
                    read_expect(os.path.join(d, f"expect_r{r}.tsv")), r, fails, f"io_files rank {r}")
    if g["size_hist"].shape != (len(names), 10):
        fails.append(f"io_files/size_hist {g['size_hist'].shape}")


def check_rank(f, r, d, what, fails):
    regions = f[f"rank{r}/regions"]
    io = f.get(f"rank{r}/io")
    names = [n.decode() for n in io["files/names"][()]] if io is not None else []
    users = {}
    for g in regions.values():
        n = name_of(g)
        if not io_call(n):
            users[n] = (g["start_times"][()], g["end_times"][()])
    got = defaultdict(lambda: [0, 0])
    per_file = defaultdict(lambda: defaultdict(int))
    for g in regions.values():
        n = name_of(g)
        if not io_call(n):
            continue
        st, en = g["start_times"][()], g["end_times"][()]
        b = g["bytes"][()] if "bytes" in g else np.full(len(st), -99)
        ids = g["file_ids"][()] if "file_ids" in g else np.full(len(st), -99)
        if len(b) != len(st) or len(ids) != len(st):
            fails.append(f"rank{r}/{n}: {len(st)} calls, {len(b)} bytes, {len(ids)} file_ids")
            continue
        for s, e, nb, fid in zip(st, en, b, ids):
            holder = [u for u, (us, ue) in users.items() if np.any((us <= s) & (e <= ue))]
            region = holder[0] if len(holder) == 1 else "-"
            file = names[fid] if 0 <= fid < len(names) else "-"
            got[(region, n, file)][0] += 1
            got[(region, n, file)][1] += int(nb)
            pf = per_file[file]
            # the time the record keeps per kind: a split collective's end is its operation's
            kind = ("read_ns" if is_read(n) or n.startswith("MPI_File_read") else
                    "write_ns" if is_write(n) or n.startswith("MPI_File_write") else "meta_ns")
            pf[kind] += int(e) - int(s)
            pf[kind + "_calls"] += 1
            pf["t0"] = min(pf.get("t0", 2**62), int(s))
            pf["t1"] = max(pf.get("t1", 0), int(e))
            if is_read(n):
                pf["reads"] += 1
                pf["bytes_read"] += max(int(nb), 0)
            elif is_write(n):
                pf["writes"] += 1
                pf["bytes_written"] += max(int(nb), 0)
            if n in OPENS and nb >= 0:
                pf["opens"] += 1
    want = read_expect(os.path.join(d, f"expect_r{r}.tsv"))
    got_calls = {k: tuple(v) for k, v in got.items()}
    for key in sorted(set(want) | {k for k in got if k[0] in EXACT}):
        w, g = want.get(key), tuple(got[key]) if key in got else None
        if w != g:
            fails.append(f"rank{r} {key}: got (calls, bytes) {g}, want {w}")
    if io is None:
        if what != "many" or r >= 0:
            fails.append(f"rank{r}: no io/ group")
        return
    bins = io.attrs["size_bins"]
    if list(bins) != [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600,
                      1073741824, 2**63 - 1]:
        fails.append(f"rank{r}/io@size_bins: {list(bins)}")
    files = io["files"]
    check_files(names, files, want, r, fails, f"rank{r}")
    for file, wrote, got in read_expect.fortran:
        # libgfortran chooses its calls: the bytes are the program's, the file's size,
        # and the sums of the calls under the region "fortran"
        i = names.index(file) if file in names else -1
        if i < 0:
            fails.append(f"rank{r}: no record of {file}")
            continue
        sums = defaultdict(int)
        for (region, op, fl), (calls, nb) in got_calls.items():
            if fl == file and region == "fortran":
                sums["w" if op in WRITES else "r" if op in READS else "m"] += max(nb, 0)
        for col, w in (("bytes_written", wrote), ("bytes_read", got), ("opens", 2),
                       ("max_offset", os.path.getsize(file))):
            if int(files[col][i]) != w:
                fails.append(f"rank{r} {file}: {col} {int(files[col][i])}, want {w}")
        if (sums["w"], sums["r"]) != (wrote, got):
            fails.append(f"rank{r} {file}: the calls under fortran moved {dict(sums)}")
    out = os.path.abspath(f.filename)
    for i, name in enumerate(names):
        if out in os.path.abspath(name) or ".spill" in name or "expect_r" in name:
            fails.append(f"rank{r}: the library's own file {name} recorded")
        pf = per_file.get(name, {})
        for col in ("opens", "reads", "writes", "bytes_read", "bytes_written"):
            if int(files[col][i]) != pf.get(col, 0):
                fails.append(f"rank{r} {name}: {col} {int(files[col][i])}, its calls say "
                             f"{pf.get(col, 0)}")
        # the record's times are its calls' durations (their regions' own stamps, each
        # converted to ns on its own: 2 ns of rounding a call, 0.2 % of the clocks' drift)
        for col in ("read_ns", "write_ns", "meta_ns"):
            want_ns = pf.get(col, 0)
            if abs(int(files[col][i]) - want_ns) > 2 * pf.get(col + "_calls", 0) + want_ns // 500:
                fails.append(f"rank{r} {name}: {col} {int(files[col][i])}, its calls took "
                             f"{want_ns} ns")
        hist = files["size_hist"][i]
        if int(hist.sum()) > int(files["reads"][i] + files["writes"][i]):
            fails.append(f"rank{r} {name}: size_hist {hist} beyond its reads and writes")
        if files["first_ns"][i] > files["last_ns"][i]:
            fails.append(f"rank{r} {name}: first_ns after last_ns")
        # the stamps' clock: the first call's start and the last call's end, within 1 ms
        # (the record's stamps are taken just inside the region's)
        if "t0" in pf and (abs(int(files["first_ns"][i]) - pf["t0"]) > 10**6 or
                           abs(int(files["last_ns"][i]) - pf["t1"]) > 10**6):
            fails.append(f"rank{r} {name}: first_ns, last_ns {int(files['first_ns'][i])}, "
                         f"{int(files['last_ns'][i])}; its calls from {pf['t0']} to {pf['t1']}")
        base = os.path.basename(name)
        if base.startswith("h5_sec2") and os.path.exists(name):
            # HDF5 writes its rank's 10,000 ints and its metadata, and extends the
            # file to its end with ftruncate (not an access)
            if not (40000 < int(files["bytes_written"][i]) and
                    40000 < int(files["max_offset"][i]) <= os.path.getsize(name)):
                fails.append(f"rank{r} {name}: bytes_written {int(files['bytes_written'][i])}, "
                             f"max_offset {int(files['max_offset'][i])}, the file has "
                             f"{os.path.getsize(name)} bytes")
        if base == "fmpi.dat" and int(files["max_offset"][i]) != 24000 + 40 * (r + 1):
            # its last write: 10 integers at offset 10 r of a view of integers from byte 24000
            fails.append(f"rank{r} {name}: max_offset {int(files['max_offset'][i])}, want "
                         f"{24000 + 40 * (r + 1)} (MPI_File_set_view's etype not followed)")
        if base.startswith("posix_r") and int(files["max_offset"][i]) != 6000:
            fails.append(f"rank{r} {name}: max_offset {int(files['max_offset'][i])}, want 6000")
    if what == "main":
        want_files = [os.path.join(d, x) for x in (f"posix_r{r}.bin", f"stdio_r{r}.txt",
                                                   "shared.dat", f"h5_sec2_r{r}.h5", "h5_mpio.h5")]
        if sorted(names) != sorted(want_files):
            # no other file: neither the library's own nor what MPI does underneath
            fails.append(f"rank{r}: file records {names}, want {want_files}")
    if what in ("split", "fmpi"):
        want_files = [os.path.join(d, "split.dat" if what == "split" else "fmpi.dat")]
        if names != want_files:
            fails.append(f"rank{r}: file records {names}, want {want_files}")
    if what == "fortran" and os.path.join(d, "fshared.dat") not in names:
        fails.append(f"rank{r}: no record of fshared.dat")
    if what == "many" and len(names) != 4096:
        fails.append(f"rank{r}: {len(names)} file records, want the cap 4096")


def main():
    path, d, nranks, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    off = "--off" in sys.argv
    fails = []
    with h5py.File(path, "r") as f:
        if "--columnar" in sys.argv:
            check_columnar(f, nranks, d, fails)
            nranks = 0
        for r in range(nranks):
            if "--profile" in sys.argv:
                check_profile(f, r, d, fails)
                continue
            if off:  # PROFILE_MPI=1, PROFILE_IO=0: MPI-IO calls as MPI calls, no file
                if f"rank{r}/io" in f:
                    fails.append(f"rank{r}: io/ written with profile_io off")
                seen = set()
                for g in f[f"rank{r}/regions"].values():
                    n = name_of(g)
                    if n.startswith("io:"):
                        fails.append(f"rank{r}: region {n} with profile_io off")
                    elif n.startswith("MPI_File_"):
                        seen.add(n)
                        if "file_ids" not in g or np.any(g["file_ids"][()] != -1):
                            fails.append(f"rank{r}/{n}: file_ids not all -1 without profile_io")
                for n in ("MPI_File_open", "MPI_File_write_at", "MPI_File_set_view",
                          "MPI_File_iwrite", "MPI_File_sync", "MPI_File_close"):
                    if n not in seen:
                        fails.append(f"rank{r}: no region {n} with PROFILE_MPI=1")
                continue
            check_rank(f, r, d, what, fails)
    for x in fails:
        print(x)
    print(f"check_io.py: {path}: {len(fails)} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
