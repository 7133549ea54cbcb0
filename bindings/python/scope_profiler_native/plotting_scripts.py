"""plot_gantt: the reference tool's Gantt chart, drawn with PLplot.

    from scope_profiler_native.h5reader import ProfilingH5Reader
    from scope_profiler_native.plotting_scripts import plot_gantt

    reader = ProfilingH5Reader("profiling_data.h5")
    plot_gantt(profiling_data=reader, include=["solver.*", "rhs.*"], exclude=["io"],
               ranks=[0, 1], filepath="gantt.png", show=True)

One lane per (region, rank), labelled "NAME (rank N)", regions in the
order of get_regions() (first start time), ranks ascending; time in seconds
since the file's first start. Each lane is drawn per pixel column, a bar as
high as the share of that column the lane is busy, so a lane of millions of
calls costs one pass over its arrays and at most one rectangle per column,
and short calls stay visible as thin bars instead of vanishing or being
widened. Drawn with Debian's python3-plplot (the PLplot Python module)
through its cairo devices, like scope-profiler-pproc's charts.
"""

import ctypes
import ctypes.util
import os

import numpy as np

from .h5reader import ProfilingH5Reader

__all__ = ["plot_gantt"]

_DEVICES = {".png": "pngcairo", ".pdf": "pdfcairo", ".svg": "svgcairo"}
_TAB10 = (0x1F77B4, 0xFF7F0E, 0x2CA02C, 0xD62728, 0x9467BD, 0x8C564B, 0xE377C2, 0x7F7F7F,
          0xBCBD22, 0x17BECF)
_TAB20 = (0x1F77B4, 0xAEC7E8, 0xFF7F0E, 0xFFBB78, 0x2CA02C, 0x98DF8A, 0xD62728, 0xFF9896,
          0x9467BD, 0xC5B0D5, 0x8C564B, 0xC49C94, 0xE377C2, 0xF7B6D2, 0x7F7F7F, 0xC7C7C7,
          0xBCBD22, 0xDBDB8D, 0x17BECF, 0x9EDAE5)
_VIRIDIS = (0x440154, 0x482475, 0x414487, 0x355F8D, 0x2A788E, 0x21918C, 0x22A884, 0x44BF70,
            0x7AD151, 0xBDDF26, 0xFDE725)
_CMAPS = {"tab10": (True, _TAB10), "tab20": (True, _TAB20), "viridis": (False, _VIRIDIS)}
_COL_BG, _COL_FG, _COL_GRID, _COL_REGION0 = 0, 1, 2, 3
_LANE_PX = 16
_MAX_HEIGHT = 4000  # beyond this lanes get thinner (labels thinned to stay legible)


def _plplot():
    try:
        import plplot
    except ImportError as exc:
        raise ImportError(
            "plot_gantt needs PLplot's Python module (Debian: apt install python3-plplot "
            "plplot-driver-cairo; Spack: plplot+python)"
        ) from exc
    return plplot


def _devices():
    """Names of the PLplot devices this installation has (plgDevs)."""
    name = ctypes.util.find_library("plplot") or "libplplot.so.17"
    lib = ctypes.CDLL(name)
    menus = (ctypes.c_char_p * 128)()
    names = (ctypes.c_char_p * 128)()
    n = ctypes.c_int(128)
    pm, pn = ctypes.pointer(menus), ctypes.pointer(names)
    lib.plgDevs(ctypes.byref(pm), ctypes.byref(pn), ctypes.byref(n))
    return {names[i].decode() for i in range(n.value) if names[i]}


def _sample(cmap, x):
    listed, table = _CMAPS.get(cmap, _CMAPS["tab20"])
    if listed:
        c = table[min(len(table) - 1, int(x * len(table)))]
        return (c >> 16) & 255, (c >> 8) & 255, c & 255
    pos = x * (len(table) - 1)
    k = min(int(pos), len(table) - 2)
    f = pos - k
    a, b = table[k], table[k + 1]
    return tuple(
        int(((a >> s) & 255) + (((b >> s) & 255) - ((a >> s) & 255)) * f + 0.5) for s in (16, 8, 0)
    )


def _colours(names, cmap):
    """Colour per region name, sampled evenly over the sorted names (as pproc)."""
    distinct = sorted(set(names))
    if cmap not in _CMAPS:
        cmap = "tab10" if len(distinct) <= 10 else "tab20" if len(distinct) <= 20 else "viridis"
    n = len(distinct)
    return {name: _sample(cmap, i / (n - 1) if n > 1 else 0.0) for i, name in enumerate(distinct)}


