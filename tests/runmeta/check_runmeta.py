#!/usr/bin/env python3
"""Runs meta_writer and checks its profile with h5py (independent of our reader).

check_runmeta.py CASE --writer EXE --work DIR [--merge EXE] [--mpiexec EXE]

CASE cap: 256 keys, then 20,000 refused calls: stderr says so once while
running and once at sp_finalize with the count (not a line per call); the
file holds the 256 keys. crash_damaged: as crash, with damaged metadata and source records
appended to the spill file (the merge skips and names them); profile: profile mode's aggregate file holds rank 0's keys; values: run metadata round trip (odd values, refusals absent, library
keys untouched); source: source_file/source_lineno of every region; crash:
the program dies without sp_finalize, scope-profiler-merge rebuilds the
profile from the spill files, metadata and sources included; mpi: 4 ranks,
/metadata from rank 0, rank<N>/metadata where a rank's value differs.
"""
import argparse
import json
import os
import glob
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

FAIL = []


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what)


def regions_by_name(f, rank=0):
    out = {}
    for link, g in f[f"rank{rank}/regions"].items():
        out[g.attrs["name"].decode() if isinstance(g.attrs["name"], bytes) else g.attrs["name"]] = g
    return out


def check_values(f, exp):
    md = f["metadata"].attrs
    for key, want in exp["values"].items():
        check(key in md, f"/metadata has {key!r}")
        if key not in md:
            continue
        got = md[key]
        if isinstance(want, list):  # [prefix, length] of a long string
            check(isinstance(got, str) and got.startswith(want[0]) and len(got) == want[1],
                  f"{key}: long string of {want[1]} bytes")
        elif isinstance(want, str):
            check(isinstance(got, str) and got == want, f"{key}: {got!r} == {want!r}")
            check(md.get_id(key).get_type().get_cset() == h5py.h5t.CSET_UTF8, f"{key}: UTF-8")
        elif isinstance(want, int):
            check(isinstance(got, np.integer) and got.dtype == np.int64 and int(got) == want,
                  f"{key}: int64 {got!r} == {want}")
        else:
            check(isinstance(got, np.floating) and got.dtype == np.float64 and float(got) == want,
                  f"{key}: float64 {got!r} == {want}")
    for key in exp.get("absent", []):
        check(key not in set(md.keys()), f"refused key {key!r} absent")
    if "hostname" in md:  # not in profile mode's aggregate file
        check(md["hostname"] != "mine", "the library's hostname kept")
    check(int(md["mpi_size"]) == exp.get("size", 1), "the library's mpi_size kept")


def check_sources(f, exp, present_only=False):
    if "sources" not in exp:
        return
    regs = regions_by_name(f)
    for name, file, line in exp["sources"]:
        if present_only and name not in regs:
            continue
        check(name in regs, f"region {name} written")
        if name not in regs:
            continue
        a = regs[name].attrs
        check(a.get("source_file") == file, f"{name}: source_file {a.get('source_file')!r} == {file!r}")
        ln = a.get("source_lineno")
        check(ln is not None and ln.dtype == np.int64 and int(ln) == line,
              f"{name}: source_lineno {ln!r} == {line}")
    for name in exp["no_source"]:
        if name in regs:
            check("source_file" not in regs[name].attrs, f"{name}: no source_file")
            check("source_lineno" not in regs[name].attrs, f"{name}: no source_lineno")


def record(rtype, payload):
    """One spill record (c/src/spill/spill_format.h), native byte order."""
    return struct.pack("=IIQ", 0x31525053, rtype, len(payload)) + payload + \
        struct.pack("=I", 0x444E4553)


def damage_spill(spill_dir):
    """Appends to the spill file a META record whose lengths disagree with
    its size and a SOURCE record for a file name that is not UTF-8 (both
    damaged: skipped and counted), then a record of an unknown type 99
    (skipped silently, as a newer writer's)."""
    path = sorted(glob.glob(os.path.join(spill_dir, "*.spill")))[0]
    bad_meta = struct.pack("=IIII", 1, 300, 1, 0) + b"k" * 10 + b"v"
    bad_src = struct.pack("=iIq", 0, 3, 7) + b"\xff\xfe\xfd"
    unknown = b"from a newer writer"
    with open(path, "ab") as fh:
        fh.write(record(16, bad_meta) + record(17, bad_src) + record(99, unknown))


