#!/usr/bin/python3
"""Hostile inputs for scope-profiler-merge, and two writers on one path.

usage: merge_cases.py CASE --work DIR --merge EXE --writers EXE --mpiexec EXE [--pproc EXE]

The spill files are real: the case "source" runs `merge_writers source` on 3
ranks (it SIGKILLs itself after flushing known calls) and merges them into
DIR/ref.h5, the reference. The other cases copy those files, damage them as
spill_format.h allows (a truncated record, bad counts, a bad region index,
a foreign version, missing ranks, random byte flips, ...), run the merge
tool and check with h5py (independent of our reader) that exactly the
undamaged events are in its output, that every input file is still there
byte for byte, that the exit code says what happened and that stderr
names the damage without any HDF5 error stack. The cases same_path.* run
two writers on one file_path at once; symlink.* plant symlinks at
temporary names. Exit 0 when every check holds, else 1 with each failure
printed.
"""
import argparse
import glob
import hashlib
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import time

import h5py
import numpy as np

MAGIC, TRAILER = 0x31525053, 0x444E4553
HEADER, RANK, REGION, EVENTS, CALIB = 1, 2, 3, 4, 5
HEAD = struct.Struct("<IIQ")
EPATH, EPARTIAL_EXIT = -8, 4
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


# ---- spill files ------------------------------------------------------------

def records(data):
    """[(offset, type, payload bytes)] of a whole spill file."""
    out, off = [], 0
    while off + HEAD.size <= len(data):
        magic, typ, length = HEAD.unpack_from(data, off)
        end = off + HEAD.size + length
        assert magic == MAGIC and end + 4 <= len(data), "reference spill file is damaged"
        assert struct.unpack_from("<I", data, end)[0] == TRAILER
        out.append((off, typ, data[off + HEAD.size:end]))
        off = end + 4
    return out


def record(typ, payload):
    return HEAD.pack(MAGIC, typ, len(payload)) + payload + struct.pack("<I", TRAILER)


def names_of(recs):
    names = {}
    for _, typ, p in recs:
        if typ == REGION:
            h, n = struct.unpack_from("<ii", p)
            names[h] = p[8:8 + n].decode()
    return names


def event_records(recs):
    """[(index in recs, region name, n)] of the EVENTS records."""
    names, out = names_of(recs), []
    for i, (_, typ, p) in enumerate(recs):
        if typ == EVENTS:
            h, t, n = struct.unpack_from("<iiq", p)
            out.append((i, names[h], n))
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---- profiles ---------------------------------------------------------------

