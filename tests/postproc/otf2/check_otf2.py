"""check_otf2.py - --export otf2 read back with Debian's python3-otf2 and
otf2-print, against the profile read with h5py.

usage: check_otf2.py PPROC OUTDIR H5... [--moved N] [--twice] [--mpi] [--mpi-events]
                     [--mpi-comms] [-- PPROC_ARGS...]

Runs PPROC H5... --export otf2 -o OUTDIR PPROC_ARGS, then for every file
(OUTDIR/traces.otf2 for one, OUTDIR/<stem>/traces.otf2 for several):
  - otf2-print --silent validates the archive (OTF2's own reader);
  - per location (group "MPI Rank N", location "thread T[ overlap L]"):
    stamps never fall, every LEAVE closes the region of the latest open
    ENTER, nothing is left open;
  - per (rank, thread, region name) the multiset of (start, end) of the
    calls equals the profile's, read with h5py: every layout (our rows,
    the reference tool's nested groups and columnar schema 2 and 3), the
    reader's clock rule (t - offset; ranks on rank 0's host as recorded;
    --no-clock-align: raw) and the selection (--include/--exclude regexes
    matched at the start, --ranks, --start-time/--end-time: the calls that
    overlap the window); so the durations are equal exactly too;
  - clock properties: 1 ns, global offset the first stamp, length to the
    last; regions named exactly, MPI_* calls of the core with the MPI
    paradigm (--mpi: at least one), the rest user; location groups under
    their host's node; /metadata as properties of the machine node;
    a region with source_file/source_lineno attributes has that file and
    begin line in its definition, the others none;
  - MPI events (MpiSend, MpiIsend+MpiIsendComplete, MpiRecv, collective
    begin/end) only inside the ENTER/LEAVE of an MPI call of the right name;
    --mpi-events: per (rank, peer) the number and byte sum of sends and of
    receives equal the bytes/peer datasets (h5py), every point-to-point
    send has a receive of the same length on its receiver from its sender,
    collectives come in begin/end pairs in one call with the op of its name,
    as many per rank as the profile's collective calls;
    --mpi-comms: every send and MPI_Recv names, through its communicator's
    group, the partner's world rank that the peer, tag and comm datasets and
    the rank's communicator table (rank<N>/mpi) give (h5py), with its tag;
    every MPI_Recv has its send on its partner;
  - stderr counts the calls moved to extra locations (--moved N; else none).
--twice: export twice into OUTDIR (the second replaces the first).
"""
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from urllib.parse import unquote_to_bytes

import h5py
import numpy as np
import otf2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from check_tree import columnar_calls  # noqa: E402  (the columnar layouts, read with h5py)

MPI_CALLS = {"MPI_Send": "POINT2POINT", "MPI_Recv": "POINT2POINT", "MPI_Isend": "POINT2POINT",
             "MPI_Irecv": "POINT2POINT", "MPI_Sendrecv": "POINT2POINT", "MPI_Wait": "FUNCTION",
             "MPI_Waitall": "FUNCTION", "MPI_Barrier": "BARRIER", "MPI_Bcast": "COLL_ONE2ALL",
             "MPI_Reduce": "COLL_ALL2ONE", "MPI_Allreduce": "COLL_ALL2ALL",
             "MPI_Allgather": "COLL_ALL2ALL", "MPI_Alltoall": "COLL_ALL2ALL"}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def row_calls(f, rank):
    """(thread, start, end, name) of rank<N>/regions, names as nested groups too."""
    out = []

    def visit(rel, g):
        if isinstance(g, h5py.Group) and "start_times" in g:
            name = text(g.attrs["name"]) if "name" in g.attrs else unquote_to_bytes(rel).decode()
            s, e = g["start_times"][()], g["end_times"][()]
            t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), np.int64)
            out.extend((int(t[i]), int(s[i]), int(e[i]), name) for i in range(len(s)))
    if "regions" in f[f"rank{rank}"]:
        f[f"rank{rank}/regions"].visititems(visit)
    return out


def clock_of(g):
    """The rank's offset measurements [(offset, at)], as the reader takes them."""
    m = []
    for w in ("", "_end"):
        keys = [f"clock_offset{w}_ns", f"clock_offset{w}_at_ns", f"clock_offset{w}_error_ns"]
        if all(k in g.attrs for k in keys):
            m.append((int(g.attrs[keys[0]]), int(g.attrs[keys[1]])))
    if len(m) == 2 and m[1][1] <= m[0][1]:
        m = m[:1]
    return m


