#!/usr/bin/python3
"""Every wait state of waits_delays.{c,F90} recomputed from the raw datasets.

usage: check_waits_h5.py FILE EXPECTED

An oracle apart from scope-profiler-pproc: h5py reads each rank's MPI call
regions (start_times, end_times, peer, tag, comm) and rank<N>/mpi's
communicator table; numpy pairs and measures, per EXPECTED line (the
program's own stamps, waits_delays.c's format):
  late_sender    each receive of the rank in the phase paired in order
                 with the sends (MPI_Send, MPI_Isend, MPI_Ssend) of its
                 source with that tag on that communicator: the send's
                 start less the receive's, within the receive;
                 A Sendrecv's receive half (rank<N>/mpi/completions rows
                 naming the call, else its own peer and tag) against its
                 source's Sendrecv in the phase, whose send half must name
                 the rank;
  late_receiver  each MPI_Ssend paired with its destination's receives;
  wait_barrier, wait_nxn  the last member's entry less the rank's, the
                 members from the call's communicator id;
  late_broadcast the root's (the call's peer) entry less the rank's;
  early_reduce   at the root, the last member's entry less its own.
Each must be within 1 ms of the program's seconds (or of its span, see
check_waits.py); where the program names
the cause, the late partner must be that world rank and the innermost
region it was in when the wait began must be that region.
"""
import sys

import h5py
import numpy as np

from check_waits import expected_span, span  # the expected file's columns

TOL = 1e-3
SENDS = ("MPI_Send", "MPI_Isend", "MPI_Ssend")


class Rank:
    def __init__(self, f, r):
        self.r, self.regions = r, {}
        for g in f[f"rank{r}/regions"].values():
            n = g.attrs["name"]
            n = n.decode() if isinstance(n, bytes) else str(n)
            self.regions[n] = {k: g[k][()] for k in ("start_times", "end_times", "peer", "tag",
                                                     "comm") if k in g}
        m = f.get(f"rank{r}/mpi")
        sizes = m.attrs["comm_sizes"] if m is not None and "comm_sizes" in m.attrs else []
        members = m.attrs["comm_members"] if m is not None and "comm_members" in m.attrs else []
        offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.comms = {i: [int(x) for x in members[offs[i]:offs[i + 1]]]
                      for i in range(len(sizes)) if sizes[i] > 0}
        self.done = []  # completion rows: (wait region, wait call, send, peer, tag, comm)
        if m is not None and "completions" in m:
            g = m["completions"]
            names = [x.decode() if isinstance(x, bytes) else str(x)
                     for x in g.attrs["region_names"]]
            self.done = list(zip([names[i] for i in g["wait_region"][()]],
                                 g["wait_call"][()].tolist(), g["send"][()].tolist(),
                                 g["peer"][()].tolist(), g["tag"][()].tolist(),
                                 g["comm"][()].tolist()))

    def halves(self, name, phase):
        """The one call of name in phase: (its (start, end, ...), its send half,
        its receive half), each half (peer, tag, comm) or None: from the
        completion rows that name the call when it has any, else the call's
        own peer and tag for both."""
        lo, hi = self.window(phase)
        s = self.regions[name]["start_times"]
        i = [k for k, t in enumerate(s) if lo <= t <= hi][0]
        call = self.calls([name], phase)[0]
        rows = [d for d in self.done if d[0] == name and d[1] == i]
        if not rows:
            own = (call[2], call[3], call[4]) if call[2] >= 0 else None
            return call, own, own
        half = {d[2]: (d[3], d[4], d[5]) for d in rows}
        return call, half.get(1), half.get(0)

    def window(self, phase):
        g = self.regions[phase]
        return int(g["start_times"][0]), int(g["end_times"][0])

    def calls(self, names, phase):
        """(start, end, peer, tag, comm) of the calls of names inside phase, by start."""
        lo, hi = self.window(phase)
        out = []
        for n in names:
            g = self.regions.get(n)
            if g is None:
                continue
            for i, s in enumerate(g["start_times"]):
                if lo <= s <= hi:
                    out.append((int(s), int(g["end_times"][i]), int(g["peer"][i]),
                                int(g["tag"][i]), int(g["comm"][i])))
        return sorted(out)

    def world(self, comm, peer):
        m = self.comms.get(comm)
        return m[peer] if m is not None and 0 <= peer < len(m) else None

    def me(self, comm):
        m = self.comms.get(comm, [])
        return m.index(self.r) if self.r in m else None

    def inside(self, t):
        """The innermost region (latest start) of this rank around time t."""
        best = (-1, None)
        for n, g in self.regions.items():
            s, e = g["start_times"], g["end_times"]
            hit = (s <= t) & (t < e)
            if hit.any():
                best = max(best, (int(s[hit].max()), n))
        return best[1]