def read_profile(path, strict=False):
    """{rank: {region name: sorted [(start, end)]}} and {rank: attributes}.
    strict: every event must also end at or after its start."""
    data, attrs = {}, {}
    with h5py.File(path, "r") as f:
        n = int(f["metadata"].attrs["mpi_size"])
        for r in range(n):
            g = f[f"rank{r}"]
            attrs[r] = dict(g.attrs)
            data[r] = {}
            for _, reg in g["regions"].items():
                name = reg.attrs["name"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                st = reg["start_times"][()] if "start_times" in reg else np.zeros(0, np.int64)
                en = reg["end_times"][()] if "end_times" in reg else np.zeros(0, np.int64)
                check(len(st) == len(en) == int(reg.attrs["num_calls"]),
                      f"{path} rank{r} {name}: {len(st)} starts, {len(en)} ends, "
                      f"num_calls {int(reg.attrs['num_calls'])}")
                if strict:
                    check(bool(np.all(en >= st)), f"{path} rank{r} {name}: an event ends "
                          f"before it starts")
                data[r][name] = sorted(zip(st.tolist(), en.tolist()))
    return data, attrs


def expect_events(out, ref, lost):
    """out holds ref's events but `lost` {(rank, name): n} fewer, all from ref."""
    got, _ = read_profile(out, strict=True)
    check(sorted(got) == sorted(ref), f"ranks {sorted(got)} != {sorted(ref)}")
    for r in ref:
        for name, evs in ref[r].items():
            want = len(evs) - lost.get((r, name), 0)
            have = got.get(r, {}).get(name, [])
            check(len(have) == want, f"rank{r} {name}: {len(have)} events, want {want}")
            pool = {}
            for e in evs:
                pool[e] = pool.get(e, 0) + 1
            for e in have:
                check(pool.get(e, 0) > 0, f"rank{r} {name}: event {e} is not in the reference")
                pool[e] = pool.get(e, 0) - 1
        extra = set(got.get(r, {})) - set(ref[r])
        check(not extra, f"rank{r}: regions {extra} not in the reference")


# ---- running the tool -------------------------------------------------------

def run_merge(args, inputs):
    """Runs merge ARGS INPUTS...; inputs must be unchanged after. (rc, stderr)"""
    files = []
    for i in inputs:
        files += sorted(glob.glob(os.path.join(i, "*"))) if os.path.isdir(i) else [i]
    before = {p: sha(p) for p in files if os.path.isfile(p)}
    try:
        p = subprocess.run(A.merge_cmd + args + inputs, capture_output=True, text=True,
                           timeout=60, errors="replace")
    except subprocess.TimeoutExpired:
        check(False, f"merge {args} {inputs} still running after 60 s (killed)")
        return None, ""
    check(p.returncode >= 0, f"merge died of signal {-p.returncode}: {p.stderr}")
    for path, digest in before.items():
        if check(os.path.isfile(path), f"input {path} is gone"):
            check(sha(path) == digest, f"input {path} was modified")
    check("HDF5-DIAG" not in p.stderr, f"raw HDF5 error stack on stderr:\n{p.stderr}")
    for line in p.stderr.splitlines():
        check(line.startswith("scope-profiler"), f"stderr line without our prefix: {line!r}")
    return p.returncode, p.stderr


def case_dir(name):
    d = os.path.join(A.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def base_files():
    files = sorted(glob.glob(os.path.join(A.work, "source", "source.h5.spill", "*.spill")))
    assert len(files) == 3, f"the source fixture left {len(files)} spill files"
    return files  # rank0, rank1, rank2 (names start with rank<N>.)


def copy_base(d):
    out = []
    for f in base_files():
        out.append(shutil.copy(f, d))
    return out


def reference():
    return read_profile(os.path.join(A.work, "ref.h5"))[0]


# ---- cases ------------------------------------------------------------------

def case_source():
    d = case_dir("source")
    env = dict(os.environ, SCOPE_PROFILER_ASYNC_FLUSH="0")
    subprocess.run([A.mpiexec, "-n", "3", A.writers, "source"], cwd=d, env=env, timeout=120,
                   capture_output=True)
    check(len(glob.glob(os.path.join(d, "source.h5.spill", "*.spill"))) == 3,
          "the source run did not leave 3 spill files")
    ref = os.path.join(A.work, "ref.h5")
    if os.path.exists(ref):
        os.unlink(ref)
    rc, err = run_merge(["-o", ref], [os.path.join(d, "source.h5.spill")])
    check(rc == 0, f"merge of the intact files: exit {rc}: {err}")
    got, _ = read_profile(ref, strict=True)
    for r in range(3):
        counts = {k: len(v) for k, v in got.get(r, {}).items()}
        check(counts == {"step": 40 + 10 * r, "solver/inner": 80 + 20 * r},
              f"rank{r} of the reference: {counts}")


def unreadable(name, content):
    """A single input merge cannot read: exit 1, named, kept, no output."""
    d = case_dir("unreadable." + name)
    src = os.path.join(d, "rank0.x.1.spill")
    with open(src, "wb") as f:
        f.write(content)
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [src])
    check(rc == 1, f"exit {rc}, want 1")
    check(src in err, f"stderr does not name {src}: {err}")
    check(not os.path.exists(out), "an output was written from nothing")
    check(not glob.glob(out + ".partial*"), "a temporary file was left")
    return err


def case_unreadable_empty():
    unreadable("empty", b"")


def case_unreadable_garbage():
    unreadable("garbage", random.Random(24).randbytes(4096))


def case_unreadable_newer_version():
    data = bytearray(open(base_files()[0], "rb").read())
    struct.pack_into("<I", data, HEAD.size, 2)  # header.version
    err = unreadable("newer_version", bytes(data))
    check("newer" in err, f"stderr does not say the version is newer: {err}")


def case_unreadable_absurd_counts():
    """Every EVENTS record claims 2^60+1 events (times 16 wraps to 16)."""
    data = open(base_files()[0], "rb").read()
    out = b""
    for off, typ, p in records(data):
        if typ == EVENTS:
            p = p[:8] + struct.pack("<q", (1 << 60) + 1) + p[16:32]
        out += record(typ, p)
    d = case_dir("unreadable.absurd_counts")
    src = os.path.join(d, "rank0.x.1.spill")
    open(src, "wb").write(out)
    rc, err = run_merge(["-o", os.path.join(d, "out.h5")], [src])
    check(rc == EPARTIAL_EXIT, f"exit {rc}, want {EPARTIAL_EXIT}")
    check(src in err and "damaged" in err, f"stderr does not name the damage: {err}")


def case_input_is_output():
    d = case_dir("input_is_output")
    files = copy_base(d)
    rc, err = run_merge(["-f", "-o", files[0]], [d])
    check(rc != 0, "merging onto one of its inputs succeeded")
    check("is the input" in err, f"stderr: {err}")


def damaged(name, rank, damage, lost_of):
    """Damages rank `rank`'s file with damage(recs) -> bytes; lost_of(recs)
    gives {(rank, region): events lost}. Exit 4, the file named."""
    d = case_dir("damaged." + name)
    files = copy_base(d)
    data = open(files[rank], "rb").read()
    recs = records(data)
    open(files[rank], "wb").write(damage(recs))
    rc, err = run_merge(["-o", os.path.join(d, "out.h5")], [d])
    check(rc == EPARTIAL_EXIT, f"exit {rc}, want {EPARTIAL_EXIT}: {err}")
    check(files[rank] in err, f"stderr does not name {files[rank]}: {err}")
    if os.path.exists(os.path.join(d, "out.h5")):
        expect_events(os.path.join(d, "out.h5"), reference(), lost_of(recs))
    else:
        check(False, "no output written")


def rebuild(recs, change):
    """Bytes of recs with change(i, typ, payload) -> bytes of record i."""
    return b"".join(change(i, t, p) for i, (_, t, p) in enumerate(recs))


def third_events(recs):
    return event_records(recs)[2]


def case_damaged_truncated_record():
    def damage(recs):
        k = third_events(recs)[0]
        # 8 bytes of its payload gone: length and trailer no longer agree.
        return rebuild(recs, lambda i, t, p: record(t, p)[:-12] + record(t, p)[-4:]
                       if i == k else record(t, p))
    damaged("truncated_record", 1, damage,
            lambda recs: {(1, third_events(recs)[1]): third_events(recs)[2]})


def events_field(recs, fmt, offset, value):
    k = third_events(recs)[0]
    def change(i, t, p):
        if i == k:
            p = bytearray(p)
            struct.pack_into(fmt, p, offset, value)
        return record(t, bytes(p))
    return rebuild(recs, change)


def case_damaged_bad_count():
    damaged("bad_count", 1, lambda recs: events_field(recs, "<q", 8, (1 << 60) + 1),
            lambda recs: {(1, third_events(recs)[1]): third_events(recs)[2]})


def case_damaged_bad_region():
    damaged("bad_region", 1, lambda recs: events_field(recs, "<i", 0, 999),
            lambda recs: {(1, third_events(recs)[1]): third_events(recs)[2]})


def case_damaged_bad_thread():
    damaged("bad_thread", 1, lambda recs: events_field(recs, "<i", 4, -5),
            lambda recs: {(1, third_events(recs)[1]): third_events(recs)[2]})


def case_damaged_region_record():
    """The REGION record of solver/inner has a wrong name length: all its
    events on that rank are unattributable and skipped."""
    def damage(recs):
        def change(i, t, p):
            if t == REGION and p[8:].decode() == "solver/inner":
                p = p[:4] + struct.pack("<i", 5000) + p[8:]
            return record(t, p)
        return rebuild(recs, change)
    damaged("region_record", 2, damage, lambda recs: {(2, "solver/inner"): 80 + 40})


def case_damaged_rank_size():
    """Rank 1's RANK record says a million ranks: the job's size is what the
    other files say, rank 1's events are all recovered, the file named."""
    def damage(recs):
        return rebuild(recs, lambda i, t, p: record(t, struct.pack("<ii", 1, (1 << 20) + 3))
                       if t == RANK else record(t, p))
    damaged("rank_size", 1, damage, lambda recs: {})


def case_extreme_stamps():
    """Stamps at the ends of int64 (a damaged record can hold anything):
    converted without overflow (UBSan stops at one), order kept: no end
    before its start, the largest stamp maps to the largest time."""
    d = case_dir("extreme_stamps")
    files = copy_base(d)
    recs = records(open(files[0], "rb").read())
    lo, hi = -(1 << 63), (1 << 63) - 1
    pairs = [(lo, hi), (lo, 0), (0, hi), (lo, lo + 1), (hi - 1, hi), (-(1 << 62), 1 << 62)]
    k = third_events(recs)[0]
    def change(i, t, p):
        if i != k:
            return record(t, p)
        h, th, _ = struct.unpack_from("<iiq", p)
        return record(t, struct.pack("<iiq", h, th, len(pairs)) +
                      b"".join(struct.pack("<qq", a, b) for a, b in pairs))
    open(files[0], "wb").write(rebuild(recs, change))
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [d])
    check(rc == 0, f"exit {rc}: {err}")
    if rc != 0:
        return
    name = third_events(recs)[1]
    with h5py.File(out, "r") as f:
        for _, reg in f["rank0/regions"].items():
            if reg.attrs["name"] in (name, name.encode()):
                st, en = reg["start_times"][()], reg["end_times"][()]
    ev = sorted(zip(st.tolist(), en.tolist()))
    check(all(b >= a for a, b in ev), f"an end before its start: {ev[:3]} ...")
    check(max(en.tolist()) == max(en.tolist() + st.tolist()), "the largest stamp is not an end")


