#!/usr/bin/env python3
"""bench_rss.py - peak RSS of every output (text, exports, charts, report) over calls per rank.

usage: bench_rss.py [--only REGEX] PPROC GEN_THREADS DIR [SMALL [LARGE [THREADS [recursive]]]]

Records DIR/rss_SMALL.h5 and DIR/rss_LARGE.h5 with gen_threads (the
library itself; one rank, default 1e6 and 1e7 calls on 8 threads), then
runs PPROC on each with every output below (stdout to /dev/null), each in
a process of its own, and prints its peak RSS (wait4's ru_maxrss) and wall
time at both sizes and the ratio LARGE/SMALL of the peaks. With
"recursive", gen_threads records "outer" holding "outer" (recursion: the
outermost calls found by a backward pass, summary.c) into
DIR/rss_rec_N.h5, and only the --summary lines run. --only REGEX: only
the outputs whose label it matches (e.g. "plots" for the charts); a file
already recorded at that size in DIR is reused. The target
(issue 47): memory flat in calls per rank, ratio <= 1.2. Nothing asserts.
"""
import os
import re
import shutil
import sys
import time

# Every output of the postprocessor. None: the output directory; "FILE":
# the same file again (outputs over two files).
CHARTS = ["gantt", "flame", "durations", "rank_heatmap", "flame_graph",
          "duration_timeseries", "histogram", "timeline_density"]
OUTPUTS = [
    ("--summary", ["--summary"]),
    ("--summary --by-thread", ["--summary", "--by-thread"]),
    ("--summary p50,p95", ["--summary", "--columns", "p50,p95"]),
    ("--summary bytes,msgs", ["--summary", "--columns", "bytes,msgs"]),
    ("--by-thread p50,p95", ["--summary", "--by-thread", "--columns", "p50,p95"]),
    ("--summary --format json", ["--summary", "--format", "json"]),
    ("--summary --compare", ["FILE", "--summary", "--compare"]),
    ("--tree", ["--tree"]),
    ("--tree --compare", ["FILE", "--tree", "--compare"]),
    ("--list", ["--list"]),
    ("--waits", ["--waits"]),
    ("--io", ["--io"]),
    ("--values", ["--values"]),
    ("--export csv", ["--export", "csv"]),
    ("--export chrome-trace", ["--export", "chrome-trace"]),
    ("--export folded", ["--export", "folded"]),
    ("--export otf2", ["--export", "otf2", "-o", None]),
    ("check", ["check", "FILE", "--max-regression", "10%"]),
] + [(f"--plots {c}", ["-o", None, "--plots", c]) for c in CHARTS] + [
    ("--export-data --skip-plot-images", ["-o", None, "--plots", "all", "--export-data",
                                          "--skip-plot-images"]),
    ("report.html", ["-o", None, "--backend", "html"]),
]


def run(argv):
    """(peak RSS MiB, wall s, exit status) of argv, stdout to /dev/null."""
    t = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)  # the charts' "wrote ..." lines
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_maxrss / 1024.0, time.monotonic() - t, os.waitstatus_to_exitcode(status)


def main():
    argv, only = sys.argv[1:], None
    if argv[:1] == ["--only"]:
        only, argv = re.compile(argv[1]), argv[2:]
    pproc, gen, d = argv[0], argv[1], argv[2]
    small = int(float(argv[3])) if len(argv) > 3 else 10**6
    large = int(float(argv[4])) if len(argv) > 4 else 10**7
    threads = argv[5] if len(argv) > 5 else "8"
    rec = len(argv) > 6 and argv[6] == "recursive"
    outputs = [o for o in OUTPUTS if o[0].startswith("--summary")] if rec else OUTPUTS
    if only:
        outputs = [o for o in outputs if only.search(o[0])]
    os.makedirs(d, exist_ok=True)
    files = {}
    for n in (small, large):
        files[n] = f"{d}/rss_{'rec_' if rec else ''}{n}.h5"
        if only and os.path.exists(files[n]):
            continue
        rss, wall, rc = run([gen, files[n], str(n), threads] + (["recursive"] if rec else []))
        assert rc == 0, f"gen_threads {n}: exit {rc}"
        print(f"record {n} calls on {threads} threads: {wall:.2f} s")
    print(f"{'output':34s} {'RSS ' + str(small):>12s} {'RSS ' + str(large):>12s} "
          f"{'ratio':>6s} {'wall small':>10s} {'wall large':>10s}")
    for label, args in outputs:
        row = []
        for n in (small, large):
            out = f"{d}/otf2_{n}"
            shutil.rmtree(out, ignore_errors=True)
            first, rest = [files[n]], args
            if args[0] == "check":  # check BASE NEW: the subcommand first
                first, rest = ["check", files[n]], args[1:]
            argv = [pproc] + first + [out if a is None else files[n] if a == "FILE" else a
                                      for a in rest]
            rss, wall, rc = run(argv)
            row.append((rss, wall, rc))
        bad = [r[2] for r in row if r[2] != 0]
        print(f"{label:34s} {row[0][0]:9.1f} MiB {row[1][0]:9.1f} MiB {row[1][0] / row[0][0]:6.2f} "
              f"{row[0][1]:9.2f}s {row[1][1]:9.2f}s" + (f"  exit {bad}" if bad else ""))
    print("target: ratio <= 1.2 (peak RSS flat in calls per rank)")


if __name__ == "__main__":
    main()
