#!/usr/bin/python3
"""check_pproc_percentiles.py PPROC TRACE AGG NRANKS

scope-profiler-pproc AGG --summary --columns p50,p95,p99 --format tsv gives,
for profile mode's file of the window after sp_reset, percentiles within 2 %
(plus the 1 ns the table prints) of numpy's inverted-CDF percentiles of the
same calls' durations in the trace of the same run (h5py)."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_profile_mode import durations_after_reset  # noqa: E402

pproc, trace, agg, nranks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
durs = durations_after_reset(trace, nranks)  # name -> rank -> durations (ns)
out = subprocess.run([pproc, agg, "--summary", "--columns", "p50,p95,p99", "--format", "tsv"],
                     check=True, capture_output=True, text=True).stdout.splitlines()
head = out[0].split("\t")
bad, seen = [], 0
for line in out[1:]:
    row = dict(zip(head, line.split("\t")))
    per = durs.get(row["region"], {})
    d = np.array([x for r in sorted(per) for x in per[r]])
    if int(row["calls"]) != len(d):
        bad.append("%s: %s calls, trace %d" % (row["region"], row["calls"], len(d)))
    for q in (50, 95, 99):
        got = float(row["p%d" % q]) * 1e9
        want = float(np.percentile(d, q, method="inverted_cdf"))
        seen += 1
        if abs(got - want) > 0.02 * want + 1.0:
            bad.append("%s p%d: %.1f ns, numpy %.1f ns" % (row["region"], q, got, want))
for b in bad:
    print("FAIL:", b)
print("%d percentiles of %s against %s: %s" % (seen, agg, trace, "FAILED" if bad or not seen else "ok"))
sys.exit(1 if bad or not seen else 0)
