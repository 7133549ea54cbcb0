#!/usr/bin/python3
"""Checks rank<N>/samples of a profile written with SCOPE_PROFILER_SAMPLE_MS
with h5py and numpy, against what tests/samples/test_samples*.c did:

  --case regions|field|fork|unfinalized: samples rise, spaced about the
      period; RSS within reach of /proc's VmRSS noted by the program; the
      200 MB touched in "alloc" shows in its peak and not in "before"'s
      (computed here from the stamps and samples, and from
      scope-profiler-pproc --summary --columns peak_rss_bytes with --pproc);
      cpu_ns rises by about the 0.2 s of CPU spent in "spin".
  --case long_period: only the session's first and last sample.
  --case off: no samples and no peak_rss_bytes.
  --case mpi: 4 ranks, rank r's alloc peak about (r + 1) x 50 MB above its before.
"""
import argparse
import csv
import io
import json
import subprocess
import sys

import h5py
import numpy as np

MB = 1 << 20
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def samples(f, rank):
    g = f[f"rank{rank}/samples"]
    t, rss, cpu = (g[n][:] for n in ("times", "rss_bytes", "cpu_ns"))
    for n, a in (("times", t), ("rss_bytes", rss), ("cpu_ns", cpu)):
        check(a.dtype == np.int64, f"rank{rank}/samples/{n} is {a.dtype}, not int64")
    check(len(t) == len(rss) == len(cpu), "samples arrays differ in length")
    return g, t, rss, cpu


def region_calls(f, rank, name):
    regs = f[f"rank{rank}/regions"]
    for link in regs:
        if regs[link].attrs["name"] == name or link == name:
            return regs[link]["start_times"][:], regs[link]["end_times"][:]
    raise KeyError(name)


def peak_in(t, rss, starts, ends):
    """Highest RSS sampled while a call ran, or None."""
    best = None
    for s, e in zip(starts, ends):
        inside = rss[(t >= s) & (t <= e)]
        if inside.size:
            best = max(best or 0, int(inside.max()))
    return best


def check_spacing(t, period_ms, cpu):
    d = np.diff(t)
    check(np.all(d > 0), "sample times not strictly rising")
    med = float(np.median(d)) / 1e6
    # Never faster than asked; a loaded machine (CI: 2 cores, load 14 seen)
    # delays wake-ups, so the median may drift up, but not by much.
    check(0.8 * period_ms <= med <= 2.0 * period_ms + 15,
          f"median spacing {med:.2f} ms, period {period_ms} ms")
    check(np.all(np.diff(cpu) >= 0), "cpu_ns decreases")


def check_regions(f, args):
    g, t, rss, cpu = samples(f, 0)
    check(g.attrs["period_ns"] == args.period_ms * 1000000, f"period_ns {g.attrs['period_ns']}")
    check_spacing(t, args.period_ms, cpu)
    run_ms = (t[-1] - t[0]) / 1e6
    # before 150 + alloc 150 + spin 200 + after 100 ms at least
    check(run_ms >= 550, f"samples span {run_ms:.0f} ms, the run at least 600")
    # A late wake-up skips the periods it missed (never catches up): on the
    # loaded CI machine (load 14 on 2 cores seen) half of them at 1-5 ms.
    check(len(t) >= 0.25 * run_ms / args.period_ms,
          f"{len(t)} samples over {run_ms:.0f} ms at {args.period_ms} ms")
    if args.proc:
        vmrss, cpu_end = (float(x) for x in open(args.proc).read().split())
        last = float(rss[-1])
        check(abs(last - vmrss) <= max(0.25 * vmrss, 8 * MB),
              f"last sampled RSS {last / MB:.1f} MB, /proc VmRSS {vmrss / MB:.1f} MB")
        check(cpu[-1] / 1e9 >= 0.9 * cpu_end - 0.05,
              f"last cpu_ns {cpu[-1] / 1e9:.3f} s, the process's CPU time {cpu_end:.3f} s")
    # "spin" burns 0.2 s of CPU (however long that takes on a loaded
    # machine): the samples on both sides of it differ by at least that.
    s0, e0 = region_calls(f, 0, "spin")
    before, after = np.nonzero(t <= s0[0])[0], np.nonzero(t >= e0[0])[0]
    check(before.size and after.size, "no sample before or after spin")
    if before.size and after.size:
        used = (cpu[after[0]] - cpu[before[-1]]) / 1e9
        check(0.195 <= used <= 0.195 + 2.0, f"CPU {used:.3f} s across spin's 0.2 s of CPU")
    pb = peak_in(t, rss, *region_calls(f, 0, "before"))
    pa = peak_in(t, rss, *region_calls(f, 0, "alloc"))
    check(pb is not None and pa is not None, "no sample inside before or alloc")
    if pb is not None and pa is not None:
        check(pa - pb >= 180 * MB, f"alloc's peak {pa / MB:.0f} MB, before's {pb / MB:.0f} MB")
        check(pb < 150 * MB, f"before's peak {pb / MB:.0f} MB: the allocation leaked into it")
    peak = int(f["rank0"].attrs["peak_rss_bytes"])
    check(peak >= int(rss.max()) and peak >= pa, f"peak_rss_bytes {peak} below a sample")
    check(peak <= int(rss.max()) + 64 * MB, f"peak_rss_bytes {peak / MB:.0f} MB far above samples")
    if args.pproc:
        out = subprocess.run([args.pproc, args.file, "--summary", "--columns", "peak_rss_bytes",
                              "--format", "csv"], capture_output=True, text=True, check=True).stdout
        rows = {r["region"]: r for r in csv.DictReader(io.StringIO(out))}
        check(int(rows["alloc"]["peak_rss_bytes"]) == pa,
              f"pproc alloc {rows['alloc']['peak_rss_bytes']}, computed {pa}")
        check(int(rows["before"]["peak_rss_bytes"]) == pb,
              f"pproc before {rows['before']['peak_rss_bytes']}, computed {pb}")
        check_chrome(args, t, rss, cpu)


