#!/usr/bin/python3
"""check_pproc_std.py PPROC TRACE AGG NRANKS OUTDIR

scope-profiler-pproc AGG -o OUTDIR --export-data: region_statistics.json's
std_duration_seconds for profile mode's file of the window after sp_reset
(computed from call_paths/sum_squares: every call path and thread of a
rank added up) against numpy's population standard deviation of the same
calls' durations in the trace of the same run (h5py), over all ranks and
per rank. Durations are the same stamps in both files, so they agree to
rounding."""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_profile_mode import durations_after_reset  # noqa: E402

pproc, trace, agg, nranks, out = sys.argv[1:6]
nranks = int(nranks)
durs = durations_after_reset(trace, nranks)  # name -> rank -> durations (ns)
subprocess.run([pproc, agg, "-o", out, "--export-data", "--skip-plot-images"], check=True,
               capture_output=True)
stats = json.load(open(os.path.join(out, "region_statistics.json")))["files"][0]
stats = stats["region_statistics"]
bad, seen = [], 0


def near(got, d, what):
    global seen
    want = float(np.std(np.array(d, dtype=np.float64))) * 1e-9
    seen += 1
    if got is None:
        bad.append("%s: std_duration_seconds is null, numpy %.6g s" % (what, want))
    elif abs(got - want) > 1e-6 * want + 1e-12:
        bad.append("%s: std %.9g s, numpy %.9g s" % (what, got, want))


for name, per in durs.items():
    every = [x for r in sorted(per) for x in per[r]]
    if not every:
        continue
    if name not in stats:
        bad.append("%s: not in region_statistics.json" % name)
        continue
    if stats[name]["count"] != len(every):
        bad.append("%s: %d calls, trace %d" % (name, stats[name]["count"], len(every)))
    near(stats[name]["std_duration_seconds"], every, name)
    for r, d in per.items():
        if d:
            near(stats[name]["per_rank"][str(r)]["std_duration_seconds"], d, "%s rank %d" % (name, r))
for b in bad:
    print("FAIL:", b)
print("%d standard deviations of %s against %s: %s" % (seen, agg, trace,
                                                       "FAILED" if bad or not seen else "ok"))
sys.exit(1 if bad or not seen else 0)
