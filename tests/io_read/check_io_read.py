"""Checks the reading of I/O records (docs/io.md) against h5py and numpy.

usage: check_io_read.py CASE PPROC FILE
  io       --io in json, csv and tsv (and --ranks 1-2): every figure of every
           row against the records h5py reads (per rank and summed per file,
           slowest rank by read+write+meta ns)
  summary  --summary --columns io_bytes,io_s (json): per region, the bytes and
           time of the I/O calls it made directly (own row: its own calls),
           parents found here from the stamps (per-rank files), the call ids
           (columnar) or the call paths (profile mode: io_bytes all null)
  python   ProfilingH5Reader.io_files(), io_size_bins and Region.io_bytes /
           io_file_ids against the arrays h5py reads
  none     a file without records: --io says so in one line, exit 1
Prints "PASS CASE" at the end."""
import csv
import io as _io
import json
import subprocess
import sys

import h5py
import numpy as np

COLS = ["opens", "reads", "writes", "seeks", "syncs", "meta_ops", "bytes_read",
        "bytes_written", "max_offset", "read_ns", "write_ns", "meta_ns", "first_ns",
        "last_ns", "slowest_ns", "slowest_start_ns", "mmaps"]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL", what)


def s(x):
    return x.decode() if isinstance(x, bytes) else x


def is_io(name):
    return name.startswith("io:") or name.startswith("MPI_File_")


def records(path):
    """{rank: {column: array}} of the file records, whatever the layout."""
    out = {}
    with h5py.File(path, "r") as h:
        if "io_files" in h:
            g = h["io_files"]
            ranks = g["ranks"][()]
            for r in np.unique(ranks):
                m = ranks == r
                rec = {c: g[c][()][m] for c in COLS + ["apis", "size_hist"]}
                rec["names"] = [s(x) for x in g["names"][()][m]]
                rec["slowest_ops"] = [s(x) for x in g["slowest_ops"][()][m]]
                rec["bins"] = g.attrs["size_bins"]
                out[int(r)] = rec
        for k in h:
            if k.startswith("rank") and "io" in h[k] and "files" in h[k]["io"]:
                g = h[k]["io/files"]
                rec = {c: g[c][()] for c in COLS + ["apis", "size_hist"]}
                rec["names"] = [s(x) for x in g["names"][()]]
                rec["slowest_ops"] = [s(x) for x in g["slowest_ops"][()]]
                rec["bins"] = h[k]["io"].attrs["size_bins"]
                out[int(k[4:])] = rec
    return out


def run(pproc, *args, ok=0):
    p = subprocess.run([pproc, *args], capture_output=True, text=True)
    check(p.returncode == ok, f"{args}: exit {p.returncode} (want {ok}): {p.stderr}")
    return p


def expected_io(recs, ranks):
    """The rows --io must print: per (rank, file) in rank then file order,
    then per file by name."""
    rows, per = [], {}
    for r in ranks:
        if r not in recs:
            continue
        rec = recs[r]
        for i, name in enumerate(rec["names"]):
            v = {c: int(rec[c][i]) for c in COLS}
            rows.append((r, name, v, None, None, None))
            t = per.setdefault(name, [{c: 0 for c in COLS}, -1, -1, 0])
            for c in COLS:
                t[0][c] += v[c]
            busy = v["read_ns"] + v["write_ns"] + v["meta_ns"]
            if busy > t[2]:
                t[1], t[2] = r, busy
            t[3] += 1
    for name in sorted(per):
        v, sr, sns, n = per[name]
        rows.append((None, name, v, sr, sns, n))
    return rows


def compare_io_rows(got, want, fmt):
    check(len(got) == len(want), f"{fmt}: {len(got)} rows, want {len(want)}")
    for g, (r, name, v, sr, sns, n) in zip(got, want):
        where = f"{fmt} row {name} rank {r}"
        check(g["file"] == name, f"{where}: file {g['file']}")
        check(g["rank"] == r, f"{where}: rank {g['rank']}")
        for c in ["opens", "reads", "writes", "bytes_read", "bytes_written"]:
            check(g[c] == v[c], f"{where}: {c} {g[c]} != {v[c]}")
        for c, ns in [("read_s", "read_ns"), ("write_s", "write_ns"), ("meta_s", "meta_ns")]:
            check(abs(g[c] - v[ns] * 1e-9) < 1e-9, f"{where}: {c} {g[c]} != {v[ns]} ns")
        t = (v["read_ns"] + v["write_ns"]) * 1e-9
        b = v["bytes_read"] + v["bytes_written"]
        if t > 0:
            check(g["bandwidth_Bps"] is not None and abs(g["bandwidth_Bps"] - b / t) <= 1,
                  f"{where}: bandwidth {g['bandwidth_Bps']} != {b / t}")
        else:
            check(g["bandwidth_Bps"] is None, f"{where}: bandwidth without time")
        check(g["slowest_rank"] == sr, f"{where}: slowest_rank {g['slowest_rank']} != {sr}")
        check(g["ranks"] == n, f"{where}: ranks {g['ranks']} != {n}")
        if sns is None:
            check(g["slowest_s"] is None, f"{where}: slowest_s on a rank row")
        else:
            check(abs(g["slowest_s"] - sns * 1e-9) < 1e-9, f"{where}: slowest_s {g['slowest_s']}")


