#!/usr/bin/python3
"""rank<N>/mpi through spill files and scope-profiler-merge (issue 50):
waits_merge.py killed|done MERGE PPROC DIR NP MPIEXEC ARGS... WAITS_MERGE

killed: runs `MPIEXEC ARGS... WAITS_MERGE DIR/trace.h5 killed` (tiny
  buffers: it spills; sub-communicators from MPI_Comm_split and
  MPI_Comm_dup), waits for each rank's DIR/trace.h5.ready.<rank>, SIGKILLs
  the ranks and the launcher, merges the spill files. The merged
  rank<N>/mpi must hold the communicators and completions the spill files
  hold, read here from the spill records themselves (type 29: int32 id,
  size, world ranks; type 28: int64 n, n x 56-byte completions): the
  comm_sizes by id (0 where the rank is in no such communicator),
  comm_members one id after the other, every completion column.
done: runs it to sp_finalize, its spill files kept by hard links in
  DIR/trace.h5.kept; merges those: the merged rank<N>/mpi must be the
  finalized file's (comm_sizes, comm_members, every completion column, the
  region names the completions name), but for the communicator the library
  makes at finalize to write the file (after the last spill; named by no
  call), which only the finalized table has; --waits on both gives the
  same rows, causes and unpaired counts, the times within 10 us.
Both: world is id 0 with ranks 0..NP-1, the parity halves and the dup are
in each rank's table, every MPI call's comm id names one of them, and
PPROC --waits --format json reads the merged file.
"""
import glob
import json
import os
import signal
import struct
import subprocess
import sys
import time

import h5py
import numpy as np

MAGIC, TRAILER = 0x31525053, 0x444E4553
DONE = np.dtype([("wait_call", "<i8"), ("post_call", "<i8"), ("bytes", "<i8"),
                 ("wait_region", "<i4"), ("post_region", "<i4"), ("thread", "<i4"),
                 ("post_thread", "<i4"), ("peer", "<i4"), ("tag", "<i4"), ("comm", "<i4"),
                 ("send", "<i4")])


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read_spill(path):
    """(rank, {id: world ranks}, completions) from one spill file's records."""
    data = open(path, "rb").read()
    off, rank, comms, done = 0, -1, {}, []
    while off + 16 <= len(data):
        magic, typ, n = struct.unpack_from("<IIQ", data, off)
        end = off + 16 + n
        if magic != MAGIC or end + 4 > len(data) or \
                struct.unpack_from("<I", data, end)[0] != TRAILER:
            break  # the torn tail of a killed writer
        p = data[off + 16:end]
        if typ == 2:
            rank = struct.unpack_from("<i", p)[0]
        elif typ == 29:
            cid, size = struct.unpack_from("<ii", p)
            comms[cid] = list(struct.unpack_from(f"<{size}i", p, 8))
        elif typ == 28:
            done.append(np.frombuffer(p[8:], dtype=DONE))
        off = end + 4
    return rank, comms, np.concatenate(done) if done else np.zeros(0, DONE)


def table(comms):
    """comm_sizes, comm_members as rank<N>/mpi has them, from {id: ranks}."""
    top = max(comms) if comms else -1
    sizes = [len(comms.get(i, [])) for i in range(top + 1)]
    members = [r for i in range(top + 1) for r in comms.get(i, [])]
    return np.array(sizes, np.int32), np.array(members, np.int32)


def mpi_of(f, r):
    """rank r's (comm_sizes, comm_members, completions or None, region names)."""
    g = f.get(f"rank{r}/mpi")
    if g is None:
        return None
    c = g.get("completions")
    cols = None if c is None else {k: c[k][()] for k in DONE.names}
    names = None if c is None else [x.decode().rstrip("\0") for x in c.attrs["region_names"]]
    return (g.attrs.get("comm_sizes"), g.attrs.get("comm_members"), cols, names)


