#!/usr/bin/python3
"""same_summary.py PPROC FILE_A FILE_B [OPTION ...]: `PPROC FILE --summary
OPTION ...` prints the same table for both files (the rank<N> and the
columnar file of one run): the run metadata heading, and with
--columns peak_rss_bytes,source the samples and source locations too.
Exit 0, or 1 with both outputs."""
import subprocess
import sys

pproc, a, b = sys.argv[1:4]
options = sys.argv[4:]


def summary(path):
    p = subprocess.run([pproc, path, "--summary"] + options, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: {path}: exit {p.returncode}\n{p.stderr}")
        sys.exit(1)
    # the file's own name may appear in a heading: not part of the comparison
    return p.stdout.replace(path, "FILE")


sa, sb = summary(a), summary(b)
if sa != sb or len(sa.splitlines()) < 3:
    print("FAIL: summaries differ\n--- rank<N> file\n" + sa + "--- columnar file\n" + sb)
    sys.exit(1)
print(sa)
print(f"OK: the same summary ({len(sa.splitlines())} lines, "
      f"{sa.count('# run metadata:')} metadata heading)")
