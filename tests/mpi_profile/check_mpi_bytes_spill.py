#!/usr/bin/python3
"""Runs mpi_bytes_spill on 2 ranks and checks its bytes and peers with h5py.

usage: check_mpi_bytes_spill.py DIR CALLS finalize|exit|kill|kill_cut:SHIM:K MERGE MPIEXEC ARGS...

MPIEXEC ARGS... runs the program (CALLS and the mode are appended). With
`exit` the run leaves spill files and MERGE (scope-profiler-merge) rebuilds
the profile from them. Either way call i of MPI_Send on rank 0 and of
MPI_Recv on rank 1 must have ((i % 7) + 1) * 4 bytes and the other rank as
peer, in the order of the stamps: values and events spilled at different
moments must still line up. With `kill` (SIGKILL after the calls) only
what was spilled survives: the events of whole buffers (multiples of the
buffer limit, 1000, as many as were written before the kill), and the
values of every call whose event survived (they go to the spill file with
the events, also for fewer calls than the 4096 of a full array of values).
With `kill_cut:SHIM:K` (tests/common/kill_shim.c, LD_PRELOAD) rank 0 is
killed right after its K-th events record reached its spill file: exactly
K buffers of its calls recovered, each with its bytes and peer; rank 1,
ended by mpirun at whatever moment, keeps whatever it recovered, every
event with its values too.
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np


def main():
    d, calls, mode, merge = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    cut = None
    if mode.startswith("kill_cut:"):
        _, shim, cut = mode.split(":")
        mode, cut = "kill", int(cut)
    run = sys.argv[5:] + [str(calls), mode]
    out = os.path.join(d, "spill.h5")
    for p in [out, out + ".merged.h5"]:
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(out + ".spill", ignore_errors=True)  # a killed run's files stay
    env = dict(os.environ, SCOPE_PROFILER_FILE=out, SCOPE_PROFILER_PROFILE_MPI="1")
    if cut:
        env.update(LD_PRELOAD=shim, SP_KILL_AFTER=str(cut), SP_KILL_RANK="0")
    # exit: mpirun reports the ranks that ended without MPI_Finalize as failed
    p = subprocess.run(run, env=env, check=mode == "finalize", stderr=subprocess.PIPE, text=True)
    sys.stderr.write(p.stderr)
    if cut and f"kill_shim: SIGKILL after events record {cut}\n" not in p.stderr:
        sys.exit(f"FAIL: rank 0 was not killed by the shim after events record {cut}")
    if mode != "finalize":
        spill = out + ".spill"
        if not os.path.isdir(spill) or not os.listdir(spill):
            sys.exit(f"FAIL: no spill files in {spill}")
        merged = out + ".merged.h5"
        subprocess.run([merge, "-o", merged, spill], check=True)
        out = merged
    fails = []
    with h5py.File(out, "r") as f:
        for r, name in [(0, "MPI_Send"), (1, "MPI_Recv")]:
            if cut and r == 1 and f"rank{r}/regions/{name}" not in f:
                continue  # ended before its first spill
            g = f[f"rank{r}/regions/{name}"]
            s, b, p = g["start_times"][()], g["bytes"][()], g["peer"][()]
            n = calls
            if mode == "kill" and cut and r == 1:  # what it had written when mpirun ended it
                n = len(s)
            elif mode == "kill":  # whole buffers of events (those written before the kill)
                n = len(s)
                if n == 0 or n % 1000 or n > calls or (cut and n != cut * 1000):
                    fails.append(f"rank{r}/{name}: {n} events recovered, not whole buffers")
                    continue
            want = ((np.arange(n) % 7) + 1) * 4
            wpeer = np.full(n, 1 - r)
            if len(s) != n or len(b) != n or len(p) != n:
                fails.append(f"rank{r}/{name}: {len(s)} stamps, {len(b)} bytes, {len(p)} peers")
                continue
            if not np.all(np.diff(s) >= 0):
                fails.append(f"rank{r}/{name}: stamps out of order")
            if not np.array_equal(b, want):
                bad = int(np.argmax(b != want))
                fails.append(f"rank{r}/{name}: bytes[{bad}] = {b[bad]}, want {want[bad]}")
            if not np.array_equal(p, wpeer):
                bad = int(np.argmax(p != wpeer))
                fails.append(f"rank{r}/{name}: peer[{bad}] = {p[bad]}, want {wpeer[bad]}")
            # tag 5 on MPI_COMM_WORLD (id 0) through the spill file too (issue 50 item 1)
            wtag, wcomm = np.where(wpeer >= 0, 5, -1), np.where(wpeer >= 0, 0, -1)
            if "tag" not in g or not np.array_equal(g["tag"][()], wtag) or \
                    not np.array_equal(g["comm"][()], wcomm):
                fails.append(f"rank{r}/{name}: tag or comm not 5 and 0 where the peer is known")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print(f"ok ({mode}, {calls} calls)")


main()
