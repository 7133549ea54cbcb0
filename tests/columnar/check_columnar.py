#!/usr/bin/python3
"""Reads a columnar file with h5py alone and holds it to the rank<N> file of
the same run: check_columnar.py RANKS_FILE COLUMNAR_FILE NRANKS [REGION=CALLS ...]

RANKS_FILE "-": the columnar file alone (a run in columnar layout only):
the schema, the index, the call ids and each REGION's calls summed over
ranks.

The columnar reader here is independent of the library and of the
postprocessor: it follows the reference tool's schema 3 (region_table,
rank_region_index, events). Checks:
  - the schema attributes, and a fixed set of objects (not one per rank);
  - every (rank, region) of the rank<N> file is one index row, with the
    same num_calls and the same events in the same order: start, end and
    thread of every call of every rank and thread; no other rows;
  - call_ids unique per rank, parent_ids equal to the nesting that a numpy
    sweep over the stamps gives, and the program's known parents;
  - MPI bytes and peers, host names, clock offsets and metadata as in the
    rank<N> file;
  - the per-rank layout's extras, in objects of the columnar file's own:
    /metadata's attributes (sp_metadata_set's keys), rank<N>/metadata as
    rank_metadata rows, source locations as region_table/source_files and
    source_lines, each rank's samples, period and peak RSS.
Exit 0, or 1 with the first disagreement.
"""
import sys

import h5py
import numpy as np

FIXED = {"metadata", "region_table", "region_table/names", "rank_region_index",
         "rank_region_index/region_ids", "rank_region_index/ranks",
         "rank_region_index/event_offsets", "rank_region_index/event_counts",
         "rank_region_index/num_calls", "events", "events/start_times", "events/end_times",
         "events/thread_ids", "events/call_ids", "events/parent_ids", "rank_info",
         "rank_info/hostnames", "rank_info/threads", "rank_info/events_lost",
         "rank_info/clock_offset_ns", "rank_info/clock_offset_error_ns",
         "rank_info/clock_offset_end_ns", "rank_info/clock_offset_end_error_ns",
         "rank_info/trace_truncated_at",
         "rank_info/clock_offset_at_ns", "rank_info/clock_offset_end_at_ns"}
MPI_COLS = {"events/mpi_bytes", "events/mpi_peers", "events/mpi_tags", "events/mpi_comms"}
# The per-rank layout's extras: objects of their own, none per rank.
EXTRAS = {"rank_metadata", "rank_metadata/ranks", "rank_metadata/keys", "rank_metadata/types",
          "rank_metadata/str_values", "rank_metadata/int_values", "rank_metadata/float_values",
          "region_table/source_files", "region_table/source_lines", "samples", "samples/times",
          "samples/rss_bytes", "samples/cpu_ns", "samples/offsets", "samples/counts",
          "samples/period_ns", "rank_info/peak_rss_bytes", "mpi_comms", "mpi_comms/ranks",
          "mpi_comms/ids", "mpi_comms/sizes", "mpi_comms/member_offsets", "mpi_comms/members",
          "mpi_completions"} | {"mpi_completions/" + c for c in (
              "ranks", "wait_region", "wait_call", "thread", "post_region", "post_call",
              "post_thread", "send", "peer", "tag", "comm", "bytes")}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def value(v):
    """An attribute's value as str, int or float."""
    if isinstance(v, (bytes, str)):
        return text(v)
    return v.item() if hasattr(v, "item") else v


