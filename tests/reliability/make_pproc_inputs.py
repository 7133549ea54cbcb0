#!/usr/bin/python3
"""Writes the input files of the reliability.pproc.* cases with h5py, in
the documented layout and independently of scope-profiler's code.

usage: make_pproc_inputs.py DIR
       make_pproc_inputs.py DIR --many N   (only hostile_many_regions.h5)

plain.h5   one rank, region "work": 2 calls, [1 s, 2 s] and [3 s, 3.5 s]

damaged_stamps.h5  stamps and counts at the ends of int64 (MIN, MAX), as a
           damaged or foreign file may hold; every interval has end >= start:
  rank0  whole      [MIN, MAX]                       (lasts 2^64 - 1 ns)
         huge       [MIN + 10, MAX - 10], [1000, 2000]
         counted    count-only, num_calls MAX
         point_max  [MAX, MAX]
         LIKWID "whole": 3 threads, counts MAX, 1, 1
  rank1  whole      [MIN, MAX]
         counted    count-only, num_calls MAX
         point_min  [MIN, MIN]
         sum        [-5e18, 0], [0, 5e18]            (total 1e19 > MAX)
  rank2  counted    count-only, num_calls MAX
  So: 3 intervals longer than MAX ns (whole twice, huge once); 3 sums past
  int64 (total of whole over the ranks, calls of counted over the ranks,
  total of sum on rank1); 1 LIKWID call count past int64. Sums that pass
  the limit twice (counted, the LIKWID calls) are still one clamped value.
Hostile inputs (hostile_*.h5 unless said; region "big"/"work" on rank0):
deep_recursion.h5  region "f" recursing 3 x 10^5 deep (call i: [i, 2N - i] x 10 ns)
deep_folded.h5     the same 4000 deep
zero_ns.h5       region "work": one call of 0 ns ([5 s, 5 s], back-to-back stamps)
zero_ns_mixed.h5 "work": 0 ns, 10 ns, 1 us; "other": 1 ms, 2 ms
huge_unalloc     start/end of shape (2^62,), chunked, never written
huge_maxshape    shape (2^62,), maxshape None, one 1024-element chunk written
huge_contig      shape (2^59,), contiguous, never allocated
huge_gzip        shape (2^40,), gzip, one chunk written (past 65536:1)
gzip             region "work" as plain.h5, chunked, shuffle + gzip (valid)
names            rank0: "\xff\xfe" (fixed-length name attribute), 'q"uo\te<LF>nl,#co' and
                 "caf\xc3\xa9 \xf0\x9f\x98\x80" (valid UTF-8); one interval each
calls            "neg": num_calls -5, "big": num_calls 10^12; 2 intervals each
type_string      start_times/end_times of strings
type_2d          start_times/end_times of shape (2, 1)
type_float       end_times float64 (start int64)
ext_link         rank0/regions/work/start_times: external link to fifo:/data
ext_rank         rank1: external link to plain.h5:/rank0 (beside a good rank0)
ext_storage      rank0/regions/work/start_times stored in the external raw file fifo
virtual          rank0/regions/work/start_times a virtual dataset over plain.h5
soft_rank        rank1: soft link to /rank0 (followed: same regions as rank0)
soft_dangling    rank0/regions/work/end_times: soft link to /nowhere
rank_names       rank0 "work", plus groups rank-1, rank99999999999, rank007 and
                 rank999999999 ("edge": the largest id accepted, 9 digits)
rank_odd_only    only rank-1 and rank99999999999
many_regions     one rank, N count-only regions r0..r<N-1>, num_calls i (--many N)
likwid_link      LIKWID "work": counts an external link to fifo:/data
likwid_storage   LIKWID "work": counts stored in the external raw file fifo
col_ext_link     columnar (schema 2) events/start_times: external link to fifo:/data
col_huge         columnar events/start_times and end_times of shape (2^62,), never written
intervals        rank0 "work": 2*10^5 intervals of 1 us every 2 us (big exports)
fifo             a FIFO (named pipe), not a file
"""
import os
import sys

import h5py
import numpy as np

S = 10**9  # ns per second


