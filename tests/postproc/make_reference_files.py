"""Writes profiles in the reference tool's (max-models/scope-profiler)
layouts with h5py, from one data set, so that the reader can be checked to
give the same results whatever the layout.

usage: make_reference_files.py DIR

Data: rank 0 and rank 2 (rank ids with a gap); regions "main", "solver/rhs"
(a name with '/') and "io" (rank 2 only); "omp" with thread ids on rank 0.
  ref_rows.h5      our row layout (link solver%2Frhs, name and num_calls attributes)
  ref_nested.h5    the reference tool's schema 1: rank<N>/regions/<name> created by
                   h5py from the raw name, so "solver/rhs" is regions/solver/rhs,
                   no name or num_calls attributes, /metadata with attributes
  ref_schema2.h5   columnar: region_table/names, rank_region_index/{region_ids,
                   ranks,event_offsets,event_counts}, events/{start_times,end_times,
                   thread_ids}; root @scope_profiler_schema 2, @storage_layout "columnar"
  ref_schema3.h5   the same with events/{start_deltas,durations} (schema 3) and
                   events/{call_ids,parent_ids} agreeing with the stamps (ids
                   100, 101, ... on every rank: unique within a rank only)
  ref_parents.h5   schema 3 whose parent ids disagree with the stamps, so the
                   ids must define the tree: rank 0's thread-0 omp call is a
                   root (inside main by its stamps), its last solver/rhs call
                   nests under the thread-1 omp call; rank 2's io names a
                   parent id that no call has (a root)
  ref_cycle.h5     schema 3 whose parent ids form a cycle (damaged file)
  ref_aggregate.h5 the aggregate layout (the reference tool's aggregation_mode): per
                   (rank, region) rank_region_index/aggregate_{counts,totals,minimums,
                   maximums,exclusives} (durations in ns, exclusive by the stamps'
                   nesting), no events
  ref_aggregate_counts.h5  the same with the counts only (an older writer): no time known
  ref_metadata_only.h5   only /metadata (time_trace=False or flush_to_disk=False)
"""
import sys

import h5py
import numpy as np

T0 = 5 * 10**11
MS = 1_000_000
DATA = {  # rank -> name -> list of (start, end, thread)
    0: {"main": [(0, 100 * MS, 0)],
        "solver/rhs": [(10 * MS, 20 * MS, 0), (30 * MS, 45 * MS, 0), (50 * MS, 51 * MS, 0)],
        "omp": [(60 * MS, 70 * MS, 0), (61 * MS, 69 * MS, 1)]},
    2: {"main": [(1 * MS, 99 * MS, 0)],
        "solver/rhs": [(5 * MS, 40 * MS, 0)],
        "io": [(90 * MS, 95 * MS, 0)]},
}


def calls(rank, name):
    return sorted(((T0 + s, T0 + e, t) for s, e, t in DATA[rank][name]), key=lambda c: c[1])


def write_rows(path):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank, regions in DATA.items():
            regs = f.create_group(f"rank{rank}/regions")
            for name in regions:
                v = calls(rank, name)
                g = regs.create_group(name.replace("%", "%25").replace("/", "%2F"))
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(v))
                g["start_times"] = np.array([c[0] for c in v], np.int64)
                g["end_times"] = np.array([c[1] for c in v], np.int64)
                if any(c[2] for c in v):
                    g["thread_ids"] = np.array([c[2] for c in v], np.int32)


def write_nested(path):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(1)
        meta = f.create_group("metadata")
        meta.attrs["mpi_size"] = 3
        meta.attrs["omp_num_threads"] = 2
        meta.attrs["total_cores"] = 6
        for rank, regions in DATA.items():
            regs = f.create_group(f"rank{rank}/regions")
            for name in regions:
                v = calls(rank, name)
                g = regs.create_group(name)  # "solver/rhs" -> solver/rhs, as h5py does
                g["start_times"] = np.array([c[0] for c in v], np.int64)
                g["end_times"] = np.array([c[1] for c in v], np.int64)
                if any(c[2] for c in v):
                    g["thread_ids"] = np.array([c[2] for c in v], np.int32)


def stamp_parents(rank):
    """(name, index in calls(rank, name)) -> (call id, parent id) by the
    stamps: per thread, sorted by start then end descending, the parent is
    the latest earlier call that contains the call."""
    every = sorted(((t, s, -e, name, i) for name in DATA[rank]
                    for i, (s, e, t) in enumerate(calls(rank, name))))
    ids = {}
    for k, (t, s, ne, name, i) in enumerate(every):
        parent = -1
        for q in range(k - 1, -1, -1):
            pt, ps, pne, pname, pi = every[q]
            if pt == t and ps <= s and -ne <= -pne:
                parent = ids[(pname, pi)][0]
                break
        ids[(name, i)] = (100 + k, parent)
    return ids


NAMES = ["main", "solver/rhs", "omp", "io"]


def write_header(f, schema, layout, rows):
    """What the columnar and aggregate layouts share: the root attributes,
    /metadata, region_table/names and the index's region_ids and ranks of
    rows [(region id, rank, ...)]; returns the rank_region_index group."""
    f.attrs["scope_profiler_schema"] = np.int64(schema)
    f.attrs["storage_layout"] = layout
    f.create_group("metadata").attrs["mpi_size"] = 3
    f["region_table/names"] = np.array(NAMES, dtype=h5py.string_dtype())
    idx = f.create_group("rank_region_index")
    idx["region_ids"] = np.array([r[0] for r in rows], np.uint32)
    idx["ranks"] = np.array([r[1] for r in rows], np.uint32)
    return idx


