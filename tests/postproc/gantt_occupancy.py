"""gantt_occupancy.py - the Gantt chart's inked area against numpy.

Writes a synthetic profile with h5py (known busy fractions: one full
lane, 600 short halo calls, a 58% wait in short pieces, random
overlapping calls, a region on two threads, a late region), draws it with
scope-profiler-pproc, reads the PNG back (png_read.py, zlib only) and
compares each region's coloured pixel mass with the busy fraction numpy
computes from the same intervals. A lane's area must match within 0.01
of the window (one column per hundred).

usage: gantt_occupancy.py PPROC OUTDIR CASE   (CASE: whole, window, threads)"""
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

T0 = 1_000_000_000_000  # ns; the file's first start
S = 1_000_000_000       # ns per second
WIDTH, HEIGHT = 1000, 600
VP_RIGHT = 0.84         # plot area right edge (the legend lies beyond)


def lanes():
    """{region: [(starts, ends, thread ids or None)]}, times in ns after T0."""
    rng = np.random.default_rng(22)
    out = {}
    out["full"] = [(np.array([0]), np.array([10 * S]), None)]
    # 600 halo exchanges of 14.5 us each: 8.7 ms in 10 s.
    hs = np.arange(600) * (10 * S // 600) + 5_000_000
    out["halo"] = [(hs, hs + 14_500, None)]
    # A wait of 58% in 10 ms periods.
    ws = np.arange(1000) * 10_000_000
    out["wait"] = [(ws, ws + 5_800_000, None)]
    # Random calls, some overlapping (recursion), starts not sorted.
    bs = rng.integers(0, 10 * S - 50_000_000, 400)
    out["burst"] = [(bs, bs + rng.integers(1000, 40_000_000, 400), None)]
    # Two threads, each busy [1, 6] s in 1 ms calls: two lanes of 50%.
    os_ = np.arange(5000) * 1_000_000 + 1 * S
    st = np.concatenate([os_, os_ + 200_000])
    en = st + 700_000
    tid = np.concatenate([np.zeros(5000, np.int32), np.ones(5000, np.int32)])
    out["omp"] = [(st, en, tid)]
    ls = np.arange(2000) * 1_000_000 + 6 * S
    out["late"] = [(ls, ls + 500_000, None)]
    return out


def write_profile(path):
    with h5py.File(path, "w") as f:
        regions = f.create_group("rank0").create_group("regions")
        for name, pairs in lanes().items():
            st, en, tid = pairs[0]
            g = regions.create_group(name)
            g.create_dataset("start_times", data=(st + T0).astype(np.int64))
            g.create_dataset("end_times", data=(en + T0).astype(np.int64))
            if tid is not None:
                g.create_dataset("thread_ids", data=tid)
            g.attrs["name"] = name
            g.attrs["num_calls"] = np.int64(len(st))


def busy(st, en, w0, w1):
    """Length of the union of [st, en] clipped to [w0, w1], ns (numpy)."""
    order = np.argsort(st, kind="stable")
    s = np.clip(st[order], w0, w1).astype(np.float64)
    e = np.clip(en[order], w0, w1).astype(np.float64)
    reach = np.maximum.accumulate(e)
    prev = np.concatenate([[w0], reach[:-1]])
    return float(np.sum(np.maximum(e - np.maximum(s, prev), 0)))


def expected(w0, w1):
    """{region: sum over its lanes of the lane's busy fraction}."""
    out = {}
    for name, pairs in lanes().items():
        st, en, tid = pairs[0]
        groups = [np.ones(len(st), bool)] if tid is None else [tid == t for t in np.unique(tid)]
        out[name] = sum(busy(st[m], en[m], w0, w1) for m in groups) / (w1 - w0)
    return out


def colour_mass(img, rgb):
    """Sum of alpha over the plot area's pixels that blend white and rgb."""
    a = img[:, : int(VP_RIGHT * WIDTH), :3].astype(np.float64)
    c = np.array(rgb, np.float64)
    depth = 255.0 - c
    use = depth > 40
    alpha = ((255.0 - a[..., use]) / depth[use]).mean(axis=-1)
    alpha = np.clip(alpha, 0, 1)
    model = 255.0 - alpha[..., None] * depth
    on_line = np.all(np.abs(a - model) <= 8, axis=-1) & (alpha > 0.02)
    return float(alpha[on_line].sum())


def main():
    pproc, outdir, case = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    h5 = os.path.join(outdir, f"occupancy_{case}.h5")
    write_profile(h5)
    args = {"whole": [], "window": ["--start-time", "2", "--end-time", "7"],
            "threads": ["--include", "full", "omp"]}[case]
    png_dir = os.path.join(outdir, case)
    cmd = [pproc, h5, "-o", png_dir, "--width", str(WIDTH), "--height", str(HEIGHT)] + args
    subprocess.run(cmd, check=True)
    img = read_png(os.path.join(png_dir, "gantt_plot.png"))
    if case == "window":
        w0, w1 = 2 * S, 7 * S
    else:
        w0, w1 = 0, 10 * S
    exp = expected(w0, w1)
    names = ["full", "omp"] if case == "threads" else sorted(exp)
    # Colours: tab10 sampled evenly over the sorted names (palette.c).
    tab10 = [0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
             0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf]
    srt = sorted(names)
    masses = {}
    for name in names:
        k = srt.index(name)
        x = k / (len(srt) - 1) if len(srt) > 1 else 0.0
        c = tab10[min(9, int(x * 10))]
        masses[name] = colour_mass(img, ((c >> 16) & 255, (c >> 8) & 255, c & 255))
    lane = masses["full"] / exp["full"]  # pixel mass of one fully busy lane
    bad = 0
    for name in names:
        got = masses[name] / lane
        ok = abs(got - exp[name]) <= 0.01
        bad += not ok
        print(f"{name:6s} drawn {got:.4f} lanes, numpy {exp[name]:.4f} {'ok' if ok else 'WRONG'}")
    # omp: two threads each busy 70% of [1, 6] s are two lanes (0.7 lane of
    # ink in all over 10 s), not one lane of their union (0.45).
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
