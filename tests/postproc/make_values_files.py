"""Writes files with values per call (issue 53; docs/values.md, the file
contract of /work/wt/notes/values53_spec.md) with h5py, in each layout the
reader knows, from one seeded data set, so that every output of the
postprocessor can be checked against numpy over the same file.

usage: make_values_files.py DIR

  values_rows.h5      per-rank layout: rank<N>/regions/<link>/call_values/<key link>
                      (int64 with INT64_MIN, float64 with NaN, UTF-8 strings with ""
                      for calls without the key; @key), on ranks 0, 1 and 3, with
                      thread ids; @values_lost on one region's call_values
  values_columnar.h5  the same calls in the columnar layout: call_values/<key link>
                      (one dataset per key) with E values aligned with events/*,
                      @values_lost the total
  values_profile.h5   a profile-mode aggregate file: call_paths/ and
                      call_path_values/{rows, keys, counts, sums, minimums, maximums}
  values_none.h5      per-rank layout without any values
  values_badlen.h5    per-rank layout whose rank1 solve/call_values/iters holds one
                      value fewer than the calls (a damaged file)
"""
import sys

import h5py
import numpy as np

IMIN = np.iinfo(np.int64).min
T0 = 7 * 10**11
RANKS = [0, 1, 3]
# region -> key -> kind ("int", "real", "str"); "plain" has no values.
KEYS = {
    "solve": {"iters": "int", "residual": "real", "method": "str", "a/b.c%": "int"},
    "io/write": {"file": "str", "bytes": "int"},
    "plain": {},
    "step": {"dt": "real"},
}
METHODS = ["cg", "gmres", "bicgstab", "jacobi"]


def link(name):
    """The core's link name: '%' '/' and a lone '.' escaped."""
    s = name.replace("%", "%25").replace("/", "%2F")
    return "%2E" if s == "." else s


def data(seed=53):
    """rank -> region -> (starts, ends, tids, {key: values}) with missing
    values as the contract writes them."""
    rng = np.random.default_rng(seed)
    out = {}
    for rank in RANKS:
        out[rank] = {}
        t = T0 + rank * 1000
        for region, keys in KEYS.items():
            n = {"solve": 40, "io/write": 60, "plain": 5, "step": 12}[region] + rank
            if rank == 3 and region == "step":
                continue  # a region missing on one rank
            starts = t + np.cumsum(rng.integers(100, 1000, n)).astype(np.int64)
            ends = starts + rng.integers(1, 90, n).astype(np.int64)
            tids = (np.arange(n) % 2).astype(np.int32) if region == "solve" else np.zeros(n, np.int32)
            vals = {}
            for key, kind in keys.items():
                miss = rng.random(n) < 0.25
                if kind == "int":
                    v = rng.integers(-50, 5000, n).astype(np.int64)
                    v[miss] = IMIN
                elif kind == "real":
                    v = rng.normal(1e-3, 5e-4, n)
                    v[miss] = np.nan
                else:
                    if key == "file":  # many distinct values: the list is cut at 20
                        pool = [f"out_{i:02d}.dat" for i in range(30)] + ["ünï €"]
                        p = np.r_[np.full(30, 0.5 / 30), [0.5]]
                        v = np.array([pool[i] for i in rng.choice(len(pool), n, p=p)], object)
                    else:
                        v = np.array([METHODS[i] for i in rng.integers(0, 4, n)], object)
                    v[miss] = ""
                vals[key] = v
            if rank == 1 and region == "solve":
                # a key set on this rank only
                v = np.full(n, IMIN, np.int64)
                v[::3] = np.arange(0, n, 3)
                vals["only_rank1"] = v
            out[rank][region] = (starts, ends, tids, vals)
    return out


def dset(g, name, v):
    if v.dtype == object:
        return g.create_dataset(name, data=np.array(list(v), dtype=h5py.string_dtype("utf-8")))
    return g.create_dataset(name, data=v)


def write_rows(path, d, values=True):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for rank, regions in d.items():
            regs = f.create_group(f"rank{rank}/regions")
            for name, (s, e, tid, vals) in regions.items():
                g = regs.create_group(link(name))
                g.attrs["name"] = name
                g.attrs["num_calls"] = np.int64(len(s))
                g["start_times"], g["end_times"], g["thread_ids"] = s, e, tid
                if not values or not vals:
                    continue
                cv = g.create_group("call_values")
                for key, v in vals.items():
                    dset(cv, link(key), v).attrs["key"] = key
                if rank == 1 and name == "solve":
                    cv.attrs["values_lost"] = np.int64(3)


