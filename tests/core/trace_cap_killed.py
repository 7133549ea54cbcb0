#!/usr/bin/python3
"""The trace's cap (SCOPE_PROFILER_TRACE_MAX_MB) through a SIGKILL and
scope-profiler-merge: trace_cap_killed.py MERGE TEST_TRACE_WINDOW DIR

Runs `TEST_TRACE_WINDOW cap` in DIR with SP_TEST_KILL_AFTER_CAP=1: 200,000
calls of "tick" inside "run" under a 1 MB cap, buffers of 1,000 events
spilled as they fill; the program SIGKILLs itself after the calls, before
sp_finalize. Merges DIR/cap.h5.spill into DIR/merged.h5 and checks with h5py
that the merged rank carries trace_truncated_at, after the start of every
tick call that reached the spill file, as a finished run's file does
(check_trace_window.py), and that the merge left its input as it was.
"""
import glob
import hashlib
import os
import subprocess
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    merge, prog, d = sys.argv[1:4]
    for old in glob.glob(os.path.join(d, "cap.h5*")) + glob.glob(os.path.join(d, "merged*")):
        subprocess.run(["rm", "-rf", old], check=True)
    env = dict(os.environ, SP_TEST_KILL_AFTER_CAP="1", SCOPE_PROFILER_ASYNC_FLUSH="0")
    p = subprocess.run([prog, "cap"], cwd=d, env=env, capture_output=True, text=True)
    if p.returncode != -9:
        fail(f"the program ended with {p.returncode}, not SIGKILL: {p.stdout}{p.stderr}")
    if "SCOPE_PROFILER_TRACE_MAX_MB=1 MB" not in p.stderr:
        fail(f"the run did not reach the cap: {p.stderr}")
    trace = os.path.join(d, "cap.h5")
    if os.path.exists(trace):
        fail("a trace file was written: the run was not killed before sp_finalize")
    spills = glob.glob(trace + ".spill/*")
    if not spills:
        fail("no spill file")
    before = {s: hashlib.sha256(open(s, "rb").read()).hexdigest() for s in spills}
    merged = os.path.join(d, "merged.h5")
    m = subprocess.run([merge, "-o", merged, trace + ".spill"], capture_output=True, text=True)
    if m.returncode != 0:
        fail(f"merge: {m.returncode} {m.stderr}")
    if before != {s: hashlib.sha256(open(s, "rb").read()).hexdigest() for s in spills}:
        fail("the merge changed its input")
    with h5py.File(merged, "r") as f:
        r0 = f["rank0"]
        if "trace_truncated_at" not in r0.attrs:
            fail("the merged rank0 has no trace_truncated_at")
        at = int(r0.attrs["trace_truncated_at"])
        g = None
        for name, grp in r0["regions"].items():
            n = grp.attrs.get("name", name)
            if (n.decode() if isinstance(n, bytes) else n) == "tick":
                g = grp
        if g is None:
            fail("no tick calls reached the merged file")
        ts = g["start_times"][()]
        limit = (1 << 20) // 16
        if not 0 < len(ts) <= limit:
            fail(f"{len(ts)} tick calls merged, cap {limit}")
        if not ts.max() <= at:
            fail(f"trace_truncated_at {at} before the start {ts.max()} of a tick call kept")
        if not np.all(np.diff(ts) > 0):
            fail("tick calls out of order")
    print(f"OK: merged after SIGKILL: {len(ts)} tick calls, trace_truncated_at {at}")


if __name__ == "__main__":
    main()