def read_ranks(path):
    """{rank: {name: dict(calls, start, end, tid, bytes, peer, src)}}, {rank: attrs},
    /metadata's attributes; attrs[r] also holds "meta" (rank<N>/metadata) and
    "samples" (None or dict of times, rss_bytes, cpu_ns, period_ns)."""
    out, attrs = {}, {}
    with h5py.File(path, "r") as f:
        for key in f:
            if not key.startswith("rank"):
                continue
            r = int(key[4:])
            attrs[r] = dict(f[key].attrs)
            attrs[r]["meta"] = {k: value(v) for k, v in f[key]["metadata"].attrs.items()} \
                if "metadata" in f[key] else {}
            sg = f[key]["samples"] if "samples" in f[key] else None
            attrs[r]["samples"] = None if sg is None else dict(
                {c: sg[c][:] for c in ("times", "rss_bytes", "cpu_ns")},
                period_ns=int(sg.attrs["period_ns"]))
            regs = {}
            for link, g in f[key]["regions"].items():
                name = text(g.attrs["name"])
                n = len(g["start_times"]) if "start_times" in g else 0
                regs[name] = dict(
                    calls=int(g.attrs["num_calls"]),
                    start=g["start_times"][:] if n else np.zeros(0, np.int64),
                    end=g["end_times"][:] if n else np.zeros(0, np.int64),
                    tid=g["thread_ids"][:] if "thread_ids" in g else np.zeros(n, np.int32),
                    bytes=g["bytes"][:] if "bytes" in g else None,
                    peer=g["peer"][:] if "peer" in g else None,
                    tag=g["tag"][:] if "tag" in g else None,
                    comm=g["comm"][:] if "comm" in g else None,
                    src=(text(g.attrs["source_file"]), int(g.attrs["source_lineno"]))
                    if "source_file" in g.attrs else None)
            out[r] = regs
        meta = dict(f["metadata"].attrs)
    return out, attrs, meta


def sweep_parents(tid, start, end, gid):
    """Parent call id of each call: innermost open call of its thread."""
    order = np.lexsort((np.arange(len(tid)), gid, -end, start, tid))
    call = np.empty(len(tid), np.int64)
    parent = np.empty(len(tid), np.int64)
    stack, cur = [], None
    for k, e in enumerate(order):
        if tid[e] != cur:
            stack, cur = [], tid[e]
        while stack and end[stack[-1]] < end[e]:
            stack.pop()
        call[e] = k
        parent[e] = call[stack[-1]] if stack else -1
        stack.append(e)
    return call, parent