def write_columnar(path, d):
    names = list(KEYS)
    rows, cols = [], {}
    starts, ends, tids = [], [], []
    kinds = {}
    for rank, regions in d.items():
        for name, (s, e, tid, vals) in regions.items():
            for k, v in vals.items():
                kinds[k] = v.dtype
    E = sum(len(x[0]) for r in d.values() for x in r.values())
    for k, dt in kinds.items():
        cols[k] = (np.full(E, IMIN, np.int64) if dt == np.int64 else
                   np.full(E, np.nan) if dt == np.float64 else np.full(E, "", object))
    off = 0
    for rank, regions in d.items():
        for name, (s, e, tid, vals) in regions.items():
            rows.append((names.index(name), rank, off, len(s)))
            starts.append(s), ends.append(e), tids.append(tid)
            for k, v in vals.items():
                cols[k][off:off + len(s)] = v
            off += len(s)
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "columnar"
        f.create_group("metadata").attrs["mpi_size"] = 4
        f["region_table/names"] = np.array(names, dtype=h5py.string_dtype())
        idx = f.create_group("rank_region_index")
        idx["region_ids"] = np.array([r[0] for r in rows], np.uint32)
        idx["ranks"] = np.array([r[1] for r in rows], np.uint32)
        idx["event_offsets"] = np.array([r[2] for r in rows], np.uint64)
        idx["event_counts"] = np.array([r[3] for r in rows], np.uint64)
        f["events/start_times"] = np.concatenate(starts)
        f["events/end_times"] = np.concatenate(ends)
        f["events/thread_ids"] = np.concatenate(tids)
        cv = f.create_group("call_values")
        cv.attrs["values_lost"] = np.int64(3)  # the total over the ranks (CHANGED 15:33)
        for k, v in cols.items():
            dset(cv, link(k), v).attrs["key"] = k


def write_profile(path, d):
    """Call paths: per rank, thread 0, each region a root path; solve has a
    child path io/write. call_path_values rows: the numeric keys of each
    path; strings counted only (sums/minimums/maximums NaN)."""
    names = list(KEYS)
    paths = []  # (rank, region, parent row)
    for rank, regions in d.items():
        for name in regions:
            paths.append((rank, name, -1))
        paths.append((rank, "io/write", [i for i, p in enumerate(paths)
                                         if p[0] == rank and p[1] == "solve"][0]))
    rng = np.random.default_rng(5)
    vrows = []  # (row, key, count, sum, min, max)
    for row, (rank, name, parent) in enumerate(paths):
        for key, kind in KEYS[name].items():
            c = int(rng.integers(1, 30))
            if kind == "str":
                vrows.append((row, key, c, np.nan, np.nan, np.nan))
            else:
                x = rng.normal(10, 4, c) if kind == "real" else rng.integers(0, 100, c).astype(float)
                vrows.append((row, key, c, x.sum(), x.min(), x.max()))
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int64(2)
        f.attrs["storage_layout"] = "aggregate"
        f.create_group("metadata").attrs["mpi_size"] = 4
        f["region_table/names"] = np.array(names, dtype=h5py.string_dtype())
        pairs = sorted({(names.index(p[1]), p[0]) for p in paths})
        idx = f.create_group("rank_region_index")
        idx["region_ids"] = np.array([p[0] for p in pairs], np.uint32)
        idx["ranks"] = np.array([p[1] for p in pairs], np.uint32)
        idx["aggregate_counts"] = np.full(len(pairs), 10, np.uint64)
        idx["aggregate_totals"] = np.full(len(pairs), 1000, np.int64)
        cp = f.create_group("call_paths")
        n = len(paths)
        cp["ranks"] = np.array([p[0] for p in paths], np.int32)
        cp["threads"] = np.zeros(n, np.int32)
        cp["region_ids"] = np.array([names.index(p[1]) for p in paths], np.int32)
        cp["parents"] = np.array([p[2] for p in paths], np.int64)
        cp["depths"] = np.array([0 if p[2] < 0 else 1 for p in paths], np.int32)
        cp["counts"] = np.full(n, 10, np.int64)
        cp["inclusives"] = np.full(n, 1000, np.int64)
        cv = f.create_group("call_path_values")
        cv["rows"] = np.array([v[0] for v in vrows], np.uint64)
        cv["keys"] = np.array([v[1] for v in vrows], dtype=h5py.string_dtype("utf-8"))
        cv["counts"] = np.array([v[2] for v in vrows], np.uint64)
        for i, col in enumerate(("sums", "minimums", "maximums")):
            cv[col] = np.array([v[3 + i] for v in vrows], np.float64)
        ev = f.create_group("events")
        ev["start_times"] = np.zeros(0, np.int64)
        ev["end_times"] = np.zeros(0, np.int64)


def main(out):
    d = data()
    write_rows(f"{out}/values_rows.h5", d)
    write_columnar(f"{out}/values_columnar.h5", d)
    write_profile(f"{out}/values_profile.h5", d)
    write_rows(f"{out}/values_none.h5", d, values=False)
    write_rows(f"{out}/values_badlen.h5", d)
    with h5py.File(f"{out}/values_badlen.h5", "r+") as f:
        cv = f["rank1/regions/solve/call_values"]
        v = cv["iters"][()][:-1]
        del cv["iters"]
        cv["iters"] = v
        cv["iters"].attrs["key"] = "iters"


if __name__ == "__main__":
    main(sys.argv[1])
