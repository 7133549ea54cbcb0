#!/usr/bin/python3
"""Checks --waits' Late Senders of nonblocking receives (waits_nb_delays.c).

usage: check_waits_nb.py PPROC FILE EXPECTED

EXPECTED holds, per call path of rank 0's completing calls, the Late
Sender the program measured from its own CLOCK_MONOTONIC stamps (the
largest over the receives a call completed, summed over the path's calls)
and its cause ("-": too small to ask, or the sender was not yet in its
delay). At least 3 paths must have waited 20 ms or more (the delays did
what they were meant to). Two independent checks:
1. `--waits --format json`: each path's late_sender_s within 1 ms of the
   program's, the cause (rank, region) listed;
2. an oracle with h5py and numpy over the raw datasets (rank<N>/... or the
   columnar layout's events/, rank_region_index/, mpi_comms/ and
   mpi_completions/), not the project's reader: the sends (MPI_Send,
   MPI_Isend, and started persistent sends from the completions), the
   receives from the completions (source and tag from the status, posting
   order), paired per (communicator, source, destination, tag) in order;
   each completing call's wait is the largest of its receives' max(0,
   send start - its start), capped at its duration; the cause's region is
   the sender's innermost open non-MPI region then. Its per-path sums must
   agree with --waits within 10 us and with the program within 1 ms, and
   its causes with the program's.
"""
import json
import subprocess
import sys
from collections import defaultdict

import h5py
import numpy as np

TOL = 1e-3


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


class Rank:
    """One rank's calls per region name: arrays start, end, thread, peer, tag, comm."""

    def __init__(self):
        self.regions = {}
        self.comms = {}  # comm id -> world ranks
        self.done = None  # dict of columns; wait_region/post_region as names


def load_ranks(f):
    ranks = {}
    for key in f:
        if not key.startswith("rank") or not key[4:].isdigit():
            continue
        r, rk = int(key[4:]), Rank()
        for g in f[key]["regions"].values():
            if "start_times" not in g:
                continue
            cols = {c: g[c][()] for c in ("start_times", "end_times")}
            n = len(cols["start_times"])
            cols["thread_ids"] = g["thread_ids"][()] if "thread_ids" in g else np.zeros(n, int)
            for c in ("peer", "tag", "comm"):
                cols[c] = g[c][()] if c in g else np.full(n, -1)
            rk.regions[s(g.attrs["name"])] = cols
        if "mpi" in f[key]:
            m = f[key]["mpi"]
            sizes, members = m.attrs["comm_sizes"], m.attrs["comm_members"]
            off = np.concatenate([[0], np.cumsum(sizes)])
            for c, size in enumerate(sizes):
                if size > 0:
                    rk.comms[c] = list(members[off[c]:off[c] + size])
            if "completions" in m:
                g = m["completions"]
                names = [s(x) for x in g.attrs["region_names"]]
                rk.done = {c: g[c][()] for c in g}
                for c in ("wait_region", "post_region"):
                    rk.done[c] = [names[i] for i in rk.done[c]]
        ranks[r] = rk
    return ranks


def load_columnar(f):
    names = [s(x) for x in f["region_table/names"][()]]
    ix, ev = f["rank_region_index"], f["events"]
    ranks = defaultdict(Rank)
    cols = {c: ev[c][()] for c in ("start_times", "end_times", "thread_ids")}
    cols.update(peer=ev["mpi_peers"][()], tag=ev["mpi_tags"][()], comm=ev["mpi_comms"][()])
    for g, r, o, n in zip(ix["region_ids"][()], ix["ranks"][()], ix["event_offsets"][()],
                          ix["event_counts"][()]):
        ranks[int(r)].regions[names[g]] = {c: v[o:o + n] for c, v in cols.items()}
    mc = f["mpi_comms"]
    for r, c, size, o in zip(mc["ranks"][()], mc["ids"][()], mc["sizes"][()],
                             mc["member_offsets"][()]):
        ranks[int(r)].comms[int(c)] = list(mc["members"][o:o + size])
    d = f["mpi_completions"]
    allc = {c: d[c][()] for c in d}
    for r in set(allc["ranks"].tolist()):
        sel = allc["ranks"] == r
        rk = ranks[int(r)]
        rk.done = {c: v[sel] for c, v in allc.items()}
        for c in ("wait_region", "post_region"):
            rk.done[c] = [names[i] for i in rk.done[c]]
    return dict(ranks)


def call_at(rk, region, thread, idx):
    """(start, end) of the idx-th call of region on thread."""
    c = rk.regions[region]
    pos = np.nonzero(c["thread_ids"] == thread)[0][idx]
    return int(c["start_times"][pos]), int(c["end_times"][pos])


