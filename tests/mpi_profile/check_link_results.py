#!/usr/bin/python3
"""Linking the library never changes a program's results (issue 43 item 1).

usage: check_link_results.py DIR WITH WITHOUT MPIEXEC ARGS...

Runs link_results.F90 linked without the library (WITHOUT) and with it
(WITH: sp_setup/sp_finalize around the same calls), the latter with
SCOPE_PROFILER_PROFILE_MPI=0 and =1, each under `MPIEXEC ARGS... PROGRAM`
(4 ranks). Every run must exit 0, print no "scope-profiler:" error and
print the line the numpy oracle gives; the profiled run's file must hold,
per rank, exactly the MPI calls the program makes (h5py), with MPI_Recv's
bytes and peer.
"""
import os
import subprocess
import sys

import h5py
import numpy as np

NRING, NNB = 100, 50


def oracle(n):
    """The line rank 0 prints, computed independently of MPI."""
    ranks = np.arange(n)
    sqsum = int(np.sum((ranks + 1) ** 2))
    i_ring = np.arange(1, NRING + 1)
    i_nb = np.arange(1, NNB + 1)
    # rank r receives the ring from its left neighbour, the nonblocking
    # messages from its right one: over all ranks, every rank's data once
    ring = int(sum(np.sum(r * 1000 + i_ring) for r in ranks))
    nb = int(sum(np.sum(r * 7 + i_nb) for r in ranks))
    last = int(((0 - 1) % n) * 1000 + NRING)  # rank 0's last value from rank n-1
    return f"results {n} {sqsum} {ring} {nb} {last}"


def run(cmd, env, what):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    lines = [l.strip() for l in p.stdout.splitlines() if l.startswith("results")]
    errs = [l for l in p.stderr.splitlines() if "scope-profiler:" in l]
    print(f"{what}: rc {p.returncode}, {lines}, {len(errs)} scope-profiler lines")
    for l in errs[:5]:
        print("   ", l)
    return p.returncode, lines, errs


def check_file(path, n, fails):
    want = {"MPI_Scan": 1, "MPI_Allreduce": 3, "MPI_Send": 1, "MPI_Recv": 1, "MPI_Irecv": 1,
            "MPI_Isend": 1, "MPI_Waitall": 1, "MPI_Barrier": 1}
    with h5py.File(path, "r") as f:
        for r in range(n):
            got, recv = {}, None
            for g in f[f"rank{r}/regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                got[name] = int(g.attrs["num_calls"])
                if name == "MPI_Recv":
                    recv = (int(g["bytes"][0]), int(g["peer"][0]))
                if name == "MPI_Waitall":
                    wait = (int(g["bytes"][0]), int(g["peer"][0]))
            if got != want:
                fails.append(f"rank{r}: calls {got}, want {want}")
                continue
            if recv != (4 * NRING, (r - 1) % n):
                fails.append(f"rank{r}: MPI_Recv bytes, peer {recv}, want {(4 * NRING, (r - 1) % n)}")
            if wait != (4 * NNB, (r + 1) % n):
                fails.append(f"rank{r}: MPI_Waitall bytes, peer {wait}, want {(4 * NNB, (r + 1) % n)}")


def main():
    d, with_lib, without, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    n = int(mpiexec[mpiexec.index("-n") + 1]) if "-n" in mpiexec else 4
    want = oracle(n)
    fails = []
    h5 = os.path.join(d, "link_results.h5")
    for prog, profile in ((without, None), (with_lib, "0"), (with_lib, "1")):
        env = dict(os.environ)
        what = os.path.basename(prog)
        if profile is not None:
            env["SCOPE_PROFILER_PROFILE_MPI"] = profile
            env["SCOPE_PROFILER_FILE"] = h5
            what += f" PROFILE_MPI={profile}"
            if os.path.exists(h5):
                os.unlink(h5)
        rc, lines, errs = run(mpiexec + [prog], env, what)
        if rc != 0 or lines != [want] or errs:
            fails.append(f"{what}: rc {rc}, printed {lines}, want ['{want}'], {len(errs)} errors")
        if profile == "1" and rc == 0:
            check_file(h5, n, fails)
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