def case_damaged_duplicate_name():
    """A second handle named "step" with 3 events: they are skipped."""
    def damage(recs):
        k = third_events(recs)[0]
        p = recs[k][2]
        extra = (record(REGION, struct.pack("<ii", 50, 4) + b"step") +
                 record(EVENTS, struct.pack("<iiq", 50, 0, 3) + p[16:16 + 48]))
        return rebuild(recs, lambda i, t, q: record(t, q) + (extra if i == k else b""))
    d = damaged("duplicate_name", 0, damage, lambda recs: {})
    return d


def case_torn_tail():
    """A torn last record (the run died while writing it) is normal: exit 0."""
    d = case_dir("torn_tail")
    files = copy_base(d)
    data = open(files[2], "rb").read()
    last = event_records(records(data))[-1]
    open(files[2], "wb").write(data[:-5])
    rc, err = run_merge(["-o", os.path.join(d, "out.h5")], [d])
    check(rc == 0, f"exit {rc}, want 0: {err}")
    check("incomplete record" in err, f"stderr: {err}")
    expect_events(os.path.join(d, "out.h5"), reference(), {(2, last[1]): last[2]})


def case_missing_ranks():
    d = case_dir("missing_ranks")
    files = copy_base(d)
    os.unlink(files[1])
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [d])
    check(rc == EPARTIAL_EXIT, f"exit {rc}, want {EPARTIAL_EXIT}: {err}")
    check(re.search(r"no readable spill file for 1 of 3 rank\(s\): 1;", err), f"stderr: {err}")
    ref = reference()
    got, attrs = read_profile(out, strict=True)
    check(got[0] == ref[0] and got[2] == ref[2], "ranks 0 and 2 differ from the reference")
    check(got[1] == {}, f"rank1 has regions: {list(got[1])}")
    check(int(attrs[1].get("missing", 0)) == 1, f"rank1@missing: {attrs[1].get('missing')}")
    check("missing" not in attrs[0] and "missing" not in attrs[2], "a present rank marked missing")


