#!/usr/bin/python3
"""Runs mpi_bytes_spill on 2 ranks and checks its bytes and peers with h5py.

usage: check_mpi_bytes_spill.py DIR CALLS finalize|exit MERGE MPIEXEC ARGS...

MPIEXEC ARGS... runs the program (CALLS and the mode are appended). With
`exit` the run leaves spill files and MERGE (scope-profiler-merge) rebuilds
the profile from them. Either way call i of MPI_Send on rank 0 and of
MPI_Recv on rank 1 must have ((i % 7) + 1) * 4 bytes and the other rank as
peer, in the order of the stamps: values and events spilled at different
moments must still line up.
"""
import os
import subprocess
import sys

import h5py
import numpy as np


def main():
    d, calls, mode, merge = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    run = sys.argv[5:] + [str(calls), mode]
    out = os.path.join(d, "spill.h5")
    for p in [out, out + ".merged.h5"]:
        if os.path.exists(p):
            os.remove(p)
    env = dict(os.environ, SCOPE_PROFILER_FILE=out, SCOPE_PROFILER_PROFILE_MPI="1")
    # exit: mpirun reports the ranks that ended without MPI_Finalize as failed
    subprocess.run(run, env=env, check=mode != "exit")
    if mode == "exit":
        spill = out + ".spill"
        if not os.path.isdir(spill) or not os.listdir(spill):
            sys.exit(f"FAIL: no spill files in {spill}")
        merged = out + ".merged.h5"
        subprocess.run([merge, "-o", merged, spill], check=True)
        out = merged
    want = ((np.arange(calls) % 7) + 1) * 4
    fails = []
    with h5py.File(out, "r") as f:
        for r, name in [(0, "MPI_Send"), (1, "MPI_Recv")]:
            g = f[f"rank{r}/regions/{name}"]
            s, b, p = g["start_times"][()], g["bytes"][()], g["peer"][()]
            if len(s) != calls or len(b) != calls or len(p) != calls:
                fails.append(f"rank{r}/{name}: {len(s)} stamps, {len(b)} bytes, {len(p)} peers")
                continue
            if not np.all(np.diff(s) >= 0):
                fails.append(f"rank{r}/{name}: stamps out of order")
            if not np.array_equal(b, want):
                bad = int(np.argmax(b != want))
                fails.append(f"rank{r}/{name}: bytes[{bad}] = {b[bad]}, want {want[bad]}")
            if not np.all(p == 1 - r):
                fails.append(f"rank{r}/{name}: peers {np.unique(p)}, want {1 - r}")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print(f"ok ({mode}, {calls} calls)")


main()
