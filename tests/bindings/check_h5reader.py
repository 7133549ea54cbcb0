"""Checks scope_profiler_native.h5reader and plotting_scripts against h5py/numpy.

usage: check_h5reader.py CASE ARGS...
  layout FILE [--oracle ROWS]
                       every number of every (region, rank) pair, the region
                       order, metadata, filters, the call tree and the region
                       statistics, against h5py reading FILE (row, nested or
                       columnar layout; tests/postproc/make_reference_files.py);
                       the call tree oracle reads ROWS (the same data in rows)
                       when given, as it does not read nested names
  aggregate FILE       the reference tool's aggregate layout (no stamps)
  errors DIR           missing, damaged, foreign and truncated files, unknown
                       ranks and regions: Python exceptions with the reader's
                       message, never a crash
  gantt FILE OUTDIR    plot_gantt writes non-blank PNGs whose lanes follow
                       include/exclude/ranks (colours read back from the PNG)
  formats FILE OUTDIR  plot_gantt's PDF and SVG by extension; a bad extension

The call tree oracle is tests/postproc/check_tree.py (h5py, no shared code).
Prints "ok" on success; exits 1 with the differences otherwise.
"""
import io
import math
import os
import re
import sys
from contextlib import redirect_stdout
from urllib.parse import unquote_to_bytes

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "postproc"))
import check_tree  # noqa: E402  (the independent call tree oracle)
from png_read import read_png  # noqa: E402

from scope_profiler_native.h5reader import ProfilingH5Reader, ReaderError  # noqa: E402
from scope_profiler_native.plotting_scripts import plot_gantt  # noqa: E402

ERRORS = []


def expect(what, got, want):
    same = got == want
    if isinstance(got, float) or isinstance(want, float):
        same = got is not None and want is not None and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-6)
    if not same:
        ERRORS.append(f"{what}: got {got!r}, want {want!r}")


def expect_array(what, got, want, dtype):
    if not isinstance(got, np.ndarray) or got.dtype != dtype or not np.array_equal(got, want):
        ERRORS.append(f"{what}: got {got!r} ({getattr(got, 'dtype', None)}), want {want!r}")


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def h5_pairs(f):
    """(name, rank) -> (starts, ends, thread ids or None) in file order, read with h5py."""
    out = {}
    if "rank_region_index" in f:
        names = [text(n) for n in f["region_table/names"][()]]
        idx, ev = f["rank_region_index"], f["events"]
        deltas = "start_deltas" in ev
        a = ev["start_deltas" if deltas else "start_times"][()]
        b = ev["durations" if deltas else "end_times"][()]
        t = ev["thread_ids"][()] if "thread_ids" in ev else None
        for g, r, o, c in zip(idx["region_ids"][()], idx["ranks"][()], idx["event_offsets"][()],
                              idx["event_counts"][()]):
            o, c = int(o), int(c)
            s = np.cumsum(a[o:o + c]) if deltas else a[o:o + c]
            e = s + b[o:o + c] if deltas else b[o:o + c]
            out[(names[int(g)], int(r))] = (s, e, None if t is None else t[o:o + c])
        return out
    for key in f:
        if not re.fullmatch(r"rank(0|[1-9][0-9]*)", key) or "regions" not in f[key]:
            continue
        rank = int(key[4:])

        def walk(group, prefix):
            for link in group:
                g = group[link]
                if not isinstance(g, h5py.Group):
                    continue
                if "start_times" in g:
                    name = text(g.attrs.get("name", prefix + unquote_to_bytes(link).decode()))
                    t = g["thread_ids"][()] if "thread_ids" in g else None
                    out[(name, rank)] = (g["start_times"][()], g["end_times"][()], t)
                else:  # the reference tool's names with '/' as nested groups
                    walk(g, prefix + link + "/")

        walk(f[key]["regions"], "")
    return out


def h5_ranks(f):
    if "rank_region_index" in f:
        return sorted({int(r) for r in f["rank_region_index/ranks"][()]})
    return sorted(int(k[4:]) for k in f if re.fullmatch(r"rank(0|[1-9][0-9]*)", k))


