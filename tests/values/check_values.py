#!/usr/bin/python3
"""Holds a trace file's values per call (docs/values.md) to the program's own
record of what it set (test_values.c's oracle lines), read with h5py alone.

check_values.py ORACLE_PREFIX NRANKS [--ranks FILE] [--columnar FILE]
                [--killed] [--lost N]

  --ranks     the per-rank layout: for every rank and region the program set
              values in, call_values/<key> has one value per call in
              start_times order (thread by thread), each equal to the last
              value the program set on that call (its thread and its number
              among the thread's starts of the region), INT64_MIN / NaN / ""
              where it set none; @key is the key; no other datasets.
  --columnar  the columnar layout: call_values/<key> over events/*, each
              pair's slice equal to the oracle the same way.
  --killed    a run killed before sp_finalize and merged: only the calls in
              the file are held, each to every value the program set on
              it (a region's keys: those set on its calls in the file; no
              call_values only when none was), and some must carry values.
  --lost N    call_values@values_lost of region "wide" on every rank.
Exit 0 with an OK line, or 1 with the first failure.
"""
import math
import sys
from collections import defaultdict
from urllib.parse import quote

import h5py
import numpy as np

INT64_MIN = -(2**63)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def link(name):
    s = name.replace("%", "%25").replace("/", "%2F")
    return "%2E" if s == "." else s


def read_oracle(prefix, nranks):
    """(rank, region) -> {(thread, seq): {key: (kind, value)}}, kinds per key."""
    want = defaultdict(lambda: defaultdict(dict))
    kinds = {}
    for r in range(nranks):
        with open(f"{prefix}.{r}", encoding="utf-8") as f:
            for line in f:
                rank, tid, region, seq, key, kind, val = line.rstrip("\n").split("\t", 6)
                v = int(val) if kind == "i" else float(val) if kind == "d" else val
                want[(int(rank), region)][(int(tid), int(seq))][key] = (kind, v)
                kinds[(int(rank), region, key)] = kind
    return want, kinds


def same(kind, got, exp):
    """exp None: the key was not set on the call."""
    if kind == "i":
        return int(got) == (INT64_MIN if exp is None else exp)
    if kind == "d":
        return math.isnan(got) if exp is None else float(got) == exp
    return text(got) == ("" if exp is None else exp)


def seqs(tids):
    """The number of each call among its thread's calls of the region."""
    count = defaultdict(int)
    out = np.empty(len(tids), dtype=np.int64)
    for j, t in enumerate(tids):
        out[j] = count[t]
        count[t] += 1
    return out


def check_calls(where, want_calls, keys, kinds, tids, starts, columns, killed):
    """columns: key -> array aligned with tids. Returns values compared."""
    sq = seqs(tids)
    for t in set(tids.tolist()):
        s = starts[tids == t]
        if np.any(np.diff(s) < 0):
            fail(f"{where}: thread {t}'s starts not in order")
    n = 0
    for key in keys:
        kind = kinds[key]
        col = columns.get(key)
        if col is None:
            fail(f"{where}: no call_values for key {key!r}")
        if len(col) != len(tids):
            fail(f"{where}/{key}: {len(col)} values for {len(tids)} calls")
        for j in range(len(tids)):
            exp = want_calls.get((int(tids[j]), int(sq[j])), {}).get(key)
            e = None if exp is None else exp[1]
            if not same(kind, col[j], e):
                fail(f"{where}/{key}: call {j} (thread {tids[j]}, #{sq[j]}): {col[j]!r}, want {e!r}")
            n += exp is not None
    if killed and n == 0:
        fail(f"{where}: no value survived")
    return n


def dtype_ok(kind, ds):
    if kind == "i":
        return ds.dtype == np.int64
    if kind == "d":
        return ds.dtype == np.float64
    return h5py.check_string_dtype(ds.dtype) is not None