def _busy(starts, ends, x0, x1, ncols):
    """Share of each of ncols columns of [x0, x1] covered by the intervals
    (summed, so overlapping threads can exceed 1): the exact integral of the
    coverage per column, from the ramps at every start and end."""

    def ramps(a):
        k = np.minimum(np.floor(a).astype(np.int64), ncols)
        cnt = np.bincount(k, minlength=ncols + 1).astype(np.float64)
        frac = np.bincount(k, weights=k + 1 - a, minlength=ncols + 1)
        kk = np.arange(ncols + 1, dtype=np.float64)
        c1, c2, ck = np.cumsum(cnt), np.cumsum(frac), np.cumsum(cnt * kk)
        g = np.zeros(ncols + 1)
        x = np.arange(1, ncols + 1, dtype=np.float64)
        g[1:] = c2[:-1] + (x - 1) * c1[:-1] - ck[:-1]
        return g

    scale = ncols / float(x1 - x0) if x1 > x0 else 0.0
    s = np.clip((starts - x0) * scale, 0, ncols)
    e = np.clip((ends - x0) * scale, 0, ncols)
    f = ramps(s) - ramps(e)
    return np.diff(f)


def _levels(busy, levels):
    """Integer bar heights per column, each column's rounding error carried
    to the next (the rounded running sum, differenced), so that the lane's
    ink stays its busy time even where every column is a fraction of a level."""
    run = np.rint(np.cumsum(np.minimum(busy, 1.0) * levels))
    return np.minimum(np.diff(run, prepend=0.0), levels).astype(np.int64)


def _text(s):
    return s.replace("#", "##")  # '#' starts a PLplot escape


def _lanes(reader, regions, ranks):
    lanes = []
    for region in regions:
        for rank in ranks:
            if rank not in region:
                continue
            pair = region[rank]
            if not pair.has_timing:
                continue
            lanes.append((region.name, rank, pair))
    return lanes


def _draw(pl, device, path, lanes, colours, t0, t_end, width):
    n = len(lanes)
    height = min(_MAX_HEIGHT, max(240, 120 + _LANE_PX * n))
    label_chars = max(len(f"{name} (rank {rank})") for name, rank, _ in lanes)
    left = min(0.45, (20 + 7.5 * label_chars) / width)
    vp = (left, 0.97, 70.0 / height, 1 - 50.0 / height)
    if path:
        with open(path, "wb"):  # a Python OSError here rather than a PLplot exit
            pass
    pl.plsdev(device)
    if path:
        pl.plsfnam(path)
    pl.plspage(90.0, 90.0, width, height, 0, 0)
    pl.plscolbg(255, 255, 255)
    pl.plscmap0n(_COL_REGION0 + len(colours))
    pl.plspause(0 if path else 1)
    pl.plinit()
    try:
        pl.plscol0(_COL_BG, 255, 255, 255)
        pl.plscol0(_COL_FG, 0, 0, 0)
        pl.plscol0(_COL_GRID, 200, 200, 200)
        index = {}
        for i, (name, rgb) in enumerate(colours.items()):
            pl.plscol0(_COL_REGION0 + i, *rgb)
            index[name] = _COL_REGION0 + i
        pl.pladv(0)
        pl.plschr(3.0, 1.0)
        pl.plvpor(*vp)
        x0, x1 = 0.0, max((t_end - t0) * 1e-9, 1e-9)
        pl.plwind(x0, x1, 0.0, n)
        ncols = max(1, int(round((vp[1] - vp[0]) * width)))
        lane_px = (vp[3] - vp[2]) * height / n
        pad = 0.12 if lane_px >= 4 else 0.0
        levels = max(1, int(round(lane_px * (1 - 2 * pad))))
        w = (x1 - x0) / ncols
        for i, (name, rank, pair) in enumerate(lanes):
            kept = pair.loaded
            busy = _busy(pair.start_times, pair.end_times, t0, t0 + x1 * 1e9, ncols)
            if not kept:  # one lane's arrays at a time, not the file's
                pair.release()
            q = _levels(busy, levels)
            y0 = n - i - 1 + pad
            h = 1.0 - 2 * pad
            pl.plcol0(index[name])
            edges = np.flatnonzero(np.diff(q)) + 1
            starts = np.concatenate(([0], edges))
            stops = np.concatenate((edges, [ncols]))
            for a, b in zip(starts, stops):
                if q[a] > 0:
                    xa, xb, yb = x0 + a * w, x0 + b * w, y0 + h * q[a] / levels
                    pl.plfill([xa, xb, xb, xa], [y0, y0, yb, yb])
        pl.plcol0(_COL_FG)
        pl.plbox("bcnst", 0.0, 0, "bc", 0.0, 0)
        step = max(1, int(np.ceil(12.0 / lane_px)))  # labels at least 12 px apart
        for i, (name, rank, _) in enumerate(lanes):
            if i % step == 0:
                pl.plmtex("lv", 0.5, 1.0 - (i + 0.5) / n, 1.0, _text(f"{name} (rank {rank})"))
        pl.plschr(3.6, 1.0)
        pl.plmtex("t", 1.5, 0.5, 0.5, "Profiling Gantt Chart")
        pl.plschr(3.0, 1.0)
        pl.plmtex("b", 3.0, 0.5, 0.5, "Time (seconds); bar height = share of each pixel column the lane is busy")
    finally:
        pl.plend()


