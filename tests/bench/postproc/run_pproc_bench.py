#!/usr/bin/env python3
"""run_pproc_bench.py PPROC FILE [RUNS] - issue 26's postprocessor targets, paired.

Runs, on FILE (bench_pproc DIR 6400000 64 200 writes DIR/bench.h5: 64 ranks
x 200 regions x 500 calls), the four commands of the targets:
  summary  PPROC FILE --summary
  tree     PPROC FILE --tree
  gantt    PPROC FILE -o TMPDIR --plots gantt
  h5py     python3 bench_h5py_read.py FILE   (every dataset read in full)
and compares them in pairs run in turn (A B A B ...), so that a machine
whose speed drifts moves both sides of a ratio alike:
  summary / h5py   target <= 0.5
  tree    / h5py   target <= 0.5
  gantt   / summary  target <= 1.5
Each run's CPU seconds (user + system of the finished child, from wait4)
and wall seconds; printed as min / median / max over RUNS pairs (default
5) after one warm-up pair. Quote the medians of CPU time: wall time is
noisy on a shared machine. Prints figures; asserts nothing."""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd):
    """CPU and wall seconds of one run of cmd (output thrown away)."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"run_pproc_bench: {' '.join(cmd)} exited {p.returncode}")
    return ru.ru_utime + ru.ru_stime, wall


def spread(v):
    return f"{min(v):7.3f} {statistics.median(v):7.3f} {max(v):7.3f}"


def pair(name_a, a, name_b, b, runs, target):
    run(a), run(b)  # warm-up: page cache, dynamic loader
    ca, cb, wa, wb, ratio, wratio = [], [], [], [], [], []
    for _ in range(runs):
        x, y = run(a), run(b)
        ca.append(x[0]), wa.append(x[1]), cb.append(y[0]), wb.append(y[1])
        ratio.append(x[0] / y[0]), wratio.append(x[1] / y[1])
    print(f"{name_a} vs {name_b} ({runs} pairs; min median max)")
    print(f"  {name_a:8s} cpu {spread(ca)} s   wall {spread(wa)} s")
    print(f"  {name_b:8s} cpu {spread(cb)} s   wall {spread(wb)} s")
    print(f"  ratio    cpu {spread(ratio)}     wall {spread(wratio)}   target <= {target}")


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: run_pproc_bench.py PPROC FILE [RUNS]\n")
        return 2
    pproc, path = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    here = os.path.dirname(os.path.abspath(__file__))
    h5py_cmd = ["/usr/bin/python3", os.path.join(here, "bench_h5py_read.py"), path]
    summary = [pproc, path, "--summary"]
    tree = [pproc, path, "--tree"]
    with tempfile.TemporaryDirectory() as out:
        gantt = [pproc, path, "-o", out, "--plots", "gantt"]
        pair("summary", summary, "h5py", h5py_cmd, runs, 0.5)
        pair("tree", tree, "h5py", h5py_cmd, runs, 0.5)
        pair("gantt", gantt, "summary", summary, runs, 1.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