def main():
    ranks_path, col_path, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    want_calls = {k: int(v) for k, v in (a.rsplit("=", 1) for a in sys.argv[4:])}
    alone = ranks_path == "-"
    ref, rattrs, rmeta = read_ranks(ranks_path) if not alone else ({}, {}, {})
    if not alone and sorted(ref) != list(range(nranks)):
        fail(f"rank<N> file has ranks {sorted(ref)}, expected {nranks}")
    with h5py.File(col_path, "r") as f:
        if text(f.attrs["storage_layout"]) != "columnar" or int(f.attrs["scope_profiler_schema"]) != 3:
            fail("storage_layout/scope_profiler_schema attributes")
        objs = set()
        f.visit(objs.add)
        mpi = "events/mpi_bytes" in objs
        want = FIXED | (MPI_COLS if mpi else set())
        if not want <= objs or not objs - want <= EXTRAS:
            fail(f"objects {sorted((objs - EXTRAS) ^ want)} differ from the fixed set")
        ext = {k: f[k][:] for k in EXTRAS & objs if isinstance(f[k], h5py.Dataset)}
        names = [text(x) for x in f["region_table/names"][:]]
        if names != sorted(set(names), key=lambda s: s.encode()):
            fail("region_table/names not sorted and distinct")
        idx = {k: f["rank_region_index/" + k][:] for k in
               ("region_ids", "ranks", "event_offsets", "event_counts", "num_calls")}
        ev = {k: f["events/" + k][:] for k in
              ("start_times", "end_times", "thread_ids", "call_ids", "parent_ids")}
        if mpi:
            ev["mpi_bytes"] = f["events/mpi_bytes"][:]
            ev["mpi_peers"] = f["events/mpi_peers"][:]
            ev["mpi_tags"] = f["events/mpi_tags"][:]
            ev["mpi_comms"] = f["events/mpi_comms"][:]
        meta = dict(f["metadata"].attrs)
        info = {k: f["rank_info/" + k][:] for k in f["rank_info"]}
    nev = len(ev["start_times"])
    if int(idx["event_counts"].sum()) != nev:
        fail("event_counts do not add up to the events")
    seen = set()
    calls_checked = 0
    for p in range(len(idx["ranks"])):
        r, g = int(idx["ranks"][p]), int(idx["region_ids"][p])
        o, n = int(idx["event_offsets"][p]), int(idx["event_counts"][p])
        name = names[g]
        if (r, name) in seen:
            fail(f"pair ({r}, {name}) twice")
        seen.add((r, name))
        if n != int(idx["num_calls"][p]):
            fail(f"({r}, {name}): {n} events, num_calls {idx['num_calls'][p]}")
        if np.any(ev["end_times"][o:o + n] < ev["start_times"][o:o + n]):
            fail(f"({r}, {name}): a call ends before it starts")
        if name in want_calls:
            want_calls[name] -= n
        calls_checked += n
        if alone:
            continue
        if r not in ref or name not in ref[r]:
            fail(f"pair ({r}, {name}) not in the rank<N> file")
        want = ref[r][name]
        if int(idx["num_calls"][p]) != want["calls"]:
            fail(f"({r}, {name}): num_calls {idx['num_calls'][p]} != {want['calls']}")
        s = slice(o, o + n)
        for col, key in (("start_times", "start"), ("end_times", "end"), ("thread_ids", "tid")):
            if not np.array_equal(ev[col][s], want[key]):
                fail(f"({r}, {name}): {col} differ")
        if want["bytes"] is not None:
            if not mpi or not np.array_equal(ev["mpi_bytes"][s], want["bytes"]) or \
                    not np.array_equal(ev["mpi_peers"][s], want["peer"]):
                fail(f"({r}, {name}): MPI bytes/peers differ")
            if want["tag"] is not None and (
                    not np.array_equal(ev["mpi_tags"][s], want["tag"])
                    or not np.array_equal(ev["mpi_comms"][s], want["comm"])):
                fail(f"({r}, {name}): MPI tags/comms differ")
        elif mpi and (np.any(ev["mpi_bytes"][s] != -1) or np.any(ev["mpi_peers"][s] != -1)
                      or np.any(ev["mpi_tags"][s] != -1) or np.any(ev["mpi_comms"][s] != -1)):
            fail(f"({r}, {name}): bytes/peers on a region that is not an MPI call")
    left = {k: v for k, v in want_calls.items() if v != 0}
    if left:
        fail(f"calls per region differ from the expected by {left}")
    if len(info["hostnames"]) != nranks or int(meta["mpi_size"]) != nranks:
        fail(f"rank_info/metadata do not hold {nranks} ranks")
    want_pairs = {(r, nm) for r in ref for nm in ref[r]} if not alone else seen
    if seen != want_pairs:
        fail(f"pairs missing from the columnar file: {sorted(want_pairs - seen)[:5]}")
    # Call ids: unique per rank, parents from an independent sweep.
    gid_ev = np.repeat(idx["region_ids"].astype(np.int64), idx["event_counts"].astype(np.int64))
    rank_ev = np.repeat(idx["ranks"].astype(np.int64), idx["event_counts"].astype(np.int64))
    order_ev = np.concatenate([np.arange(o, o + n) for o, n in
                               zip(idx["event_offsets"].astype(np.int64),
                                   idx["event_counts"].astype(np.int64))] or [np.zeros(0, np.int64)])
    gid = np.empty(nev, np.int64)
    rk = np.empty(nev, np.int64)
    gid[order_ev] = gid_ev
    rk[order_ev] = rank_ev
    for r in range(nranks):
        m = np.nonzero(rk == r)[0]
        if len(m) == 0:
            continue
        ids = ev["call_ids"][m]
        if len(np.unique(ids)) != len(ids):
            fail(f"rank {r}: call_ids not unique")
        call, parent = sweep_parents(ev["thread_ids"][m], ev["start_times"][m],
                                     ev["end_times"][m], gid[m])
        # ids may be numbered otherwise: compare the parent relation through them
        to_local = {int(c): i for i, c in enumerate(ids)}
        got_parent = np.array([to_local[int(x)] if x >= 0 else -1 for x in ev["parent_ids"][m]])
        by_call = {int(c): i for i, c in enumerate(call)}
        want_parent = np.array([by_call[int(x)] if x >= 0 else -1 for x in parent])
        if not np.array_equal(got_parent, want_parent):
            fail(f"rank {r}: parent_ids differ from the nesting of the stamps")
        pname = {names[gid[m][i]]: set() for i in range(len(m))}
        for i in range(len(m)):
            pname[names[gid[m][i]]].add(names[gid[m][got_parent[i]]] if got_parent[i] >= 0 else None)
        expect = {"inner": {"outer"}, "work_inner": {"worker"}, "recurse": {"outer", "recurse"}}
        for child, parents in expect.items():
            if child in pname and pname[child] != parents:
                fail(f"rank {r}: {child}'s parents {pname[child]} != {parents}")
    # Per-rank and run-wide extras.
    for r in range(nranks if not alone else 0):
        if text(info["hostnames"][r]) != text(rattrs[r]["hostname"]):
            fail(f"rank {r}: hostname")
        for col in ("clock_offset_ns", "clock_offset_error_ns", "clock_offset_end_ns",
                    "clock_offset_end_error_ns", "clock_offset_at_ns", "clock_offset_end_at_ns"):
            have = int(info[col][r])
            want = int(rattrs[r][col]) if col in rattrs[r] else np.iinfo(np.int64).min
            if have != want:
                fail(f"rank {r}: {col} {have} != {want}")
    for k in ("mpi_size", "hostname", "library_version", "clock_source", "events_lost",
              "omp_threads", "timestamp") if not alone else ():
        if text(meta[k]) != text(rmeta[k]):
            fail(f"metadata {k}: {meta[k]} != {rmeta[k]}")
    extras = check_extras(ext, names, meta, ref, rattrs, rmeta, nranks) if not alone else ""
    print(f"OK: {len(seen)} pairs, {calls_checked} calls on {nranks} ranks identical; "
          f"{len(objs)} objects, MPI columns: {int(mpi)}{extras}")