def check_table(r, nranks, sizes, members, f):
    """World, the parity half and the dup in rank r's table; calls name ids in it."""
    if sizes is None or members is None:
        fail(f"rank{r}/mpi has no comm_sizes/comm_members")
    offs = np.concatenate([[0], np.cumsum(sizes)])
    comms = {i: list(members[offs[i]:offs[i + 1]]) for i in range(len(sizes)) if sizes[i] > 0}
    world = list(range(nranks))
    if comms.get(0) != world:
        fail(f"rank {r}: id 0 is {comms.get(0)}, not the world {world}")
    half = [q for q in world if q % 2 == r % 2]
    if half not in comms.values():
        fail(f"rank {r}: its half {half} is not in its table {comms}")
    if sum(v == world for v in comms.values()) < 2:
        fail(f"rank {r}: no duplicate of the world in its table {comms}")
    used = set()
    for g in f[f"rank{r}/regions"].values():
        if "comm" in g:
            used |= set(int(x) for x in g["comm"][()] if x >= 0)
    if not used or not used <= set(comms):
        fail(f"rank {r}: calls name comm ids {sorted(used)}, the table has {sorted(comms)}")
    return len(comms)


def env_for(trace):
    """MPI calls recorded into trace, buffers of 16 events: the run spills."""
    return dict(os.environ, SCOPE_PROFILER_FILE=trace, SCOPE_PROFILER_PROFILE_MPI="1",
                SCOPE_PROFILER_BUFFER_LIMIT="16")


