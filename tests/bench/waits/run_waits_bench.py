#!/usr/bin/env python3
"""run_waits_bench.py MPIEXEC GEN PPROC DIR [MESSAGES] [RUNS] - issue 50's target.

Records DIR/waits.h5 with GEN (bench_waits_gen: 4 ranks x MESSAGES messages,
default 100000, SCOPE_PROFILER_PROFILE_MPI=1), then times on it, in pairs run
in turn (A B A B ...) so that a drifting machine moves both sides alike:
  summary  PPROC FILE --summary
  waits    PPROC FILE --waits
target: waits / summary <= 3. CPU seconds (user + system of the child, from
wait4) and wall seconds, min / median / max over RUNS pairs (default 5)
after one warm-up pair. Prints figures; asserts nothing."""
import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"run_waits_bench: {' '.join(cmd)} failed")
    return ru.ru_utime + ru.ru_stime, wall


def spread(v):
    return f"{min(v):7.3f} {statistics.median(v):7.3f} {max(v):7.3f}"


def main():
    mpiexec, gen, pproc, d = sys.argv[1:5]
    msgs = int(sys.argv[5]) if len(sys.argv) > 5 else 100000
    runs = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    path = os.path.join(d, "waits.h5")
    env = dict(os.environ, SCOPE_PROFILER_PROFILE_MPI="1", SCOPE_PROFILER_FILE=path,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_mpi_yield_when_idle="1")
    subprocess.run([mpiexec, "-np", "4", gen, str(msgs)], env=env, check=True)
    cmds = {"summary": [pproc, path, "--summary"], "waits": [pproc, path, "--waits"]}
    res = {k: ([], []) for k in cmds}
    for i in range(runs + 1):
        for k, c in cmds.items():
            cpu, wall = run(c)
            if i:
                res[k][0].append(cpu)
                res[k][1].append(wall)
    print(f"file: {path} ({os.path.getsize(path) / 1e6:.1f} MB), 4 ranks x {msgs} messages")
    print(f"{'':8} {'cpu min / median / max':>24} {'wall min / median / max':>24}")
    for k, (cpu, wall) in res.items():
        print(f"{k:8} {spread(cpu):>24} {spread(wall):>24}")
    ratio = statistics.median(res["waits"][0]) / statistics.median(res["summary"][0])
    wr = statistics.median(res["waits"][1]) / statistics.median(res["summary"][1])
    print(f"waits / summary: cpu {ratio:.2f}, wall {wr:.2f} (target <= 3)")


if __name__ == "__main__":
    main()
