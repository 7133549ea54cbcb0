#!/usr/bin/env python3
"""check_stab.py CASE DIR SHIM PPROC - groups read from their symbol tables.

In the per-rank layout the reader takes the links of the root, of each
rank<N> group, of its regions group and of each region group from the
group's symbol table (postproc/src/reader_stab.c: the original file
format, h5py's default) instead of opening the groups with HDF5; anything
not plain (attributes on a region or rank group, soft links, new-style
groups) is opened with HDF5 as before. For CASE, writes DIR/stab_CASE.h5
with h5py, then:
  1. runs PPROC FILE --summary and PPROC FILE --tree under the LD_PRELOAD
     shim SHIM, and again with SCOPE_PROFILER_READER_DIRECT=data (no
     parsing: every group opened with HDF5): the outputs must be the same,
     byte for byte;
  2. checks each region's calls in --summary against h5py's count of its
     start_times over the ranks (an independent reader);
  3. counts the group opens (H5Gopen2 + H5Oopen_by_addr) and link
     iterations (H5Literate) of --summary: in the plain case at most the
     first rank's (HDF5 and the parse are compared there), far fewer than
     the region groups, which the run without parsing opens each.
Prints "ok" on success.

Cases: plain (no attribute on rank or region groups; the root has one),
attrs (region groups with name and num_calls attributes: opened with
HDF5), nested (the reference tool's nested names: regions/solver/rhs),
soft (a soft link among a rank's region links), hostattr (rank groups with
a hostname attribute: their links through HDF5, their region groups
parsed), norank (a rank group without regions), latest (libver latest:
new-style groups, never parsed).
"""
import os
import subprocess
import sys

import h5py
import numpy as np

RANKS, REGIONS = 4, 6


def write(case, path):
    """Writes the case's file; returns {region name: calls over all ranks}."""
    kw = {"libver": "latest"} if case == "latest" else {}
    calls = {}
    with h5py.File(path, "w", **kw) as f:
        f.attrs["scope_profiler_schema"] = np.int64(1)
        for rank in range(RANKS):
            rg = f.create_group(f"rank{rank}")
            if case == "hostattr":
                rg.attrs["hostname"] = f"node{rank % 2}"
            if case == "norank" and rank == 2:
                continue
            regs = rg.create_group("regions")
            for reg in range(REGIONS):
                name = f"r{reg}"
                if case == "nested" and reg >= REGIONS - 2:
                    name = f"solver/step{reg}"
                g = regs.create_group(name)
                n = 3 + reg + rank
                s = 10**9 + rank * 7 + reg * 10**6 + np.arange(n, dtype=np.int64) * 1000
                g["start_times"] = s
                g["end_times"] = s + 100 + reg
                if case == "attrs":
                    g.attrs["name"] = f"region {reg}"
                    g.attrs["num_calls"] = np.int64(n)
                label = f"region {reg}" if case == "attrs" else name
                calls[label] = calls.get(label, 0) + n
            if case == "soft" and rank == 1:
                regs["alias"] = h5py.SoftLink(f"/rank{rank}/regions/r0")
                calls["alias"] = calls.get("alias", 0) + 3 + rank
    return calls


def run(pproc_bin, path, args, env, counts):
    """(exit code, stdout, stderr) and the shim's counts."""
    if os.path.exists(counts):
        os.remove(counts)
    p = subprocess.run([pproc_bin, path] + args, env=env, capture_output=True, text=True,
                       timeout=120)
    got = {}
    with open(counts) as f:
        for line in f:
            name, value = line.split()
            got[name] = got.get(name, 0) + int(value)
    return (p.returncode, p.stdout, p.stderr), got


def summary_calls(text):
    """{region: calls} of --summary's rows."""
    out = {}
    for line in text.splitlines():
        cols = line.split()
        if line.startswith("#") or len(cols) < 12 or not cols[0].isdigit():
            continue
        out[" ".join(cols[11:])] = int(cols[0])
    return out


def main():
    case, d, shim, pproc_bin = sys.argv[1:5]
    path = os.path.join(d, f"stab_{case}.h5")
    want = write(case, path)
    counts = os.path.join(d, f"stab_{case}.calls")
    env = dict(os.environ, LD_PRELOAD=shim, SP_H5_CALLS_FILE=counts)
    env.pop("SCOPE_PROFILER_READER_DIRECT", None)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    slow_env = dict(env, SCOPE_PROFILER_READER_DIRECT="data")
    fails = []
    for args in (["--summary"], ["--tree"]):
        fast, n_fast = run(pproc_bin, path, args, env, counts)
        slow, n_slow = run(pproc_bin, path, args, slow_env, counts)
        if fast != slow:
            fails.append(f"{args[0]} differs from SCOPE_PROFILER_READER_DIRECT=data:\n{fast}\n{slow}")
        if fast[0] != 0:
            fails.append(f"{args[0]} failed: {fast}")
        if args[0] == "--summary":
            got = summary_calls(fast[1])
            if got != want:
                fails.append(f"calls per region {got}, h5py counts {want}")
            total = sum(want.values())
            nregions = RANKS * REGIONS
            opens = n_fast.get("H5Gopen2", 0) + n_fast.get("H5Oopen_by_addr", 0)
            opens_h5 = n_slow.get("H5Gopen2", 0) + n_slow.get("H5Oopen_by_addr", 0)
            print(f"{case}: {nregions} region groups, {total} calls; group opens {opens} "
                  f"(H5Literate {n_fast.get('H5Literate', 0)}), without parsing {opens_h5} "
                  f"(H5Literate {n_slow.get('H5Literate', 0)})")
            if opens_h5 < nregions - REGIONS:
                fails.append("the shim counted too few group opens (not preloaded?)")
            # The first rank is read both ways (the parse compared with HDF5):
            # its groups, the first region group, then nothing more.
            if case == "plain" and (opens > 4 or n_fast.get("H5Literate", 0) > 4):
                fails.append(f"{opens} group opens and {n_fast.get('H5Literate', 0)} H5Literate:"
                             " the groups were not read from their symbol tables")
            if case == "latest" and opens != opens_h5:
                fails.append(f"new-style groups: {opens} group opens, {opens_h5} without parsing")
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print("ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
