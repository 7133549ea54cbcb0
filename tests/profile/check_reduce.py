#!/usr/bin/python3
"""Profile mode reduced across ranks (docs/profile-mode.md, "Reduced across
ranks") against a numpy oracle over per-rank rows, read with h5py.

usage: check_reduce.py CASE RANKS.h5 REDUCED.h5 KEEP2.h5 NP [PPROC]

RANKS.h5: test_reduce with SCOPE_PROFILER_REDUCE=0 (the per-rank layout);
REDUCED.h5: =1 with the default k = 8 (at NP <= 16 every rank is kept
whole, so its kept_paths are every rank's rows of the same run);
KEEP2.h5: =1 with SCOPE_PROFILER_REDUCE_KEEP=2.

  same_run  REDUCED.h5's reduced_paths (min, max, sum, mean, std, argmin,
            argmax of calls, inclusive and exclusive; rank counts) and
            reduced_path_histograms against the oracle over its own kept
            rows (every rank's); its kept_ranks against the oracle's k
            largest and smallest totals per region
  counts    the call paths and every statistic of calls of REDUCED.h5 and
            KEEP2.h5 against the oracle over RANKS.h5's call_paths (another
            run: calls are the same in every run, durations are not); and
            auto.h5 (SCOPE_PROFILER_REDUCE=auto, below 1,024 ranks) per rank
  kept      KEEP2.h5: per region the 2 ranks of largest and of smallest
            total, those the oracle finds over the ranks' own totals of the
            same run (KEEP2.h5.totals.rank<R>: sp_region_stats before
            sp_finalize); its rank_region_index holds exactly the kept pairs,
            with their totals
  pproc     PPROC REDUCED.h5 --summary and KEEP2.h5 --tree: the header says
            the ranks are reduced, and every call path's row (calls sum, min,
            max; inclusive mean, std, min, max and their ranks; exclusive
            mean) is the oracle's over REDUCED.h5's kept rows, or KEEP2.h5's
            reduced_paths read with h5py (the tree)
  report    REDUCED.h5.report.h5 (sp_report just before sp_finalize, nothing
            recorded between) reduced as REDUCED.h5: the same call paths,
            every statistic of calls and every rank equal, the times within
            1e-4 (ticks converted to ns at two moments), the same kept ranks
  python    the Python reader (scope_profiler_native, on PYTHONPATH):
            ProfilingH5Reader(KEEP2.h5).reduced() is its reduced_paths as
            h5py reads them; None for RANKS.h5
Exit 0 when all holds; every mismatch is printed.
"""
import subprocess
import sys

import h5py
import numpy as np

FIGS = (("counts", "counts"), ("inclusives", "inclusives"), ("exclusives", "exclusives"))
errors = []


def fail(msg):
    errors.append(msg)
    print("FAIL:", msg)


def names(f):
    return [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][:]]


def chains(parents, regs, nm):
    """The name chain (tuple) of each row, parents given as row indices."""
    out = [None] * len(parents)

    def chain(i):
        if out[i] is None:
            p = int(parents[i])
            out[i] = (chain(p) if p >= 0 else ()) + (nm[int(regs[i])],)
        return out[i]

    for i in range(len(parents)):
        chain(i)
    return out


def reduced_table(f):
    """{chain: {column: value}} of a reduced file's reduced_paths."""
    g = f["reduced_paths"]
    nm = names(f)
    ch = chains(g["parents"][:], g["region_ids"][:], nm)
    cols = {k: g[k][:] for k in g.keys()}
    return {c: {k: v[i] for k, v in cols.items()} for i, c in enumerate(ch)}, ch