def check_extras(ext, names, meta, ref, rattrs, rmeta, nranks):
    """The per-rank layout's extras, equal in the columnar file's own objects."""
    # Run metadata: every /metadata attribute of the per-rank file (the
    # users' keys with the library's), and the per-rank values that differ.
    for k, v in rmeta.items():
        if k not in meta or value(meta[k]) != value(v):
            fail(f"/metadata@{k}: {meta.get(k)} != {v}")
    want = {(r, k, v) for r in rattrs for k, v in rattrs[r]["meta"].items()}
    have = set()
    if "rank_metadata/ranks" in ext:
        cols = {c: ext["rank_metadata/" + c] for c in
                ("ranks", "keys", "types", "str_values", "int_values", "float_values")}
        for i in range(len(cols["ranks"])):
            t = int(cols["types"][i])
            v = text(cols["str_values"][i]) if t == 1 else int(cols["int_values"][i]) \
                if t == 2 else float(cols["float_values"][i])
            have.add((int(cols["ranks"][i]), text(cols["keys"][i]), v))
    if have != want:
        fail(f"rank_metadata {sorted(have ^ want)} differ from rank<N>/metadata")
    # Source locations: by name, as every rank that placed the region has it.
    nsrc = 0
    for r in ref:
        for name, reg in ref[r].items():
            g = names.index(name)
            got = (text(ext["region_table/source_files"][g]),
                   int(ext["region_table/source_lines"][g])) \
                if "region_table/source_files" in ext else ("", 0)
            if got != (reg["src"] or ("", 0)):
                fail(f"({r}, {name}): source {got} != {reg['src']}")
            nsrc += reg["src"] is not None
    # Samples: each rank's slice, its period and peak.
    nsampled = 0
    for r in range(nranks):
        want = rattrs[r]["samples"]
        peak = int(rattrs[r].get("peak_rss_bytes", -1))
        if "samples/counts" not in ext:
            if want is not None:
                fail(f"rank {r}: samples missing from the columnar file")
            continue
        o, n = int(ext["samples/offsets"][r]), int(ext["samples/counts"][r])
        # The peak is the kernel's high-water mark when each file's samples
        # were packed: the columnar file's first (layout both), so at most
        # the per-rank file's, and at least its own largest sample.
        cpeak = int(ext["rank_info/peak_rss_bytes"][r])
        if (peak < 0) != (cpeak < 0) or cpeak > peak or \
                cpeak < int(ext["samples/rss_bytes"][o:o + n].max(initial=-1)):
            fail(f"rank {r}: peak_rss_bytes {cpeak}, per-rank file {peak}")
        if want is None:
            if n != 0 or int(ext["samples/period_ns"][r]) != 0:
                fail(f"rank {r}: samples where the rank did not sample")
            continue
        if int(ext["samples/period_ns"][r]) != want["period_ns"]:
            fail(f"rank {r}: samples period_ns")
        for c in ("times", "rss_bytes", "cpu_ns"):
            if not np.array_equal(ext["samples/" + c][o:o + n], want[c]):
                fail(f"rank {r}: samples/{c} differ")
        nsampled += n > 0
    return (f", extras: metadata rows {len(have)}, sources {nsrc}, "
            f"ranks with samples {nsampled}")


main()