def open_region(rk, t):
    """The innermost non-MPI region open on rk at t (thread 0), or '-'."""
    best, name = None, "-"
    for nm, c in rk.regions.items():
        if nm.startswith("MPI_"):
            continue
        m = (c["start_times"] <= t) & (c["end_times"] > t) & (c["thread_ids"] == 0)
        if m.any():
            st = c["start_times"][m].max()
            if best is None or st > best:
                best, name = st, nm
    return name


def oracle(ranks):
    """{(rank, wait call (region, start)): (late ns, cause rank, cause region, end)}."""
    sends, recvs = defaultdict(list), defaultdict(list)
    for r, rk in ranks.items():
        for nm in ("MPI_Send", "MPI_Isend"):
            c = rk.regions.get(nm)
            for i in range(0 if c is None else len(c["start_times"])):
                w = rk.comms[int(c["comm"][i])][int(c["peer"][i])]
                sends[(int(c["comm"][i]), r, w, int(c["tag"][i]))].append(int(c["start_times"][i]))
        d = rk.done
        for i in range(0 if d is None else len(d["send"])):
            post = call_at(rk, d["post_region"][i], d["post_thread"][i], d["post_call"][i])
            comm, peer, tag = int(d["comm"][i]), int(d["peer"][i]), int(d["tag"][i])
            w = rk.comms[comm][peer]
            if d["send"][i] and d["post_region"][i] in ("MPI_Start", "MPI_Startall"):
                sends[(comm, r, w, tag)].append(post[0])
            elif not d["send"][i]:
                wait = call_at(rk, d["wait_region"][i], d["thread"][i], d["wait_call"][i])
                recvs[(comm, w, r, tag)].append((post[0], wait, d["wait_region"][i]))
    waits = {}
    for key, rl in recvs.items():
        sl = sorted(sends[key])
        assert len(sl) == len(rl), f"channel {key}: {len(sl)} sends, {len(rl)} receives"
        for snd, (_, (ws, we), wreg) in zip(sl, sorted(rl)):
            late = min(max(snd - ws, 0), we - ws)
            k = (key[2], (wreg, ws))
            if k not in waits or late > waits[k][0]:
                waits[k] = (late, key[1], open_region(ranks[key[1]], ws), we)
    return waits


def oracle_paths(ranks, waits):
    """Per (rank, 'phase/MPI_X'): summed seconds and the largest wait's cause."""
    out = {}
    for (r, (wreg, ws)), (late, crank, creg, _) in waits.items():
        phase = open_region(ranks[r], ws)
        p = f"{phase}/{wreg}"
        tot, best = out.get((r, p), (0.0, (-1, 0, "-")))
        if late > best[1]:
            best = (crank, late, creg)
        out[(r, p)] = (tot + late / 1e9, best)
    return out


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
    with h5py.File(path, "r") as f:
        columnar = f.attrs.get("storage_layout") is not None and \
            s(f.attrs["storage_layout"]) == "columnar"
        ranks = load_columnar(f) if columnar else load_ranks(f)
    orc = oracle_paths(ranks, oracle(ranks))
    fails, n, big = [], 0, 0
    for line in open(expected):
        state, rank, cpath, secs, crank, cregion = line.rstrip("\n").split("\t")
        rank, secs, crank, n = int(rank), float(secs), int(crank), n + 1
        big += secs >= 0.02
        val = sum(rows[k][state + "_s"] for k in rows if k[0] == rank and k[1].endswith(cpath))
        if abs(val - secs) > TOL:
            fails.append(f"--waits {state} rank {rank} {cpath}: {val:.6f} s, program {secs:.6f}")
        if cregion != "-" and (state, crank, cregion) not in causes:
            fails.append(f"--waits: cause ({crank}, {cregion}) of {cpath} not listed")
        o, (ocrank, _, ocreg) = orc.get((rank, cpath), (0.0, (-1, 0, "-")))
        if abs(o - secs) > TOL:
            fails.append(f"oracle {cpath}: {o:.6f} s, program {secs:.6f}")
        if abs(o - val) > 1e-5:
            fails.append(f"oracle {cpath}: {o:.9f} s, --waits {val:.9f}")
        if cregion != "-" and (ocrank, ocreg) != (crank, cregion):
            fails.append(f"oracle {cpath}: cause ({ocrank}, {ocreg}), program ({crank}, {cregion})")
    if big < 3:  # 40-120 ms built in, 20 ms settle: the phases did what they were meant to
        fails.append(f"only {big} of {n} paths waited 20 ms or more")
    unp = {k: v for k, v in got["unpaired"].items() if v}
    if unp:
        fails.append(f"unpaired calls: {unp}")
    if got["paired"]["messages"] < 13:
        fails.append(f"{got['paired']['messages']} messages paired, want 13 at least")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        print(out.stdout)
        return 1
    print(f"ok: {n} paths within 1 ms of the program's and of the oracle's "
          f"({'columnar' if columnar else 'rank<N>'} layout), causes named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
