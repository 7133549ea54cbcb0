"""Writes columnar (schema 2) files of the reference tool whose call ids take
each way of the reader's id tree, from one data set, with h5py.

usage: make_ids_files.py DIR

Data: ranks 0, 1 and 3, each a few hundred calls nested up to four deep
(deterministic pseudo-random), regions step, phase, kernel, io, mpi;
thread ids 0 and 1. The ids are those of the reference tool (call_stack.py):
a call's id is its position on its rank in start order, its parent id the
id of the call enclosing it; then some calls are moved under another call
that started before them (so the ids, not the stamps, define the tree), a
few ids are skipped (holes) and some parent ids name a hole (those calls
are roots).
  ref_ids_dense.h5    those ids: dense per rank, every parent id below its
                      child's (the reader indexes by id, one pass)
  ref_ids_sparse.h5   the same ids spread far apart (id * 7919 + 1000003):
                      the reader hashes them; the same tree as dense
  ref_ids_dup.h5      dense, but on every rank the sixth step call repeats the
                      fifth's id (the first one with the id is the parent of
                      the id's children; the sixth's children become roots)
  ref_ids_forward.h5  dense, but on every rank one call's parent is a call
                      that starts after it (a parent id above its own)
  ref_ids_huge.h5     dense, but on every rank the last call's id is the
                      largest int64 (the span of the ids must not overflow)
"""
import sys

import h5py
import numpy as np

NAMES = ["step", "phase", "kernel", "io", "mpi"]
RANKS = [0, 1, 3]


def rank_calls(rank):
    """[(start, end, name index, tid, parent position)] in start order."""
    rng = np.random.default_rng(1000 + rank)
    out = []

    def call(start, depth, parent, tid):
        me = len(out)
        out.append(None)
        t, kids = start + 10, int(rng.integers(0, 4)) if depth < 3 else 0
        for _ in range(kids):
            t = call(t, depth + 1, me, tid) + int(rng.integers(1, 20))
        end = t + int(rng.integers(5, 50))
        name = 0 if depth == 0 else int(rng.integers(1, len(NAMES)))
        out[me] = (start, end, name, tid, parent)
        return end

    t = 1000
    for i in range(60):
        t = call(t, 0, -1, 1 if i % 7 == 3 else 0) + 100
    return out


def rank_ids(rank, calls):
    """call ids and parent ids of the rank (see the module's docstring)."""
    rng = np.random.default_rng(2000 + rank)
    ids, hole = [], 0
    for i in range(len(calls)):
        if i % 37 == 5:
            hole += 1  # an id no call has
        ids.append(i + hole)
    pids = [ids[c[4]] if c[4] >= 0 else -1 for c in calls]
    for i in range(1, len(calls)):
        u = rng.random()
        if u < 0.06:
            pids[i] = ids[int(rng.integers(0, i))]  # moved under an earlier call
        elif u < 0.08:
            pids[i] = ids[i] - 1 if i % 37 == 5 else -1  # a hole, or no parent
    return ids, pids


def write(path, variant):
    rows, st, en, tids, cids, pids = [], [], [], [], [], []
    for rank in RANKS:
        calls = rank_calls(rank)
        ids, par = rank_ids(rank, calls)
        if variant == "sparse":
            ids = [i * 7919 + 1000003 for i in ids]
            par = [p * 7919 + 1000003 if p >= 0 else -1 for p in par]
        if variant == "huge":
            ids[-1] = 2**63 - 1
        if variant == "forward":
            # The call after the first root's first child hangs under the last call.
            par[2] = ids[-1]
        for g in range(len(NAMES)):
            mine = [i for i, c in enumerate(calls) if c[2] == g]
            if not mine:
                continue
            rows.append((g, rank, len(st), len(mine)))
            cid = [ids[i] for i in mine]
            if variant == "dup" and g == 0:
                cid[5] = cid[4]  # two roots: nothing but the repeat tells
            st += [calls[i][0] for i in mine]
            en += [calls[i][1] for i in mine]
            tids += [calls[i][3] for i in mine]
            cids += cid
            pids += [par[i] for i in mine]
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "columnar"
        f["region_table/names"] = np.array(NAMES, dtype=h5py.string_dtype())
        idx = f.create_group("rank_region_index")
        idx["region_ids"] = np.array([r[0] for r in rows], np.uint32)
        idx["ranks"] = np.array([r[1] for r in rows], np.uint32)
        idx["event_offsets"] = np.array([r[2] for r in rows], np.uint64)
        idx["event_counts"] = np.array([r[3] for r in rows], np.uint64)
        ev = f.create_group("events")
        ev["start_times"] = np.array(st, np.int64)
        ev["end_times"] = np.array(en, np.int64)
        ev["thread_ids"] = np.array(tids, np.int32)
        ev["call_ids"] = np.array(cids, np.int64)
        ev["parent_ids"] = np.array(pids, np.int64)


if __name__ == "__main__":
    for v in ("dense", "sparse", "dup", "forward", "huge"):
        write(f"{sys.argv[1]}/ref_ids_{v}.h5", v)
