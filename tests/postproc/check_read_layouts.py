"""The same synthetic run in several layouts (issue 47): scope-profiler-pproc
--summary and check against a numpy oracle that reads the arrays with h5py
(tests/bench/scale/read_oracle.py), and ProfilingH5Reader's per-region
totals against the same oracle.

usage: /usr/bin/python3 check_read_layouts.py PPROC OUTDIR CASE [PYTHONPATH]
  columnar  200 ranks x 20 regions x 4 calls, the reference tool's columnar
            schema 2, rank after rank
  perrank   the same data as rank<N>/regions/<name>/{start_times,end_times}
  shuffled  the same data as columnar with the events region after region
            and the index rows in random order
  blocks    12 ranks x 20 regions x 9000 calls (180,000 calls a rank: the
            summary's rank blocks hold one rank each, and each pair spans
            pages of the reader's page cache, more pages than it holds)
  check     `check FILE FILE`: every region of the columnar file compared
            with itself, no regression
  python    ProfilingH5Reader (PYTHONPATH: the bindings) on the columnar and
            per-rank files: per-region calls and totals
  reduced   the same data as profile mode reduced across ranks writes it
            (make_read_files.py's reduced layout): --summary's reduction per
            region (ranks, calls, mean, std, min and max of the per-rank
            totals with their ranks) against numpy over the columnar file
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "scale"))
import make_read_files  # noqa: E402
import read_oracle  # noqa: E402

SHAPES = {"columnar": (200, 20, 4, "columnar"), "perrank": (200, 20, 4, "perrank"),
          "shuffled": (200, 20, 4, "shuffled"), "blocks": (12, 20, 9000, "columnar"),
          "check": (200, 20, 4, "columnar"), "reduced": (200, 20, 4, "reduced")}
FAILS = []


def expect(what, got, want):
    if got != want:
        FAILS.append(f"{what}: got {got!r}, expected {want!r}")


def make(out, case, test=None):
    """The file of case in a directory of test's own (ctest -j runs the
    tests at once)."""
    ranks, regions, calls, layout = SHAPES[case]
    d = os.path.join(out, f"read_layouts_{test or case}_{case}")
    os.makedirs(d, exist_ok=True)
    name, write = make_read_files.WRITERS[layout]
    path = os.path.join(d, name)
    write(path, ranks, regions, calls)
    return path


def summary_rows(pproc, path):
    res = subprocess.run([pproc, path, "--summary", "--format", "tsv"], capture_output=True,
                         text=True, check=False)
    if res.returncode != 0:
        sys.exit(f"FAIL: {pproc} {path} --summary exited {res.returncode}: {res.stderr}")
    lines = [ln.split("\t") for ln in res.stdout.splitlines() if ln and not ln.startswith("#")]
    head = lines[0]
    return {row[head.index("region")]: dict(zip(head, row)) for row in lines[1:]}


def ns(text):
    return round(float(text) * 1e9)


def check_summary(pproc, path, case):
    want = read_oracle.read(path)
    got = summary_rows(pproc, path)
    expect(f"{case}: regions", sorted(got), sorted(want))
    for name, w in want.items():
        g = got.get(name)
        if g is None:
            continue
        expect(f"{case}: {name} calls", int(g["calls"]), w["calls"])
        expect(f"{case}: {name} total ns", ns(g["total_s"]), w["total"])
        # Every call is a root: its self time is its time.
        expect(f"{case}: {name} self ns", ns(g["self_s"]), w["total"])
        expect(f"{case}: {name} min ns", ns(g["min_s"]), w["min"])
        expect(f"{case}: {name} max ns", ns(g["max_s"]), w["max"])
        expect(f"{case}: {name} mean ns", ns(g["mean_s"]), round(w["mean"]))
        expect(f"{case}: {name} rank_max ns", ns(g["rank_max_s"]), w["rank_max"])
        expect(f"{case}: {name} max_rank", int(g["max_rank"]), w["max_rank"])
    return want


def check_check(pproc, path):
    res = subprocess.run([pproc, "check", path, path, "--max-regression", "1%", "--format", "tsv"],
                         capture_output=True, text=True, check=False)
    expect("check: exit status", res.returncode, 0)
    lines = [ln.split("\t") for ln in res.stdout.splitlines() if ln and not ln.startswith("#")]
    want = read_oracle.read(path)
    if not lines:
        FAILS.append(f"check: no output ({res.stderr})")
        return
    head = lines[0]
    rows = {r[head.index("region")]: r for r in lines[1:]}
    expect("check: regions", sorted(rows), sorted(want))


def check_python(out, pythonpath):
    sys.path.insert(0, pythonpath)
    from scope_profiler_native.h5reader import ProfilingH5Reader
    for case in ("columnar", "perrank"):
        path = make(out, case, "python")
        want = read_oracle.read(path)
        with ProfilingH5Reader(path) as reader:
            for name, w in want.items():
                region = reader.get_region(name)
                expect(f"python {case}: {name} calls", region.num_calls, w["calls"])
                expect(f"python {case}: {name} total", region.total_duration, w["total"])
                expect(f"python {case}: {name} ranks", len(region), 200)


def check_reduced(pproc, out):
    """--summary of the reduced file against numpy over the columnar one."""
    import h5py
    import numpy as np
    path, cpath = make(out, "reduced"), make(out, "columnar", "reduced")
    with h5py.File(cpath, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["region_table/names"][:]]
        idx = f["rank_region_index"]
        g, r = idx["region_ids"][:], idx["ranks"][:]
        o, c = idx["event_offsets"][:].astype(np.int64), idx["event_counts"][:].astype(np.int64)
        cs = np.r_[0, np.cumsum(f["events/end_times"][:] - f["events/start_times"][:])]
    tot = np.zeros((len(names), int(r.max()) + 1), np.int64)
    np.add.at(tot, (g, r), cs[o + c] - cs[o])
    calls = np.bincount(g, weights=c, minlength=len(names)).astype(np.int64)
    res = subprocess.run([pproc, path, "--summary"], capture_output=True, text=True, check=False)
    expect("reduced: exit status", res.returncode, 0)
    rows = {}
    for ln in res.stdout.splitlines():
        v = ln.split()
        if len(v) == 12 and not ln.startswith("#") and v[0].isdigit():
            rows[v[11]] = v
    expect("reduced: regions", sorted(rows), sorted(names))
    for k, name in enumerate(names):
        v, t = rows.get(name), tot[k]
        if v is None:
            continue
        expect(f"reduced: {name} ranks", int(v[0]), t.size)
        expect(f"reduced: {name} calls", int(v[1]), int(calls[k]))
        expect(f"reduced: {name} mean ns", ns(v[4]), round(t.mean()))
        expect(f"reduced: {name} std ns", ns(v[5]), round(t.std()))
        expect(f"reduced: {name} min ns, rank", (ns(v[6]), int(v[7])), (int(t.min()), int(t.argmin())))
        expect(f"reduced: {name} max ns, rank", (ns(v[8]), int(v[9])), (int(t.max()), int(t.argmax())))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    pproc, out, case = argv[1], argv[2], argv[3]
    if case == "python":
        check_python(out, argv[4])
    elif case == "reduced":
        check_reduced(pproc, out)
    elif case == "check":
        check_check(pproc, make(out, case))
    else:
        check_summary(pproc, make(out, case), case)
    for f in FAILS:
        print("FAIL:", f)
    if FAILS:
        sys.exit(1)
    print(f"{case}: ok")


if __name__ == "__main__":
    main(sys.argv)
