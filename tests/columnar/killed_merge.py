#!/usr/bin/python3
"""A columnar run SIGKILLed mid-run, recovered by scope-profiler-merge:
killed_merge.py MERGE CHECK DIR LAYOUT NP MPIEXEC ARGS... TEST_COLUMNAR

Runs `MPIEXEC ARGS... TEST_COLUMNAR DIR/trace.h5 killed` with
SCOPE_PROFILER_LAYOUT=LAYOUT (both or columnar), waits until each of the NP
ranks has recorded and spilled (its DIR/trace.h5.ready.<rank>, its pid in
it) and sampled into its spill file, SIGKILLs every rank and the launcher
(no finalize, no exit drain), then runs MERGE on the spill
directory. Checks:
  - the spill files are all still there, byte for byte (recovery never
    deletes or changes its input);
  - LAYOUT both: the merge writes both layouts from the same spill files,
    and CHECK (check_columnar.py) holds the columnar file to the per-rank
    recovery of the same spills, every call, every extra;
  - LAYOUT columnar: the merged file is columnar (no per-rank file), read
    by CHECK alone;
  - either way /metadata@recovered_from_spill = 1.
Exit 0, or 1 with the first failure.
"""
import glob
import hashlib
import os
import re
import signal
import subprocess
import sys
import time

import h5py

SAMPLES_REC = b"SPR1" + bytes([7, 0, 0, 0])


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def alive(pid):
    """The process exists and is no zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    merge, check, d, layout, np_ = sys.argv[1:6]
    cmd = sys.argv[6:] + [os.path.join(d, "trace.h5"), "killed"]
    nranks = int(np_)
    for old in glob.glob(os.path.join(d, "trace.h5*")) + glob.glob(os.path.join(d, "merged*")):
        subprocess.run(["rm", "-rf", old], check=True)
    env = dict(os.environ, SCOPE_PROFILER_LAYOUT=layout, SCOPE_PROFILER_PROFILE_MPI="1",
               SCOPE_PROFILER_SAMPLE_MS="1")
    job = subprocess.Popen(cmd, env=env, start_new_session=True)
    deadline = time.time() + 240
    ready = [os.path.join(d, f"trace.h5.ready.{r}") for r in range(nranks)]
    while not all(os.path.exists(p) for p in ready):
        if job.poll() is not None:
            fail(f"the run ended (exit {job.returncode}) before every rank was ready")
        if time.time() > deadline:
            os.killpg(job.pid, signal.SIGKILL)
            fail("the ranks were not ready in time")
        time.sleep(0.05)
    # The sampler spills its samples 256 at a time: killed once every
    # rank's spill file holds a SAMPLES record (magic "SPR1", type 7).
    spill_dir = os.path.join(d, "trace.h5.spill")
    while True:
        files = glob.glob(os.path.join(spill_dir, "*"))
        have = sum(SAMPLES_REC in open(p, "rb").read() for p in files)
        if len(files) >= nranks and have >= nranks:
            break
        if time.time() > deadline:
            os.killpg(job.pid, signal.SIGKILL)
            fail(f"{have} of {nranks} ranks spilled samples in time")
        time.sleep(0.1)
    # Each rank SIGKILLed itself (its pid in its ready file), then the
    # launcher; nothing writes the spill files any more once they are gone.
    pids = [int(open(p).read()) for p in ready]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    while any(alive(pid) for pid in pids):
        if time.time() > deadline + 60:
            fail("a killed rank is still running")
        time.sleep(0.05)
    spills = sorted(glob.glob(os.path.join(spill_dir, "*")))
    if len(spills) < nranks:
        fail(f"{len(spills)} spill files for {nranks} ranks")
    before = {p: digest(p) for p in spills}
    out = os.path.join(d, "merged.h5")
    p = subprocess.run([merge, spill_dir, "-o", out], capture_output=True, text=True)
    print(p.stdout + p.stderr)
    if p.returncode != 0:
        fail(f"merge exit {p.returncode}")
    after = {q: digest(q) for q in sorted(glob.glob(os.path.join(spill_dir, "*")))}
    if after != before:
        fail("the merge changed or removed its input spill files")
    col = out + ".columnar.h5"
    with h5py.File(out, "r") as f:
        kind = f.attrs.get("storage_layout", b"ranks")
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        recovered = int(f["metadata"].attrs.get("recovered_from_spill", 0))
    if not recovered:
        fail("metadata@recovered_from_spill missing")
    if layout == "both":
        if kind == "columnar" or not os.path.exists(col):
            fail(f"layout both: merged.h5 is {kind}, columnar file there: {os.path.exists(col)}")
        args = [out, col, np_]
    else:
        if kind != "columnar" or os.path.exists(col):
            fail(f"layout columnar: merged.h5 is {kind}")
        args = ["-", out, np_]
    c = subprocess.run(["/usr/bin/python3", check] + args, capture_output=True, text=True)
    print(c.stdout + c.stderr)
    if c.returncode != 0:
        fail("check_columnar.py")
    if layout == "both" and not re.search(r"metadata rows [1-9]\d*, sources [1-9]\d*, "
                                          rf"ranks with samples {nranks}\b", c.stdout):
        fail("the recovered columnar file lacks the spilled metadata, sources or samples")
    if layout == "both" and "MPI columns: 1" not in c.stdout:
        fail("the recovered columnar file lacks the spilled MPI bytes and peers")
    print(f"OK: {layout} run killed at {nranks} ranks, {len(spills)} spill files kept, "
          f"merged into the {kind} layout")


main()