def write_columnar(path, schema, ids=None):
    """ids: rank -> function(ids by the stamps) -> the ids to write, or None
    for no id columns; schema 3 writes the stamps' own ids by default."""
    names = NAMES
    rows, starts, ends, tids, cids, pids = [], [], [], [], [], []
    for rank, regions in DATA.items():
        own = stamp_parents(rank)
        if ids:
            own = ids(rank, own)
        for name in regions:
            v = calls(rank, name)
            rows.append((names.index(name), rank, len(starts), len(v)))
            cids += [own[(name, i)][0] for i in range(len(v))]
            pids += [own[(name, i)][1] for i in range(len(v))]
            if schema == 3:
                # Deltas within the pair: start = cumulative sum, end = start + duration.
                prev = 0
                for s, e, t in v:
                    starts.append(s - prev)
                    ends.append(e - s)
                    prev = s
            else:
                starts += [c[0] for c in v]
                ends += [c[1] for c in v]
            tids += [c[2] for c in v]
    with h5py.File(path, "w") as f:
        idx = write_header(f, schema, "columnar", rows)
        idx["event_offsets"] = np.array([r[2] for r in rows], np.uint64)
        idx["event_counts"] = np.array([r[3] for r in rows], np.uint64)
        ev = f.create_group("events")
        a, b = ("start_deltas", "durations") if schema == 3 else ("start_times", "end_times")
        ev[a] = np.array(starts, np.int64)
        ev[b] = np.array(ends, np.int64)
        ev["thread_ids"] = np.array(tids, np.int32)
        if schema == 3:
            ev["call_ids"] = np.array(cids, np.int64)
            ev["parent_ids"] = np.array(pids, np.int64)


def disagreeing_ids(rank, own):
    """The ids of ref_parents.h5 (see the module's docstring)."""
    own = dict(own)
    if rank == 0:
        omp0 = [i for i, c in enumerate(calls(0, "omp")) if c[2] == 0][0]
        omp1 = [i for i, c in enumerate(calls(0, "omp")) if c[2] == 1][0]
        own[("omp", omp0)] = (own[("omp", omp0)][0], -1)
        last = len(calls(0, "solver/rhs")) - 1
        own[("solver/rhs", last)] = (own[("solver/rhs", last)][0], own[("omp", omp1)][0])
    else:
        own[("io", 0)] = (own[("io", 0)][0], 987654)
    return own


def cycle_ids(rank, own):
    """main and the first solver/rhs call name each other as parent."""
    own = dict(own)
    m, r = own[("main", 0)][0], own[("solver/rhs", 0)][0]
    own[("main", 0)] = (m, r)
    own[("solver/rhs", 0)] = (r, m)
    return own


def exclusive(rank, name):
    """Exclusive ns of the pair: its durations minus those of the calls
    directly under its calls (the stamps' nesting, as stamp_parents)."""
    own = stamp_parents(rank)
    dur = {own[(n, i)][0]: c[1] - c[0] for n in DATA[rank] for i, c in enumerate(calls(rank, n))}
    mine = {own[(name, i)][0] for i in range(len(calls(rank, name)))}
    kids = sum(dur[cid] for (n, i), (cid, pid) in own.items() if pid in mine)
    return sum(dur[c] for c in mine) - kids


def write_aggregate(path, times=True):
    """The reference tool's aggregate layout: no events, per (region, rank)
    the call count, total, shortest, longest and exclusive time in ns (the
    count only without times)."""
    rows = []
    for rank in DATA:
        for name in DATA[rank]:
            d = [c[1] - c[0] for c in calls(rank, name)]
            rows.append((NAMES.index(name), rank, len(d), sum(d), min(d), max(d),
                         exclusive(rank, name)))
    with h5py.File(path, "w") as f:
        idx = write_header(f, 2, "aggregate", rows)
        idx["aggregate_counts"] = np.array([r[2] for r in rows], np.uint64)
        for k, col in enumerate(("totals", "minimums", "maximums", "exclusives") if times else ()):
            idx["aggregate_" + col] = np.array([r[3 + k] for r in rows], np.int64)
        ev = f.create_group("events")
        ev["start_times"] = np.zeros(0, np.int64)
        ev["end_times"] = np.zeros(0, np.int64)


def write_metadata_only(path):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(1)
        f.create_group("metadata").attrs["mpi_size"] = 2


if __name__ == "__main__":
    d = sys.argv[1]
    write_rows(d + "/ref_rows.h5")
    write_nested(d + "/ref_nested.h5")
    write_columnar(d + "/ref_schema2.h5", 2)
    write_columnar(d + "/ref_schema3.h5", 3)
    write_columnar(d + "/ref_parents.h5", 3, disagreeing_ids)
    write_columnar(d + "/ref_cycle.h5", 3, cycle_ids)
    write_aggregate(d + "/ref_aggregate.h5")
    write_aggregate(d + "/ref_aggregate_counts.h5", times=False)
    write_metadata_only(d + "/ref_metadata_only.h5")