def align(m, t):
    if not m:
        return t
    if len(m) == 1:
        return t - m[0][0]
    slope = (float(m[1][0]) - float(m[0][0])) / (float(m[1][1]) - float(m[0][1]))
    off = float(m[0][0]) + slope * (float(t) - float(m[0][1]))
    return t - int(off - 0.5 if off < 0 else off + 0.5)


def profile_calls(path, raw):
    """rank -> [(thread, start, end, name)] on rank 0's clock (raw: as recorded)."""
    with h5py.File(path, "r") as f:
        if "rank_region_index" in f:
            per = {r: [c[:4] for c in v] for r, v in columnar_calls(f)[0].items()}
            return per  # the reference tool's files have no clock attributes
        ranks = sorted(int(k[4:]) for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k))
        host0 = text(f["rank0"].attrs.get("hostname", "")) if 0 in ranks else None
        out = {}
        for r in ranks:
            g = f[f"rank{r}"]
            host = g.attrs.get("hostname")
            # A rank on rank 0's host keeps its stamps (the reader's rule).
            same = r != 0 and host0 and host is not None and text(host) == host0
            m = [] if raw or same else clock_of(g)
            out[r] = [(t, align(m, s), align(m, s) + (e - s), n) for t, s, e, n in row_calls(f, r)]
        return out


def metadata_of(path):
    with h5py.File(path, "r") as f:
        if "metadata" not in f:
            return {}
        out = {}
        for k, v in f["metadata"].attrs.items():
            v = v.item() if isinstance(v, np.generic) else v
            if isinstance(v, float):
                continue  # %.17g in C; compared as names only
            out[k] = text(v)
        return out


def parse_args(argv):
    opts = {"moved": 0, "twice": False, "mpi": False, "mpi_events": False, "mpi_comms": False,
            "files": [], "extra": []}
    opts["pproc"], opts["outdir"] = argv[0], argv[1]
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a == "--":
            opts["extra"] = args
            break
        if a == "--moved":
            opts["moved"] = int(args.pop(0))
        elif a in ("--twice", "--mpi"):
            opts[a[2:]] = True
        elif a in ("--mpi-events", "--mpi-comms"):
            opts[a[2:].replace("-", "_")] = True
        else:
            opts["files"].append(a)
    return opts


def selection(extra):
    """The selection options of PPROC_ARGS."""
    sel = {"include": [], "exclude": [], "ranks": None, "start": None, "end": None,
           "raw": "--no-clock-align" in extra}
    i = 0
    while i < len(extra):
        a = extra[i]
        if a in ("--include", "--exclude"):
            sel[a[2:]].append(extra[i + 1])
        elif a == "--ranks":
            sel["ranks"] = set()
            for part in extra[i + 1].split(","):
                lo, _, hi = part.partition("-")
                sel["ranks"].update(range(int(lo), int(hi or lo) + 1))
        elif a in ("--start-time", "--end-time"):
            sel[a[2:a.index("-", 2)]] = float(extra[i + 1])
        i += 1
    return sel


def expected(path, sel):
    per = profile_calls(path, sel["raw"])
    keep = {}
    for r, calls in per.items():
        if sel["ranks"] is not None and r not in sel["ranks"]:
            continue
        keep[r] = [c for c in calls
                   if (not sel["include"] or any(re.match(p, c[3]) for p in sel["include"]))
                   and not any(re.match(p, c[3]) for p in sel["exclude"])]
    t0 = min((c[1] for v in keep.values() for c in v), default=0)
    w0 = t0 + int(sel["start"] * 1e9) if sel["start"] else None
    w1 = t0 + int(sel["end"] * 1e9) if sel["end"] else None
    want = Counter()
    for r, v in keep.items():
        for t, s, e, n in v:
            if (w0 is None or e >= w0) and (w1 is None or s <= w1):
                want[(r, t, n, s, e)] += 1
    return want