def oracle(ranks, keys, values):
    """Per key, over the ranks with calls > 0 of that key (values[0] is
    calls): the per-(rank, key) sums, then min, max, sum, mean, std
    (population), argmin, argmax (the lower rank on ties)."""
    per = {}
    for r, k, *v in zip(ranks, keys, *values):
        s = per.setdefault(k, {}).setdefault(int(r), np.zeros(len(values), dtype=np.int64))
        s += np.array(v, dtype=np.int64)
    out = {}
    for k, by_rank in per.items():
        rs = np.array(sorted(r for r, s in by_rank.items() if s[0] > 0), dtype=np.int64)
        res = {"rank_counts": len(rs)}
        for j, (fig, _) in enumerate(FIGS[:len(values)]):
            x = np.array([by_rank[r][j] for r in rs], dtype=np.int64)
            if len(x) == 0:
                continue
            res.update({f"{fig}_min": x.min(), f"{fig}_max": x.max(), f"{fig}_sum": x.sum(),
                        f"{fig}_mean": x.mean(), f"{fig}_std": x.std(),
                        f"{fig}_min_rank": rs[np.argmin(x)], f"{fig}_max_rank": rs[np.argmax(x)]})
        out[k] = res
    return out


def compare(tag, got, want):
    if set(got) != set(want):
        fail(f"{tag}: call paths {sorted(set(got) ^ set(want))} differ")
    for k in sorted(set(got) & set(want)):
        for col, w in want[k].items():
            g = got[k][col]
            ok = np.isclose(g, w, rtol=1e-9, atol=1e-6) if "mean" in col or "std" in col \
                else int(g) == int(w)
            if not ok:
                fail(f"{tag}: {'>'.join(k)} {col} = {g}, oracle {w}")


def top_k(totals, k):
    """{region: (largest ranks, smallest ranks)}, k each; on ties the lower rank
    first for the largest, the higher rank first for the smallest."""
    out = {}
    for reg, by_rank in totals.items():
        items = list(by_rank.items())
        big = sorted(items, key=lambda t: (-t[1], t[0]))[:k]
        small = sorted(items, key=lambda t: (t[1], -t[0]))[:k]
        out[reg] = ([r for r, _ in big], [r for r, _ in small])
    return out


def region_totals(f):
    g = f["rank_region_index"]
    nm = names(f)
    out = {}
    for r, reg, c, t in zip(g["ranks"][:], g["region_ids"][:], g["aggregate_counts"][:],
                            g["aggregate_totals"][:]):
        if c > 0:
            out.setdefault(nm[int(reg)], {})[int(r)] = int(t)
    return out


def kept_of(f):
    g = f["kept_ranks"]
    nm = names(f)
    out = {}
    for reg, r, kind, tot in zip(g["region_ids"][:], g["ranks"][:], g["kinds"][:],
                                 g["totals"][:]):
        out.setdefault(nm[int(reg)], ([], [], {}))[int(kind)].append(int(r))
        out[nm[int(reg)]][2][int(r)] = int(tot)
    return out


def same_run(red, np_):
    table, ch = reduced_table(red)
    kp = red["kept_paths"]
    paths = kp["paths"][:]
    keys = [ch[int(p)] for p in paths]
    want = oracle(kp["ranks"][:], keys, [kp[c][:] for c, _ in FIGS])
    compare("same run", {k: v for k, v in table.items() if k in want}, want)
    for k, v in table.items():  # paths without a finished call anywhere
        if k not in want and v["rank_counts"] != 0:
            fail(f"same run: {'>'.join(k)} has rank_counts {v['rank_counts']} but no kept row")
    if sorted(set(int(r) for r in kp["ranks"][:])) != list(range(np_)):
        fail(f"same run: kept rows of ranks {sorted(set(kp['ranks'][:]))}, expected all {np_}")
    # Merged histograms: the kept rows' buckets summed per path.
    h = red["kept_path_histograms"]
    merged = {}
    for row, b, c in zip(h["rows"][:], h["buckets"][:], h["counts"][:]):
        key = (keys[int(row)], int(b))
        merged[key] = merged.get(key, 0) + int(c)
    rh = red["reduced_path_histograms"]
    got = {}
    for p, b, c in zip(rh["paths"][:], rh["buckets"][:], rh["counts"][:]):
        got[(ch[int(p)], int(b))] = got.get((ch[int(p)], int(b)), 0) + int(c)
    if got != merged:
        diff = sorted(set(got.items()) ^ set(merged.items()))[:5]
        fail(f"same run: merged histograms differ from the kept rows' sum: {diff}")
    k = int(red["metadata"].attrs["reduce_keep"])
    want_top = top_k(region_totals(red), k)
    kept = kept_of(red)
    for reg, (big, small) in want_top.items():
        if reg not in kept or kept[reg][0] != big or kept[reg][1] != small:
            fail(f"same run: kept ranks of {reg}: {kept.get(reg, ([], []))[:2]}, "
                 f"oracle {(big, small)}")
    print(f"same run: {len(want)} call paths, {len(got)} histogram buckets, "
          f"{len(want_top)} regions' kept ranks checked")