def waits_read(pproc, path):
    p = subprocess.run([pproc, path, "--waits", "--format", "json"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        fail(f"--waits on {path}: exit {p.returncode} {p.stderr}")
    return json.loads(p.stdout)


def killed(merge, pproc, d, nranks, cmd):
    trace = os.path.join(d, "trace.h5")
    job = subprocess.Popen(cmd + [trace, "killed"], env=env_for(trace), start_new_session=True)
    ready = [f"{trace}.ready.{r}" for r in range(nranks)]
    deadline = time.time() + 200
    while not all(os.path.exists(p) and os.path.getsize(p) > 0 for p in ready):
        if job.poll() is not None:
            fail(f"the run ended (exit {job.returncode}) before every rank was ready")
        if time.time() > deadline:
            os.killpg(job.pid, signal.SIGKILL)
            fail("the ranks were not ready in time")
        time.sleep(0.05)
    time.sleep(0.3)  # the writer threads' last spills (they are async)
    for p in ready:
        os.kill(int(open(p).read()), signal.SIGKILL)
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    time.sleep(0.2)
    spills = sorted(glob.glob(trace + ".spill/*"))
    if len(spills) < nranks:
        fail(f"{len(spills)} spill files for {nranks} ranks")
    merged = os.path.join(d, "merged.h5")
    m = subprocess.run([merge, trace + ".spill", "-o", merged], capture_output=True, text=True)
    if m.returncode != 0:
        fail(f"merge: {m.returncode} {m.stderr}")
    ncomp = 0
    with h5py.File(merged, "r") as f:
        for s in spills:
            r, comms, done = read_spill(s)
            if len(comms) < 3:
                fail(f"{s}: {len(comms)} communicator records (world, half, dup expected)")
            if len(done) == 0:
                fail(f"{s}: no completions spilled")
            got = mpi_of(f, r)
            if got is None:
                fail(f"merged rank{r}/mpi missing")
            sizes, members = table(comms)
            if not np.array_equal(got[0], sizes) or not np.array_equal(got[1], members):
                fail(f"rank {r}: comm_sizes {got[0]} members {got[1]}, spilled {sizes} {members}")
            check_table(r, nranks, got[0], got[1], f)
            if got[2] is None:
                fail(f"merged rank{r}/mpi/completions missing")
            for k in DONE.names:
                if not np.array_equal(got[2][k], done[k]):
                    fail(f"rank {r}: completions/{k} differs from the spilled records")
            ncomp += len(done)
    waits_read(pproc, merged)
    print(f"OK: killed run merged, {len(spills)} ranks' communicators and {ncomp} completions "
          "as spilled")


def done(merge, pproc, d, nranks, cmd):
    trace = os.path.join(d, "trace.h5")
    p = subprocess.run(cmd + [trace, "done"], env=env_for(trace), capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"the run: exit {p.returncode} {p.stdout}{p.stderr}")
    merged = os.path.join(d, "merged.h5")
    m = subprocess.run([merge, trace + ".kept", "-o", merged], capture_output=True, text=True)
    if m.returncode != 0:
        fail(f"merge: {m.returncode} {m.stderr}")
    ncomp = 0
    with h5py.File(trace, "r") as fin, h5py.File(merged, "r") as mer:
        for r in range(nranks):
            a, b = mpi_of(fin, r), mpi_of(mer, r)
            if a is None or b is None:
                fail(f"rank{r}/mpi: finalized {a is not None}, merged {b is not None}")
            check_table(r, nranks, a[0], a[1], fin)
            check_table(r, nranks, b[0], b[1], mer)
            # Finalize's own communicator (the library's dup to write the
            # file, made after the last spill) is in the finalized table
            # only: the ids before it are the same, and no call names it.
            k, m = len(b[0]), int(np.sum(b[0]))
            if len(a[0]) < k or not np.array_equal(a[0][:k], b[0]) or \
                    not np.array_equal(a[1][:m], b[1]):
                fail(f"rank {r}: finalized comms {a[0]} {a[1]}, merged {b[0]} {b[1]}")
            named = set()
            for g in fin[f"rank{r}/regions"].values():
                if "comm" in g:
                    named |= set(int(x) for x in g["comm"][()])
            if any(i >= k for i in named):
                fail(f"rank {r}: calls name ids {sorted(named)}, the merged table ends at {k}")
            if a[2] is None or b[2] is None:
                fail(f"rank {r}: completions finalized {a[2] is not None}, merged "
                     f"{b[2] is not None}")
            for k in DONE.names:
                if not np.array_equal(a[2][k], b[2][k]):
                    fail(f"rank {r}: completions/{k} differ")
            for h in set(a[2]["wait_region"]) | set(a[2]["post_region"]):
                if h >= 0 and a[3][h] != b[3][h]:
                    fail(f"rank {r}: region {h} is {a[3][h]} finalized, {b[3][h]} merged")
            ncomp += len(a[2]["send"])
    # Every MPI call was spilled (SIGUSR1 flush): --waits pairs the merged
    # file as the finalized one, the times within 10 us (the clock offsets
    # of the two files are measured apart, on one node within a microsecond).
    wa, wb = waits_read(pproc, trace), waits_read(pproc, merged)
    ra = {(w["rank"], w["path"]): w for w in wa["waits"]}
    rb = {(w["rank"], w["path"]): w for w in wb["waits"]}
    if set(ra) != set(rb):
        fail(f"--waits rows: finalized {sorted(ra)}, merged {sorted(rb)}")
    for k, w in ra.items():
        for col, v in w.items():
            if col.endswith("_s") and abs(v - rb[k][col]) > 1e-5:
                fail(f"--waits {k} {col}: finalized {v}, merged {rb[k][col]}")
    ca = sorted((c["state"], c["cause_rank"], c["calls"]) for c in wa["causes"])
    cb = sorted((c["state"], c["cause_rank"], c["calls"]) for c in wb["causes"])
    if ca != cb or wa["unpaired"] != wb["unpaired"]:
        fail(f"--waits causes/unpaired: finalized {ca} {wa['unpaired']}, merged {cb} "
             f"{wb['unpaired']}")
    print(f"OK: merged spills of a finished run carry its rank<N>/mpi ({ncomp} completions) "
          f"and pair as it does ({len(ra)} wait rows)")


def main():
    mode, merge, pproc, d, np_ = sys.argv[1:6]
    cmd = sys.argv[6:]
    for old in glob.glob(os.path.join(d, "trace.h5*")) + glob.glob(os.path.join(d, "merged*")):
        subprocess.run(["rm", "-rf", old], check=True)
    (killed if mode == "killed" else done)(merge, pproc, d, int(np_), cmd)


main()