def new_file(path):
    f = h5py.File(path, "w")
    f.attrs.create("scope_profiler_schema", 1, dtype=np.int32)
    meta = f.create_group("metadata")
    meta.attrs["hostname"] = "testhost"
    meta.attrs["library_version"] = "test-fixture"
    meta.attrs["clock"] = "CLOCK_MONOTONIC"
    return f


def region(f, rank, name, starts=None, ends=None, num_calls=None):
    """rank<rank>/regions/<name>: the stamps, or num_calls only (count-only)."""
    g = f.require_group(f"rank{rank}/regions").create_group(name)
    g.attrs["name"] = name
    if num_calls is None:
        num_calls = len(starts)
    g.attrs.create("num_calls", num_calls, dtype=np.int64)
    if starts is not None:
        g.create_dataset("start_times", data=np.array(starts, dtype=np.int64))
        g.create_dataset("end_times", data=np.array(ends, dtype=np.int64))


def likwid_region(f, rank, name, counts, times, events, event_names):
    """rank<rank>/likwid/regions/<name> as the core writes LIKWID results."""
    lw = f.require_group(f"rank{rank}/likwid")
    lw.attrs["group"] = "FLOPS_DP"
    g = lw.require_group("regions").create_group(name)
    g.attrs["name"] = name
    g.attrs["tag"] = name
    g.create_dataset("cpus", data=np.arange(len(counts), dtype=np.int32))
    g.create_dataset("counts", data=np.array(counts, dtype=np.int64))
    g.create_dataset("times", data=np.array(times, dtype=np.float64))
    g.create_dataset("events", data=np.array(events, dtype=np.float64))
    g.create_dataset("event_names", data=event_names, dtype=h5py.string_dtype())


def damaged_stamps(path):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    with new_file(path) as f:
        for r in (0, 1):
            region(f, r, "whole", [lo], [hi])
            region(f, r, "counted", num_calls=hi)
        region(f, 0, "huge", [lo + 10, 1000], [hi - 10, 2000])
        region(f, 0, "point_max", [hi], [hi])
        likwid_region(f, 0, "whole", [hi, 1, 1], [1.0, 1.0, 1.0], [[1.0], [2.0], [3.0]],
                      ["CYCLES"])
        region(f, 1, "point_min", [lo], [lo])
        region(f, 1, "sum", [-5 * 10**18, 0], [0, 5 * 10**18])
        region(f, 2, "counted", num_calls=hi)


def one_region(path, name="big", starts=(1 * S, 3 * S), ends=(2 * S, 4 * S), **kw):
    """A file with rank0/regions/<name> made by kw["make"](group) or plain data."""
    with new_file(path) as f:
        g = f.create_group(f"rank0/regions/{name}")
        g.attrs["name"] = name
        g.attrs.create("num_calls", len(starts), dtype=np.int64)
        if "make" in kw:
            kw["make"](g)
        else:
            g.create_dataset("start_times", data=np.array(starts, dtype=np.int64))
            g.create_dataset("end_times", data=np.array(ends, dtype=np.int64))


def huge(g, shape, written=0, **kw):
    for n in ("start_times", "end_times"):
        d = g.create_dataset(n, shape=shape, dtype=np.int64, **kw)
        if written:
            d[0:written] = np.arange(written, dtype=np.int64) * 10 + (n == "end_times")


