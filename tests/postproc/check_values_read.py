"""check_values_read.py - reading values per call (issue 53 item 2) against
numpy over the same HDF5 file, read with h5py (an independent reader).

usage: check_values_read.py PPROC DIR CASE [PYTHONPATH]
DIR holds make_values_files.py's files (or a recorded file as DIR/values_rows.h5).
CASE:
  FMT.LAYOUT   --values --format FMT (text, tsv, csv, json) of values_LAYOUT.h5
               (rows, columnar, profile): every row against the oracle
  ranks        --values --ranks 0 3 of values_rows.h5 and values_columnar.h5
  none         a file without values: one message, status 1, nothing on stdout
  badlen       a key with fewer values than calls: refused (status 1, one message naming
               the dataset) by --values, chrome-trace and the Python reader
  summary      --summary --columns value:iters,value:residual (mean per region, "-")
  chrome       --export chrome-trace: each call's values in its event's args
  otf2         --export otf2: values as attributes of the ENTER events (otf2-print)
  python       ProfilingH5Reader: each call's values as a dict (both layouts)
"""
import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

IMIN = np.iinfo(np.int64).min
TOP = 20


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def s(x):
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def kind_of(d):
    k = d.dtype.kind
    return "int" if k in "iu" else "real" if k == "f" else "string"


def set_mask(v, kind):
    if kind == "int":
        return v != IMIN
    if kind == "real":
        return ~np.isnan(v)
    return np.array([x != "" for x in v], bool)


def col(d, kind, lo=None, hi=None):
    v = d[lo:hi] if lo is not None else d[()]
    if kind == "string":
        v = np.array([s(x) for x in v], object)
    return v


def trace_calls(path, ranks=None):
    """[(rank, region, key, kind, values)] per (rank, region, key): the
    values of the pair's calls in order, with the unset ones."""
    out = []
    with h5py.File(path, "r") as f:
        if f.attrs.get("storage_layout") in ("columnar", b"columnar"):
            names = [s(x) for x in f["region_table/names"][()]]
            idx = f["rank_region_index"]
            cv = f.get("call_values", {})
            for g, rank, off, n in zip(idx["region_ids"][()], idx["ranks"][()],
                                       idx["event_offsets"][()], idx["event_counts"][()]):
                if ranks is not None and int(rank) not in ranks:
                    continue
                for link in cv:
                    d = cv[link]
                    kind = kind_of(d)
                    out.append((int(rank), names[g], s(d.attrs["key"]), kind,
                                col(d, kind, int(off), int(off + n))))
            return out
        for rk in f:
            if not rk.startswith("rank") or not rk[4:].isdigit() or "regions" not in f[rk]:
                continue
            rank = int(rk[4:])
            if ranks is not None and rank not in ranks:
                continue
            for link, g in f[rk]["regions"].items():
                for kl, d in g.get("call_values", {}).items():
                    kind = kind_of(d)
                    out.append((rank, s(g.attrs["name"]), s(d.attrs["key"]), kind, col(d, kind)))
    return out