def case_fuzz():
    """Random byte flips over real spill files (fixed seed): never a crash,
    a changed input or an HDF5 stack; a written output is readable."""
    rnd = random.Random(2024)
    d = case_dir("fuzz")
    out = os.path.join(case_dir("fuzz.out"), "out.h5")
    originals = [open(f, "rb").read() for f in base_files()]
    for it in range(120):
        for f in glob.glob(os.path.join(d, "*")):
            os.unlink(f)
        for r, data in enumerate(originals):
            data = bytearray(data)
            if r == it % 3:
                for _ in range(rnd.randint(1, 12)):
                    data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
                if rnd.random() < 0.2:
                    del data[rnd.randrange(len(data)):]
            open(os.path.join(d, f"rank{r}.x.{it}.spill"), "wb").write(bytes(data))
        if os.path.exists(out):
            os.unlink(out)
        rc, err = run_merge(["-o", out], [d])
        check(rc in (0, 1, EPARTIAL_EXIT), f"iteration {it}: exit {rc}: {err}")
        if rc in (0, EPARTIAL_EXIT):
            read_profile(out)
        check(not glob.glob(out + ".partial*"), f"iteration {it}: a temporary file was left")
        if failures:
            print(f"first failure at iteration {it}", file=sys.stderr)
            break


