#!/usr/bin/python3
"""Finalize under a failing disk or a tight address space (issue 36, items 15, 16).

usage: finalize_fail.py write|memory --host EXE --merge MERGE --checker CHECK
                        [--np N --mpirun MPIEXEC] [--shim SO] [--regions R]
                        [--calls C] [--points N,N,...]

Runs EXE (tests/reliability/fail_host.c: R regions of C calls each per
rank, then sp_finalize, then a normal exit) again and again in a scratch
directory, with mpirun -np N when --np is given:

write   the LD_PRELOAD shim SO makes every write into finalize's temporary
        file fail with ENOSPC after the first N of them, for each N of
        --points (default 0,1,2,3,5,8,13,21,34).
memory  under prlimit --as=L (on rank 0 alone with --np: it creates the
        layout; the other ranks' MPI is not the subject), L from
        --start-mib (40) up in steps of --step-mib (2) until three runs in
        a row wrote the profile.

Every run must end normally (status 0, no signal: HDF5 1.10 crashed at
exit after a failed write, and inside H5Fcreate under the limit), every rank
must print the same sp_finalize code, and:
  0         the file opens with h5py and holds every call (check_profile.py)
            and no spill directory is left;
  an error  (write: SP_EIO, SP_EHDF5 or SP_EPATH; memory: SP_ENOMEM) the
            file is absent, the spill directory is kept and
            scope-profiler-merge rebuilds every call from it.
memory runs that could not record at all (the host stops: a rank says
"out of memory" or fail_host "could not record", as when sp_region returns
SP_ENOMEM; or finalize says events were lost) are counted as skipped. The sweep must see at
least one failure and one success, so that it crossed the line.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

SP_ENOMEM, SP_EIO, SP_EHDF5, SP_EPATH, SP_ELOST = -2, -5, -6, -8, -12

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def clean():
    for f in glob.glob("f.h5*") + glob.glob("m.h5*"):
        if os.path.isdir(f):
            shutil.rmtree(f)
        else:
            os.unlink(f)


def counts_args(a):
    out = ["--ranks", str(a.np or 1)]
    for r in range(a.regions):
        out += ["--count", "r%d=%d" % (r, a.calls)]
    return out


def check(a, path, what):
    p = subprocess.run([sys.executable, a.checker, path] + counts_args(a),
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: %s does not hold every call: %s" % (what, path, p.stderr.strip()[-400:]))


def run(a, env_extra, wrapper):
    env = dict(os.environ, SCOPE_PROFILER_FILE="f.h5", **env_extra)
    cmd = wrapper + [a.host, str(a.regions), str(a.calls)]
    if a.np:
        xs = ["-x", "SCOPE_PROFILER_FILE"]
        for k in env_extra:
            xs += ["-x", k]
        if wrapper:  # the limit on rank 0, which creates the layout, only
            rest = [":", "-np", str(a.np - 1)] + xs + [a.host, str(a.regions), str(a.calls)]
            cmd = [a.mpirun, "--oversubscribe", "-np", "1"] + xs + cmd + rest
        else:
            cmd = [a.mpirun, "--oversubscribe", "-np", str(a.np)] + xs + cmd
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired as e:
        p = subprocess.CompletedProcess(cmd, -9, e.stdout or "", "hung (180 s): %s" % (e.stderr or ""))
        if isinstance(p.stdout, bytes):
            p.stdout, p.stderr = p.stdout.decode(), "hung (180 s)"
    codes = [int(c) for c in re.findall(r"sp_finalize=(-?\d+)", p.stdout)]
    crashed = p.returncode < 0 or re.search(r"signal|Segmentation|core dumped|Aborted|hung",
                                            p.stderr) is not None
    return p, codes, crashed


def judge(a, what, p, codes, allowed):
    """Checks one run that reached sp_finalize on every rank; returns its code."""
    if p.returncode != 0 or len(codes) != (a.np or 1) or len(set(codes)) != 1:
        fail("%s: status %d, codes %s; stderr: %s" % (what, p.returncode, codes,
                                                      p.stderr.strip()[-600:]))
        return None
    code = codes[0]
    if code == 0:
        if glob.glob("f.h5.spill"):
            fail("%s: written, yet a spill directory is left" % what)
        check(a, "f.h5", what)
    elif code in allowed:
        if os.path.exists("f.h5"):
            fail("%s: sp_finalize returned %d, yet f.h5 exists" % (what, code))
        if "scope-profiler:" not in p.stderr:
            fail("%s: no scope-profiler: message for code %d" % (what, code))
        m = subprocess.run([a.merge, "f.h5.spill", "-o", "m.h5"], capture_output=True, text=True)
        if m.returncode != 0:
            fail("%s: merge exit %d: %s" % (what, m.returncode, m.stderr.strip()[-400:]))
        else:
            check(a, "m.h5", what + " (merged)")
    else:
        fail("%s: sp_finalize returned %d; stderr: %s" % (what, code, p.stderr.strip()[-400:]))
    return code


def sweep_write(a):
    points = [int(x) for x in a.points.split(",")]
    seen = []
    for n in points:
        clean()
        what = "ENOSPC after %d write(s)" % n
        p, codes, crashed = run(a, {"LD_PRELOAD": a.shim, "SP_FAIL_AFTER": str(n)}, [])
        if crashed:
            fail("%s: crashed (status %d): %s" % (what, p.returncode, p.stderr.strip()[-600:]))
            continue
        code = judge(a, what, p, codes, (SP_EIO, SP_EHDF5, SP_EPATH))
        print("%s: sp_finalize=%s" % (what, code))
        seen.append(code)
    return seen


def sweep_memory(a):
    seen, ok_in_row, skipped = [], 0, 0
    limit = a.start_mib << 20
    while ok_in_row < 3 and limit <= (1 << 30):
        clean()
        what = "prlimit --as=%d MiB" % (limit >> 20)
        p, codes, crashed = run(a, {}, ["prlimit", "--as=%d" % limit, "--"])
        limit += a.step_mib << 20
        if crashed:
            fail("%s: crashed (status %d): %s" % (what, p.returncode, p.stderr.strip()[-600:]))
            ok_in_row = 0
            continue
        # The limit stopped the recording itself: a rank died of it, or says it
        # lost calls (its sp_finalize may then return SP_ENOMEM, not SP_ELOST).
        if ((len(codes) < (a.np or 1) and ("out of memory" in p.stderr
                                           or "fail_host: could not record" in p.stdout))
                or SP_ELOST in codes or "calls are not recorded" in p.stderr):
            skipped += 1
            ok_in_row = 0
            print("%s: skipped (could not record)" % what)
            continue
        code = judge(a, what, p, codes, (SP_ENOMEM,))
        print("%s: sp_finalize=%s" % (what, code))
        seen.append(code)
        ok_in_row = ok_in_row + 1 if code == 0 else 0
    print("skipped %d run(s) that could not record" % skipped)
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("write", "memory"))
    ap.add_argument("--host", required=True)
    ap.add_argument("--merge", required=True)
    ap.add_argument("--checker", required=True)
    ap.add_argument("--np", type=int, default=0)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--shim")
    ap.add_argument("--regions", type=int, default=10)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--points", default="0,1,2,3,5,8,13,21,34")
    ap.add_argument("--start-mib", type=int, default=40)
    ap.add_argument("--step-mib", type=int, default=2)
    a = ap.parse_args()
    a.host, a.merge, a.checker = (os.path.abspath(x) for x in (a.host, a.merge, a.checker))
    if a.shim:
        a.shim = os.path.abspath(a.shim)
    seen = sweep_write(a) if a.mode == "write" else sweep_memory(a)
    if not any(c not in (0, None) for c in seen):
        fail("no run failed: the sweep did not reach the failure it is about")
    if 0 not in seen:
        fail("no run wrote the profile")
    clean()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all %d run(s) ended normally" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