def read_archive(anchor):
    """Events per location checked for order and nesting; returns the calls,
    the definitions and the number of calls on extra locations."""
    got, moved = Counter(), 0
    with otf2.reader.open(anchor) as tr:
        defs = tr.definitions
        assert tr.timer_resolution == 10**9, tr.timer_resolution
        where = {}
        for loc in defs.locations:
            m = re.fullmatch(r"thread (-?\d+)( overlap \d+)?", loc.name)
            g = re.fullmatch(r"MPI Rank (\d+)", loc.group.name)
            assert m and g, (loc.name, loc.group.name)
            where[loc] = (int(g.group(1)), int(m.group(1)), m.group(2) is not None)
        last, stack = defaultdict(lambda: -1), defaultdict(list)
        nev = Counter()
        mpi = []  # (rank, region name, event) of the MPI events, each inside its call
        for loc, ev in tr.events:
            assert ev.time >= last[loc], f"{loc.name}: {ev.time} after {last[loc]}"
            last[loc] = ev.time
            nev[loc] += 1
            if isinstance(ev, otf2.events.Enter):
                stack[loc].append((ev.region, ev.time, []))
            elif isinstance(ev, MPI_EVENTS):
                assert stack[loc], f"{loc.name}: {type(ev).__name__} outside any call"
                stack[loc][-1][2].append(ev)
            elif isinstance(ev, otf2.events.Leave):
                assert stack[loc], f"{loc.name}: LEAVE without ENTER"
                reg, start, inner = stack[loc].pop()
                for e in inner:
                    assert start <= e.time <= ev.time, (loc.name, reg.name, e)
                    mpi.append((where[loc][0], reg.name, e))
                mpi_call_events(reg.name, inner)
                assert reg == ev.region, f"{loc.name}: LEAVE {ev.region.name} closes {reg.name}"
                rank, thread, extra = where[loc]
                got[(rank, thread, reg.name, start, ev.time)] += 1
                moved += extra
            else:
                raise AssertionError(f"unexpected event {ev}")
        for loc, st in stack.items():
            assert not st, f"{loc.name}: {len(st)} calls left open"
        for loc in defs.locations:
            assert loc.number_of_events == nev[loc], (loc.name, loc.number_of_events, nev[loc])
        return got, moved, defs, mpi


MPI_EVENTS = (otf2.events.MpiSend, otf2.events.MpiIsend, otf2.events.MpiIsendComplete,
              otf2.events.MpiRecv, otf2.events.MpiCollectiveBegin, otf2.events.MpiCollectiveEnd)
SENDS = {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend"}
RECVS = {"MPI_Recv", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
         "MPI_Testall", "MPI_Testany", "MPI_Testsome"}
COLLS = {n: n[4:].upper() for n in
         ("MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
          "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
          "MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
          "MPI_Scan", "MPI_Exscan")}
COLLS.update({"MPI_I" + n[4:]: op for n, op in COLLS.items()})


def mpi_call_events(name, evs):
    """The MPI events of one call: the kinds its region's name allows."""
    kinds = [type(e).__name__ for e in evs]
    if not kinds:
        return
    if name in SENDS:
        assert kinds == ["MpiSend"], (name, kinds)
    elif name == "MPI_Isend":
        assert kinds == ["MpiIsend", "MpiIsendComplete"], (name, kinds)
        assert evs[0].request_id == evs[1].request_id, name
    elif name in RECVS:
        assert kinds == ["MpiRecv"], (name, kinds)
    elif name in COLLS:
        assert kinds == ["MpiCollectiveBegin", "MpiCollectiveEnd"], (name, kinds)
        assert str(evs[1].collective_op).split(".")[-1] == COLLS[name], (name, evs[1])
        assert evs[1].communicator is not None, name
    else:
        raise AssertionError(f"MPI events in {name}: {kinds}")
    for e in evs:
        if hasattr(e, "msg_tag"):  # a wait's receive: its communicator is not read (comm -1)
            assert name not in RECVS or name == "MPI_Recv" or (
                e.communicator.name == "MPI_COMM_WORLD"), (name, e)


def mpi_expected(path):
    """From the bytes/peer datasets: sends and receives per (rank, peer) as
    [count, byte sum], and the collective calls per rank."""
    sends, recvs, colls = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0]), Counter()
    with h5py.File(path, "r") as f:
        for k in f:
            if not re.fullmatch(r"rank(0|[1-9][0-9]*)", k) or "regions" not in f[k]:
                continue
            rank = int(k[4:])
            for link, g in f[k]["regions"].items():
                if "bytes" not in g or "peer" not in g:
                    continue
                name = text(g.attrs["name"]) if "name" in g.attrs else link
                for b, p in zip(g["bytes"][()].tolist(), g["peer"][()].tolist()):
                    if (name in SENDS or name == "MPI_Isend") and p >= 0 and b >= 0:
                        sends[(rank, p)][0] += 1
                        sends[(rank, p)][1] += b
                    elif name in RECVS and p >= 0 and b > 0:
                        recvs[(rank, p)][0] += 1
                        recvs[(rank, p)][1] += b
                    elif name in COLLS and b >= 0:  # a rooted one's peer is its root
                        colls[rank] += 1
    return dict(sends), dict(recvs), colls


def world_of(loc):
    return int(re.fullmatch(r"MPI Rank (\d+)", loc.group.name).group(1))