def oracle(path, ranks=None):
    """{(region, key, is_string): row dict} as --values defines them."""
    acc = {}
    with h5py.File(path, "r") as f:
        profile = "call_path_values" in f
    if profile:
        with h5py.File(path, "r") as f:
            names = [s(x) for x in f["region_table/names"][()]]
            cp, cv = f["call_paths"], f["call_path_values"]
            prank, preg = cp["ranks"][()], cp["region_ids"][()]
            for row, key, c, sm, mn, mx in zip(cv["rows"][()], cv["keys"][()], cv["counts"][()],
                                               cv["sums"][()], cv["minimums"][()],
                                               cv["maximums"][()]):
                if ranks is not None and int(prank[row]) not in ranks:
                    continue
                st = bool(np.isnan(sm))
                a = acc.setdefault((names[preg[row]], s(key), st),
                                   {"kind": "string" if st else "real", "calls": 0, "sums": [],
                                    "mins": [], "maxs": [], "values": None})
                a["calls"] += int(c)
                if not st:
                    a["sums"].append(sm), a["mins"].append(mn), a["maxs"].append(mx)
        for a in acc.values():
            if a["kind"] != "string":
                a["sum"], a["min"], a["max"] = sum(a["sums"]), min(a["mins"]), max(a["maxs"])
                a["mean"] = a["sum"] / a["calls"]
        return acc
    for rank, region, key, kind, v in trace_calls(path, ranks):
        m = set_mask(v, kind)
        if not m.any():
            continue
        st = kind == "string"
        a = acc.setdefault((region, key, st), {"kinds": set(), "vals": []})
        a["kinds"].add(kind)
        a["vals"].append(v[m])
    out = {}
    for k, a in acc.items():
        v = np.concatenate(a["vals"])
        if k[2]:
            u, c = np.unique(v.astype(str), return_counts=True)
            pairs = sorted(zip(u, c), key=lambda p: (-p[1], p[0].encode()))
            vals = [(str(x), int(n)) for x, n in pairs[:TOP]]
            if len(pairs) > TOP:
                vals.append((f"({len(pairs) - TOP} more)", int(sum(n for _, n in pairs[TOP:]))))
            out[k] = {"kind": "string", "calls": len(v), "values": vals}
        else:
            x = v.astype(np.float64)
            out[k] = {"kind": "real" if "real" in a["kinds"] else "int", "calls": len(v),
                      "sum": float(np.sum(x)), "mean": float(np.mean(x)), "min": float(x.min()),
                      "max": float(x.max())}
    return out


def run(pproc, args, rc=0):
    p = subprocess.run([pproc] + args, capture_output=True)
    if p.returncode != rc:
        fail(f"{args}: status {p.returncode}, want {rc}: {p.stderr.decode()}")
    return p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def parse(text, fmt):
    """Rows as dicts of strings (missing: None)."""
    if fmt == "json":
        return [{k: (None if v is None else v) for k, v in r.items()} for r in json.loads(text)]
    if fmt in ("tsv", "csv"):
        rd = csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",")
        rows = list(rd)
        return [{h: (None if c == "-" else c) for h, c in zip(rows[0], r)} for r in rows[1:]]
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    head = lines[0].split()
    out = []
    for ln in lines[1:]:
        t = ln.split()
        # calls..kind and key have no spaces in the fixture; the value may.
        cells = t[:8] + [" ".join(t[8:-1]), t[-1]]
        out.append({h: (None if c == "-" else c) for h, c in zip(head, cells)})
    return out


def near(got, want, what, rel):
    if got is None or not math.isclose(float(got), want, rel_tol=rel, abs_tol=1e-300):
        fail(f"{what}: {got} != {want}")


def compare(rows, want, rel, where):
    got = {}
    for r in rows:
        k = (r["region"], r["key"], r["kind"] == "string")
        got.setdefault(k, []).append(r)
    if set(got) != set(want):
        fail(f"{where}: keys {sorted(got)} != {sorted(want)}")
    for k, w in want.items():
        rs = got[k]
        if any(r["kind"] != w["kind"] or int(r["calls"]) != w["calls"] for r in rs):
            fail(f"{where} {k}: kind/calls {[(r['kind'], r['calls']) for r in rs]} != {w}")
        if w["kind"] == "string":
            vals = [(r["value"], None if r["count"] is None else int(r["count"])) for r in rs]
            if w["values"] is None:
                if vals != [(None, None)]:
                    fail(f"{where} {k}: counted-only strings gave {vals}")
            elif vals != w["values"]:
                fail(f"{where} {k}: {vals} != {w['values']}")
            continue
        if len(rs) != 1:
            fail(f"{where} {k}: {len(rs)} rows")
        for f in ("sum", "mean", "min", "max"):
            near(rs[0][f], w[f], f"{where} {k} {f}", rel)
    print(f"{where}: {len(want)} (region, key) rows agree")


def lost_of(path):
    """Sum of the per-rank layout's call_values@values_lost."""
    n = 0
    with h5py.File(path, "r") as f:
        for rk in f:
            if rk.startswith("rank") and rk[4:].isdigit() and "regions" in f[rk]:
                for g in f[rk]["regions"].values():
                    if "call_values" in g:
                        n += int(g["call_values"].attrs.get("values_lost", 0))
    return n