def check_chrome(args, t, rss, cpu):
    """--export chrome-trace: one RSS counter event per sample, in MB, and
    a CPU one (cores) per interval between samples, on the regions' time."""
    out = subprocess.run([args.pproc, args.file, "--export", "chrome-trace"],
                         capture_output=True, text=True, check=True).stdout
    ev = json.loads(out)["traceEvents"]
    mem = [e for e in ev if e["ph"] == "C" and e["name"] == "RSS"]
    cores = [e for e in ev if e["ph"] == "C" and e["name"] == "CPU"]
    check(len(mem) == len(t), f"{len(mem)} RSS counter events, {len(t)} samples")
    check(len(cores) == len(t) - 1, f"{len(cores)} CPU counter events, {len(t)} samples")
    if len(mem) == len(t):
        got = np.array([e["args"]["MB"] for e in mem])
        # MB: 10^6 bytes, as the Gantt chart and the report (issue 52)
        check(np.allclose(got, rss / 1e6, atol=1e-3), "RSS counter values differ from rss_bytes / 1e6")
        ts = np.array([e["ts"] for e in mem])
        check(np.allclose(np.diff(ts), np.diff(t) / 1e3, atol=2e-3), "RSS counter times")
        regions = [e for e in ev if e["ph"] == "X"]
        first = [e for e in ev if e["ph"] in ("X", "C")]
        # time 0: the earliest of the first call and the first sample, never a negative ts
        t0 = min(e["ts"] for e in first)
        check(abs(t0) < 1e-3, f"the earliest event is at ts {t0}, not 0")
        check(bool(regions), "no region events")
    if len(cores) == len(t) - 1 and len(t) > 1:
        want = np.diff(cpu) / np.diff(t)
        got = np.array([e["args"]["cores"] for e in cores])
        check(np.allclose(got, want, atol=2e-3), "CPU counter values")


def check_report(f, args):
    """report.html's "samples": every sample of rank 0 (fewer than 4000, so
    not thinned), times relative to the first start of any region."""
    text = open(args.report, encoding="utf-8").read()
    start = text.index('<script type="application/json" id="sp-data">')
    body = text[text.index(">", start) + 1:text.index("</script>", start)]
    data = json.loads(body)
    _, t, rss, _ = samples(f, 0)
    regs = f["rank0/regions"]
    t0 = min(int(regs[k]["start_times"][:].min()) for k in regs)
    check(len(data.get("samples", [])) == 1, "report: one rank with samples")
    if data.get("samples"):
        s = data["samples"][0]
        check(s["r"] == 0 and s["thin"] == 1, f"report: r {s['r']} thin {s['thin']}")
        check(s["period"] == f["rank0/samples"].attrs["period_ns"], "report: period")
        check(np.array_equal(np.cumsum(np.array(s["t"], dtype=np.int64)) + t0, t),
              "report: sample times differ from the file's")
        check(np.array_equal(np.array(s["rss"], dtype=np.int64), rss), "report: rss differs")


def check_mpi(f, args):
    check(len([k for k in f if k.startswith("rank")]) == args.ranks, "rank groups")
    for r in range(args.ranks):
        _, t, rss, cpu = samples(f, r)
        check_spacing(t, args.period_ms, cpu)
        pb = peak_in(t, rss, *region_calls(f, r, "before"))
        pa = peak_in(t, rss, *region_calls(f, r, "alloc"))
        want = (r + 1) * 50 * MB
        check(pb is not None and pa is not None, f"rank {r}: no sample inside a region")
        if pb is not None and pa is not None:
            check(0.9 * want <= pa - pb <= want + 30 * MB,
                  f"rank {r}: alloc {pa / MB:.0f} MB - before {pb / MB:.0f} MB, want {want / MB:.0f}")
        check(int(f[f"rank{r}"].attrs["peak_rss_bytes"]) >= pa, f"rank {r} peak_rss_bytes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--case", required=True)
    ap.add_argument("--period-ms", type=int, default=10)
    ap.add_argument("--proc")
    ap.add_argument("--pproc")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--report")
    args = ap.parse_args()
    with h5py.File(args.file, "r") as f:
        if args.case in ("regions", "field", "fork", "unfinalized"):
            check_regions(f, args)
        elif args.case == "long_period":
            _, t, _, _ = samples(f, 0)
            check(len(t) == 2, f"{len(t)} samples with a period of an hour, want start and end")
        elif args.case == "off":
            check("samples" not in f["rank0"], "samples written with sampling off")
            check("peak_rss_bytes" not in f["rank0"].attrs, "peak_rss_bytes with sampling off")
        elif args.case == "child":
            _, t, _, cpu = samples(f, 0)
            check_spacing(t, args.period_ms, cpu)
        elif args.case == "sigterm":
            # the whole run's samples (fewer than one spill record's 256);
            # its events are not all there (the main thread made no call
            # after the signal to flush them): not checked here
            _, t, _, cpu = samples(f, 0)
            check_spacing(t, args.period_ms, cpu)
            span = (t[-1] - t[0]) / 1e6
            check(span >= 550 and len(t) >= 0.25 * span / args.period_ms,
                  f"{len(t)} samples over {span:.0f} ms")
        elif args.case == "report":
            check_report(f, args)
        elif args.case == "mpi":
            check_mpi(f, args)
        else:
            sys.exit(f"unknown case {args.case}")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("ok")


main()
