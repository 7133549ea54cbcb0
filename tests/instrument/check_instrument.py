#!/usr/bin/python3
"""Checks the regions of an instrumented program's profile with h5py.

usage: check_instrument.py FILE NAME=CALLS... [--traced NAME=EVENTS]...
                           [--absent NAME]... [--only] [--aggregate]

NAME=CALLS: region NAME has num_calls CALLS (and as many stamps unless
--traced gives the number of stamped calls). --absent: no such region.
--only: no regions besides the NAME=CALLS ones. --aggregate: FILE is in
profile mode's aggregate layout; CALLS are its timed calls (no stamps). Always: no region is
still named after an address ("0x..."), every stamp pair has end >= start.
"""
import argparse
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("expect", nargs="*")
    ap.add_argument("--traced", action="append", default=[])
    ap.add_argument("--absent", action="append", default=[])
    ap.add_argument("--only", action="store_true")
    ap.add_argument("--aggregate", action="store_true")
    a = ap.parse_args()
    fails = []
    with h5py.File(a.file, "r") as f:
        regs = {}
        if a.aggregate:  # the reference tool's layout: names by id, counts per (rank, id)
            names = [n.decode() if isinstance(n, bytes) else str(n)
                     for n in f["region_table/names"][()]]
            idx = f["rank_region_index"]
            for rid, calls in zip(idx["region_ids"][()], idx["aggregate_counts"][()]):
                regs[names[rid]] = (int(calls), 0)
        for g in ([] if a.aggregate else f["rank0/regions"].values()):
            name = g.attrs["name"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            st = g["start_times"][()] if "start_times" in g else np.zeros(0, np.int64)
            en = g["end_times"][()] if "end_times" in g else np.zeros(0, np.int64)
            if len(st) != len(en) or not np.all(en >= st):
                fails.append(f"{name}: bad stamps")
            regs[name] = (int(g.attrs["num_calls"]), len(st))
    want = dict(e.split("=") for e in a.expect)
    traced = dict(e.split("=") for e in a.traced)
    for name, calls in want.items():
        got = regs.get(name)
        stamps = 0 if a.aggregate else int(traced.get(name, calls))
        if got != (int(calls), stamps):
            fails.append(f"{name}: (num_calls, stamps) = {got}, want {(int(calls), stamps)}")
    for name in a.absent:
        if name in regs:
            fails.append(f"{name}: present, should be excluded")
    for name in regs:
        if name.startswith("0x"):
            fails.append(f"{name}: address never resolved")
        if a.only and name not in want:
            fails.append(f"{name}: unexpected region")
    for msg in fails:
        print("FAIL:", msg, file=sys.stderr)
    if fails:
        print("regions:", regs, file=sys.stderr)
        sys.exit(1)
    print("ok:", regs)


main()