def case_format(pproc, d, fmt, layout):
    path = f"{d}/values_{layout}.h5"
    out, err = run(pproc, [path, "--values", "--format", fmt])
    compare(parse(out, fmt), oracle(path), 1e-12 if fmt != "text" else 2e-9, f"{fmt}.{layout}")
    if layout == "rows":  # the recording's values_lost, said once on stderr
        lost = lost_of(path)
        if (f" {lost} values per call" in err) != (lost > 0):
            fail(f"{fmt}.{layout}: values_lost {lost}, stderr {err!r}")


def case_ranks(pproc, d):
    for layout in ("rows", "columnar", "profile"):
        path = f"{d}/values_{layout}.h5"
        out, _ = run(pproc, [path, "--values", "--format", "json", "--ranks", "0", "3"])
        want = oracle(path, ranks={0, 3})
        if any(k[1] == "only_rank1" for k in want):
            fail("the oracle kept rank 1")
        compare(parse(out, "json"), want, 1e-12, f"ranks.{layout}")


def case_none(pproc, d):
    out, err = run(pproc, [f"{d}/values_none.h5", "--values"], rc=1)
    lines = [ln for ln in err.splitlines() if ln]
    if out or len(lines) != 1 or "no values per call" not in lines[0]:
        fail(f"stdout {out!r}, stderr {err!r}")
    print("none:", lines[0])


def per_call(path, ranks=None):
    """{(rank, region): [dict of the call's set values]} in the pair's order."""
    out = {}
    with h5py.File(path, "r") as f:
        if f.attrs.get("storage_layout") in ("columnar", b"columnar"):
            names = [s(x) for x in f["region_table/names"][()]]
            idx = f["rank_region_index"]
            pairs = [(int(r), names[g], int(n)) for g, r, n in
                     zip(idx["region_ids"][()], idx["ranks"][()], idx["event_counts"][()])]
        else:
            pairs = [(int(rk[4:]), s(g.attrs["name"]), len(g["start_times"]))
                     for rk in f if rk.startswith("rank") and rk[4:].isdigit()
                     and "regions" in f[rk] for g in f[rk]["regions"].values()
                     if "start_times" in g]
    for rank, region, n in pairs:
        if ranks is None or rank in ranks:
            out[(rank, region)] = [{} for _ in range(n)]
    for rank, region, key, kind, v in trace_calls(path, ranks):
        m = set_mask(v, kind)
        for e in np.nonzero(m)[0]:
            x = v[e]
            out[(rank, region)][e][key] = int(x) if kind == "int" else float(x) if kind == "real" else x
    return out


def case_chrome(pproc, d):
    for layout in ("rows", "columnar"):
        path = f"{d}/values_{layout}.h5"
        out, _ = run(pproc, [path, "--export", "chrome-trace"])
        ev = [e for e in json.loads(out)["traceEvents"] if e.get("ph") == "X"]
        got = {}
        for e in ev:
            got.setdefault((e["pid"], e["name"]), []).append(e.get("args", {}))
        want = per_call(path)
        if got != want:
            for k in want:
                if got.get(k) != want[k]:
                    fail(f"chrome.{layout} {k}: {got.get(k, [])[:3]} != {want[k][:3]}")
            fail(f"chrome.{layout}: pairs {sorted(got)} != {sorted(want)}")
        nargs = sum(1 for e in ev if "args" in e)
        print(f"chrome.{layout}: {len(ev)} events, {nargs} with args, all agree")