def counts(ranks_f, reds, np_):
    cp = ranks_f["call_paths"]
    ch = chains(cp["parents"][:], cp["region_ids"][:], names(ranks_f))
    want = oracle(cp["ranks"][:], ch, [cp["counts"][:]])
    if sorted(set(int(r) for r in cp["ranks"][:])) != list(range(np_)):
        fail(f"counts: the per-rank file has ranks {sorted(set(cp['ranks'][:]))}")
    for tag, red in reds:
        if int(red["metadata"].attrs["reduced"]) != 1 or "call_paths" in red:
            fail(f"{tag}: not marked reduced, or per-rank call_paths present")
        if int(red["metadata"].attrs["mpi_size"]) != np_:
            fail(f"{tag}: mpi_size {red['metadata'].attrs['mpi_size']}, not {np_}")
        table, ch2 = reduced_table(red)
        got = {k: v for k, v in table.items() if v["rank_counts"] > 0}
        compare(f"{tag} calls", got, want)
        # The merged histogram holds every call of the path once.
        rh = red["reduced_path_histograms"]
        per = np.zeros(len(ch2), dtype=np.int64)
        np.add.at(per, rh["paths"][:].astype(np.int64), rh["counts"][:].astype(np.int64))
        for i, c in enumerate(ch2):
            if int(per[i]) != int(table[c]["counts_sum"]):
                fail(f"{tag}: histogram of {'>'.join(c)} holds {per[i]} calls, "
                     f"counts_sum {table[c]['counts_sum']}")
    with h5py.File("auto.h5", "r") as auto:
        if "reduced" in auto["metadata"].attrs or "call_paths" not in auto:
            fail("counts: REDUCE=auto reduced a run of fewer than 1,024 ranks")
        ach = chains(auto["call_paths/parents"][:], auto["call_paths/region_ids"][:], names(auto))
        if set(ach) != set(ch):
            fail("counts: REDUCE=auto's per-rank file has other call paths")
    print(f"counts: {len(want)} call paths of {np_} ranks checked in {len(reds)} files")


def live_totals(path, np_):
    """{region: {rank: total ns}} from test_reduce's PATH.totals.rank<R> files:
    each rank's sp_region_stats just before sp_finalize, the same run."""
    out = {}
    for r in range(np_):
        with open(f"{path}.totals.rank{r}") as f:
            for line in f:
                name, total = line.split()
                out.setdefault(name, {})[r] = int(total)
    return out


def same_set(got, want, totals, k):
    """got is want, but for near ties (within 10 us, the live figures and
    the file's converting ticks to ns at two moments) at the k-th place."""
    if got == want:
        return True
    if len(got) != len(want):
        return False
    return all(abs(totals[g] - totals[w]) <= 10000 for g, w in zip(got, want))


