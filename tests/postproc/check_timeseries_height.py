"""check_timeseries_height.py - duration_timeseries keeps every panel at any --height.

Draws --plots duration_timeseries for FILE... (8 common regions: 8 panels
per file) at HEIGHT (a number, or "default" for no --height; a file named twice is
drawn twice, through a copy) and checks:
exit 0; no PLplot error on stderr (plvpor's "Invalid limits" was the sign
of panels squeezed below their margins), every stderr line prefixed with
the program name; and in the PNG (png_read.py) one frame per panel (the
dark left edge of plbox), each at least 45 px tall inside, with
the min..max band's light colour covering part of it (a region colour at
30 % over white, not the black of a pen left over, not white).

usage: check_timeseries_height.py PPROC OUTDIR HEIGHT NPANELS FILE..."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import read_png  # noqa: E402

W = 1200


def frames(img):
    """(top, bottom) of each panel's frame: the runs of dark (max channel <
    180) pixels down the frame's left edge (the darkest column near 10% of
    the width, where the viewports start)."""
    lo, hi = int(0.09 * W), int(0.11 * W) + 1
    dark = img[:, lo:hi].max(axis=2) < 180
    col = dark[:, dark.sum(axis=0).argmax()]
    runs, start = [], None
    for y, d in enumerate(list(col) + [False]):
        if d and start is None:
            start = y
        elif not d and start is not None:
            if y - start >= 10:
                runs.append((start, y - 1))
            start = None
    return runs


def main():
    pproc, outdir, height, npanels = sys.argv[1:5]
    files = sys.argv[5:]
    out = os.path.join(outdir, f"ts_height_{height}_{len(files)}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    # A file named twice is read twice through a copy (one path is read once).
    for i, f in enumerate(files):
        if f in files[:i]:
            files[i] = os.path.join(out, f"copy{i}_" + os.path.basename(f))
            shutil.copyfile(f, files[i])
    cmd = [pproc] + files + ["-o", out, "--plots", "duration_timeseries", "--width", str(W)]
    if height != "default":
        cmd += ["--height", height]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(" ".join(cmd), "\nexit", r.returncode, "\nstderr:\n" + r.stderr)
    assert r.returncode == 0, f"exit {r.returncode}"
    for bad in ("plvpor", "PLPLOT ERROR", "plotting error"):
        assert bad not in r.stderr, f"stderr has '{bad}'"
    for line in r.stderr.splitlines():
        assert line.startswith("scope-profiler-pproc: "), f"unprefixed stderr line {line!r}"
    img = read_png(os.path.join(out, "duration_timeseries_plot.png"))[:, :, :3].astype(int)
    panels = frames(img)
    print(f"image {img.shape[1]}x{img.shape[0]}, frames {panels}")
    assert len(panels) == int(npanels), f"{len(panels)} frames, expected {npanels}"
    if height != "default" and img.shape[0] != int(height):
        assert f"instead of --height {height}" in r.stderr, "taller than --height, no message"
    for p, (top, bottom) in enumerate(panels):
        assert bottom - top >= 45, f"panel {p}: {bottom - top} px between its frame edges"
        inside = img[top + 3:bottom - 2, int(0.12 * W):int(0.94 * W)]
        mean = inside.mean(axis=2)
        light = ((mean > 150) & (mean < 245)).mean()
        black = (inside.max(axis=2) < 60).mean()
        print(f"panel {p}: rows {top}..{bottom}, band ink {light:.3f}, black {black:.3f}")
        assert light > 0.10, f"panel {p}: no band ink ({light:.3f} of the plot)"
        assert black < 0.25, f"panel {p}: {black:.3f} of the plot is black"


if __name__ == "__main__":
    main()