def case_sparse_ids():
    """Valid but hostile: the largest region handle and thread number the
    format allows, on many small records. Recovered in bounded time (the
    old code did handles x records and regions x threads x records work:
    over 60 s; now well under a second)."""
    d = case_dir("sparse_ids")
    recs = records(open(base_files()[0], "rb").read())
    out = [record(HEADER, recs[0][2])]
    ev = struct.pack("<qq", 1000, 2000)
    out.append(record(REGION, struct.pack("<ii", (1 << 22) - 1, 6) + b"sparse"))
    for _ in range(1000):
        out.append(record(EVENTS, struct.pack("<iiq", (1 << 22) - 1, 0, 1) + ev))
    for h in range(50):
        out.append(record(REGION, struct.pack("<ii", h, 8) + b"r%07d" % h))
        for _ in range(20):
            out.append(record(EVENTS, struct.pack("<iiq", h, (1 << 20) - 1, 1) + ev))
    out = b"".join(out)
    src = os.path.join(d, "rank0.x.1.spill")
    open(src, "wb").write(out)
    o = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", o], [src])
    check(rc == 0, f"exit {rc}: {err}")
    if rc == 0:
        got, _ = read_profile(o)
        counts = {k: len(v) for k, v in got[0].items()}
        check(counts.get("sparse") == 1000 and len(counts) == 51 and
              all(counts[f"r{h:07d}"] == 20 for h in range(50)), f"counts: {counts}")


def plant_symlinks(final, victim):
    host = socket.gethostname()
    names = [final + ".partial", final + ".partial." + host]
    names += [f"{final}.partial.{host}.{pid}" for pid in range(os.getpid(), os.getpid() + 50)]
    for n in names:
        os.symlink(victim, n)
    return names


def case_symlink_merge():
    d = case_dir("symlink.merge")
    victim = os.path.join(d, "victim")
    open(victim, "wb").write(b"precious\n" * 100)
    out = os.path.join(d, "out.h5")
    links = plant_symlinks(out, victim)
    rc, err = run_merge(["-o", out], [os.path.join(A.work, "source", "source.h5.spill")])
    check(rc == 0, f"exit {rc}: {err}")
    check(open(victim, "rb").read() == b"precious\n" * 100, "the victim was changed")
    check(all(os.path.islink(n) for n in links), "a planted symlink was removed")
    expect_events(out, reference(), {})


def case_symlink_finalize():
    d = case_dir("symlink.finalize")
    victim = os.path.join(d, "victim")
    open(victim, "wb").write(b"precious\n" * 100)
    links = plant_symlinks("plain.h5", victim)  # relative: the run's directory
    for n in links:
        os.rename(n, os.path.join(d, n))
    p = subprocess.run([A.writers, "plain", "plain.h5"], cwd=d, capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, f"finalize failed: {p.stderr}")
    check(open(victim, "rb").read() == b"precious\n" * 100, "the victim was changed")
    got, _ = read_profile(os.path.join(d, "plain.h5"), strict=True)
    check({k: len(v) for k, v in got[0].items()} == {"plain": 5}, f"plain.h5: {got}")


def regions_in(path):
    got, _ = read_profile(path, strict=True)
    return {r: sorted(got[r]) for r in got}