def parse_delim(text, delim):
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    rows = list(csv.DictReader(_io.StringIO("\n".join(lines)), delimiter=delim))
    out = []
    for row in rows:
        d = {}
        for k, x in row.items():
            if x == "-":
                d[k] = None
            elif k == "file":
                d[k] = x
            elif "." in x:
                d[k] = float(x)
            else:
                d[k] = int(x)
        out.append(d)
    return out


def case_io(pproc, path):
    recs = records(path)
    check(len(recs) >= 2, f"fixture has records of {len(recs)} ranks")
    ranks = sorted(recs)
    want = expected_io(recs, ranks)
    compare_io_rows(json.loads(run(pproc, path, "--io", "--format", "json").stdout), want, "json")
    compare_io_rows(parse_delim(run(pproc, path, "--io", "--format", "csv").stdout, ","), want,
                    "csv")
    compare_io_rows(parse_delim(run(pproc, path, "--io", "--format", "tsv").stdout, "\t"), want,
                    "tsv")
    text = run(pproc, path, "--io").stdout
    for r, name, *_ in want:
        check(name in text, f"text: {name} missing")
    sel = ranks[1:]
    got = json.loads(run(pproc, path, "--io", "--format", "json", "--ranks",
                         ",".join(map(str, sel))).stdout)
    compare_io_rows(got, expected_io(recs, sel), "json --ranks")


def calls_trace(h):
    """Per rank, the calls [(start, end, tid, name, bytes, callid, parentid)]."""
    out = {}
    if "call_paths" in h:  # profile mode: no calls
        return out, False
    if "events" in h and "rank_region_index" in h:
        names = [s(x) for x in h["region_table/names"][()]]
        ev, idx = h["events"], h["rank_region_index"]
        st, en = ev["start_times"][()], ev["end_times"][()]
        tid = ev["thread_ids"][()] if "thread_ids" in ev else np.zeros(len(st), np.int32)
        cid, pid = ev["call_ids"][()], ev["parent_ids"][()]
        # an I/O call's bytes and file id are in mpi_bytes and mpi_peers (docs/io.md)
        iob = ev["mpi_bytes"][()] if "mpi_bytes" in ev else np.full(len(st), -1)
        for r, g, o, n in zip(idx["ranks"][()], idx["region_ids"][()], idx["event_offsets"][()],
                              idx["event_counts"][()]):
            lst = out.setdefault(int(r), [])
            for e in range(o, o + n):
                lst.append((int(st[e]), int(en[e]), int(tid[e]), names[g], int(iob[e]),
                            int(cid[e]), int(pid[e])))
        return out, True
    for k in h:
        if not k.startswith("rank") or "regions" not in h[k]:
            continue
        lst = out.setdefault(int(k[4:]), [])
        for name, g in h[k]["regions"].items():
            st, en = g["start_times"][()], g["end_times"][()]
            tid = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(st), np.int32)
            by = g["bytes"][()] if "bytes" in g else np.full(len(st), -1)
            for i in range(len(st)):
                lst.append((int(st[i]), int(en[i]), int(tid[i]), name, int(by[i]), None, None))
    return out, False


def expected_summary(path):
    """{region: [bytes or None, ns or None]}"""
    want = {}

    def add(region, b, ns):
        w = want.setdefault(region, [None, None])
        if b is not None:
            w[0] = (w[0] or 0) + max(b, 0)
        w[1] = (w[1] or 0) + ns

    with h5py.File(path, "r") as h:
        if "call_paths" in h:  # profile mode: the paths, no bytes
            names = [s(x) for x in h["region_table/names"][()]]
            cp = h["call_paths"]
            reg, par, inc = cp["region_ids"][()], cp["parents"][()], cp["inclusives"][()]
            for i in range(len(reg)):
                if not is_io(names[reg[i]]):
                    continue
                add(names[reg[i]], None, int(inc[i]))
                if par[i] >= 0 and not is_io(names[reg[par[i]]]):
                    add(names[reg[par[i]]], None, int(inc[i]))
            return want
        calls, ids = calls_trace(h)
    for r, lst in calls.items():
        byid = {c[5]: c for c in lst} if ids else None
        for c in lst:
            st, en, tid, name, b, cid, pid = c
            if not is_io(name):
                continue
            add(name, b, en - st)
            if ids:
                p = byid.get(pid)
            else:  # innermost other call of the thread containing it
                enc = [d for d in lst if d is not c and d[2] == tid and d[0] <= st and en <= d[1]
                       and (d[0], -d[1]) < (st, -en)]
                p = max(enc, key=lambda d: (d[0], -d[1])) if enc else None
            if p is not None and not is_io(p[3]):
                add(p[3], b, en - st)
    return want