def kept(ranks_f, keep2, np_):
    k = int(keep2["metadata"].attrs["reduce_keep"])
    if k != 2:
        fail(f"kept: reduce_keep {k}, expected 2")
    kept_ = kept_of(keep2)
    live = live_totals(keep2.filename, np_)
    want = top_k(live, k)
    if set(want) != set(kept_):
        fail(f"kept: regions {sorted(kept_)}, the ranks' own {sorted(want)}")
    for reg in sorted(set(want) & set(kept_)):
        for kind in (0, 1):
            if not same_set(kept_[reg][kind], want[reg][kind], live[reg], k):
                fail(f"kept: {reg} keeps {kept_[reg][kind]} (kind {kind}), the ranks' own "
                     f"totals give {want[reg][kind]}: "
                     f"{ {r: live[reg][r] for r in kept_[reg][kind] + want[reg][kind]} }")
    # Within the file: every region min(k, its ranks) of each kind, ordered,
    # its totals those of rank_region_index, whose pairs are the kept ones.
    totals = region_totals(keep2)
    table, _ = reduced_table(keep2)
    for reg, (b, s, tot) in kept_.items():
        n = max(v["rank_counts"] for c, v in table.items() if c[-1] == reg)
        if len(b) != min(k, n) or len(s) != min(k, n):
            fail(f"kept: {reg} keeps {b} and {s} of {n} ranks")
        if set(totals.get(reg, {})) != set(b) | set(s):
            fail(f"kept: rank_region_index of {reg} has ranks {sorted(totals.get(reg, {}))}, "
                 f"kept {sorted(set(b) | set(s))}")
        for r, t in tot.items():
            if totals.get(reg, {}).get(r) != t:
                fail(f"kept: {reg} rank {r} total {t}, rank_region_index "
                     f"{totals.get(reg, {}).get(r)}")
        tb = [tot[r] for r in b]
        ts = [tot[r] for r in s]
        if tb != sorted(tb, reverse=True) or ts != sorted(ts):
            fail(f"kept: {reg} not in order: {tb} {ts}")
        one = [v for c, v in table.items() if c[-1] == reg]
        if len(one) == 1 and (one[0]["inclusives_max_rank"] != b[0] or
                              one[0]["inclusives_min_rank"] != s[0]):
            fail(f"kept: {reg}'s one path has max rank {one[0]['inclusives_max_rank']}, min "
                 f"rank {one[0]['inclusives_min_rank']}; kept first {b[0]}, {s[0]}")
    print(f"kept: {len(kept_)} regions checked against the ranks' own totals")


def pproc_rows(exe, path, tree):
    out = subprocess.run([exe, path, "--tree" if tree else "--summary"], capture_output=True,
                         text=True, check=True).stdout
    if "# ranks reduced:" not in out:
        fail(f"pproc {path}: no '# ranks reduced' in\n{out}")
    rows, stack, at = {}, [], None
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        if line.lstrip().startswith("ranks"):  # the names start under the last heading
            at = line.index("region" if tree else "call path")
            continue
        cells, name = line[:at].split(), line[at:]
        if tree:
            depth = (len(name) - len(name.lstrip(" "))) // 2
            stack = stack[:depth] + [name.strip()]
            key = tuple(stack)
        else:
            key = tuple(name.split(" > "))
        rows[key] = [float(c) for c in cells[:11]]
    return rows


def pproc(exe, red, keep2, np_):
    cols = ["rank_counts", "counts_sum", "counts_min", "counts_max", "inclusives_mean",
            "inclusives_std", "inclusives_min", "inclusives_min_rank", "inclusives_max",
            "inclusives_max_rank", "exclusives_mean"]
    seconds = {"inclusives_mean", "inclusives_std", "inclusives_min", "inclusives_max",
               "exclusives_mean"}
    # --summary of REDUCED.h5 against the oracle over its kept rows (every rank's).
    table, ch = reduced_table(red)
    kp = red["kept_paths"]
    want = oracle(kp["ranks"][:], [ch[int(p)] for p in kp["paths"][:]],
                  [kp[c][:] for c, _ in FIGS])
    # --tree of KEEP2.h5 against its reduced_paths as h5py reads them.
    t2, _ = reduced_table(keep2)
    for tag, got, ref in (("--summary", pproc_rows(exe, red.filename, False), want),
                          ("--tree", pproc_rows(exe, keep2.filename, True), t2)):
        if set(got) != set(ref):
            fail(f"pproc {tag}: call paths {sorted(set(got) ^ set(ref))} differ")
        for k in sorted(set(got) & set(ref)):
            for j, c in enumerate(cols):
                w = float(ref[k][c]) * (1e-9 if c in seconds else 1)
                if not np.isclose(got[k][j], w, rtol=1e-6, atol=2e-9):
                    fail(f"pproc {tag}: {'>'.join(k)} {c} printed {got[k][j]}, expected {w}")
    print(f"pproc: --summary ({len(want)} call paths) and --tree ({len(t2)}) checked")