def case_same_path_serial():
    """Two processes finalize to one path at once, 20 times: the one that
    returns 0 has its data there; the other says where its profile is."""
    d = case_dir("same_path.serial")
    final = os.path.join(d, "same.h5")
    for it in range(20):
        procs = [subprocess.Popen([A.writers, "serial", final, f"writer{k}"], cwd=d,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for k in range(2)]
        for p in procs:
            check(p.stdout.readline().strip() == "ready", f"iteration {it}: a writer failed")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        res = []
        for p in procs:
            out, err = p.communicate(timeout=60)
            m = re.search(r"rc (-?\d+)", out)
            res.append((int(m.group(1)) if m else None, err))
        winners = [k for k in range(2) if res[k][0] == 0]
        check(len(winners) == 1, f"iteration {it}: return codes {[r[0] for r in res]}")
        if winners:
            w = winners[0]
            check(regions_in(final) == {0: [f"writer{w}"]},
                  f"iteration {it}: writer{w} returned 0 but {final} holds {regions_in(final)}")
            lose = 1 - w
            check(res[lose][0] == EPATH, f"iteration {it}: loser rc {res[lose][0]}")
            m = re.search(r"kept as '([^']+)'", res[lose][1])
            if check(m, f"iteration {it}: the loser does not say where its data is: "
                        f"{res[lose][1]}"):
                check(regions_in(m.group(1)) == {0: [f"writer{lose}"]},
                      f"iteration {it}: the kept file does not hold writer{lose}")
                os.unlink(m.group(1))
        check(not glob.glob(final + ".partial*"), f"iteration {it}: a temporary file was left")
        if failures:
            break


def same_path_split(mode, iterations, winner=None, env=None):
    """Even and odd ranks (two communicators) write one path: `merge_writers
    mode` (split: both set up before either writes; split_ordered: the odd
    half sets up after the even half has written; split_race: each at its
    own pace), `iterations` times (5 under tests/run-sanitizers.sh, where
    one 4-rank ASan run takes ~10 s). Exactly one half returns 0 on both its
    ranks (winner, when given), and its data is in the file; the other
    returns SP_EPATH and says where its own is kept."""
    d = case_dir("same_path." + mode)
    final = os.path.join(d, "split.h5")
    for it in range(5 if "ASAN_OPTIONS" in os.environ else iterations):
        shutil.rmtree(final + ".spill", ignore_errors=True)
        if os.path.exists(final):
            os.unlink(final)
        p = subprocess.run([A.mpiexec, "-n", "4", A.writers, mode, final], cwd=d,
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, **(env or {})))
        check(p.returncode == 0, f"iteration {it}: mpirun exit {p.returncode}: {p.stderr}")
        rcs = {}
        for m in re.finditer(r"rank (\d) half (\d) rc (-?\d+)", p.stdout):
            rcs.setdefault(int(m.group(2)), []).append(int(m.group(3)))
        won = [h for h in (0, 1) if rcs.get(h) == [0, 0]]
        check(len(won) == 1, f"iteration {it}: return codes by half {rcs}; the file holds "
              f"{regions_in(final) if os.path.exists(final) else 'nothing'}")
        if not won:
            break
        w, lose = won[0], 1 - won[0]
        if winner is not None:
            check(w == winner, f"iteration {it}: half {w} won, want half {winner}")
        check(regions_in(final) == {0: [f"half{w}"], 1: [f"half{w}"]},
              f"iteration {it}: half {w} returned 0 but the file holds {regions_in(final)}")
        check(rcs.get(lose) == [EPATH, EPATH], f"iteration {it}: losing half rc {rcs.get(lose)}")
        m = re.search(r"kept as '([^']+)'", p.stderr)
        if check(m, f"iteration {it}: the losing half does not say where its data is"):
            check(regions_in(m.group(1)) == {0: [f"half{lose}"], 1: [f"half{lose}"]},
                  f"iteration {it}: the kept file does not hold half {lose}")
            os.unlink(m.group(1))
        spills = glob.glob(os.path.join(final + ".spill", "*.spill"))
        check(len(spills) == 2, f"iteration {it}: the losing half kept {len(spills)} spill files")
        if failures:
            break


def case_same_path_split():
    same_path_split("split", 20)


def case_same_path_split_ordered():
    """The odd half sets up after the even half has published (issue 43
    item 17: it replaced the even half's file, both returned 0). The clock
    measurement at sp_setup, over all 4 ranks, waits for the half that is
    not there: 2 s (FINALIZE_TIMEOUT) instead of 10."""
    same_path_split("split_ordered", 4, winner=0, env={"SCOPE_PROFILER_FINALIZE_TIMEOUT": "2"})


def case_same_path_split_race():
    """No order between the halves: either may set up after the other wrote."""
    same_path_split("split_race", 20)


