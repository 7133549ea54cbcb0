"""check_scaling_legend.py - the scaling charts' legend and data files when a
common region has no line.

Writes three runs with h5py (check_speedup.py's writer: regions "solve" and
"io"; 2, 4 and 8 ranks).
  legend  io has no call in the 2-rank run (the baseline), its datasets kept:
          io is common to all files but has no line. The reference tool
          (plotting_scripts/scaling.py) labels only the lines it draws, so
          speedup_plot, weak_scaling_plot and scaling_efficiency_plot must be
          the same bytes as those of the runs where the 2-rank file has no io
          region at all (io not common: no line, no legend entry; the same
          colours, as both runs name the same regions).
  noline  solve and io have no call in the baseline run (which has a region
          "extra" of its own, so that it has a Gantt chart): no common region
          has a line. The default charts with --export-data: exit 0, no
          speedup_data file (the reference tool writes none; before, a header
          alone) and a line saying so; --plots speedup,weak_scaling,
          scaling_efficiency --export-data: exit 1 and no scaling data file.

usage: check_scaling_legend.py PPROC OUTDIR CASE"""
import filecmp
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_speedup import write  # noqa: E402

RUNS = [("a2", 2, 1.00, 0.20), ("c4", 4, 0.52, 0.25), ("d8", 8, 0.27, 0.30)]
CHARTS = ("speedup", "weak_scaling", "scaling_efficiency")


def empty(path, names):
    """names with zero calls on every rank (groups and datasets kept)."""
    with h5py.File(path, "r+") as f:
        for r in f:
            if not r.startswith("rank"):
                continue
            for name in names:
                g = f[r]["regions"][name]
                for ds in ("start_times", "end_times"):
                    del g[ds]
                    g.create_dataset(ds, data=np.zeros(0, dtype=np.int64))
                g.attrs["num_calls"] = np.int64(0)


def remove(path, name):
    with h5py.File(path, "r+") as f:
        for r in f:
            if r.startswith("rank"):
                del f[r]["regions"][name]


def runs(out, edit, extra=False):
    """extra: the baseline run has a region "extra" too (not common)."""
    os.makedirs(out)
    files = []
    for name, ranks, solve, io in RUNS:
        path = os.path.join(out, name + ".h5")
        write(path, ranks, solve, io, 8, "alpha", extra=extra and name == "a2")
        if name == "a2":
            edit(path)
        files.append(path)
    return files


def pproc_run(pproc, files, out, args):
    p = subprocess.run([pproc] + files + ["-o", out, "--width", "800"] + args,
                       capture_output=True, text=True)
    sys.stderr.write(p.stderr)
    return p


def case_legend(pproc, out):
    plots = ["--plots", ",".join(CHARTS)]
    kept = os.path.join(out, "io_kept")
    p = pproc_run(pproc, runs(kept, lambda f: empty(f, ["io"])), kept, plots)
    assert p.returncode == 0, f"exit {p.returncode}"
    gone = os.path.join(out, "io_removed")
    p = pproc_run(pproc, runs(gone, lambda f: remove(f, "io")), gone, plots)
    assert p.returncode == 0, f"exit {p.returncode}"
    bad = 0
    for chart in CHARTS:
        a, b = (os.path.join(d, chart + "_plot.png") for d in (kept, gone))
        same = filecmp.cmp(a, b, shallow=False)
        bad += not same
        print(f"{chart}_plot: io without a line {'same' if same else 'DIFFERS'} as io not common")
    return bad


def case_noline(pproc, out):
    d = os.path.join(out, "default")
    files = runs(d, lambda f: empty(f, ["solve", "io"]), extra=True)
    p = pproc_run(pproc, files, d, ["--export-data"])
    assert p.returncode == 0, f"exit {p.returncode}"
    bad = 0
    for name, want in (("speedup_data.csv", False), ("durations_data.csv", True)):
        got = os.path.exists(os.path.join(d, name))
        bad += got != want
        print(f"default charts: {name} {'written' if got else 'not written'}"
              f" {'ok' if got == want else 'WRONG'}")
    said = "speedup_data: not written" in p.stderr
    bad += not said
    print(f"'speedup_data: not written' on stderr: {said}")
    n = os.path.join(out, "named")
    shutil.copytree(d, n, ignore=shutil.ignore_patterns("*.png", "*.csv", "*.json"))
    files = [os.path.join(n, os.path.basename(f)) for f in files]
    p = pproc_run(pproc, files, n, ["--plots", ",".join(CHARTS), "--export-data"])
    bad += p.returncode != 1
    left = [f for f in os.listdir(n) if f.endswith("_data.csv") and f[:-9] in CHARTS]
    bad += bool(left)
    print(f"--plots {','.join(CHARTS)}: exit {p.returncode} (want 1), scaling data files {left}")
    return bad


def main():
    pproc, outdir, case = sys.argv[1:4]
    out = os.path.join(outdir, f"scaling_legend_{case}")
    shutil.rmtree(out, ignore_errors=True)
    bad = {"legend": case_legend, "noline": case_noline}[case](pproc, out)
    print(f"{bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
