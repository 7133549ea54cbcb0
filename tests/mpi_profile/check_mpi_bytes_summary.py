#!/usr/bin/python3
"""Checks `--summary --columns bytes,msgs` against h5py and numpy.

usage: check_mpi_bytes_summary.py PPROC FILE [REPORT.html]

Runs PPROC FILE --summary --columns bytes,msgs --format csv and compares
each row (and, given REPORT.html written from FILE, its regions[].bytes
and .msgs, absent for regions without values) with sums computed here from rank<N>/regions/<name>/bytes and
/peer over all ranks: bytes = the sum of the positive bytes, msgs = the
calls with peer >= 0 or bytes > 0. Regions without the datasets (user
regions) must show "-" in both columns.
"""
import csv
import io
import json
import subprocess
import sys

import h5py
import numpy as np


def main():
    pproc, path = sys.argv[1], sys.argv[2]
    out = subprocess.run([pproc, path, "--summary", "--columns", "bytes,msgs", "--format", "csv"],
                         check=True, capture_output=True, text=True).stdout
    rows = {r["region"]: r for r in csv.DictReader(
        line for line in io.StringIO(out) if not line.startswith("#"))}
    want = {}
    with h5py.File(path, "r") as f:
        for rk in [k for k in f if k.startswith("rank")]:
            for g in f[rk]["regions"].values():
                name = g.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                if "bytes" not in g:
                    want.setdefault(name, None)
                    continue
                b = g["bytes"][()]
                # MPI-IO calls store file ids (docs/io.md), no peer
                p = g["peer"][()] if "peer" in g else np.full(len(b), -1)
                s, m = want.get(name) or (0, 0)
                want[name] = (s + int(b[b > 0].sum()), m + int(np.count_nonzero((p >= 0) | (b > 0))))
    fails = []
    if set(rows) != set(want):
        fails.append(f"regions {sorted(rows)} want {sorted(want)}")
    if len(sys.argv) > 3:
        text = open(sys.argv[3], encoding="utf-8").read()
        head = '<script type="application/json" id="sp-data">'
        a = text.index(head) + len(head)
        data = json.loads(text[a:text.index("</script>", a)])
        for reg in data["regions"]:
            got = (reg["bytes"], reg["msgs"]) if "bytes" in reg else None
            if got != want.get(reg["name"], "absent"):
                fails.append(f"report {reg['name']}: bytes, msgs {got}, want {want.get(reg['name'])}")
    checked = 0
    for name, w in want.items():
        r = rows.get(name)
        if r is None:
            continue
        got = None if r["bytes"] in ("", "-") and r["msgs"] in ("", "-") else (int(r["bytes"]), int(r["msgs"]))
        if got != w:
            fails.append(f"{name}: bytes, msgs {got}, want {w}")
        checked += w is not None and w[1] > 0
    if checked == 0:
        fails.append("no region with messages: nothing was checked")
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print(f"ok ({len(want)} regions)")


main()
