#!/usr/bin/env python3
"""check_reader.py - the reader's clock alignment on files made here with h5py.

  check_reader.py CASE --work DIR --pproc PPROC

Each case writes a two-rank profile in the documented layout (docs/the-file.md):
rank 0 and rank 1 each record "step" at raw stamps chosen so the expected
aligned times are known exactly, then reads it back through
`scope-profiler-pproc --export csv` (times relative to the first start):
  interpolated  rank 1 has both measurements (offset 1000 s at its 2000 s,
                1000.001 s at its 3000 s): a stamp at 2500 s moves by
                1000.0005 s, one at 3500 s (after the finalize measurement)
                by 1000.0015 s (extrapolated);
  constant      only the setup measurement: every stamp moves by 1000 s;
  none          no clock attributes (older files, one node): stamps as
                recorded, identical with and without --no-clock-align;
  raw           --no-clock-align on the interpolated file: stamps as recorded;
  summary       --summary is byte-identical with and without
                --no-clock-align, and every interval's duration too, on a
                file whose rank 1 drifts by 1%.
Exit 0 pass, 1 fail."""
import argparse
import csv
import io
import os
import subprocess
import sys

import h5py
import numpy as np

S = 1_000_000_000


def write(path, clock):
    """rank0: step at 1000 s and 1000.5 s (0.25 s each); rank1 (its clock
    1000 s ahead) at 2500 s and 3500 s raw (0.1 s each)."""
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = np.int32(1)
        for r, starts, dur in ((0, [1000 * S, 1000 * S + S // 2], S // 4),
                               (1, [2500 * S, 3500 * S], S // 10)):
            g = f.create_group("rank%d" % r)
            g.attrs["hostname"] = "node%d" % r
            if r == 0 and clock:
                for k, v in (("clock_offset_ns", 0), ("clock_offset_at_ns", 900 * S),
                             ("clock_offset_error_ns", 0)):
                    g.attrs[k] = np.int64(v)
            if r == 1:
                for k, v in clock.items():
                    g.attrs[k] = np.int64(v)
            reg = g.create_group("regions/step")
            reg.attrs["name"] = "step"
            reg.attrs["num_calls"] = np.int64(len(starts))
            reg["start_times"] = np.array(starts, dtype=np.int64)
            reg["end_times"] = np.array(starts, dtype=np.int64) + dur


BOTH = {"clock_offset_ns": 1000 * S, "clock_offset_at_ns": 2000 * S,
        "clock_offset_error_ns": 5000, "clock_offset_end_ns": 1000 * S + 1_000_000,
        "clock_offset_end_at_ns": 3000 * S, "clock_offset_end_error_ns": 7000}
# A drift of 1% (10 s over 1000 s): moving an interval's end by the offset at
# the end instead of at its start would change a 0.1 s duration by 1 ms.
DRIFT = dict(BOTH, clock_offset_end_ns=1010 * S)
START = {k: v for k, v in BOTH.items() if "_end_" not in k}


def pproc(a, path, *args):
    r = subprocess.run([a.pproc, path] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit("FAIL: %s exited %d: %s" % (args, r.returncode, r.stderr))
    return r.stdout


def rows(a, path, *args):
    """(rank, start_ns, end_ns) relative to the first start, from the CSV."""
    out = []
    for row in csv.DictReader(io.StringIO(pproc(a, path, "--export", "csv", *args))):
        out.append((int(row["rank"]), round(float(row["start_s"]) * S), round(float(row["end_s"]) * S)))
    return sorted(out)


def expect(got, want, what):
    if got != want:
        print("FAIL: %s:\n  got  %s\n  want %s" % (what, got, want))
        return 1
    print("ok: %s" % what)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--work", required=True)
    p.add_argument("--pproc", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, a.case + ".h5")
    write(path, {"interpolated": BOTH, "constant": START, "none": {}, "summary": DRIFT}.get(a.case, BOTH))
    r0 = [(0, 0, S // 4), (0, S // 2, S // 2 + S // 4)]
    # Rank 1's stamps on rank 0's clock, relative to rank 0's first (1000 s).
    moved = {"interpolated": [1000 * S + 500_000, 1000 * S + 1_500_000],
             "constant": [1000 * S, 1000 * S]}
    fails = 0
    if a.case in moved:
        m = moved[a.case]
        want = sorted(r0 + [(1, 1500 * S - m[0], 1500 * S - m[0] + S // 10),
                            (1, 2500 * S - m[1], 2500 * S - m[1] + S // 10)])
        fails += expect(rows(a, path), want, "aligned CSV of the %s file" % a.case)
    elif a.case in ("none", "raw"):
        want = sorted(r0 + [(1, 1500 * S, 1500 * S + S // 10), (1, 2500 * S, 2500 * S + S // 10)])
        fails += expect(rows(a, path, "--no-clock-align"), want, "raw CSV")
        if a.case == "none":
            fails += expect(rows(a, path), want, "CSV of a file without offsets, aligning on")
    elif a.case == "summary":
        fails += expect(pproc(a, path, "--summary"), pproc(a, path, "--summary", "--no-clock-align"),
                        "--summary with and without alignment")
        dur = lambda rs: [(r, e - s) for r, s, e in rs]
        fails += expect(dur(rows(a, path)), dur(rows(a, path, "--no-clock-align")),
                        "durations with and without alignment")
    else:
        print("unknown case " + a.case)
        return 2
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
