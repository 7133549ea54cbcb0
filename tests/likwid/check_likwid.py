#!/usr/bin/python3
"""Checks a file written by test_likwid with h5py.

usage: check_likwid.py FILE CASE NRANKS

Every rank r recorded "work" 3 calls, "inner" r+1 calls (inside work) and
"io" 2 calls. mode_count: num_calls only, no datasets; mode_trace and
mode_spill: start/end datasets with num_calls entries; results: also
rank<N>/likwid as read back from the marker file test_likwid wrote.
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
    path, case, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with h5py.File(path, "r") as f:
        check(int(f.attrs["scope_profiler_schema"]) == 1, "schema attribute")
        for r in range(nranks):
            want = {"work": 3, "inner": r + 1, "io": 2}
            regs = f[f"rank{r}/regions"]
            got = {s(g.attrs["name"]): int(g.attrs["num_calls"]) for g in regs.values()}
            check(got == want, f"rank{r}: regions {got}, want {want}")
            for link, g in regs.items():
                has = "start_times" in g and "end_times" in g
                if case == "mode_count":
                    check(len(g.keys()) == 0, f"rank{r}/{link}: datasets in count-only mode")
                    continue
                check(has, f"rank{r}/{link}: no start/end datasets")
                if has:
                    st, en = g["start_times"][()], g["end_times"][()]
                    check(st.dtype == np.int64 and len(st) == got[s(g.attrs['name'])],
                          f"rank{r}/{link}: {len(st)} starts of {st.dtype}")
                    check(bool(np.all(en >= st)), f"rank{r}/{link}: end before start")
            lw = f.get(f"rank{r}/likwid")
            if case != "results":
                check(lw is None, f"rank{r}: likwid group without likwid-perfctr")
                continue
            check(lw is not None, f"rank{r}: no likwid group")
            if lw is None:
                continue
            lregs = lw["regions"]
            check(sorted(lregs.keys()) == ["inner", "work"], f"rank{r}: likwid regions {list(lregs)}")
            names = [s(x) for x in lregs["work"]["event_names"][()]]
            check(names == ["FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", "CPU_CLK_UNHALTED_CORE"],
                  f"rank{r}: event names {names}")
            w, i = lregs["work"], lregs["inner"]
            check(s(w.attrs["name"]) == "work" and s(w.attrs["tag"]) == "work", "work attributes")
            check(list(w["cpus"][()]) == [0, 1], f"rank{r}: cpus {w['cpus'][()]}")
            check(w["counts"].dtype == np.int64 and list(w["counts"][()]) == [3, 3],
                  f"rank{r}: work counts {w['counts'][()]}")
            check(np.allclose(w["times"][()], [0.5, 1.5]), f"rank{r}: work times")
            ev = w["events"][()]
            check(ev.shape == (2, 2) and np.allclose(ev, [[1000 * (r + 1), 7], [1000 * (r + 1) + 1, 7]]),
                  f"rank{r}: work events {ev}")
            check(list(i["counts"][()]) == [r + 1, r + 1], f"rank{r}: inner counts")
            check(np.allclose(i["events"][()], [[10 * (r + 1), 3], [10 * (r + 1), 4]]),
                  f"rank{r}: inner events {i['events'][()]}")
    if fails:
        sys.exit(1)
    print("ok")


main()