def two_runs(d):
    """Two 3-rank runs SIGKILLed writing one path (the second one with 20
    more steps per rank, a second later): the spill directory holds two
    files per rank. Both runs come back whole, each in a file of its own:
    the later run at -o OUT, the earlier one at OUT's stem + .earlier1."""
    env = dict(os.environ, SCOPE_PROFILER_ASYNC_FLUSH="0")
    for k, extra in enumerate((0, 20)):
        if k:
            time.sleep(1.1)  # the spill header's wall_time is in seconds
        subprocess.run([A.mpiexec, "-n", "3", A.writers, "source", str(extra)], cwd=d, env=env,
                       timeout=120, capture_output=True)
    spill = os.path.join(d, "source.h5.spill")
    check(len(glob.glob(os.path.join(spill, "*.spill"))) == 6,
          f"two runs left {len(glob.glob(os.path.join(spill, '*.spill')))} spill files, want 6")
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [spill])
    check(rc == 0, f"exit {rc}: {err}")
    check("earlier run" in err and "out.earlier1.h5" in err,
          f"stderr does not say where the earlier run went: {err}")
    for path, extra in ((out, 20), (os.path.join(d, "out.earlier1.h5"), 0)):
        if not check(os.path.isfile(path), f"{path} was not written"):
            continue
        got, _ = read_profile(path, strict=True)
        check(sorted(got) == [0, 1, 2], f"{path}: ranks {sorted(got)}")
        for r in range(3):
            counts = {k: len(v) for k, v in got.get(r, {}).items()}
            want = {"step": 40 + 10 * r + extra, "solver/inner": 2 * (40 + 10 * r + extra)}
            check(counts == want, f"{path} rank{r}: {counts}, want {want} (the run with "
                  f"{extra} more steps)")
    check(not os.path.exists(os.path.join(d, "out.earlier2.h5")), "a third output for two runs")


def case_two_runs_unranked():
    """Two runs without MPI (no rank) killed in turn writing one path, 3,000
    and 7,000 calls (issue 43 item 8: merged as rank0 and rank1 of one
    file): each its own file, told apart by the run id in the spill files'
    heads: the later at OUT, the earlier at OUT.earlier1.h5, one rank each."""
    d = case_dir("two_runs.unranked")
    env = dict(os.environ, SCOPE_PROFILER_ASYNC_FLUSH="0")
    for n in (3000, 7000):
        p = subprocess.run([A.writers, "killed", "run.h5", str(n)], cwd=d, env=env, timeout=120,
                           capture_output=True, text=True)
        check(p.returncode == -9, f"writer {n}: exit {p.returncode} (want SIGKILL): {p.stderr}")
    spill = os.path.join(d, "run.h5.spill")
    files = glob.glob(os.path.join(spill, "*.spill"))
    check(len(files) == 2, f"two runs left {len(files)} spill files, want 2")
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [spill])
    check(rc == 0, f"exit {rc}: {err}")
    check("earlier run" in err and "out.earlier1.h5" in err,
          f"stderr does not say where the earlier run went: {err}")
    for path, n in ((out, 7000), (os.path.join(d, "out.earlier1.h5"), 3000)):
        if not check(os.path.isfile(path), f"{path} was not written"):
            continue
        got, _ = read_profile(path, strict=True)
        check(sorted(got) == [0], f"{path}: ranks {sorted(got)}, want [0]")
        counts = {k: len(v) for k, v in got.get(0, {}).items()}
        check(counts == {"step": n}, f"{path} rank0: {counts}, want {{'step': {n}}}")
    check(not os.path.exists(os.path.join(d, "out.earlier2.h5")), "a third output for two runs")


def aggregate_counts(path):
    """{(rank, region name): calls} of an aggregate file, read with h5py."""
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][()]]
        idx = f["rank_region_index"]
        return {(int(r), names[g]): int(c) for r, g, c in
                zip(idx["ranks"][()], idx["region_ids"][()], idx["aggregate_counts"][()])}


