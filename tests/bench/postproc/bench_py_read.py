#!/usr/bin/python3
"""bench_py_read.py - reading every interval from Python (issue 40).

usage: bench_py_read.py BUILD_DIR [DIR [INTERVALS [RANKS [PAIRS [BASE_LIB_DIR]]]]]

Writes DIR/analysis.h5 with bench_analysis (default 1e7 intervals over 64
ranks x 16 regions), then, in the same run and in turn (C, Python, h5py, C,
...; PAIRS rounds, default 5), times in a fresh process each:
  c_read    the C reader: sp_reader_load of every (region, rank) pair
            (tests/bench/postproc/bench_c_read.c)
  py_read   scope_profiler_native.h5reader: start_times and end_times of
            every region[rank] (numpy views of the reader's arrays)
  h5py      h5py reading the same datasets (rank*/regions/*/{start,end}_times)
With BASE_LIB_DIR (a directory holding another build's
libscope_profiler_reader.so.0, e.g. the base commit's), c_base and py_base
run the same two loops with that library (LD_LIBRARY_PATH,
SCOPE_PROFILER_READER_LIBRARY) in the same rounds: an A/B of a change.
Each process reports the CPU seconds of its reading loop only (open
included, interpreter start and imports not). Prints the medians and the
medians of the round-by-round ratios; targets: py / c <= 1.5, py / h5py <=
0.5. Asserts nothing. Run with /usr/bin/python3 (numpy, h5py).
"""
import os
import statistics
import subprocess
import sys

PY_READ = r"""
import sys, time
from scope_profiler_native.h5reader import ProfilingH5Reader
t = time.process_time()
reader = ProfilingH5Reader(sys.argv[1])
n = 0
for region in reader:
    for pair in region:
        s, e = pair.start_times, pair.end_times
        n += len(s)
        pair.release()
del s, e
reader.close()
print(f"py_read {time.process_time() - t:.6f} {n}")
"""

H5PY_READ = r"""
import sys, time
import h5py
t = time.process_time()
n = 0
with h5py.File(sys.argv[1], "r") as f:
    for rank in f:
        if not rank.startswith("rank") or "regions" not in f[rank]:
            continue
        regions = f[rank]["regions"]
        for name in regions:
            g = regions[name]
            s, e = g["start_times"][()], g["end_times"][()]
            n += len(s)
print(f"h5py {time.process_time() - t:.6f} {n}")
"""


def run(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout.split()
    return float(out[1]), int(out[2])


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    build = sys.argv[1]
    d = sys.argv[2] if len(sys.argv) > 2 else "."
    total = sys.argv[3] if len(sys.argv) > 3 else "1e7"
    ranks = sys.argv[4] if len(sys.argv) > 4 else "64"
    pairs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    path = os.path.join(d, "analysis.h5")
    subprocess.run([os.path.join(build, "tests/bench/postproc/bench_analysis"), d, total, ranks, "gen"],
                   check=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "bindings/python/site")
    cread = os.path.join(build, "tests/bench/postproc/bench_c_read")
    cmds = {"c_read": [cread, path],
            "py_read": [sys.executable, "-c", PY_READ, path],
            "h5py": [sys.executable, "-c", H5PY_READ, path]}
    envs = {k: env for k in cmds}
    if len(sys.argv) > 6:
        base = os.path.abspath(sys.argv[6])
        benv = dict(env, LD_LIBRARY_PATH=base,
                    SCOPE_PROFILER_READER_LIBRARY=os.path.join(base, "libscope_profiler_reader.so.0"))
        cmds["c_base"], cmds["py_base"] = cmds["c_read"], cmds["py_read"]
        envs["c_base"] = envs["py_base"] = benv
    for k, cmd in cmds.items():  # warm-up: the file in the page cache
        run(cmd, envs[k])
    times = {k: [] for k in cmds}
    counts = {}
    for _ in range(pairs):
        for k, cmd in cmds.items():
            t, n = run(cmd, envs[k])
            times[k].append(t)
            counts[k] = n
    if len(set(counts.values())) != 1:
        print(f"intervals differ: {counts}")
        return 1
    print(f"{counts['c_read']} intervals; CPU seconds of the reading loop, median of {pairs} rounds:")
    for k, v in times.items():
        print(f"  {k:8s} {statistics.median(v):.3f} s  (min {min(v):.3f}, max {max(v):.3f})")
    pc = [p / c for p, c in zip(times["py_read"], times["c_read"])]
    ph = [p / h for p, h in zip(times["py_read"], times["h5py"])]
    print(f"  py / c    {statistics.median(pc):.2f} (target <= 1.5; rounds {min(pc):.2f}-{max(pc):.2f})")
    print(f"  py / h5py {statistics.median(ph):.2f} (target <= 0.5; rounds {min(ph):.2f}-{max(ph):.2f})")
    if "py_base" in times:
        for a, b in (("c_read", "c_base"), ("py_read", "py_base"), ("py_base", "c_base"),
                     ("py_base", "h5py")):
            r = [x / y for x, y in zip(times[a], times[b])]
            print(f"  {a} / {b} {statistics.median(r):.2f} (rounds {min(r):.2f}-{max(r):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
