#!/usr/bin/python3
"""Compares a columnar file's likwid/ with the per-rank file of the same run.

usage: check_likwid_columnar.py RANKS_FILE COLUMNAR_FILE NRANKS

RANKS_FILE holds rank<N>/likwid/regions/<name>/{cpus,counts,times,events,
event_names} (checked against the marker files by check_likwid.py);
COLUMNAR_FILE must hold the same records in likwid/ (the core's
likwid_columnar.c): likwid/{ranks,groups}, likwid/regions/{ranks,names,tags,
thread_offsets,thread_counts,event_offsets,event_counts,value_offsets},
likwid/event_names, likwid/threads/{cpus,counts,times}, likwid/values,
and nothing named per rank.
"""
import sys

import h5py
import numpy as np

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    rpath, cpath, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with h5py.File(rpath, "r") as rf, h5py.File(cpath, "r") as cf:
        check(s(cf.attrs.get("storage_layout", "")) == "columnar", "storage_layout is not columnar")
        check(not any(k.startswith("rank") and k[4:].isdigit() for k in cf.keys()),
              f"columnar file has rank groups: {list(cf.keys())}")
        lw = cf.get("likwid")
        check(lw is not None, "no likwid/ in the columnar file")
        if lw is None:
            sys.exit(1)
        names = []
        lw.visit(names.append)
        check(not any("rank" in n.split("/")[-1] and n.split("/")[-1] != "ranks" for n in names),
              f"likwid/ has per-rank objects: {names}")
        ranks = list(lw["ranks"][()])
        groups = [s(g) for g in lw["groups"][()]]
        rg = lw["regions"]
        rows = {(int(rk), s(nm)): i for i, (rk, nm) in enumerate(zip(rg["ranks"][()], rg["names"][()]))}
        check(len(rows) == len(rg["ranks"]), "likwid/regions: a (rank, name) row twice")
        want_ranks, nregions = [], 0
        for r in range(nranks):
            rl = rf.get(f"rank{r}/likwid")
            if rl is None:
                continue
            want_ranks.append(r)
            check(r in ranks and groups[ranks.index(r)] == s(rl.attrs["group"]),
                  f"rank{r}: group {s(rl.attrs['group'])!r} not in likwid/groups")
            for link, g in rl["regions"].items():
                nregions += 1
                name = s(g.attrs["name"])
                i = rows.get((r, name))
                check(i is not None, f"rank{r}: region {name} has no likwid/regions row")
                if i is None:
                    continue
                t0, nt = int(rg["thread_offsets"][i]), int(rg["thread_counts"][i])
                e0, ne = int(rg["event_offsets"][i]), int(rg["event_counts"][i])
                v0 = int(rg["value_offsets"][i])
                check(s(rg["tags"][i]) == s(g.attrs["tag"]), f"rank{r}/{name}: tag")
                check(nt == len(g["cpus"]) and ne == g["events"].shape[1],
                      f"rank{r}/{name}: {nt} x {ne}, per-rank {g['events'].shape}")
                th = lw["threads"]
                check(np.array_equal(th["cpus"][t0:t0 + nt], g["cpus"][()]), f"rank{r}/{name}: cpus")
                check(th["counts"].dtype == np.int64 and
                      np.array_equal(th["counts"][t0:t0 + nt], g["counts"][()]),
                      f"rank{r}/{name}: counts")
                check(np.array_equal(th["times"][t0:t0 + nt], g["times"][()]), f"rank{r}/{name}: times")
                vals = lw["values"][v0:v0 + nt * ne].reshape(nt, ne)
                check(np.array_equal(vals, g["events"][()]), f"rank{r}/{name}: values {vals}")
                en = [s(x) for x in lw["event_names"][e0:e0 + ne]]
                check(en == [s(x) for x in g["event_names"][()]], f"rank{r}/{name}: event names {en}")
        check(sorted(ranks) == want_ranks, f"likwid/ranks {ranks}, per-rank file {want_ranks}")
        check(len(rg["ranks"]) == nregions, f"likwid/regions: {len(rg['ranks'])} rows, want {nregions}")
        check(nregions > 0, "no LIKWID results to compare")
    if fails:
        sys.exit(1)
    print("ok")


main()