def case_two_runs_profile():
    """Profile mode: two runs without MPI end without sp_finalize in turn
    writing one path, 3,000 and 7,000 calls; their .aggspill files (run id
    in the head) are merged into a file each, not summed as one rank."""
    d = case_dir("two_runs.profile")
    for n in (3000, 7000):
        p = subprocess.run([A.writers, "profile_exit", "run.h5", str(n)], cwd=d, timeout=120,
                           capture_output=True, text=True)
        check(p.returncode == 0, f"writer {n}: exit {p.returncode}: {p.stderr}")
        time.sleep(1.1)  # the head's wall_time is in seconds
    spill = os.path.join(d, "run.h5.spill")
    files = glob.glob(os.path.join(spill, "*.aggspill"))
    check(len(files) == 2, f"two runs left {len(files)} .aggspill files, want 2")
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [spill])
    check(rc == 0, f"exit {rc}: {err}")
    check("earlier run" in err and "out.earlier1.h5" in err,
          f"stderr does not say where the earlier run went: {err}")
    for path, n in ((out, 7000), (os.path.join(d, "out.earlier1.h5"), 3000)):
        if check(os.path.isfile(path), f"{path} was not written"):
            got = aggregate_counts(path)
            check(got == {(0, "step"): n}, f"{path}: {got}, want {{(0, 'step'): {n}}}")


def killed_early(how, drained):
    """4 ranks record 5 calls each, nothing flushed; then rank 1 exits
    without sp_finalize (its calls drained at exit) or rank 2 calls
    MPI_Abort, and mpirun kills the others (issue 43 item 16: they left no
    spill file, so a merge did not know them, or found nothing at all).
    Every rank's spill file exists from sp_setup: the merge writes all 4
    ranks, none marked missing, the drained calls in, and names the ranks
    whose calls were lost."""
    d = case_dir(f"killed_early.{how}")
    p = subprocess.run([A.mpiexec, "-n", "4", A.writers, "early", how], cwd=d, timeout=240,
                       capture_output=True, text=True)
    check(p.returncode != 0, f"mpirun exit {p.returncode}: the job was to fail")
    spill = os.path.join(d, "early.h5.spill")
    files = sorted(glob.glob(os.path.join(spill, "*.spill")))
    check(len(files) == 4, f"{len(files)} spill files, want one per rank: {files}")
    out = os.path.join(d, "out.h5")
    rc, err = run_merge(["-o", out], [spill])
    check(rc == 0, f"merge exit {rc}: {err}")
    lost = sorted(set(range(4)) - set(drained))
    names = ", ".join(map(str, lost))
    check(f"{len(lost)} of 4 rank(s) left a spill file without events ({names})" in err,
          f"stderr does not name the ranks whose calls were lost ({names}): {err}")
    if not check(os.path.isfile(out), "nothing written"):
        return
    got, attrs = read_profile(out, strict=True)
    check(sorted(got) == [0, 1, 2, 3], f"ranks {sorted(got)}, want 0-3")
    for r in range(4):
        check(int(attrs.get(r, {}).get("missing", 0)) == 0, f"rank{r} marked missing")
        counts = {k: len(v) for k, v in got.get(r, {}).items()}
        want = {"work": 5} if r in drained else {}
        check(counts == want, f"rank{r}: {counts}, want {want}")


def case_killed_early_exit():
    killed_early("exit", [1])


def case_killed_early_abort():
    killed_early("abort", [])


def case_two_runs_merge():
    two_runs(case_dir("two_runs.merge"))


def case_two_runs_pproc():
    A.merge_cmd = [A.pproc, "merge"]
    two_runs(case_dir("two_runs.pproc"))


def case_name(fn_name):
    """case_damaged_bad_count -> damaged.bad_count (the CTest name's tail)."""
    name = fn_name[len("case_"):]
    for group in ("unreadable", "damaged", "same_path", "symlink", "two_runs", "killed_early"):
        if name.startswith(group + "_"):
            return group + "." + name[len(group) + 1:]
    return name


CASES = {case_name(n): fn for n, fn in list(globals().items()) if n.startswith("case_")}


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--work", required=True)
    ap.add_argument("--merge", required=True)
    ap.add_argument("--writers", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--pproc", help="scope-profiler-pproc, for the two_runs.pproc case")
    A = ap.parse_args()
    A.work, A.merge, A.writers = map(os.path.abspath, (A.work, A.merge, A.writers))
    A.merge_cmd = [A.merge]
    os.makedirs(A.work, exist_ok=True)
    CASES[A.case]()
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    print(f"{A.case}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
