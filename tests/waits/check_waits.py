#!/usr/bin/python3
"""Checks scope-profiler-pproc --waits against what the program knows.

usage: check_waits.py PPROC FILE EXPECTED

EXPECTED is written by waits_delays.c from its own CLOCK_MONOTONIC stamps
around each call (the profiler's clock): per wait state, rank and call
path, the seconds the rank must wait and the rank and region that caused
it ("-": the waiter started before the cause's delay, not asked). Each must
be in --waits' JSON within 1 ms, the cause listed, and each expected wait at
least 90 ms (150 ms built in, less a 20 ms settle: the phases did what they
were meant to). Independently of the analysis, the Late Sender of
rank 0 is recomputed from the file with h5py and numpy: its MPI_Recv calls
with tag 5 paired in order with rank 1's MPI_Send calls with tag 5.
"""
import json
import subprocess
import sys

import h5py
import numpy as np

TOL = 1e-3


def region(f, r, name):
    for g in f[f"rank{r}/regions"].values():
        n = g.attrs["name"]
        n = n.decode() if isinstance(n, bytes) else str(n)
        if n == name:
            return g
    return None


def h5py_late_sender(path):
    """Rank 0's Late Sender in phase_ls from the raw datasets (no pproc)."""
    with h5py.File(path, "r") as f:
        recv, send = region(f, 0, "MPI_Recv"), region(f, 1, "MPI_Send")
        rt = recv["tag"][()]
        st = send["tag"][()]
        rs, re_ = recv["start_times"][()][rt == 5], recv["end_times"][()][rt == 5]
        ss = send["start_times"][()][st == 5]
        # same node: the clock offsets are within microseconds of 0
        late = np.minimum(np.maximum(ss - rs, 0), re_ - rs)
        return float(late.sum()) / 1e9


def main():
    pproc, path, expected = sys.argv[1:4]
    out = subprocess.run([pproc, path, "--waits", "--format", "json"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        print("FAIL pproc exit", out.returncode, out.stderr)
        return 1
    got = json.loads(out.stdout)
    rows = {(w["rank"], w["path"]): w for w in got["waits"]}
    causes = {(c["state"], c["cause_rank"], c["cause_region"]) for c in got["causes"]}
    fails, n = [], 0
    for line in open(expected):
        state, rank, cpath, secs, crank, cregion = line.rstrip("\n").split("\t")
        rank, secs, crank = int(rank), float(secs), int(crank)
        n += 1
        keys = [k for k in rows if k[0] == rank and k[1].endswith(cpath)]
        val = sum(rows[k][state + "_s"] for k in keys)
        if secs < 0.09:  # 150 ms built in, 20 ms settle
            fails.append(f"{state} rank {rank}: the program waited only {secs:.6f} s")
        if abs(val - secs) > TOL:
            fails.append(f"{state} rank {rank} {cpath}: {val:.6f} s, program {secs:.6f} s")
        if cregion != "-" and (state, crank, cregion) not in causes:
            fails.append(f"{state} rank {rank}: cause ({crank}, {cregion}) not listed")
    ls = h5py_late_sender(path)
    mine = sum(w["late_sender_s"] for (r, p), w in rows.items() if r == 0)
    if abs(ls - mine) > 1e-6:
        fails.append(f"rank 0 late sender {mine:.9f} s, h5py/numpy {ls:.9f} s")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        print(out.stdout)
        return 1
    print(f"ok: {n} waits within 1 ms of the program's, causes named; h5py late sender {ls:.6f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
