#!/usr/bin/python3
"""run_read_bench.py - reading at scale (issue 47): the postprocessor and
the Python reader against a numpy script on the same synthetic file, in the
same run.

usage: /usr/bin/python3 run_read_bench.py BUILD_DIR [RANKS [REGIONS [CALLS]]]
                                          [--dir DIR] [--perrank RANKS]

Writes DIR/read_columnar.h5 (make_read_files.py; default 100,000 ranks x 50
regions x 4 calls, 440 MB) unless it is there with that shape, then times,
each in a fresh process under /usr/bin/time (wall seconds, peak RSS):
  numpy         read_oracle.py: h5py reads every array, numpy sums per region
  summary       scope-profiler-pproc FILE --summary
  tree          scope-profiler-pproc FILE --tree
  check         scope-profiler-pproc check FILE FILE --max-regression 5%
  python        ProfilingH5Reader(FILE): every region's num_calls and
                total_duration (with BUILD_DIR's Python bindings)
and prints each with its ratio to numpy (targets: summary and python <= 2x,
summary peak RSS <= 1 GB, tree <= 20 s). With --perrank N, the same for a
per-rank file of N ranks (rank<N>/regions/<name>/...; h5py writes ~1,500
groups a second here, so 100,000 ranks would take an hour). Asserts
nothing; exits 1 only when a command fails.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

PY_TOTALS = r"""
import sys
from scope_profiler_native.h5reader import ProfilingH5Reader
with ProfilingH5Reader(sys.argv[1]) as reader:
    n = 0
    for region in reader:
        n += region.num_calls
        region.total_duration
print(n)
"""


def timed(cmd, env=None):
    """(wall s, peak RSS MB) of cmd under /usr/bin/time; exits on failure."""
    res = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True,
                         text=True, env=env, check=False)
    if res.returncode != 0:
        sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr[-2000:]}")
    line = [ln for ln in res.stderr.splitlines() if ln.startswith("TIME ")][-1].split()
    return float(line[1]), int(line[2]) / 1024.0


def shape_of(path):
    import h5py
    with h5py.File(path, "r") as f:
        if "rank_region_index" in f:
            idx = f["rank_region_index"]
            npairs = len(idx["ranks"])
            nregions = len(f["region_table/names"])
            return (npairs // max(1, nregions), nregions, len(f["events/start_times"]) // max(1, npairs))
        ranks = [k for k in f if k.startswith("rank")]
        regs = f[ranks[0]]["regions"]
        first = regs[next(iter(regs))]
        return (len(ranks), len(regs), len(first["start_times"]))


def ensure(d, layout, ranks, regions, calls):
    name = {"columnar": "read_columnar.h5", "perrank": "read_perrank.h5"}[layout]
    path = os.path.join(d, name)
    if not (os.path.exists(path) and shape_of(path) == (ranks, regions, calls)):
        subprocess.run([PY, os.path.join(HERE, "make_read_files.py"), d, str(ranks), str(regions),
                        str(calls), layout], check=True)
    return path


def bench(build, path, label):
    pproc = os.path.join(build, "postproc", "scope-profiler-pproc")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "bindings", "python", "site"))
    rows = [("numpy", timed([PY, os.path.join(HERE, "read_oracle.py"), path]))]
    rows.append(("summary", timed([pproc, path, "--summary", "-q"])))
    rows.append(("tree", timed([pproc, path, "--tree", "-q"])))
    rows.append(("check", timed([pproc, "check", path, path, "--max-regression", "5%", "-q"])))
    if os.path.isdir(env["PYTHONPATH"]):
        rows.append(("python", timed([PY, "-c", PY_TOTALS, path], env)))
    base = rows[0][1][0]
    print(f"{label}: {path} ({os.path.getsize(path) / 1e6:.0f} MB)")
    print(f"  {'what':8s} {'wall_s':>8s} {'peak_MB':>8s} {'x numpy':>8s}")
    for what, (t, mb) in rows:
        print(f"  {what:8s} {t:8.2f} {mb:8.0f} {t / base if base > 0 else 0:8.2f}")
    sys.stdout.flush()


def main(argv):
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("build")
    ap.add_argument("shape", nargs="*", type=int, default=[])
    ap.add_argument("--dir", default=os.getcwd())
    ap.add_argument("--perrank", type=int, default=0)
    a = ap.parse_args(argv[1:])
    ranks, regions, calls = (a.shape + [100000, 50, 4][len(a.shape):])[:3]
    build = os.path.abspath(a.build)
    os.makedirs(a.dir, exist_ok=True)
    print(f"ranks x regions x calls = {ranks} x {regions} x {calls}")
    bench(build, ensure(a.dir, "columnar", ranks, regions, calls), "columnar")
    if a.perrank:
        bench(build, ensure(a.dir, "perrank", a.perrank, regions, calls),
              f"per-rank, {a.perrank} ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