def check_layout(path, oracle=None):
    with h5py.File(path, "r") as f:
        pairs = h5_pairs(f)
        ranks = h5_ranks(f)
        meta = {k: v for k, v in f["metadata"].attrs.items()} if "metadata" in f else {}
    # Stamps as recorded, as h5py reads them (files of several MPI ranks
    # carry clock offsets that the reader would otherwise apply).
    reader = ProfilingH5Reader(path, clock_align=False)
    expect("num_ranks", reader.num_ranks, len(ranks))
    expect("ranks", reader.ranks, ranks)
    names = sorted({n for n, _ in pairs})
    expect("region names", sorted(reader.region_names), names)
    # Region order: first start over all ranks, as the reference sorts.
    first = {n: min(int(s.min()) for (m, _), (s, _, _) in pairs.items() if m == n and len(s)) for n in names}
    expect("get_regions order", [r.name for r in reader.get_regions()], sorted(names, key=lambda n: (first[n], n)))
    for (name, rank), (s, e, t) in sorted(pairs.items()):
        region = reader[name]
        where = f"{os.path.basename(path)} {name!r} rank {rank}"
        expect(f"{where} in ranks", rank in region.ranks, True)
        r = region[rank]
        d = e - s
        expect(f"{where} num_calls", r.num_calls, len(s))
        expect_array(f"{where} start_times", r.start_times, s, np.int64)
        expect_array(f"{where} end_times", r.end_times, e, np.int64)
        expect_array(f"{where} durations", r.durations, d, np.int64)
        if t is not None and len(np.unique(t)) > 1:
            expect_array(f"{where} thread_ids", r.thread_ids, t, np.int32)
        expect(f"{where} total", r.total_duration, int(d.sum()))
        expect(f"{where} average", r.average_duration, float(d.mean()))
        expect(f"{where} min", r.min_duration, int(d.min()))
        expect(f"{where} max", r.max_duration, int(d.max()))
        expect(f"{where} std", r.std_duration, float(np.std(d)))
        expect(f"{where} first start", r.first_start_time, int(s.min()))
    for name in names:
        expect(f"{name} ranks", reader[name].ranks, sorted(k for n, k in pairs if n == name))
        expect(f"{name} num_calls", reader[name].num_calls, sum(len(pairs[(name, k)][0]) for k in reader[name].ranks))
    # A region some ranks lack: indexing it raises KeyError naming its ranks.
    for name in names:
        for rank in ranks:
            if (name, rank) not in pairs:
                try:
                    reader[name][rank]
                    ERRORS.append(f"{name}[{rank}]: no KeyError")
                except KeyError as err:
                    expect(f"{name}[{rank}] message", "ran on ranks" in str(err), True)
    for k, v in meta.items():
        want = text(v) if isinstance(v, (bytes, str)) else v.item() if hasattr(v, "item") else v
        expect(f"metadata {k}", reader.metadata.get(k), want)
    expect("metadata keys", sorted(reader.metadata), sorted(meta))
    # include/exclude: Python re.match at the start of the name.
    for inc, exc in ((None, None), ("sol", None), (["m", "i"], None), (None, "o"), ("s.*/r", ["x"]),
                     (None, [r"solver/rh\w"])):
        inc_l = [inc] if isinstance(inc, str) else inc
        exc_l = [exc] if isinstance(exc, str) else exc
        want = [n for n in reader.region_names
                if (inc_l is None or any(re.match(p, n) for p in inc_l))
                and not (exc_l and any(re.match(p, n) for p in exc_l))]
        expect(f"get_regions({inc!r}, {exc!r})", [r.name for r in reader.get_regions(include=inc, exclude=exc)], want)
    check_tree_and_stats(reader, oracle or path, pairs, ranks)


def check_tree_and_stats(reader, oracle_path, pairs, ranks):
    for sel in (None, [ranks[-1]]):
        nodes, oranks = check_tree.oracle(oracle_path, sel)
        got = {n.path: n for n in reader.call_tree(ranks=sel)}
        expect(f"tree paths ranks={sel}", sorted(got), sorted(nodes))
        for p, want in nodes.items():
            n = got.get(p)
            if n is None:
                continue
            expect(f"tree {p} calls", n.calls, want["calls"])
            expect(f"tree {p} inclusive", n.inclusive, want["incl"])
            expect(f"tree {p} exclusive", n.exclusive, want["excl"])
            expect(f"tree {p} per_rank", {k: [v["calls"], v["inclusive"], v["exclusive"]] for k, v in n.per_rank.items()},
                   want["per_rank"])
            per = [want["per_rank"].get(r, [0, 0, 0])[1] for r in oranks]
            expect(f"tree {p} rank_max", n.rank_max, float(max(per)))
            expect(f"tree {p} rank_mean", n.rank_mean, float(np.mean(per)))
        # Region statistics over the selected ranks, pooled (numpy).
        stats = reader.region_statistics(ranks=sel)
        for name in reader.region_names:
            ds = [pairs[(name, k)] for k in (sel or ranks) if (name, k) in pairs]
            st = stats[name]
            if not ds:
                expect(f"stats {name} {sel} count", st["count"], 0)
                continue
            d = np.concatenate([e - s for s, e, _ in ds])
            expect(f"stats {name} {sel} count", st["count"], len(d))
            expect(f"stats {name} {sel} total", st["total_duration"], int(d.sum()))
            expect(f"stats {name} {sel} average", st["average_duration"], float(d.mean()))
            expect(f"stats {name} {sel} min", st["min_duration"], int(d.min()))
            expect(f"stats {name} {sel} max", st["max_duration"], int(d.max()))
            expect(f"stats {name} {sel} std", st["std_duration"], float(np.std(d)))
            s_all = np.concatenate([s for s, _, _ in ds])
            e_all = np.concatenate([e for _, e, _ in ds])
            expect(f"stats {name} {sel} first", st["first_duration"], int(d[np.argmin(s_all)]))
            expect(f"stats {name} {sel} last", st["last_duration"], int(d[np.argmax(e_all)]))
            for k, (s, e, _) in ((k, pairs[(name, k)]) for k in (sel or ranks) if (name, k) in pairs):
                expect(f"stats {name} rank {k} total", st["per_rank"][k]["total_duration"], int((e - s).sum()))


