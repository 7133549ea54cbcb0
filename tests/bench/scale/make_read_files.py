"""Writes one synthetic profile of RANKS x REGIONS x CALLS calls in the
layouts the postprocessor reads (issue 47: reading at 100,000 ranks), with
h5py and numpy, from the same deterministic data.

usage: /usr/bin/python3 make_read_files.py DIR RANKS REGIONS CALLS [LAYOUT...] [--slow RANK]
           [--writer PATH]
  LAYOUT: columnar (the default), perrank, shuffled, reduced, or both
  (columnar and perrank); prints one line per file written: layout, path, seconds to
  write, bytes. --slow RANK: every call of that rank lasts 0.7 SLOT minus
  its region's number (longer than any other rank's: a known outlier, for
  the report's representative ranks, tests/postproc/check_report_ranks.py).

  DIR/read_columnar.h5  the reference tool's columnar schema 2 (as
      postproc/src/reader_columnar.c reads it): region_table/names,
      rank_region_index/{region_ids, ranks (uint32), event_offsets,
      event_counts (uint64)}, events/{start_times, end_times} (int64 ns);
      root @scope_profiler_schema 2, @storage_layout "columnar". Rank-major:
      rank 0's pairs, then rank 1's, each pair's calls contiguous.
  DIR/read_shuffled.h5  the same columnar data with the events region after
      region (all ranks of region 0 first) and the index rows in a seeded
      random order: pairs that are neither rank after rank nor in file order.
  DIR/read_reduced.h5   profile mode reduced across ranks (docs/profile-mode.md,
      "Reduced across ranks"; k = 8): each region one call path at the top,
      its figures over all ranks in reduced_paths, the 8 ranks of largest
      and the 8 of smallest total per region kept whole; no histograms (no
      percentiles), no stamps. What a run of RANKS ranks with
      SCOPE_PROFILER_REDUCE=1 would write for these calls.
  DIR/read_perrank.h5   the reference tool's schema 1 (docs of the reference
      tool, hdf5-output-and-visualization): rank<N>/regions/<name>/
      {start_times, end_times}. --writer PATH: written by PATH, the
      build's tests/bench/scale/write_perrank (the HDF5 C library, the same
      objects in the same order from the same arrays), not by h5py, which
      writes ~600 region groups a second (100,000 ranks: over two hours).

The data (data() below): on rank r, region g's call c starts at
T0 + ((c * REGIONS + g) * SLOT) + r * SKEW + jitter and lasts between 1 and
SLOT / 2 ns, so calls never overlap and every call is a root of the call
tree; the durations depend on (r, g, c) through a seeded generator, so the
oracle (read_oracle.py) must read them, not recompute them.
"""
import os
import subprocess
import sys
import time

import h5py
import numpy as np

T0 = 10**12
SLOT = 100_000  # ns between consecutive calls of a rank
SKEW = 7  # ns of start offset per rank


def region_names(nregions):
    return [f"region_{g:03d}" for g in range(nregions)]


