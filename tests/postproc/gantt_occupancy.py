"""gantt_occupancy.py - the Gantt chart's inked area against numpy.

Writes a synthetic profile with h5py (known busy fractions: one full
lane, 600 short halo calls, a 58% wait in short pieces, random
overlapping calls, a region on two threads, a late region), draws it with
scope-profiler-pproc, reads the PNG back (png_read.py, zlib only) and
compares each region's coloured pixel mass with the busy fraction numpy
computes from the same intervals. A lane's area must match within 0.01
of the window (one column per hundred).

usage: gantt_occupancy.py PPROC OUTDIR CASE
CASE: whole, window (--start-time 2 --end-time 7), threads (a lane per
thread), thin (100 lanes 3 px high, each 20% busy: the rounding of every
column to whole pixels must not add up), many (300 lanes on 110 pixel rows:
the chart says so and points to the heat map)."""
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


def thin_lanes():
    """{(rank, region): (starts, ends)}: 100 ranks 20% busy in 1 ms of every
    5 ms (phase shifted per rank) and one full lane: 101 lanes ~3 px high."""
    out = {(0, "full"): (np.array([0]), np.array([10 * S]))}
    for r in range(100):
        s = np.arange(2000) * 5_000_000 + r * 37_000
        out[(r, "work")] = (s, s + 1_000_000)
    return out


def write_thin(path):
    with h5py.File(path, "w") as f:
        for (rank, name), (st, en) in thin_lanes().items():
            grp = f.require_group(f"rank{rank}").require_group("regions").create_group(name)
            grp.create_dataset("start_times", data=(st + T0).astype(np.int64))
            grp.create_dataset("end_times", data=(en + T0).astype(np.int64))
            grp.attrs["name"] = name
            grp.attrs["num_calls"] = np.int64(len(st))


def write_many(path):
    """300 ranks of one region: more lanes than the 110 pixel rows of a
    220-px chart."""
    with h5py.File(path, "w") as f:
        for r in range(300):
            g = f.create_group(f"rank{r}").create_group("regions").create_group("work")
            g.create_dataset("start_times", data=np.array([T0 + r], np.int64))
            g.create_dataset("end_times", data=np.array([T0 + S], np.int64))
            g.attrs["name"] = "work"
            g.attrs["num_calls"] = np.int64(1)


def many(pproc, outdir):
    h5 = os.path.join(outdir, "occupancy_many.h5")
    write_many(h5)
    p = subprocess.run([pproc, h5, "-o", os.path.join(outdir, "many"), "--plots", "gantt",
                        "--height", "220"], capture_output=True, text=True)
    print(p.stderr, end="")
    want = "300 lanes on 110 pixel rows: lanes are thinner than a pixel"
    ok = p.returncode == 0 and want in p.stderr and "rank_heatmap_plot" in p.stderr
    print("many: " + ("ok" if ok else f"WRONG: exit {p.returncode}, expected '{want}'"))
    sys.exit(0 if ok else 1)


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
    if case == "many":
        many(pproc, outdir)
    h5 = os.path.join(outdir, f"occupancy_{case}.h5")
    (write_thin if case == "thin" else write_profile)(h5)
    args = {"whole": [], "window": ["--start-time", "2", "--end-time", "7"],
            "threads": ["--include", "full", "omp"], "thin": []}[case]
    height = 400 if case == "thin" else HEIGHT
    png_dir = os.path.join(outdir, case)
    cmd = [pproc, h5, "-o", png_dir, "--plots", "gantt", "--width", str(WIDTH),
           "--height", str(height)] + args
    subprocess.run(cmd, check=True)
    img = read_png(os.path.join(png_dir, "gantt_plot.png"))
    if case == "window":
        w0, w1 = 2 * S, 7 * S
    else:
        w0, w1 = 0, 10 * S
    if case == "thin":
        exp = {"full": 1.0, "work": sum(busy(st, en, w0, w1) for (r, n), (st, en)
                                        in thin_lanes().items() if n == "work") / (w1 - w0)}
    else:
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
        # Within 0.01 of a lane per lane of the region (100 lanes in "thin").
        ok = abs(got - exp[name]) <= 0.01 * (100 if name == "work" else 1)
        bad += not ok
        print(f"{name:6s} drawn {got:.4f} lanes, numpy {exp[name]:.4f} {'ok' if ok else 'WRONG'}")
    # omp: two threads each busy 70% of [1, 6] s are two lanes (0.7 lane of
    # ink in all over 10 s), not one lane of their union (0.45).
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