def wait(until, call):
    return min(max(until - call[0], 0), call[1] - call[0])


def p2p(ranks, r, phase, mine, theirs):
    """[(seconds, cause world rank, waiter's start)] of rank r's calls `mine`
    paired in order with their partners' `theirs` (same tag, communicator)."""
    out, used = [], {}
    for c in ranks[r].calls(mine, phase):
        w = ranks[r].world(c[4], c[2])
        if w is None:
            return None  # no partner recorded: nothing to pair
        key = (w, c[3], c[4])
        k = used.get(key, 0)
        used[key] = k + 1
        other = [o for o in ranks[w].calls(theirs, phase)
                 if o[3] == c[3] and o[4] == c[4] and ranks[w].world(o[4], o[2]) == r]
        if k >= len(other):
            return None
        out.append((wait(other[k][0], c), w, c[0]))
    return out


def sendrecv(ranks, r, phase, name):
    """[(seconds, cause world rank, waiter's start)] of rank r's Sendrecv in
    phase: its receive half waited for its source's Sendrecv, whose send
    half must be to r with that tag and communicator. [] when it received
    nothing (MPI_PROC_NULL)."""
    call, _, recv = ranks[r].halves(name, phase)
    if recv is None:
        return []
    w = ranks[r].world(recv[2], recv[0])
    if w is None:
        return None
    other, send, _ = ranks[w].halves(name, phase)
    if send is None or ranks[w].world(send[2], send[0]) != r or send[1:] != recv[1:]:
        return None
    return [(wait(other[0], call), w, call[0])]


def collective(ranks, r, phase, name, state):
    c = ranks[r].calls([name], phase)
    if not c:
        return None
    c = c[0]
    members = ranks[r].comms.get(c[4])
    if members is None:
        return None
    if state == "late_broadcast":
        root = ranks[r].world(c[4], c[2])
        if root is None:
            return None
        return [(wait(ranks[root].calls([name], phase)[0][0], c), root, c[0])]
    if state == "early_reduce" and ranks[r].world(c[4], c[2]) != r:
        return None  # not the root
    entries = {m: ranks[m].calls([name], phase)[0][0] for m in members if m != r}
    last = max(entries, key=entries.get)
    return [(wait(entries[last], c), last, c[0])]


def main():
    path, expected = sys.argv[1:3]
    fails, n = [], 0
    with h5py.File(path, "r") as f:
        nranks = sum(1 for k in f if k.startswith("rank"))
        ranks = [Rank(f, r) for r in range(nranks)]
    for line in open(expected):
        w = line.rstrip("\n").split("\t")
        if w[0] == "unpaired":
            continue
        state, r, cpath, crank, cregion = w[0], int(w[1]), w[2], int(w[4]), w[5]
        secs, hi = expected_span(w)
        if secs <= 0:
            cregion = "-"
        phase, name = cpath.split("/")[0], cpath.split("/")[-1]
        if state == "late_sender" and name.startswith("MPI_Sendrecv"):
            got = sendrecv(ranks, r, phase, name)
        elif state == "late_sender":
            got = p2p(ranks, r, phase, [name], SENDS)
        elif state == "late_receiver":
            got = p2p(ranks, r, phase, [name], ["MPI_Recv"])
        else:
            got = collective(ranks, r, phase, name, state)
        n += 1
        if got is None:
            fails.append(f"{state} rank {r} {cpath}: cannot be paired from the raw datasets "
                         "(peer, tag, comm or the communicator table missing)")
            continue
        total = sum(g[0] for g in got) / 1e9
        if not got:
            got = [(0, -1, 0)]
        if not secs - TOL <= total <= hi + TOL:
            fails.append(f"{state} rank {r} {cpath}: {total:.6f} s from the datasets, "
                         f"program {span(secs, hi)}")
        if cregion == "-":
            continue
        late = max(got)
        where = ranks[late[1]].inside(late[2])
        if late[1] != crank or where != cregion:
            fails.append(f"{state} rank {r} {cpath}: cause rank {late[1]} in {where}, program "
                         f"rank {crank} in {cregion}")
    for m in fails:
        print("FAIL", m)
    if fails:
        return 1
    print(f"ok: {n} waits recomputed with h5py/numpy within 1 ms, causes named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