def case_cap(a, work, out, exp_path):
    r = subprocess.run([a.writer, "cap", out, exp_path], cwd=work, capture_output=True,
                       text=True, timeout=240)
    lines = r.stderr.splitlines()
    sys.stderr.write("\n".join(lines[:20]) + "\n")
    check(r.returncode == 0, f"writer exit code {r.returncode}")
    capped = [ln for ln in lines if "SP_ETOOMANY" in ln]
    # 3 lines: the call before sp_setup (every case makes it), the first
    # refusal at the cap, the count at sp_finalize.
    check(len(lines) == 3 and len(capped) == 2,
          f"3 stderr lines, 2 about the cap: got {len(lines)} lines ({len(capped)} about it)")
    check(any("at most 256 keys" in ln for ln in capped), "the first refusal is named")
    check(any(ln.startswith("scope-profiler: warning: 20000 sp_metadata_set call(s) were ignored")
              for ln in capped), "sp_finalize counts the 20000 refusals")
    with h5py.File(out, "r") as f:
        md = f["metadata"].attrs
        keys = sorted(k for k in md.keys() if k.startswith("key"))
        check(keys == [f"key{i:03d}" for i in range(256)], f"the 256 keys: {len(keys)}")
        check(not any(k.startswith("over") for k in md.keys()), "no refused key written")
        if "key007" in md:
            check(int(md["key007"]) == 70, f"key007 replaced: {md['key007']}")
    if FAIL:
        print(f"{len(FAIL)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--writer", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--merge")
    ap.add_argument("--mpiexec")
    a = ap.parse_args()
    work = os.path.join(a.work, a.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "meta.h5")
    exp_path = os.path.join(work, "expected.json")
    env = dict(os.environ, SCOPE_PROFILER_SPILL_DIR=os.path.join(work, "spill"),
               SCOPE_PROFILER_ASYNC_FLUSH="0")  # the crash case: spilled before _exit
    if a.case == "cap":
        return case_cap(a, work, out, exp_path)
    mode = {"mpi": "mpi", "crash": "crash", "mpi_crash": "crash", "profile": "profile",
            "crash_damaged": "crash"}.get(
        a.case, "values")
    cmd = [a.writer, mode, out, exp_path]
    if a.case in ("fortran", "cpp"):
        cmd = [a.writer, out, exp_path]
    if a.case == "py":
        cmd = [sys.executable, a.writer, out, exp_path]
    if a.case in ("mpi", "mpi_crash"):
        cmd = [a.mpiexec, "-np", "4"] + cmd
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=240)
    sys.stderr.write(r.stderr)
    if a.case != "mpi_crash":  # mpirun reports the ranks that died without MPI_Finalize
        check(r.returncode == 0, f"writer exit code {r.returncode}")
    # every refusal said why, prefixed
    check("scope-profiler:" in r.stderr and ("holds a '/'" in r.stderr or a.case == "profile"),
          "refusal reported")
    if a.case not in ("cpp", "py"):
        check("is one the library writes itself" in r.stderr and "outside a session" in r.stderr,
              "refusals reported on stderr")
    with open(exp_path, encoding="utf-8") as fh:
        exp = json.load(fh)
    crash = a.case in ("crash", "mpi_crash", "crash_damaged")
    if a.case == "crash_damaged":
        damage_spill(os.path.join(work, "spill"))
    if crash:
        check(not os.path.exists(out), "no profile without finalize")
        m = subprocess.run([a.merge, "-o", out, os.path.join(work, "spill")],
                           capture_output=True, text=True, timeout=120)
        sys.stderr.write(m.stderr)
        if a.case == "crash_damaged":  # the bad records named, everything else recovered
            check(m.returncode == 4 and "2 damaged record(s)" in m.stderr,
                  f"merge exit code {m.returncode} (4) naming 2 damaged records")
        else:
            check(m.returncode == 0, f"merge exit code {m.returncode}")
        exp["values"].update(exp["crash"])
    with h5py.File(out, "r") as f:
        check_values(f, exp)
        if crash:
            check(int(f["metadata"].attrs["recovered_from_spill"]) == 1, "recovered_from_spill")
        check_sources(f, exp, present_only=crash)
        if a.case in ("mpi", "mpi_crash"):
            md = f["metadata"].attrs
            check(int(md["rank_value"]) == 0, "/metadata rank_value is rank 0's")
            check(float(md["only_rank2"]) == 2.5, "a key only rank 2 set is in /metadata")
            check("metadata" not in f["rank0"], "rank0 has no metadata group")
            for n in range(1, 4):
                g = f[f"rank{n}"]
                check("metadata" in g and int(g["metadata"].attrs["rank_value"]) == n,
                      f"rank{n}/metadata/rank_value == {n}")
                if "metadata" in g:
                    keys = set(g["metadata"].attrs.keys())
                    check(keys == {"rank_value"}, f"rank{n}/metadata holds only what differs: {keys}")
                check_sources_rank(f, exp, n, present_only=crash)
    if FAIL:
        print(f"{len(FAIL)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


def check_sources_rank(f, exp, n, present_only=False):
    regs = regions_by_name(f, n)
    for name, file, line in exp["sources"]:
        if present_only and name not in regs:
            continue
        check(name in regs, f"rank{n} {name} written")
        if name not in regs:
            continue
        a = regs[name].attrs
        check(a.get("source_file") == file and int(a.get("source_lineno", -1)) == line,
              f"rank{n} {name}: source")


if __name__ == "__main__":
    sys.exit(main())
