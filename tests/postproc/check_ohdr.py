#!/usr/bin/env python3
"""check_ohdr.py CASE DIR SHIM PPROC [--no-python] - datasets read from their object headers.

The reader takes a plain dataset's length and storage from its object
header (postproc/src/reader_ohdr.c) instead of opening it with HDF5;
anything not plain is opened with HDF5 as before. For CASE, writes
DIR/ohdr_CASE.h5 with h5py in a variant of the row layout, then:
  1. runs PPROC FILE --summary under the LD_PRELOAD shim SHIM counting
     H5Dopen2, and again with SCOPE_PROFILER_READER_DIRECT=data (every
     dataset opened with HDF5 at open, as before): the outputs must be the
     same, byte for byte, and the first run must open every plain dataset
     but one fewer times (the first plain one is opened both ways and the
     answers compared); a file of plain datasets costs one H5Dopen2;
  2. reads every pair with scope_profiler_native.h5reader (PYTHONPATH) and
     compares start_times and end_times with h5py's reading of the file
     (not with --no-python: a build without the Python bindings).
Prints "ok" on success.

Cases: v1 (h5py's default format: version 1 object headers), v2
(libver latest: version 2 headers with checksums), userblock (a 512-byte
user block: addresses relative to the base), attrs (attributes added after
the datasets: a continuation block), v2attrs (the same in version 2: an
OCHK block), v2dense (12 attributes in version 2: dense attribute storage), threads (int32 thread ids), chunked,
gzip, bigendian, tid64 (int64 thread ids: not the host's int32), mixed
(the first pair chunked, the rest plain), empty (0-length datasets),
wrong_type (int32 start_times: the reader's error, the same both ways).
"""
import os
import subprocess
import sys

import h5py
import numpy as np

RANKS, REGIONS, CALLS = 3, 4, 50


def stamps(rank, reg, n=CALLS):
    s = 10**9 + rank * 7 + reg * 10**6 + np.arange(n, dtype=np.int64) * 1000
    return s, s + 100 + reg


def write(case, path):
    """Writes the case's file; returns (plain, not_plain) interval datasets."""
    kw = {"libver": "latest"} if case in ("v2", "v2attrs", "v2dense") else {}
    if case == "userblock":
        kw = {"userblock_size": 512}
    plain = other = 0
    with h5py.File(path, "w", **kw) as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank in range(RANKS):
            regs = f.create_group(f"rank{rank}/regions")
            for reg in range(REGIONS):
                g = regs.create_group(f"r{reg}")
                g.attrs["name"] = f"region {reg}"
                n = 0 if case == "empty" else CALLS
                s, e = stamps(rank, reg, n)
                g.attrs["num_calls"] = np.int64(n)
                dkw = {}
                if case == "chunked" or (case == "mixed" and rank == 0 and reg == 0):
                    dkw = {"chunks": (16,)}
                elif case == "gzip":
                    dkw = {"chunks": (16,), "compression": "gzip"}
                dt = {"bigendian": ">i8", "wrong_type": "<i4"}.get(case, "<i8")
                g.create_dataset("start_times", data=s.astype(dt), **dkw)
                g.create_dataset("end_times", data=e.astype(dt if case != "wrong_type" else "<i8"),
                                 **dkw)
                names = ["start_times", "end_times"]
                if case in ("threads", "tid64"):
                    tid = (np.arange(n) % 2).astype("<i4" if case == "threads" else "<i8")
                    g.create_dataset("thread_ids", data=tid, **dkw)
                    names.append("thread_ids")
                if case in ("attrs", "v2attrs", "v2dense"):
                    for name in names:
                        for a in range(6 if case == "v2attrs" else 12):
                            g[name].attrs[f"note_{a}"] = f"attribute {a} " * 8
                for name in names:
                    is_plain = n > 0 and not dkw and case not in ("bigendian", "wrong_type")
                    if name == "thread_ids" and case == "tid64":
                        is_plain = False
                    if case == "wrong_type" and name == "end_times":
                        is_plain = True
                    plain += is_plain
                    other += not is_plain
    return plain, other


def pproc(pproc_bin, path, env, counts):
    """Exit code, stdout and stderr of PPROC FILE --summary; H5Dopen2 calls."""
    if os.path.exists(counts):
        os.remove(counts)
    run = subprocess.run([pproc_bin, path, "--summary"], env=env, capture_output=True, text=True,
                         timeout=120)
    opens = 0
    with open(counts) as f:
        for line in f:
            name, value = line.split()
            opens += int(value) if name == "H5Dopen2" else 0
    return (run.returncode, run.stdout, run.stderr), opens


def main():
    case, d, shim, pproc_bin = sys.argv[1:5]
    path = os.path.join(d, f"ohdr_{case}.h5")
    plain, other = write(case, path)
    counts = os.path.join(d, f"ohdr_{case}.calls")
    env = dict(os.environ, LD_PRELOAD=shim, SP_H5_CALLS_FILE=counts)
    env.pop("SCOPE_PROFILER_READER_DIRECT", None)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    fast, opens = pproc(pproc_bin, path, env, counts)
    slow, opens_h5 = pproc(pproc_bin, path, dict(env, SCOPE_PROFILER_READER_DIRECT="data"), counts)
    fails = []
    if fast != slow:
        fails.append(f"output differs from SCOPE_PROFILER_READER_DIRECT=data:\n{fast}\n{slow}")
    if case == "wrong_type":
        # Refused at the first region's start_times, opened with HDF5 both ways.
        if fast[0] == 0 or "expected int64" not in fast[2]:
            fails.append(f"int32 start_times accepted: {fast}")
        want = opens_h5
    else:
        if fast[0] != 0:
            fails.append(f"pproc failed: {fast}")
        want = opens_h5 - (plain - 1 if plain else 0)
    print(f"{case}: {plain} plain and {other} other interval datasets; {opens} H5Dopen2 "
          f"(expected {want}), {opens_h5} with every dataset opened with HDF5")
    if opens != want:
        fails.append(f"{opens} H5Dopen2 calls, expected {want}")
    if opens <= 0 or (case != "wrong_type" and opens_h5 < plain + other):
        fails.append("the shim counted too few H5Dopen2 (not preloaded?)")
    if case != "wrong_type" and "--no-python" not in sys.argv[5:]:
        fails += compare(path)
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print("ok")
    return 1 if fails else 0


def compare(path):
    """Every pair's stamps through the Python reader against h5py's."""
    from scope_profiler_native.h5reader import ProfilingH5Reader
    fails = []
    seen = 0
    with h5py.File(path, "r") as f:
        reader = ProfilingH5Reader(path)
        for region in reader.get_regions():
            for rank in region.ranks:
                pair = region[rank]
                g = f[f"rank{rank}/regions"]
                link = [k for k in g if g[k].attrs["name"] == region.name][0]
                for name in ("start_times", "end_times"):
                    want = g[link][name][()].astype(np.int64)
                    got = getattr(pair, name)
                    seen += 1
                    if not np.array_equal(want, got):
                        fails.append(f"rank{rank}/{link}/{name}: {got[:4]} != {want[:4]}")
        reader.close()
    if seen != RANKS * REGIONS * 2:
        fails.append(f"{seen} arrays compared, expected {RANKS * REGIONS * 2}")
    return fails


if __name__ == "__main__":
    sys.exit(main())