def hostile_sizes(out):
    one_region(f"{out}/hostile_huge_unalloc.h5", make=lambda g: huge(g, (2**62,), chunks=(1024,)))
    one_region(f"{out}/hostile_huge_maxshape.h5", make=lambda g: huge(
        g, (2**62,), 1024, chunks=(1024,), maxshape=(None,)))
    one_region(f"{out}/hostile_huge_contig.h5", make=lambda g: huge(g, (2**59,)))
    one_region(f"{out}/hostile_huge_gzip.h5", make=lambda g: huge(
        g, (2**40,), 1024, chunks=(1024,), compression="gzip"))
    one_region(f"{out}/hostile_gzip.h5", name="work", make=lambda g: [g.create_dataset(
        n, data=np.array(v, dtype=np.int64), chunks=(1,), shuffle=True, compression="gzip")
        for n, v in (("start_times", [1 * S, 3 * S]), ("end_times", [2 * S, 3 * S + S // 2]))])


def hostile_names(out):
    with new_file(f"{out}/hostile_names.h5") as f:
        g = f.create_group("rank0/regions/bad")
        g.attrs["name"] = np.bytes_(b"\xff\xfe")  # fixed-length, not UTF-8
        g.attrs.create("num_calls", 1, dtype=np.int64)
        g.create_dataset("start_times", data=np.array([S], dtype=np.int64))
        g.create_dataset("end_times", data=np.array([2 * S], dtype=np.int64))
        region(f, 0, 'q"uo\\te\nnl,#co', [S], [3 * S])
        region(f, 0, "caf\u00e9 \U0001F600", [2 * S], [3 * S])
    with new_file(f"{out}/hostile_calls.h5") as f:
        region(f, 0, "neg", [S, 3 * S], [2 * S, 4 * S], num_calls=-5)
        region(f, 0, "big", [S, 3 * S], [2 * S, 4 * S], num_calls=10**12)


def hostile_types(out):
    def typed(g, dtype, shape=None):
        for n, v in (("start_times", [1, 2]), ("end_times", [3, 4])):
            data = np.array(v, dtype=dtype)
            g.create_dataset(n, data=data.reshape(shape) if shape else data)
    one_region(f"{out}/hostile_type_string.h5", make=lambda g: typed(g, "S8"))
    one_region(f"{out}/hostile_type_2d.h5", make=lambda g: typed(g, np.int64, (2, 1)))

    def mixed(g):
        g.create_dataset("start_times", data=np.array([1, 2], dtype=np.int64))
        g.create_dataset("end_times", data=np.array([3.0, 4.0]))
    one_region(f"{out}/hostile_type_float.h5", make=mixed)


def hostile_links(out):
    plain = f"{out}/plain.h5"

    def ext_dataset(g):
        g["start_times"] = h5py.ExternalLink("fifo", "/data")
        g.create_dataset("end_times", data=np.array([2 * S, 4 * S], dtype=np.int64))
    one_region(f"{out}/hostile_ext_link.h5", name="work", make=ext_dataset)
    with new_file(f"{out}/hostile_ext_rank.h5") as f:
        region(f, 0, "work", [S], [2 * S])
        f["rank1"] = h5py.ExternalLink("plain.h5", "/rank0")

    def ext_storage(g):
        g.create_dataset("start_times", shape=(2,), dtype=np.int64,
                         external=[(os.path.join(out, "fifo"), 0, h5py.h5f.UNLIMITED)])
        g.create_dataset("end_times", data=np.array([2 * S, 4 * S], dtype=np.int64))
    one_region(f"{out}/hostile_ext_storage.h5", name="work", make=ext_storage)

    def virtual(g):
        layout = h5py.VirtualLayout(shape=(2,), dtype=np.int64)
        layout[:] = h5py.VirtualSource(plain, "rank0/regions/work/start_times", shape=(2,))
        g.create_virtual_dataset("start_times", layout)
        g.create_dataset("end_times", data=np.array([2 * S, 4 * S], dtype=np.int64))
    one_region(f"{out}/hostile_virtual.h5", name="work", make=virtual)
    with new_file(f"{out}/hostile_soft_rank.h5") as f:
        region(f, 0, "work", [S], [2 * S])
        f["rank1"] = h5py.SoftLink("/rank0")

    def dangling(g):
        g.create_dataset("start_times", data=np.array([S, 3 * S], dtype=np.int64))
        g["end_times"] = h5py.SoftLink("/nowhere")
    one_region(f"{out}/hostile_soft_dangling.h5", name="work", make=dangling)


def hostile_ranks(out):
    with new_file(f"{out}/hostile_rank_names.h5") as f:
        region(f, 0, "work", [S], [2 * S])
        for odd in ("rank-1", "rank99999999999", "rank007"):
            region(f, odd[4:], "odd", [S], [2 * S])
        region(f, 999999999, "edge", [S], [3 * S])
    with new_file(f"{out}/hostile_rank_odd_only.h5") as f:
        for odd in ("rank-1", "rank99999999999"):
            region(f, odd[4:], "odd", [S], [2 * S])


def hostile_likwid(out):
    """LIKWID results of region "work" whose data lies in another file."""
    fifo = os.path.join(out, "fifo")
    for tag in ("link", "storage"):
        with new_file(f"{out}/hostile_likwid_{tag}.h5") as f:
            region(f, 0, "work", [S], [2 * S])
            likwid_region(f, 0, "work", [1], [1.0], [[1.0]], ["CYCLES"])
            g = f["rank0/likwid/regions/work"]
            del g["counts"]
            if tag == "link":
                g["counts"] = h5py.ExternalLink("fifo", "/data")
            else:
                g.create_dataset("counts", shape=(1,), dtype=np.int64,
                                 external=[(fifo, 0, h5py.h5f.UNLIMITED)])


def many_regions(path, n=10**6):
    """n count-only regions on one rank: only groups and attributes."""
    with h5py.File(path, "w", libver="latest") as f:
        f.attrs.create("scope_profiler_schema", 1, dtype=np.int32)
        regions = f.create_group("rank0/regions")
        for i in range(n):
            g = regions.create_group(f"r{i}")
            g.attrs.create("num_calls", i, dtype=np.int64)


def columnar(path, events):
    """The reference tool's columnar layout (schema 2), one region "work" on
    rank 0 with two events, its events group made by events(group)."""
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "columnar"
        f["region_table/names"] = np.array(["work"], dtype=h5py.string_dtype())
        idx = f.create_group("rank_region_index")
        idx["region_ids"] = np.array([0], np.uint32)
        idx["ranks"] = np.array([0], np.uint32)
        idx["event_offsets"] = np.array([0], np.uint64)
        idx["event_counts"] = np.array([2], np.uint64)
        events(f.create_group("events"))


def hostile_columnar(out):
    def ext(ev):
        ev["start_times"] = h5py.ExternalLink("fifo", "/data")
        ev["end_times"] = np.array([2 * S, 4 * S], np.int64)
    columnar(f"{out}/hostile_col_ext_link.h5", ext)

    def unwritten(ev):
        for n in ("start_times", "end_times"):
            ev.create_dataset(n, shape=(2**62,), dtype=np.int64, chunks=(1024,))
    columnar(f"{out}/hostile_col_huge.h5", unwritten)


def deep(path, n):
    """Region "f" calling itself n deep: every level has 20 ns of its own."""
    with new_file(path) as f:
        i = np.arange(n, dtype=np.int64)
        region(f, 0, "f", S + 10 * i, S + 10 * (2 * n - i))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if sys.argv[2:3] == ["--many"]:
        many_regions(os.path.join(out, "hostile_many_regions.h5"), int(sys.argv[3]))
        return 0
    with new_file(os.path.join(out, "plain.h5")) as f:
        region(f, 0, "work", [1 * S, 3 * S], [2 * S, 3 * S + S // 2])
    damaged_stamps(os.path.join(out, "damaged_stamps.h5"))
    os.makedirs(os.path.join(out, "hostile_out"), exist_ok=True)  # charts; a directory as FILE
    fifo = os.path.join(out, "fifo")
    if os.path.lexists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    hostile_sizes(out)
    hostile_names(out)
    hostile_types(out)
    hostile_links(out)
    hostile_ranks(out)
    hostile_likwid(out)
    hostile_columnar(out)
    deep(f"{out}/deep_recursion.h5", 3 * 10**5)
    deep(f"{out}/deep_folded.h5", 4000)
    with new_file(f"{out}/zero_ns.h5") as f:
        region(f, 0, "work", [5 * S], [5 * S])
    with new_file(f"{out}/zero_ns_mixed.h5") as f:
        region(f, 0, "work", [S, 2 * S, 3 * S], [S, 2 * S + 10, 3 * S + 1000])
        region(f, 0, "other", [4 * S, 5 * S], [4 * S + 10**6, 5 * S + 2 * 10**6])
    with new_file(f"{out}/hostile_intervals.h5") as f:
        starts = np.arange(2 * 10**5, dtype=np.int64) * 2000
        region(f, 0, "work", starts, starts + 1000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