def case_python(pproc, d, pythonpath):
    sys.path.insert(0, pythonpath)
    from scope_profiler_native.h5reader import ProfilingH5Reader
    for layout in ("rows", "columnar"):
        path = f"{d}/values_{layout}.h5"
        want = per_call(path)
        got = {}
        with ProfilingH5Reader(path) as reader:
            for name in {k[1] for k in want}:
                mr = reader.get_region(name)
                for rank in mr.ranks:
                    got[(rank, name)] = mr[rank].metadata
                    ev = mr[rank].events()
                    if [e["metadata"] for e in ev] != got[(rank, name)]:
                        fail(f"python.{layout} {rank} {name}: events() metadata differ")
        for k in want:
            if got.get(k) != want[k]:
                fail(f"python.{layout} {k}: {got.get(k, [])[:3]} != {want[k][:3]}")
        if set(got) != set(want):
            fail(f"python.{layout}: pairs {sorted(got)} != {sorted(want)}")
        n = sum(len(v) for v in want.values())
        print(f"python.{layout}: {n} calls' metadata dicts agree")
    if not os.path.exists(f"{d}/values_none.h5"):
        return  # a recorded file checked alone
    with ProfilingH5Reader(f"{d}/values_none.h5") as reader:
        md = reader.get_region("solve")[0].metadata
        if len(md) != len(reader.get_region("solve")[0].start_times) or any(md):
            fail("a file without values gave metadata")


def thread_means(path, key):
    """{(region, thread): mean of key} of a per-rank file, by thread_ids."""
    acc = {}
    with h5py.File(path, "r") as f:
        for rk in f:
            if not rk.startswith("rank") or not rk[4:].isdigit() or "regions" not in f[rk]:
                continue
            for g in f[rk]["regions"].values():
                d = g.get("call_values", {}).get(key)
                if d is None or kind_of(d) == "string":
                    continue
                v = d[()].astype(np.float64)
                m = set_mask(d[()], kind_of(d))
                for t in np.unique(g["thread_ids"][()]):
                    sel = m & (g["thread_ids"][()] == t)
                    a = acc.setdefault((s(g.attrs["name"]), int(t)), [])
                    a.extend(v[sel].tolist())
    return {k: float(np.mean(v)) for k, v in acc.items() if v}


def case_summary(pproc, d):
    keys = ["iters", "residual", "method", "a/b.c%", "nokey"]
    cols = ",".join("value:" + k for k in keys)
    for layout in ("rows", "columnar", "profile"):
        path = f"{d}/values_{layout}.h5"
        out, _ = run(pproc, [path, "--summary", "--columns", cols, "--format", "json"])
        want = oracle(path)
        rows = json.loads(out)
        for r in rows:
            for k in keys:
                w = want.get((r["region"], k, False))
                got = r["value:" + k]
                if w is None and got is not None:
                    fail(f"summary.{layout} {r['region']} {k}: {got}, want null")
                if w is not None:
                    near(got, w["mean"], f"summary.{layout} {r['region']} {k}", 1e-12)
        print(f"summary.{layout}: {len(rows)} rows x {len(keys)} value columns agree")
    path = f"{d}/values_rows.h5"
    out, _ = run(pproc, [path, "--summary", "--by-thread", "--columns", "value:iters",
                         "--format", "csv"])
    want = thread_means(path, "iters")
    rows = list(csv.DictReader(io.StringIO(out)))
    for r in rows:
        w = want.get((r["region"], int(r["thread"])))
        if w is None:
            if r["value:iters"] != "-":
                fail(f"summary.by_thread {r['region']} {r['thread']}: {r['value:iters']}")
        else:
            near(r["value:iters"], w, f"summary.by_thread {r['region']} {r['thread']}", 1e-12)
    if sum(1 for r in rows if r["value:iters"] != "-") != 2:
        fail(f"summary.by_thread: {rows}")
    print(f"summary.by_thread: {len(rows)} rows agree")


ATTR = re.compile(r'\("((?:[^"\\]|\\.)*)" <\d+>; (\w+); ("(?:[^"\\]|\\.)*" <\d+>|[^)]*)\)')


def starts_of(path):
    """{(rank, region): start stamps} as stored."""
    out = {}
    with h5py.File(path, "r") as f:
        if f.attrs.get("storage_layout") in ("columnar", b"columnar"):
            names = [s(x) for x in f["region_table/names"][()]]
            idx, st = f["rank_region_index"], f["events/start_times"][()]
            for g, r, o, n in zip(idx["region_ids"][()], idx["ranks"][()],
                                  idx["event_offsets"][()], idx["event_counts"][()]):
                out[(int(r), names[g])] = st[int(o):int(o + n)]
        else:
            for rk in f:
                if not rk.startswith("rank") or not rk[4:].isdigit() or "regions" not in f[rk]:
                    continue
                for g in f[rk]["regions"].values():
                    if "start_times" in g:
                        out[(int(rk[4:]), s(g.attrs["name"]))] = g["start_times"][()]
    return out


