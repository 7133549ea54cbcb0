#!/usr/bin/python3
"""fit_columnar_model.py ROWS...: the cost model of the columnar finalize
from run_columnar_model.sh's rows (bench_columnar ... columnar), by least
squares with numpy:

    T(P, pairs, bytes) = a + b P + c log2 P + d pairs + e bytes

(T: the columnar finalize, timed from a barrier to the slowest rank's end;
P ranks; pairs = P x regions; bytes: every rank's columns). Prints the
coefficients, each row's fit, and the projection to 100,000 ranks x 200
regions x 1,000 calls under the assumptions given as options:
  --cores N   cores the measured ranks shared (default 2): the rows' ranks
              shared them, so per-rank work is counted N-fold parallel at
              most; at scale each rank has its own core
  --bw GBPS   the parallel file system's write bandwidth at scale (default 100)
  --rank0-us  rank 0's serial CPU time per rank (default 240, measured: see
              docs/performance.md)
  --step-us   a network latency per log2 step of a collective (default 10)
Rows of the same (P, regions, calls) are averaged."""
import argparse
import math

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("rows", nargs="+")
ap.add_argument("--cores", type=float, default=2.0)
ap.add_argument("--bw", type=float, default=100.0)
ap.add_argument("--rank0-us", type=float, default=240.0)
ap.add_argument("--step-us", type=float, default=10.0)
a = ap.parse_args()

data = {}
for path in a.rows:
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        key = (int(f[0]), int(f[1]), int(f[2]))
        data.setdefault(key, []).append((float(f[4]), float(f[6]), float(f[8])))
keys = sorted(data)
P = np.array([k[0] for k in keys], float)
R = np.array([k[1] for k in keys], float)
C = np.array([k[2] for k in keys], float)
B = np.array([np.mean([v[0] for v in data[k]]) for k in keys])
T = np.array([np.mean([v[1] for v in data[k]]) for k in keys])
base = np.array([np.mean([v[2] for v in data[k]]) for k in keys])
pairs = P * R
X = np.column_stack([np.ones_like(P), P, np.log2(P), pairs, B])
# Relative errors: each row counts alike whatever its size.
w = 1.0 / T
coef, *_ = np.linalg.lstsq(X * w[:, None], T * w, rcond=None)
a0, b, c, d, e = coef
print(f"fit over {len(keys)} points (P = {int(P.min())}..{int(P.max())}):")
print(f"  fixed a = {a0 * 1e3:8.3f} ms")
print(f"  per rank b = {b * 1e6:8.3f} us")
print(f"  per log2 step c = {c * 1e3:8.3f} ms")
print(f"  per pair d = {d * 1e6:8.3f} us")
print(f"  per byte e = {e * 1e9:8.4f} ns ({1 / e / 1e9 if e > 0 else float('inf'):.2f} GB/s)")
fit = X @ coef
print(f"{'ranks':>6} {'regions':>7} {'calls':>6} {'bytes':>11} {'measured_s':>10} {'fit_s':>8} "
      f"{'fit/meas':>8} {'base_s':>8}")
for i, k in enumerate(keys):
    print(f"{k[0]:6d} {k[1]:7d} {k[2]:6d} {B[i]:11.0f} {T[i]:10.4f} {fit[i]:8.4f} "
          f"{fit[i] / T[i]:8.2f} {base[i]:8.4f}")
# The projection: 100,000 ranks x 200 regions x 1,000 calls.
Pp, Rp, Cp = 1e5, 200, 1000
pp = Pp * Rp
bp = Pp * (Rp * Cp * 36 + Rp * 28)
print(f"projection: {int(Pp)} ranks x {Rp} regions x {Cp} calls: {pp:.3g} pairs, "
      f"{bp / 1e9:.0f} GB")
# As measured (every rank's work on the measured cores): an upper bound.
serial = a0 + b * Pp + c * math.log2(Pp) + d * pp + e * bp
print(f"  the fit as it stands (every rank's work on {a.cores:g} cores): {serial:10.1f} s")
# At scale each rank has a core: its own pairs and bytes cost it what they
# cost the one rank of the P = 1 rows (d and e, per core: x cores of the
# fit); what stays serial is rank 0's work per rank (the gathers, the name
# table, the scans and broadcasts through rank 0), measured as rank 0's CPU
# time (--rank0-us, SCOPE_PROFILER_VERBOSE=1's "total" of the slowest rank,
# its slope over ranks), plus the bytes at the file system's bandwidth and
# a network latency per log2 step of the collectives.
one_rank = (d * Rp + e * bp / Pp) * a.cores
io = bp / (a.bw * 1e9)
rank0 = a.rank0_us * 1e-6 * Pp
logs = a.step_us * 1e-6 * math.log2(Pp)
scale = one_rank + rank0 + io + logs
print(f"  at scale: one rank's own pairs and bytes {one_rank:.2f} + rank 0 per rank "
      f"{a.rank0_us:g} us x {int(Pp)} = {rank0:.1f} + bytes at {a.bw:g} GB/s {io:.1f} + "
      f"{math.log2(Pp):.0f} log steps x {a.step_us:g} us {logs:.4f} = {scale:.1f} s")