def case_summary(pproc, path):
    want = expected_summary(path)
    check(any(v[0] for v in want.values()) or "call_paths" in h5py.File(path, "r"),
          "oracle found bytes")
    rows = json.loads(run(pproc, path, "--summary", "--columns", "io_bytes,io_s", "--format",
                          "json").stdout)
    check(len(rows) >= 3, f"{len(rows)} rows")
    for row in rows:
        b, ns = want.get(row["region"], [None, None])
        check(row["io_bytes"] == b, f"{row['region']}: io_bytes {row['io_bytes']} != {b}")
        if ns is None:
            check(row["io_s"] is None, f"{row['region']}: io_s {row['io_s']} != -")
        else:
            check(row["io_s"] is not None and abs(row["io_s"] - ns * 1e-9) < 1e-9,
                  f"{row['region']}: io_s {row['io_s']} != {ns} ns")
    for region in ("main", "io:write"):
        check(any(r["region"] == region and r["io_s"] for r in rows), f"row {region}")


def case_python(path):
    from scope_profiler_native.h5reader import ProfilingH5Reader
    recs = records(path)
    r = ProfilingH5Reader(path)
    got = r.io_files()
    check(sorted(got) == sorted(recs), f"ranks {sorted(got)} != {sorted(recs)}")
    for rank, rec in recs.items():
        a = r.io_files(rank)
        check(list(a["name"]) == rec["names"], f"rank {rank}: names")
        check(list(a["slowest_op"]) == rec["slowest_ops"], f"rank {rank}: slowest_ops")
        for c in COLS + ["apis", "size_hist"]:
            check(np.array_equal(a[c], rec[c]), f"rank {rank}: {c}")
        check(np.array_equal(got[rank]["bytes_written"], rec["bytes_written"]), "io_files() dict")
        check(np.array_equal(r.io_size_bins(rank), rec["bins"]), f"rank {rank}: size_bins")
    with h5py.File(path, "r") as h:
        calls, ids = calls_trace(h)
        checked = 0
        for rank, lst in calls.items():
            for name in {c[3] for c in lst}:
                reg = r.get_region(name)[rank]
                mine = [c for c in lst if c[3] == name]
                if not is_io(name):
                    check(reg.io_bytes is None, f"{name}: io_bytes on a user region")
                    continue
                # in the file's order; the columnar fixture's io_file_ids checked too
                want_b = np.array([c[4] for c in mine])
                check(np.array_equal(reg.io_bytes, want_b), f"rank {rank} {name}: io_bytes")
                check(len(reg.io_file_ids) == len(mine), f"rank {rank} {name}: io_file_ids")
                checked += 1
        if "call_paths" in h:
            check(r.get_region("io:write")[0].io_bytes is None, "profile mode: no per-call bytes")
        else:
            check(checked >= 6, f"{checked} I/O pairs checked")
        if "rank0" in h and "regions" in h["rank0"]:
            fid = h["rank0/regions/io:write/file_ids"][()]
            check(np.array_equal(r.get_region("io:write")[0].io_file_ids, fid), "file_ids")
        if "events" in h and "mpi_peers" in h["events"]:
            idx = h["rank_region_index"]
            names = [s(x) for x in h["region_table/names"][()]]
            for rk, g, o, n in zip(idx["ranks"][()], idx["region_ids"][()],
                                   idx["event_offsets"][()], idx["event_counts"][()]):
                if is_io(names[g]):
                    fid = h["events/mpi_peers"][o:o + n]
                    check(np.array_equal(r.get_region(names[g])[int(rk)].io_file_ids, fid),
                          f"rank {rk} {names[g]}: io_file_ids")


def case_none(pproc, path):
    p = run(pproc, path, "--io", ok=1)
    lines = p.stderr.strip().splitlines()
    check(len(lines) == 1 and "no I/O records" in lines[0], f"message: {p.stderr!r}")
    check(p.stdout == "", "nothing on stdout")


def main():
    case = sys.argv[1]
    if case == "io":
        case_io(sys.argv[2], sys.argv[3])
    elif case == "summary":
        case_summary(sys.argv[2], sys.argv[3])
    elif case == "python":
        case_python(sys.argv[2])
    elif case == "none":
        case_none(sys.argv[2], sys.argv[3])
    if FAILS:
        sys.exit(f"{len(FAILS)} failure(s)")
    print("PASS", case)


if __name__ == "__main__":
    main()