def case_otf2(pproc, d, otf2_print="otf2-print"):
    """ENTER events' attributes, read back by OTF2's own reader (otf2-print),
    matched to the calls by (region, start stamp): each call's values."""
    for layout in ("rows", "columnar"):
        path = f"{d}/values_{layout}.h5"
        out = f"{d}/otf2_{layout}"
        shutil.rmtree(out, ignore_errors=True)
        run(pproc, [path, "--export", "otf2", "-o", out, "-q"])
        text = subprocess.run([otf2_print, f"{out}/traces.otf2"], capture_output=True,
                              check=True).stdout.decode("utf-8")
        got, last = {}, None
        for ln in text.splitlines():
            if ln.startswith("ENTER"):
                t = ln.split()
                region = re.search(r'Region: "(.*)" <\d+>', ln).group(1)
                last = got.setdefault((region, int(t[2])), [])
                last.append({})
            elif "ADDITIONAL ATTRIBUTES:" in ln and last is not None:
                for key, typ, val in ATTR.findall(ln):
                    if typ == "INT64":
                        v = int(val)
                    elif typ == "DOUBLE":
                        v = float(val)
                    elif typ == "STRING":
                        v = re.match(r'"(.*)" <\d+>$', val).group(1)
                    else:
                        fail(f"otf2.{layout}: attribute type {typ}")
                    last[-1][key] = v
            elif ln.startswith("LEAVE"):
                last = None
        want = {}
        calls = per_call(path)
        for (rank, region), st in starts_of(path).items():
            for e, t0 in enumerate(st):
                want.setdefault((region, int(t0)), []).append(calls[(rank, region)][e])
        if set(got) != set(want):
            fail(f"otf2.{layout}: ENTER events {len(got)} != calls {len(want)}")
        nattr = 0
        for k, w in want.items():
            g = got[k]
            if len(g) != len(w):
                fail(f"otf2.{layout} {k}: {len(g)} ENTERs, {len(w)} calls")
            for gd in g:  # each ENTER matches one call's values (floats: otf2-print's %g)
                ok = [wd for wd in w if wd.keys() == gd.keys() and all(
                    math.isclose(gd[x], wd[x], rel_tol=1e-5) if isinstance(wd[x], float)
                    else gd[x] == wd[x] for x in wd)]
                if not ok:
                    fail(f"otf2.{layout} {k}: attributes {gd} match no call of {w}")
                nattr += len(gd)
        print(f"otf2.{layout}: {sum(map(len, want.values()))} ENTERs, {nattr} attributes agree")


def case_badlen(pproc, d, pythonpath=None):
    path = f"{d}/values_badlen.h5"
    where = "rank1/regions/solve/call_values/iters"
    for args in (["--values"], ["--export", "chrome-trace"]):
        out, err = run(pproc, [path] + args, rc=1)
        lines = [ln for ln in err.splitlines() if ln]
        if len(lines) != 1 or where not in lines[0] or "values for" not in lines[0]:
            fail(f"badlen {args}: stderr {err!r}")
    # the other ranks' pairs still read: --ranks without rank 1
    out, _ = run(pproc, [path, "--values", "--format", "json", "--ranks", "0", "3"])
    compare(parse(out, "json"), oracle(path, ranks={0, 3}), 1e-12, "badlen.ranks")
    print("badlen:", lines[0])


def main():
    pproc, d, case = sys.argv[1], sys.argv[2], sys.argv[3]
    if "." in case:
        case_format(pproc, d, *case.split("."))
    elif case == "ranks":
        case_ranks(pproc, d)
    elif case == "none":
        case_none(pproc, d)
    elif case == "badlen":
        case_badlen(pproc, d)
    else:
        globals()["case_" + case](pproc, d, *sys.argv[4:])


if __name__ == "__main__":
    main()