def data(nranks, nregions, ncalls, seed=47, slow=None):
    """starts, ends as int64[nranks, nregions, ncalls] (ns)."""
    rng = np.random.default_rng(seed)
    c = np.arange(ncalls, dtype=np.int64)[None, None, :]
    g = np.arange(nregions, dtype=np.int64)[None, :, None]
    r = np.arange(nranks, dtype=np.int64)[:, None, None]
    jitter = rng.integers(0, SLOT // 4, size=(nranks, nregions, ncalls), dtype=np.int64)
    starts = T0 + (c * nregions + g) * SLOT + r * SKEW + jitter
    dur = rng.integers(1, SLOT // 2, size=(nranks, nregions, ncalls), dtype=np.int64)
    if slow is not None:  # still ends before the next slot: jitter < SLOT / 4
        dur[slow] = 7 * SLOT // 10 - np.arange(nregions, dtype=np.int64)[:, None]
    return starts, starts + dur


def write_columnar(path, nranks, nregions, ncalls, shuffled=False, slow=None):
    starts, ends = data(nranks, nregions, ncalls, slow=slow)
    npairs = nranks * nregions
    region_ids = np.tile(np.arange(nregions, dtype=np.uint32), nranks)
    ranks = np.repeat(np.arange(nranks, dtype=np.uint32), nregions)
    offsets = np.arange(npairs, dtype=np.uint64) * np.uint64(ncalls)
    if shuffled:
        # Events region after region; pair (r, g) is then at g * nranks + r.
        starts, ends = starts.transpose(1, 0, 2), ends.transpose(1, 0, 2)
        offsets = (region_ids.astype(np.uint64) * np.uint64(nranks) + ranks) * np.uint64(ncalls)
        perm = np.random.default_rng(4747).permutation(npairs)
        region_ids, ranks, offsets = region_ids[perm], ranks[perm], offsets[perm]
    with h5py.File(path, "w", libver="earliest") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "columnar"
        f.create_group("metadata").attrs["mpi_size"] = np.int64(nranks)
        f["region_table/names"] = np.array(region_names(nregions), dtype=h5py.string_dtype())
        idx = f.create_group("rank_region_index")
        idx["region_ids"] = region_ids
        idx["ranks"] = ranks
        idx["event_offsets"] = offsets
        idx["event_counts"] = np.full(npairs, ncalls, dtype=np.uint64)
        ev = f.create_group("events")
        ev["start_times"] = np.ascontiguousarray(starts).reshape(-1)
        ev["end_times"] = np.ascontiguousarray(ends).reshape(-1)


def write_perrank(path, nranks, nregions, ncalls, slow=None):
    starts, ends = data(nranks, nregions, ncalls, slow=slow)
    if WRITER:
        raw = [path + ".starts.raw", path + ".ends.raw"]
        try:
            for a, p in zip((starts, ends), raw):
                np.ascontiguousarray(a, dtype="<i8").tofile(p)
            subprocess.run([WRITER, path, str(nranks), str(nregions), str(ncalls)] + raw,
                           check=True)
        finally:
            for p in raw:
                if os.path.exists(p):
                    os.remove(p)
        return
    names = region_names(nregions)
    with h5py.File(path, "w", libver="earliest") as f:
        f.attrs["scope_profiler_schema"] = np.int64(1)
        f.create_group("metadata").attrs["mpi_size"] = np.int64(nranks)
        for r in range(nranks):
            regs = f.create_group(f"rank{r}/regions")
            for g, name in enumerate(names):
                grp = regs.create_group(name)
                grp["start_times"] = starts[r, g]
                grp["end_times"] = ends[r, g]


KEEP = 8  # SCOPE_PROFILER_REDUCE_KEEP's default
WRITER = None  # --writer: the C writer of the per-rank layout


def kept_of(tot):
    """Per region its KEEP largest (kind 0, largest first) and KEEP smallest
    (kind 1, smallest first) ranks by total; among equal totals the lower rank
    first for the largest, the higher first for the smallest (aggregate_red_table.c)."""
    rows = []
    ranks = np.arange(tot.shape[0])
    for g in range(tot.shape[1]):
        desc = np.lexsort((ranks, -tot[:, g]))[:KEEP]
        asc = np.lexsort((-ranks, tot[:, g]))[:KEEP]
        rows += [(g, int(r), 0, int(tot[r, g])) for r in desc]
        rows += [(g, int(r), 1, int(tot[r, g])) for r in asc]
    return rows


def write_reduced(path, nranks, nregions, ncalls, slow=None):
    starts, ends = data(nranks, nregions, ncalls, slow=slow)
    dur = ends - starts
    tot, mn, mx = dur.sum(axis=2), dur.min(axis=2), dur.max(axis=2)  # [rank, region]
    sq = (dur.astype(np.float64) ** 2).sum(axis=2)
    cnt = np.full((nranks, nregions), ncalls, dtype=np.int64)
    i64, i32 = np.int64, np.int32
    with h5py.File(path, "w", libver="earliest") as f:
        f.attrs["scope_profiler_schema"] = i64(2)
        f.attrs["storage_layout"] = "aggregate"
        m = f.create_group("metadata")
        for k, v in (("events_lost", 0), ("mpi_size", nranks), ("reduce_keep", KEEP), ("reduced", 1)):
            m.attrs[k] = i64(v)
        m.attrs["scope_profiler_version"] = "0.1.0"
        rt = f.create_group("region_table")
        rt["names"] = np.array(region_names(nregions), dtype=h5py.string_dtype())
        rt["source_files"] = np.array([""] * nregions, dtype=h5py.string_dtype())
        rt["source_lines"] = np.zeros(nregions, i64)
        ev = f.create_group("events")
        ev["start_times"] = np.zeros(0, i64)
        ev["end_times"] = np.zeros(0, i64)
        rp = f.create_group("reduced_paths")
        rp.attrs["open_calls"] = i64(0)
        rp["region_ids"] = np.arange(nregions, dtype=i32)
        rp["depths"] = np.zeros(nregions, i32)
        rp["parents"] = np.full(nregions, -1, i64)
        rp["rank_counts"] = np.full(nregions, nranks, i32)
        for name, v in (("counts", cnt), ("inclusives", tot), ("exclusives", tot)):
            rp[name + "_min"], rp[name + "_max"] = v.min(axis=0), v.max(axis=0)
            rp[name + "_sum"] = v.sum(axis=0)
            rp[name + "_mean"] = v.mean(axis=0, dtype=np.float64)
            rp[name + "_std"] = v.std(axis=0, dtype=np.float64)
            rp[name + "_min_rank"] = v.argmin(axis=0).astype(i32)  # the first: the lower rank
            rp[name + "_max_rank"] = v.argmax(axis=0).astype(i32)
        for grp, key in (("reduced_path_histograms", "paths"), ("kept_path_histograms", "rows")):
            h = f.create_group(grp)
            h.attrs["nbuckets"], h.attrs["sub_buckets"] = i32(1312), i32(32)
            h[key] = np.zeros(0, i64)
            h["buckets"] = np.zeros(0, i32)
            h["counts"] = np.zeros(0, i64)
        kept = kept_of(tot)
        kr = f.create_group("kept_ranks")
        kr["region_ids"] = np.array([k[0] for k in kept], i32)
        kr["ranks"] = np.array([k[1] for k in kept], i32)
        kr["kinds"] = np.array([k[2] for k in kept], i32)
        kr["totals"] = np.array([k[3] for k in kept], i64)
        pairs = sorted({(k[1], k[0]) for k in kept})  # (rank, region)
        r_ = np.array([p[0] for p in pairs], np.int64)
        g_ = np.array([p[1] for p in pairs], np.int64)
        idx = f.create_group("rank_region_index")
        idx["region_ids"], idx["ranks"] = g_.astype(np.uint32), r_.astype(np.uint32)
        idx["aggregate_counts"] = cnt[r_, g_].astype(np.uint64)
        for name, v in (("totals", tot), ("minimums", mn), ("maximums", mx), ("exclusives", tot)):
            idx["aggregate_" + name] = v[r_, g_]
        th = f.create_group("thread_region_index")
        th["region_ids"], th["ranks"] = g_.astype(np.uint32), r_.astype(np.uint32)
        th["threads"] = np.zeros(len(pairs), np.uint32)
        th["counts"] = cnt[r_, g_].astype(np.uint64)
        for name, v in (("totals", tot), ("minimums", mn), ("maximums", mx), ("exclusives", tot)):
            th[name] = v[r_, g_]
        kp = f.create_group("kept_paths")
        kp["ranks"], kp["threads"] = r_.astype(i32), np.zeros(len(pairs), i32)
        kp["paths"] = g_
        kp["counts"], kp["inclusives"], kp["exclusives"] = cnt[r_, g_], tot[r_, g_], tot[r_, g_]
        kp["minimums"], kp["maximums"], kp["sum_squares"] = mn[r_, g_], mx[r_, g_], sq[r_, g_]


def write_shuffled(path, nranks, nregions, ncalls, slow=None):
    write_columnar(path, nranks, nregions, ncalls, shuffled=True, slow=slow)


WRITERS = {"columnar": ("read_columnar.h5", write_columnar),
           "shuffled": ("read_shuffled.h5", write_shuffled),
           "perrank": ("read_perrank.h5", write_perrank),
           "reduced": ("read_reduced.h5", write_reduced)}


def main(argv):
    global WRITER
    if "--writer" in argv:
        at = argv.index("--writer")
        WRITER = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    slow = None
    if "--slow" in argv:
        at = argv.index("--slow")
        slow = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) < 5:
        sys.exit(__doc__)
    out, nranks, nregions, ncalls = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    layouts = argv[5:] or ["columnar"]
    if "both" in layouts:
        layouts = ["columnar", "perrank"]
    os.makedirs(out, exist_ok=True)
    for layout in layouts:
        name, write = WRITERS[layout]
        path = os.path.join(out, name)
        t = time.perf_counter()
        write(path, nranks, nregions, ncalls, slow=slow)
        print(f"{layout} {path} {time.perf_counter() - t:.2f} s {os.path.getsize(path)} bytes",
              flush=True)


if __name__ == "__main__":
    main(sys.argv)
