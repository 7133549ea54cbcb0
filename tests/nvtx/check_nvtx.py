#!/usr/bin/python3
"""Checks the regions an NVTX-annotated program left in its profile, with h5py.

usage: check_nvtx.py FILE [NAME=CALLS | NAME@RANK=CALLS]... [--ranks N]
                     [--inside CHILD,PARENT]... [--threads NAME=N]...
                     [--apart NAME,OTHER]... [--only]

NAME=CALLS: on every rank, region NAME has num_calls CALLS and as many stamp
pairs, each with end >= start (NAME@RANK=CALLS: on that rank only).
--ranks N: the file holds rank0..rank<N-1>. --inside: every call of CHILD lies
within a call of PARENT on the same thread. --threads: NAME's calls come from
N distinct threads. --apart: no thread records both NAME and OTHER.
--only: no regions besides the NAME=CALLS ones.
"""
import argparse
import sys

import h5py
import numpy as np


def read_rank(g):
    regs = {}
    for r in g["regions"].values():
        name = r.attrs["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        st = r["start_times"][()]
        en = r["end_times"][()]
        th = r["thread_ids"][()] if "thread_ids" in r else np.zeros(len(st), np.int32)
        regs[name] = (int(r.attrs["num_calls"]), st, en, th)
    return regs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("expect", nargs="*")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--inside", action="append", default=[])
    ap.add_argument("--threads", action="append", default=[])
    ap.add_argument("--apart", action="append", default=[])
    ap.add_argument("--only", action="store_true")
    a = ap.parse_args()
    fails = []
    with h5py.File(a.file, "r") as f:
        ranks = sorted(k for k in f if k.startswith("rank"))
        want_ranks = [f"rank{i}" for i in range(a.ranks)]
        if sorted(ranks) != sorted(want_ranks):
            fails.append(f"ranks {ranks}, want {want_ranks}")
        data = {int(k[4:]): read_rank(f[k]) for k in ranks}
    for rank, regs in sorted(data.items()):
        want = {}
        for e in a.expect:
            key, calls = e.rsplit("=", 1)
            name, _, only_rank = key.partition("@")
            if only_rank == "" or int(only_rank) == rank:
                want[name] = int(calls)
        for name, calls in want.items():
            got = regs.get(name)
            if got is None:
                fails.append(f"rank{rank} {name}: missing, want {calls} calls")
                continue
            n, st, en, _ = got
            if n != calls or len(st) != calls or len(en) != calls:
                fails.append(f"rank{rank} {name}: num_calls {n}, stamps {len(st)}, want {calls}")
            elif not np.all(en >= st):
                fails.append(f"rank{rank} {name}: a call ends before it starts")
        if a.only:
            for name in regs:
                if name not in want:
                    fails.append(f"rank{rank} {name}: unexpected region")
        for e in a.inside:
            child, parent = e.split(",")
            if child not in regs or parent not in regs:
                fails.append(f"rank{rank} --inside {e}: region missing")
                continue
            _, cs, ce, ct = regs[child]
            _, ps, pe, pt = regs[parent]
            for s, t, th in zip(cs, ce, ct):
                if not np.any((pt == th) & (ps <= s) & (pe >= t)):
                    fails.append(f"rank{rank} {child} call [{s}, {t}] on thread {th} is not "
                                 f"inside a call of {parent}")
                    break
        for e in a.threads:
            name, n = e.split("=")
            got = len(set(regs[name][3].tolist())) if name in regs else 0
            if got != int(n):
                fails.append(f"rank{rank} {name}: calls on {got} threads, want {n}")
        for e in a.apart:
            name, other = e.split(",")
            if name in regs and other in regs:
                both = set(regs[name][3].tolist()) & set(regs[other][3].tolist())
                if both:
                    fails.append(f"rank{rank} {name} and {other} share threads {sorted(both)}")
    for m in fails:
        print("FAIL:", m)
    if fails:
        return 1
    print(f"ok: {a.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