def comm_tables(f):
    """rank -> {comm id: members' world ranks}, from rank<N>/mpi (h5py)."""
    out = {}
    for k in f:
        if re.fullmatch(r"rank(0|[1-9][0-9]*)", k) and "mpi" in f[k]:
            a = f[k]["mpi"].attrs
            if "comm_sizes" not in a:
                continue
            sizes = [int(x) for x in np.atleast_1d(a["comm_sizes"])]
            members = [int(x) for x in np.atleast_1d(a["comm_members"])] if sum(sizes) else []
            at, table = 0, {}
            for c, n in enumerate(sizes):
                table[c] = members[at:at + n]
                at += n
            out[int(k[4:])] = table
    return out


def check_mpi_worlds(mpi, path):
    """The sends and blocking receives, each mapped to the partner's world rank
    through its event's communicator (the OTF2 group's locations), against
    h5py: peer, tag and comm datasets and the rank's communicator table
    (the peer is a rank of comm). Returns how many were compared."""
    got = Counter()
    for rank, name, e in mpi:
        if isinstance(e, (otf2.events.MpiSend, otf2.events.MpiIsend)):
            got[("send", rank, world_of(e.communicator.group.members[e.receiver]), e.msg_tag,
                 e.msg_length)] += 1
        elif isinstance(e, otf2.events.MpiRecv) and name == "MPI_Recv":
            got[("recv", rank, world_of(e.communicator.group.members[e.sender]), e.msg_tag,
                 e.msg_length)] += 1
    want = Counter()
    with h5py.File(path, "r") as f:
        comms = comm_tables(f)
        for k in f:
            if not re.fullmatch(r"rank(0|[1-9][0-9]*)", k) or "regions" not in f[k]:
                continue
            rank = int(k[4:])
            for link, g in f[k]["regions"].items():
                name = text(g.attrs["name"]) if "name" in g.attrs else link
                kind = ("send" if name in SENDS or name == "MPI_Isend" else
                        "recv" if name == "MPI_Recv" else None)
                if kind is None or "tag" not in g or "comm" not in g:
                    continue
                for b, p, t, c in zip(g["bytes"][()].tolist(), g["peer"][()].tolist(),
                                      g["tag"][()].tolist(), g["comm"][()].tolist()):
                    if p < 0 or b < (0 if kind == "send" else 1):
                        continue
                    world = comms[rank][c][p] if c >= 0 else p
                    want[(kind, rank, world, max(t, 0), b)] += 1
    assert got == want, ("partners by world rank", sorted((got - want).elements())[:5],
                         sorted((want - got).elements())[:5])
    sends = Counter({(r, w, t, b): n for (k, r, w, t, b), n in got.items() if k == "send"})
    recvs = Counter({(w, r, t, b): n for (k, r, w, t, b), n in got.items() if k == "recv"})
    assert not recvs - sends, ("MPI_Recv without its send", recvs - sends)
    return sum(got.values())


def check_mpi_events(mpi, path):
    sends, recvs = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    msgs, colls = Counter(), Counter()
    for rank, name, e in mpi:
        if isinstance(e, (otf2.events.MpiSend, otf2.events.MpiIsend)):
            sends[(rank, e.receiver)][0] += 1
            sends[(rank, e.receiver)][1] += e.msg_length
            msgs[(rank, e.receiver, e.msg_length)] += 1
        elif isinstance(e, otf2.events.MpiRecv):
            recvs[(rank, e.sender)][0] += 1
            recvs[(rank, e.sender)][1] += e.msg_length
            msgs[(e.sender, rank, e.msg_length)] -= 1
        elif isinstance(e, otf2.events.MpiCollectiveEnd):
            colls[rank] += 1
    want_s, want_r, want_c = mpi_expected(path)
    assert dict(sends) == want_s, ("sends", dict(sends), want_s)
    assert dict(recvs) == want_r, ("receives", dict(recvs), want_r)
    assert colls == want_c, ("collectives", colls, want_c)
    unmatched = {k: v for k, v in msgs.items() if v}
    assert not unmatched, f"(sender, receiver, bytes): sends - receives {unmatched}"
    assert sends and recvs and colls, "no MPI messages or collectives to compare"
    return sum(v[0] for v in sends.values()), sum(colls.values())


