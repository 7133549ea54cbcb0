#!/usr/bin/python3
"""Checks scope-profiler-pproc --waits against what the program knows.

usage: check_waits.py PPROC FILE EXPECTED

EXPECTED is written by waits_delays.c (or .F90) from its own CLOCK_MONOTONIC stamps
around each call (the profiler's clock): per wait state, rank and call
path, the seconds the rank must wait and the rank and region that caused
it ("-": the waiter started before the cause's delay, not asked), and
optionally the same wait had the cause entered its call only at its exit
stamp (the profiler stamps the call between the two; a rank descheduled
right after its stamp entered later). Each must be in --waits' JSON within
1 ms of that span and the cause listed; at least half of them
must be 90 ms or more (150 ms built in, less a 20 ms settle: the phases did
what they were meant to; on a loaded node a rank can leave the sync barrier
so late that its partner is no longer late, and then 0 is expected). A line "unpaired REASON COUNT" asks that many calls left
unpaired for that reason, in the JSON and said on stderr (0: none said at all). Independently of the analysis, the Late Sender of
rank 0's MPI_Recv calls outside phase_tags is recomputed from the file with h5py and numpy:
its MPI_Recv calls with tag 5 paired in order with rank 1's MPI_Send calls with
tag 5 (check_waits_h5.py recomputes every wait so).
"""
import json
import subprocess
import sys

import h5py
import numpy as np

TOL = 1e-3


def expected_span(words):
    """(seconds, seconds_hi) of an expected line, each at least 0. seconds_hi
    (7th column, optional) is the wait had the cause entered its call at its
    own exit stamp: the profiler stamps the call between the program's
    stamps around it, so the recorded wait lies between the two."""
    lo = max(0.0, float(words[3]))
    hi = max(lo, float(words[6])) if len(words) > 6 else lo
    return lo, hi


def span(lo, hi):
    return f"{lo:.6f} s" if hi - lo < 1e-6 else f"{lo:.6f} to {hi:.6f} s"


def region(f, r, name):
    for g in f[f"rank{r}/regions"].values():
        n = g.attrs["name"]
        n = n.decode() if isinstance(n, bytes) else str(n)
        if n == name:
            return g
    return None


def h5py_late_sender(path):
    """Rank 0's Late Sender at MPI_Recv from the raw datasets (no pproc)."""
    with h5py.File(path, "r") as f:
        recv, send = region(f, 0, "MPI_Recv"), region(f, 1, "MPI_Send")
        rt = recv["tag"][()]
        st = send["tag"][()]
        rs, re_ = recv["start_times"][()][rt == 5], recv["end_times"][()][rt == 5]
        ss = send["start_times"][()][st == 5]
        # same node: the clock offsets are within microseconds of 0
        late = np.minimum(np.maximum(ss - rs, 0), re_ - rs)
        return float(late.sum()) / 1e9


def summary_wait_s(pproc, path, expected, rows):
    """--summary --columns wait_s: per MPI region the expected waits' sum, where
    every call path of the region with a wait is one the program expects."""
    out = subprocess.run([pproc, path, "--summary", "--columns", "wait_s", "--format", "json"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return [f"--summary --columns wait_s: exit {out.returncode} {out.stderr}"]
    want, want_hi, paths = {}, {}, set()
    for line in open(expected):
        w = line.rstrip("\n").split("\t")
        if w[0] != "unpaired":
            reg = w[2].split("/")[-1]
            lo, hi = expected_span(w)
            want[reg] = want.get(reg, 0.0) + lo
            want_hi[reg] = want_hi.get(reg, 0.0) + hi
            paths.add(w[2])
    fails, summary = [], {r["region"]: r for r in json.loads(out.stdout)}
    for reg, secs in want.items():
        if any(p.split("/")[-1] == reg and p not in paths for (_, p) in rows):
            continue  # waits the program does not predict (the sync barriers)
        got = summary.get(reg, {}).get("wait_s")
        if got is None or not secs - TOL <= got <= want_hi[reg] + TOL:
            fails.append(f"--summary wait_s of {reg}: {got}, program {span(secs, want_hi[reg])}")
    return fails


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
    fails, n, big = [], 0, 0
    for line in open(expected):
        words = line.rstrip("\n").split("\t")
        if words[0] == "unpaired":  # unpaired REASON COUNT: in the JSON and said once
            want, key = int(words[2]), words[1]
            if got["unpaired"].get(key) != want:
                fails.append(f"unpaired {key}: {got['unpaired'].get(key)}, want {want}")
            said = [m for m in out.stderr.splitlines() if "left unpaired" in m]
            if want == 0 and said:
                fails.append(f"stderr says calls were left unpaired: {said}")
            elif want and not any(m.count(f" {want} MPI calls left unpaired: {key}")
                                  for m in said):
                fails.append(f"stderr does not say {want} {key} calls were left unpaired: {said}")
            continue
        state, rank, cpath, secs, crank, cregion = words[:6]
        rank, crank = int(rank), int(crank)
        secs, hi = expected_span(words)
        if secs <= 0:  # the late rank came early after all (a loaded node): no wait
            cregion = "-"
        n += 1
        big += secs >= 0.09  # 150 ms built in, 20 ms settle
        keys = [k for k in rows if k[0] == rank and k[1].endswith(cpath)]
        val = sum(rows[k][state + "_s"] for k in keys)
        if not secs - TOL <= val <= hi + TOL:
            fails.append(f"{state} rank {rank} {cpath}: {val:.6f} s, program {span(secs, hi)}")
        if cregion != "-" and (state, crank, cregion) not in causes:
            fails.append(f"{state} rank {rank}: cause ({crank}, {cregion}) not listed")
    if 2 * big < n:
        fails.append(f"only {big} of {n} waits the program made were 90 ms or more")
    fails += summary_wait_s(pproc, path, expected, rows)
    ls = h5py_late_sender(path)
    mine = sum(w["late_sender_s"] for (r, p), w in rows.items()
               if r == 0 and p.endswith("MPI_Recv")
               and not p.startswith("phase_tags/"))  # tags 21, 22 (.F90)
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