def python_reader(ranks_p, keep2):
    from scope_profiler_native.h5reader import ProfilingH5Reader
    if ProfilingH5Reader(ranks_p).reduced() is not None:
        fail("python: the per-rank file reads as reduced")
    d = ProfilingH5Reader(keep2.filename).reduced()
    table, _ = reduced_table(keep2)
    if d is None or d["mpi_size"] != int(keep2["metadata"].attrs["mpi_size"]) or d["keep"] != 2:
        fail(f"python: reduced() of the k=2 file: {None if d is None else (d['mpi_size'], d['keep'])}")
        return
    got = {p["path"]: p for p in d["paths"]}
    if set(got) != set(table):
        fail(f"python: call paths {sorted(set(got) ^ set(table))} differ")
    for k in sorted(set(got) & set(table)):
        if got[k]["ranks"] != int(table[k]["rank_counts"]):
            fail(f"python: {'>'.join(k)} ranks {got[k]['ranks']}")
        for fig, col in (("calls", "counts"), ("inclusive", "inclusives"),
                         ("exclusive", "exclusives")):
            for stat, v in got[k][fig].items():
                w = table[k][f"{col}_{stat}"]
                if not np.isclose(v, w, rtol=1e-12, atol=0):
                    fail(f"python: {'>'.join(k)} {fig} {stat} = {v}, h5py {w}")
    print(f"python: reduced() of {len(got)} call paths checked")


def report(red, np_):
    with h5py.File(red.filename + ".report.h5", "r") as rep:
        if int(rep["metadata"].attrs["reduced"]) != 1 or "call_paths" in rep:
            fail("report: sp_report's file is not reduced")
        a, _ = reduced_table(rep)
        b, _ = reduced_table(red)
        if set(a) != set(b):
            fail(f"report: call paths {sorted(set(a) ^ set(b))} differ")
        for k in sorted(set(a) & set(b)):
            for col, w in b[k].items():
                g = a[k][col]
                exact = col.startswith("counts") or "rank" in col or col in (
                    "parents", "region_ids", "depths")
                ok = int(g) == int(w) if exact else np.isclose(g, w, rtol=1e-4, atol=2)
                if not ok:
                    fail(f"report: {'>'.join(k)} {col} = {g}, sp_finalize's {w}")
        ka, kb = kept_of(rep), kept_of(red)
        if {r: v[:2] for r, v in ka.items()} != {r: v[:2] for r, v in kb.items()}:
            fail(f"report: kept ranks {ka} differ from sp_finalize's {kb}")
    print(f"report: {len(a)} call paths as sp_finalize's")


def main(argv):
    case, ranks_p, red_p, keep2_p, np_ = argv[1], argv[2], argv[3], argv[4], int(argv[5])
    with h5py.File(ranks_p, "r") as rf, h5py.File(red_p, "r") as red, \
            h5py.File(keep2_p, "r") as k2:
        if case == "same_run":
            same_run(red, np_)
        elif case == "counts":
            counts(rf, [("reduced", red), ("keep2", k2)], np_)
        elif case == "kept":
            kept(rf, k2, np_)
        elif case == "report":
            report(red, np_)
        elif case == "python":
            python_reader(ranks_p, k2)
        elif case == "pproc":
            pproc(argv[6], red, k2, np_)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
