#!/usr/bin/python3
"""Values per call through a SIGKILL and scope-profiler-merge:
killed_merge.py MERGE CHECK DIR TEST_VALUES [SHIM K...]

Runs `TEST_VALUES DIR/trace.h5 killed` (no MPI, three threads, a small
buffer_limit: their buffers spill mid-run), which SIGKILLs itself before
sp_finalize; merges DIR/trace.h5.spill with MERGE into DIR/merged.h5 and
holds it to the program's oracle with CHECK (check_values.py --killed):
every call in the file has the values the program set on it. The spill
file is left as it was.

With SHIM (tests/common/kill_shim.c) and cuts K: one run per K, killed by the shim
right after the K-th events record reached the spill file (by whichever
thread wrote it), each merged and checked the same way: the values of
the calls in the file must be there before their events, whatever the
library still meant to write.
"""
import glob
import hashlib
import os
import subprocess
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run_once(merge, check, d, prog, env, cut):
    for old in glob.glob(os.path.join(d, "trace.h5*")) + glob.glob(os.path.join(d, "merged*")):
        subprocess.run(["rm", "-rf", old], check=True)
    trace = os.path.join(d, "trace.h5")
    where = f" (cut after events record {cut})" if cut else ""
    p = subprocess.run([prog, trace, "killed"], capture_output=True, text=True, env=env)
    if p.returncode != -9:
        fail(f"the program ended with {p.returncode}, not SIGKILL{where}: {p.stdout}{p.stderr}")
    if cut and f"kill_shim: SIGKILL after events record {cut}\n" not in p.stderr:
        fail(f"not killed by the shim{where}: {p.stdout}{p.stderr}")
    if os.path.exists(trace):
        fail("a trace file was written: the run was not killed before sp_finalize")
    spills = glob.glob(trace + ".spill/*")
    if not spills:
        fail("no spill file")
    before = {s: hashlib.sha256(open(s, "rb").read()).hexdigest() for s in spills}
    merged = os.path.join(d, "merged.h5")
    m = subprocess.run([merge, "-o", merged, trace + ".spill"], capture_output=True, text=True)
    if m.returncode != 0:
        fail(f"merge{where}: {m.returncode} {m.stderr}")
    after = {s: hashlib.sha256(open(s, "rb").read()).hexdigest() for s in spills}
    if before != after:
        fail("the merge changed its input")
    c = subprocess.run([sys.executable, check, trace + ".oracle", "1", "--killed", "--ranks",
                        merged], capture_output=True, text=True)
    print(c.stdout.rstrip("\n") + where)
    if c.returncode != 0:
        fail(f"check_values.py failed{where}: {c.stderr}")


def main():
    merge, check, d, prog = sys.argv[1:5]
    cuts = sys.argv[6:]
    if not cuts:
        run_once(merge, check, d, prog, None, None)
    for cut in cuts:
        env = dict(os.environ, LD_PRELOAD=sys.argv[5], SP_KILL_AFTER=cut)
        run_once(merge, check, d, prog, env, int(cut))
    print("OK: values recovered after SIGKILL")


if __name__ == "__main__":
    main()
