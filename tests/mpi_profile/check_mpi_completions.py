#!/usr/bin/python3
"""Checks mpi_completions.c's file with h5py: one record per completed request.

usage: check_mpi_completions.py FILE DIR NRANKS [--merge MERGE MPIEXEC ARGS...]

FILE may have either layout: rank<r>/mpi/completions, or the rank's rows
of the columnar layout's mpi_completions/ (regions as region_table
indices, the posting calls' comm and tag in events/mpi_comms, mpi_tags).

With --merge, runs MPIEXEC ARGS... exit first (the program leaves its spill
files, no finalize) and checks what MERGE (scope-profiler-merge) rebuilds
from them into FILE.

DIR holds done_<r>.txt as each rank wrote it from MPI's statuses and its own
arguments: per completed request the completing call (name, index among
this rank's calls of that name), the posting call (name, index), send 0/1,
peer, tag, bytes and the communicator ("world" or "P"). rank<r>/mpi/
completions must hold exactly these (as a multiset), with region_names
naming the regions, thread and post_thread 0, comm 0 for "world" and for
"P" one id >= 2 (MPI_COMM_WORLD and MPI_COMM_SELF are 0 and 1), and the
posting call's own record (rank<r>/regions/<post>/comm and, for a send,
tag at post_call) agreeing with the completion.
"""
import os
import shutil
import subprocess
import sys

import h5py


def run_and_merge(out, merge, run):
    for p in [out]:
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(out + ".spill", ignore_errors=True)
    env = dict(os.environ, SCOPE_PROFILER_FILE=out, SCOPE_PROFILER_PROFILE_MPI="1")
    subprocess.run(run + ["exit"], env=env, check=False)  # no MPI_Finalize: mpirun says failed
    spill = out + ".spill"
    if not os.path.isdir(spill) or not os.listdir(spill):
        sys.exit(f"FAIL: no spill files in {spill}")
    subprocess.run([merge, "-o", out, spill], check=True)


COLS = ("wait_region", "wait_call", "thread", "post_region", "post_call", "post_thread", "peer",
        "tag", "comm", "bytes", "send")


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def rank_tables(f, r):
    """Per-rank layout: region names by handle, the columns, regions by name."""
    key = f"rank{r}/mpi/completions"
    if key not in f:
        return None
    g = f[key]
    names = [text(x) for x in g.attrs["region_names"]]
    cols = {c: g[c][()].tolist() for c in COLS}
    regs = {text(rg.attrs["name"]): rg for rg in f[f"rank{r}/regions"].values()}
    return names, cols, regs


def columnar_tables(f, r):
    """Columnar layout: rank r's rows of mpi_completions/ (regions as
    region_table indices) and its calls' comm and tag from events/."""
    names = [text(x) for x in f["region_table/names"][()]]
    g = f["mpi_completions"]
    sel = g["ranks"][()] == r
    if not sel.any():
        return None
    cols = {c: g[c][()][sel].tolist() for c in COLS}
    ix, ev = f["rank_region_index"], f["events"]
    regs = {}
    for gid, rk, o, n in zip(ix["region_ids"][()], ix["ranks"][()], ix["event_offsets"][()],
                             ix["event_counts"][()]):
        if rk == r:
            regs[names[gid]] = {"comm": ev["mpi_comms"][o:o + n], "tag": ev["mpi_tags"][o:o + n]}
    return names, cols, regs


def main():
    path, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if len(sys.argv) > 5 and sys.argv[4] == "--merge":
        run_and_merge(path, sys.argv[5], sys.argv[6:])
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(n):
            want = []
            with open(f"{d}/done_{r}.txt") as t:
                for ln in t:
                    w = ln.split()
                    want.append((w[0], int(w[1]), w[2], int(w[3]), int(w[4]), int(w[5]),
                                 int(w[6]), int(w[7]), w[8]))
            tables = columnar_tables(f, r) if "mpi_completions" in f else rank_tables(f, r)
            if tables is None:
                fails.append(f"rank{r}: no rank{r}/mpi/completions nor mpi_completions/")
                continue
            names, cols, regs = tables
            got, pcomm = [], set()
            for i in range(len(cols["wait_region"])):
                post = names[cols["post_region"][i]]
                comm = cols["comm"][i]
                if cols["thread"][i] != 0 or cols["post_thread"][i] != 0:
                    fails.append(f"rank{r} row {i}: threads {cols['thread'][i]}, "
                                 f"{cols['post_thread'][i]}, want 0")
                pc = cols["post_call"][i]
                if post not in regs or not 0 <= pc < len(regs[post]["comm"]):
                    fails.append(f"rank{r} row {i}: post call {post}[{pc}] not in the file")
                else:
                    if regs[post]["comm"][pc] != comm:
                        fails.append(f"rank{r} row {i}: {post}[{pc}] has comm "
                                     f"{regs[post]['comm'][pc]}, completion {comm}")
                    if cols["send"][i] and regs[post]["tag"][pc] != cols["tag"][i]:
                        fails.append(f"rank{r} row {i}: {post}[{pc}] tag "
                                     f"{regs[post]['tag'][pc]}, completion {cols['tag'][i]}")
                if comm != 0:
                    pcomm.add(comm)
                got.append((names[cols["wait_region"][i]], cols["wait_call"][i], post, pc,
                            cols["send"][i], cols["peer"][i], cols["tag"][i], cols["bytes"][i],
                            "world" if comm == 0 else "P"))
            if len(pcomm) != 1 or min(pcomm) < 2:
                fails.append(f"rank{r}: ids of P {sorted(pcomm)}, want one id >= 2")
            if sorted(got) != sorted(want):
                extra = sorted(set(got) - set(want))
                missing = sorted(set(want) - set(got))
                fails.append(f"rank{r}: {len(got)} completions, program saw {len(want)}; "
                             f"not seen {extra}; missing {missing}")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        return 1
    print(f"ok: the completions of {n} ranks as the program saw them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