def check_ranks(path, want, kinds, nranks, killed, lost):
    total = 0
    with h5py.File(path, "r") as f:
        for (r, region), calls in sorted(want.items()):
            gpath = f"rank{r}/regions/{link(region)}"
            if gpath not in f:
                if killed:
                    continue
                fail(f"{gpath} missing")
            g = f[gpath]
            starts = g["start_times"][:]
            tids = g["thread_ids"][:] if "thread_ids" in g else np.zeros(len(starts), np.int32)
            keys = {k for (rr, rg, k) in kinds if rr == r and rg == region}
            if killed:  # the keys set on the calls that reached the file
                here = set(zip(tids.tolist(), seqs(tids).tolist()))
                keys = {k for call, kv in calls.items() if call in here for k in kv}
            if "call_values" not in g:
                if killed and not keys:
                    continue
                fail(f"{gpath}: no call_values (keys {sorted(keys)} set on its calls)")
            cv = g["call_values"]
            names = {text(cv[d].attrs["key"]): d for d in cv}
            if set(names) != keys:
                fail(f"{gpath}/call_values: keys {sorted(names)}, want {sorted(keys)}")
            kk = {k: kinds[(r, region, k)] for k in keys}
            for k, d in names.items():
                if d != link(k) or not dtype_ok(kk[k], cv[d]):
                    fail(f"{gpath}/call_values/{d}: name or type {cv[d].dtype} wrong for {k!r}")
            cols = {k: cv[d][:] for k, d in names.items()}
            total += check_calls(gpath, calls, sorted(keys), kk, tids, starts, cols, killed)
            if lost is not None and region == "wide" and int(cv.attrs["values_lost"]) != lost:
                fail(f"{gpath}: values_lost {cv.attrs['values_lost']}, want {lost}")
            if lost is not None and region != "wide" and int(cv.attrs["values_lost"]) != 0:
                fail(f"{gpath}: values_lost {cv.attrs['values_lost']}, want 0")
    return total


def check_columnar(path, want, kinds, nranks, lost):
    total = 0
    with h5py.File(path, "r") as f:
        names = [text(x) for x in f["region_table/names"][:]]
        idx = {k: f["rank_region_index/" + k][:] for k in
               ("region_ids", "ranks", "event_offsets", "event_counts")}
        ev = {k: f["events/" + k][:] for k in ("start_times", "thread_ids")}
        cv = f["call_values"]
        cols = {text(cv[d].attrs["key"]): cv[d][:] for d in cv}
        allkeys = {k for (_, _, k) in kinds}
        if set(cols) != allkeys:
            fail(f"columnar call_values: keys {sorted(cols)}, want {sorted(allkeys)}")
        for k, c in cols.items():
            if len(c) != len(ev["start_times"]):
                fail(f"columnar call_values/{k}: {len(c)} values for {len(ev['start_times'])} events")
        if lost is not None and int(cv.attrs["values_lost"]) != lost * nranks:
            fail(f"columnar values_lost {cv.attrs['values_lost']}, want {lost * nranks}")
        done = set()
        for p in range(len(idx["ranks"])):
            r, region = int(idx["ranks"][p]), names[int(idx["region_ids"][p])]
            o, n = int(idx["event_offsets"][p]), int(idx["event_counts"][p])
            keys = sorted(k for (rr, rg, k) in kinds if rr == r and rg == region)
            sl = slice(o, o + n)
            kk = {k: kinds[(r, region, k)] for k in keys}
            total += check_calls(f"columnar ({r}, {region})", want.get((r, region), {}), keys, kk,
                                 ev["thread_ids"][sl], ev["start_times"][sl],
                                 {k: cols[k][sl] for k in keys}, False)
            # keys of other regions are unset in this pair's slice
            for k in allkeys - set(keys):
                kind = next(v for (rr, rg, kx), v in kinds.items() if kx == k)
                if not all(same(kind, x, None) for x in cols[k][sl]):
                    fail(f"columnar ({r}, {region}): key {k!r} of another region set")
            done.add((r, region))
        if set(want) - done:
            fail(f"columnar: pairs missing {sorted(set(want) - done)[:3]}")
    return total


def main():
    args = sys.argv[1:]
    prefix, nranks = args[0], int(args[1])
    opts = dict(zip(args[2::2], args[3::2])) if "--killed" not in args else {}
    if "--killed" in args:
        rest = [a for a in args[2:] if a != "--killed"]
        opts = dict(zip(rest[::2], rest[1::2]))
    killed = "--killed" in args
    lost = int(opts["--lost"]) if "--lost" in opts else None
    want, kinds = read_oracle(prefix, nranks)
    msg = []
    if "--ranks" in opts:
        n = check_ranks(opts["--ranks"], want, kinds, nranks, killed, lost)
        msg.append(f"per-rank {n} values")
    if "--columnar" in opts:
        n = check_columnar(opts["--columnar"], want, kinds, nranks, lost)
        msg.append(f"columnar {n} values")
    print(f"OK: {', '.join(msg)} as set on {nranks} rank(s)")


if __name__ == "__main__":
    main()
