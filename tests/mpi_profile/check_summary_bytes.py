#!/usr/bin/python3
"""--summary --columns bytes,msgs against h5py, in either layout.

usage: check_summary_bytes.py PPROC FILE

Per MPI call region, over every rank: bytes is the sum of the calls'
positive bytes, msgs the number of calls with a peer or with bytes
(docs/automatic-regions.md). The oracle reads the raw datasets: in the
per-rank layout rank<N>/regions/<name>/bytes and peer (MPI-IO calls:
file_ids, no peer); in the columnar layout each pair's slice of
events/mpi_bytes and mpi_peers (MPI-IO calls: file ids, no peer). Every
region with MPI values must have exactly these figures in the JSON.
"""
import json
import subprocess
import sys

import h5py
import numpy as np


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def add(out, name, b, p):
    b = np.asarray(b, dtype=np.int64)
    p = np.full(len(b), -1) if p is None else np.asarray(p)
    s = out.setdefault(name, [0, 0])
    s[0] += int(b[b > 0].sum())
    s[1] += int(((p >= 0) | (b > 0)).sum())


def oracle(path):
    out = {}
    with h5py.File(path, "r") as f:
        if "events" in f and "mpi_bytes" in f["events"]:
            names = [text(x) for x in f["region_table/names"][()]]
            ix, ev = f["rank_region_index"], f["events"]
            b, p = ev["mpi_bytes"][()], ev["mpi_peers"][()]
            for g, o, n in zip(ix["region_ids"][()], ix["event_offsets"][()],
                               ix["event_counts"][()]):
                name = names[g]
                if name.startswith("MPI_"):
                    add(out, name, b[o:o + n],
                        None if name.startswith("MPI_File_") else p[o:o + n])
            return out
        for key in f:
            if not key.startswith("rank"):
                continue
            for g in f[key]["regions"].values():
                name = text(g.attrs["name"])
                io = name.startswith("MPI_File_") and "file_ids" in g
                if "bytes" in g and (io or "peer" in g):
                    add(out, name, g["bytes"][()], None if io else g["peer"][()])
    return out


def main():
    pproc, path = sys.argv[1:3]
    run = subprocess.run([pproc, path, "--summary", "--columns", "bytes,msgs", "--format",
                          "json"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        print("FAIL pproc exit", run.returncode, run.stderr)
        return 1
    rows = {r["region"]: r for r in json.loads(run.stdout)}
    want = oracle(path)
    fails = []
    if not want:
        fails.append("the file has no MPI values to check")
    for name, (b, m) in sorted(want.items()):
        r = rows.get(name, {})
        if r.get("bytes") != b or r.get("msgs") != m:
            fails.append(f"{name}: bytes {r.get('bytes')} msgs {r.get('msgs')}, "
                         f"h5py {b} and {m}")
    for msg in fails:
        print("FAIL", msg)
    if fails:
        return 1
    print(f"ok: bytes and msgs of {len(want)} MPI regions as h5py sums them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
