#!/usr/bin/env python3
"""check_h5_calls.py SHIM OUTFILE PPROC FILE ARGS... - HDF5 calls per dataset.

Runs PPROC FILE ARGS with the LD_PRELOAD shim h5_calls_shim.so counting
H5Dopen2 and H5Dread, counts FILE's datasets with h5py (an independent
reader), and fails when the postprocessor opened more datasets than the
file holds: the reader opens each once, at open, and reads contiguous
arrays at their offset afterwards (issue 26)."""
import os
import subprocess
import sys

import h5py


def datasets(path):
    n = 0

    def visit(_name, obj):
        nonlocal n
        if isinstance(obj, h5py.Dataset):
            n += 1

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return n


def main():
    shim, out, pproc, path = sys.argv[1:5]
    args = sys.argv[5:]
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ, LD_PRELOAD=shim, SP_H5_CALLS_FILE=out)
    # Under ASan the shim comes before the runtime in the library list.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    run = subprocess.run([pproc, path] + args, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=120)
    if run.returncode != 0:
        print(f"FAIL: {pproc} exited {run.returncode}: {run.stderr}")
        return 1
    counts = {}
    with open(out) as f:
        for line in f:
            name, value = line.split()
            counts[name] = counts.get(name, 0) + int(value)
    n = datasets(path)
    opens, reads = counts.get("H5Dopen2", -1), counts.get("H5Dread", -1)
    print(f"{' '.join(args)}: {opens} H5Dopen2 and {reads} H5Dread for {n} datasets")
    if opens <= 0:
        print("FAIL: the shim counted no H5Dopen2 (not preloaded?): the check would prove nothing")
        return 1
    if opens > n:
        print(f"FAIL: {opens} H5Dopen2 calls, expected at most one per dataset ({n})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