def sources_of(path):
    """region name -> (file, line) of the first rank with source_file."""
    out = {}
    with h5py.File(path, "r") as f:
        for k in sorted((k for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k)),
                        key=lambda k: int(k[4:])):
            if "regions" not in f[k]:
                continue

            def visit(rel, g):
                if isinstance(g, h5py.Group) and "source_file" in g.attrs:
                    name = text(g.attrs["name"]) if "name" in g.attrs else \
                        unquote_to_bytes(rel).decode()
                    out.setdefault(name, (text(g.attrs["source_file"]),
                                          int(g.attrs.get("source_lineno", 0))))
            f[k]["regions"].visititems(visit)
    return out


def check_defs(defs, got, path, sel, mpi):
    cp = defs.clock_properties
    starts = [k[3] for k in got]
    ends = [k[4] for k in got]
    assert cp.timer_resolution == 10**9
    assert cp.global_offset == min(starts), (cp.global_offset, min(starts))
    assert cp.trace_length == max(ends) - min(starts), (cp.trace_length, max(ends) - min(starts))
    names = {k[2] for k in got}
    regions = {r.name: r for r in defs.regions}
    assert names <= set(regions), names - set(regions)
    for name, r in regions.items():
        want = ("MPI", MPI_CALLS[name]) if name in MPI_CALLS else ("USER", "FUNCTION")
        kind = (str(r.paradigm).split(".")[-1], str(r.region_role).split(".")[-1])
        assert kind == want, (name, r.paradigm, r.region_role)
    if mpi:
        assert any(n in MPI_CALLS for n in names), names
    src = sources_of(path)
    for name, r in regions.items():
        want = src.get(name)
        have = (str(r.source_file), r.begin_line_number) if r.source_file else None
        assert have == want, (name, have, want)
    with h5py.File(path, "r") as f:
        hosts = {int(k[4:]): text(f[k].attrs["hostname"]) for k in f
                 if re.fullmatch(r"rank(0|[1-9][0-9]*)", k) and "hostname" in f[k].attrs}
    for grp in defs.location_groups:
        rank = int(grp.name.split()[-1])
        node = grp.system_tree_parent
        assert node.class_name == "node" and node.parent.class_name == "machine", grp.name
        assert node.name == hosts.get(rank, "unknown host"), (grp.name, node.name)
        assert sel["ranks"] is None or rank in sel["ranks"], grp.name
    machine = [n for n in defs.system_tree_nodes if n.class_name == "machine"]
    assert len(machine) == 1
    props = {k: v.value for k, v in machine[0]._properties.items()}
    for k, v in metadata_of(path).items():
        assert props.get(k) == v, (k, props.get(k), v)


def main():
    o = parse_args(sys.argv[1:])
    cmd = [o["pproc"], *o["files"], "--export", "otf2", "-o", o["outdir"], *o["extra"]]
    for _ in range(2 if o["twice"] else 1):
        p = subprocess.run(cmd, capture_output=True, text=True)
        assert p.returncode == 0, (p.returncode, p.stderr)
    sel = selection(o["extra"])
    total_moved, total = 0, 0
    for path in o["files"]:
        sub = "" if len(o["files"]) == 1 else os.path.splitext(os.path.basename(path))[0]
        anchor = os.path.join(o["outdir"], sub, "traces.otf2")
        v = subprocess.run(["otf2-print", "--silent", anchor], capture_output=True, text=True)
        assert v.returncode == 0 and not v.stderr, (v.returncode, v.stderr)
        got, moved, defs, mpi = read_archive(anchor)
        want = expected(path, sel)
        assert got == want, (f"{anchor}: differs from the profile:\n only in OTF2: "
                             f"{sorted((got - want).elements())[:5]}\n only in the profile: "
                             f"{sorted((want - got).elements())[:5]}")
        assert want, "nothing compared"
        check_defs(defs, got, path, sel, o["mpi"])
        if o["mpi_events"]:
            nsend, ncoll = check_mpi_events(mpi, path)
            print(f"{anchor}: {nsend} sends matched by receives, {ncoll} collectives")
        if o["mpi_comms"]:
            print(f"{anchor}: {check_mpi_worlds(mpi, path)} sends and receives on the "
                  "partners' world ranks through their communicators")
        total_moved += moved
        total += sum(got.values())
        print(f"{anchor}: {sum(got.values())} calls on {len(defs.locations)} locations, "
              f"{len(defs.regions)} regions: same as the profile")
    assert total_moved == o["moved"], (total_moved, o["moved"])
    if o["moved"]:
        assert re.search(rf"\b{o['moved']} of [0-9]+ calls overlap", p.stderr), p.stderr
    else:
        assert "overlap" not in p.stderr, p.stderr
    print(f"ok: {total} calls, {total_moved} on extra locations")


if __name__ == "__main__":
    main()