def plot_gantt(
    profiling_data,
    ranks=None,
    include=None,
    exclude=None,
    filepath=None,
    show=False,
    verbose=True,
    cmap="tab20",
    width=1200,
):
    """Draws the Gantt chart of profiling_data (a ProfilingH5Reader, or a
    path that is opened with one).

    ranks:    a rank id or a list of them (default: all ranks of the file);
              a rank the file does not have raises ValueError.
    include, exclude: as ProfilingH5Reader.get_regions (Python regular
              expressions matched at the start of the name, a str or a list).
    filepath: write the chart there; the extension picks the format: .png,
              .pdf or .svg (PLplot's pngcairo, pdfcairo, svgcairo devices).
    show:     open PLplot's interactive window (xcairo; needs $DISPLAY) and
              wait until it is closed.
    verbose:  print the ranks drawn, as the reference does.
    cmap:     tab10, tab20 (default) or viridis, sampled over the sorted
              names of all the file's regions (a region keeps its colour
              whatever is selected).
    width:    pixels; the height follows the lanes (16 px each, thinner
              beyond 4000 px, with every k-th lane labelled).

    Raises ValueError when no region matches, a rank is unknown, no
    selected lane has a call, or the extension is not .png/.pdf/.svg;
    RuntimeError when the PLplot device is missing or show has no display;
    OSError when filepath cannot be written. Returns None.
    """
    reader = profiling_data
    if not isinstance(reader, ProfilingH5Reader):
        reader = ProfilingH5Reader(os.fspath(profiling_data))
    regions = reader.get_regions(include=include, exclude=exclude)
    if not regions:
        raise ValueError("No regions matched the selected filters.")
    if ranks is None:
        ranks = reader.ranks
    else:
        ranks = [ranks] if isinstance(ranks, int) else list(ranks)
        invalid = [rank for rank in ranks if rank not in reader.ranks]
        if invalid:
            raise ValueError(f"Invalid ranks requested: {invalid} (the file has ranks {reader.ranks})")
        ranks = sorted(set(ranks))
    device = None
    if filepath is not None:
        ext = os.path.splitext(os.fspath(filepath))[1].lower()
        device = _DEVICES.get(ext)
        if device is None:
            raise ValueError(f"filepath {filepath!r}: the extension must be .png, .pdf or .svg")
    lanes = _lanes(reader, regions, ranks)
    if not lanes:
        raise ValueError("No calls recorded for the requested ranks.")
    pl = _plplot()
    available = _devices()
    wanted = ([device] if device else []) + (["xcairo"] if show else [])
    for dev in wanted:
        if dev not in available:
            raise RuntimeError(
                f"PLplot device '{dev}' is not available (Debian: install plplot-driver-cairo)"
            )
    if show and not os.environ.get("DISPLAY"):
        raise RuntimeError("show=True needs a display, but DISPLAY is not set (use filepath=)")
    if verbose:
        print(f"Plotting Gantt chart for ranks: {ranks}")
    t0 = reader.minimum_start_time
    t_end = max(pair.last_end_time for _, _, pair in lanes)
    # Sampled over every region of the file, so that a region keeps its
    # colour whatever include/exclude select.
    colours = {r.name: c for r, c in zip(regions, (_colours(reader.region_names, cmap)[r.name] for r in regions))}
    if device:
        _draw(pl, device, os.fspath(filepath), lanes, colours, t0, t_end, width)
    if show:
        _draw(pl, "xcairo", None, lanes, colours, t0, t_end, width)