def check_aggregate(path):
    with h5py.File(path, "r") as f:
        names = [text(n) for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        cols = {c: idx["aggregate_" + c][()] for c in ("counts", "totals", "minimums", "maximums")}
        rows = list(zip(idx["region_ids"][()], idx["ranks"][()]))
    reader = ProfilingH5Reader(path)
    per = {}
    for i, (g, rank) in enumerate(rows):
        name, rank = names[int(g)], int(rank)
        r = reader[name][rank]
        where = f"aggregate {name!r} rank {rank}"
        c, tot = int(cols["counts"][i]), int(cols["totals"][i])
        expect(f"{where} num_calls", r.num_calls, c)
        expect(f"{where} total", r.total_duration, tot)
        expect(f"{where} average", r.average_duration, tot / c)
        expect(f"{where} min", r.min_duration, int(cols["minimums"][i]))
        expect(f"{where} max", r.max_duration, int(cols["maximums"][i]))
        expect(f"{where} no stamps", (r.has_timing, len(r.start_times), len(r.durations)), (False, 0, 0))
        per.setdefault(name, []).append(i)
    stats = reader.region_statistics()
    for name, ii in per.items():
        st = stats[name]
        expect(f"aggregate stats {name} count", st["count"], int(sum(cols["counts"][i] for i in ii)))
        expect(f"aggregate stats {name} total", st["total_duration"], int(sum(cols["totals"][i] for i in ii)))
        expect(f"aggregate stats {name} min", st["min_duration"], int(min(cols["minimums"][i] for i in ii)))
        expect(f"aggregate stats {name} max", st["max_duration"], int(max(cols["maximums"][i] for i in ii)))
        expect(f"aggregate stats {name} std", st["std_duration"], None)
    # No stamps: every region is a root with its calls only (as pproc --tree).
    tree = reader.call_tree()
    expect("aggregate tree", sorted((n.path, n.calls) for n in tree),
           sorted(((name,), int(sum(cols["counts"][i] for i in ii))) for name, ii in per.items()))


def raises(what, exc_type, func, needle):
    try:
        func()
    except exc_type as err:
        if needle not in str(err):
            ERRORS.append(f"{what}: message {str(err)!r} lacks {needle!r}")
        return err
    except Exception as err:  # noqa: BLE001
        ERRORS.append(f"{what}: {type(err).__name__} {err}, want {exc_type.__name__}")
        return None
    ERRORS.append(f"{what}: no exception")
    return None


def check_errors(d, good):
    raises("missing", FileNotFoundError, lambda: ProfilingH5Reader(os.path.join(d, "missing.h5")),
           "missing.h5")
    junk = os.path.join(d, "junk.h5")
    with open(junk, "wb") as f:
        f.write(b"not hdf5 at all" * 100)
    err = raises("not hdf5", ReaderError, lambda: ProfilingH5Reader(junk), "not an HDF5 file")
    if err is not None:
        expect("not hdf5 name", err.name, "SP_READER_ENOTHDF5")
    foreign = os.path.join(d, "foreign.h5")
    with h5py.File(foreign, "w") as f:
        f["images/cat"] = np.zeros((4, 4))
    err = raises("another tool's file", ReaderError, lambda: ProfilingH5Reader(foreign), "rank")
    if err is not None:
        expect("foreign name", err.name, "SP_READER_ELAYOUT")
    # Truncated: the structure reads, the arrays do not (or the open fails).
    data = open(good, "rb").read()
    cut = os.path.join(d, "cut.h5")
    with open(cut, "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    try:
        reader = ProfilingH5Reader(cut)
        for region in reader:
            for r in region:
                r.start_times
        ERRORS.append("truncated: no exception")
    except ReaderError as err:
        if "cut.h5" not in str(err) and "truncated" not in str(err) and "damaged" not in str(err):
            ERRORS.append(f"truncated: message {err}")
    reader = ProfilingH5Reader(good)
    raises("unknown region", KeyError, lambda: reader["no such region"], "no such region")
    raises("unknown rank", KeyError, lambda: reader["main"][7], "rank 7")
    raises("unknown rank in call_tree", KeyError, lambda: reader.call_tree(ranks=[7]), "no rank 7")
    raises("unknown rank in plot_gantt", ValueError,
           lambda: plot_gantt(reader, ranks=[0, 7], filepath=os.path.join(d, "x.png"), verbose=False),
           "Invalid ranks requested: [7]")
    raises("no match", ValueError, lambda: plot_gantt(reader, include="zzz", verbose=False),
           "No regions matched")
    raises("bad extension", ValueError,
           lambda: plot_gantt(reader, filepath=os.path.join(d, "x.jpg"), verbose=False), ".png, .pdf or .svg")
    raises("unwritable", OSError,
           lambda: plot_gantt(reader, filepath=os.path.join(d, "no", "dir", "x.png"), verbose=False), "x.png")
    # One reader shared by threads: the C reader is used by one at a time.
    import threading

    def load_all(out):
        fresh = [(r.name, k) for r in reader for k in r.ranks]
        for name, k in fresh * 20:
            reader[name][k].release()
            out.append(int(reader[name][k].durations.sum()))
    results = [[] for _ in range(4)]
    # Switch threads often, so that a release() between a check and a use shows.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=load_all, args=(res,)) for res in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sys.setswitchinterval(interval)
    expect("threads agree", all(res == results[0] for res in results) and len(results[0]) > 0, True)
    starts = reader["main"][0].start_times
    reader.close()
    expect("array valid after close", int(starts[0]) > 0, True)
    raises("closed", ValueError, lambda: reader.call_tree(), "closed")


def colour_rows(png, rgb):
    """Row indices of the PNG holding at least 3 pixels of colour rgb."""
    img = read_png(png)[:, :, :3].astype(int)
    hit = np.all(np.abs(img - np.array(rgb)) <= 2, axis=2).sum(axis=1)
    return np.flatnonzero(hit >= 3)


def bands(rows):
    return 0 if len(rows) == 0 else 1 + int(np.count_nonzero(np.diff(rows) > 1))


def check_gantt(path, outdir):
    from scope_profiler_native import plotting_scripts as ps

    reader = ProfilingH5Reader(path)
    colours = ps._colours(reader.region_names, "tab20")
    cases = {
        "all": dict(),
        "include": dict(include=["solver.*", "om"]),
        "exclude": dict(exclude="io"),
        "ranks": dict(ranks=[2]),
        "issue": dict(include=["solver.*", "main"], exclude=["io"], ranks=[0, 2]),
    }
    for label, kw in cases.items():
        png = os.path.join(outdir, f"gantt_{label}.png")
        out = io.StringIO()
        with redirect_stdout(out):
            expect(f"{label} returns", plot_gantt(profiling_data=reader, filepath=png, **kw), None)
        ranks = kw.get("ranks", reader.ranks)
        expect(f"{label} verbose", out.getvalue(), f"Plotting Gantt chart for ranks: {ranks}\n")
        img = read_png(png)[:, :, :3]
        expect(f"{label} non-blank", int((img.min(axis=2) < 250).sum()) > 2000, True)
        for region in reader:
            selected = region in reader.get_regions(include=kw.get("include"), exclude=kw.get("exclude"))
            lanes = sum(1 for k in ranks if k in region and region[k].has_timing) if selected else 0
            expect(f"{label} {region.name} lanes", bands(colour_rows(png, colours[region.name])), lanes)
    # A string path is opened; an int rank is a list of one.
    png = os.path.join(outdir, "gantt_path.png")
    with redirect_stdout(io.StringIO()):
        plot_gantt(path, ranks=0, include="main", filepath=png)
    expect("path main lanes", bands(colour_rows(png, colours["main"])), 1)


def check_formats(path, outdir):
    reader = ProfilingH5Reader(path)
    for ext, magic in ((".pdf", b"%PDF"), (".svg", b"<?xml"), (".PNG", b"\x89PNG")):
        out = os.path.join(outdir, "gantt_fmt" + ext)
        plot_gantt(reader, filepath=out, verbose=False)
        head = open(out, "rb").read(64)
        expect(f"{ext} magic", head[: len(magic)], magic)
        expect(f"{ext} size", os.path.getsize(out) > 1000, True)


def main():
    case, args = sys.argv[1], sys.argv[2:]
    {"layout": lambda: check_layout(args[0], args[2] if args[1:2] == ["--oracle"] else None),
     "aggregate": lambda: check_aggregate(args[0]),
     "errors": lambda: check_errors(args[0], args[1]),
     "gantt": lambda: check_gantt(args[0], args[1]),
     "formats": lambda: check_formats(args[0], args[1])}[case]()
    if ERRORS:
        print("\n".join(ERRORS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
