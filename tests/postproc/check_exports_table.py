#!/usr/bin/python3
"""The formats of --export come from one table (postproc/cli/exports.c):
the usage line, the help text, the parser's error message and the parser
itself name the same formats; a format shown with -o DIR refuses to run
without it; a stdout format writes to stdout from FILE.

usage: check_exports_table.py PPROC FILE OUTDIR
Prints one line per disagreement; exit 1 if any, else 0.
"""
import os
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    pproc, h5, outdir = argv[1:]
    os.makedirs(outdir, exist_ok=True)
    bad = []
    help_text = run(pproc, "--help").stdout
    m = re.search(r"\[--export ([a-z0-9|-]+)\]", help_text)
    in_usage = m.group(1).split("|") if m else []
    in_help = re.findall(r"^      --export ([a-z0-9-]+)( -o DIR)?", help_text, re.M)
    err = run(pproc, h5, "--export", "no_such_format").stderr
    m = re.search(r"--export expects (.*)$", err, re.M)
    in_error = re.split(r", | or ", m.group(1)) if m else []
    names = [n for n, _ in in_help]
    print(f"usage: {in_usage}\nhelp: {names}\nerror message: {in_error}")
    if not names:
        bad.append("--help lists no --export format")
    if in_usage != names or in_error != names:
        bad.append(f"usage {in_usage}, help {names} and error message {in_error} differ")
    for name, outdir_arg in in_help:
        if outdir_arg:
            r = run(pproc, h5, "--export", name)
            if r.returncode != 2 or "-o DIR" not in r.stderr:
                bad.append(f"--export {name} without -o: exit {r.returncode}, {r.stderr.strip()}")
            d = os.path.join(outdir, name)
            r = run(pproc, h5, "--export", name, "-o", d)
            if r.returncode != 0 or not os.listdir(d):
                bad.append(f"--export {name} -o {d}: exit {r.returncode}: {r.stderr.strip()}")
        else:
            r = run(pproc, h5, "--export", name)
            if r.returncode != 0 or not r.stdout:
                bad.append(f"--export {name}: exit {r.returncode}, {len(r.stdout)} bytes: "
                           f"{r.stderr.strip()}")
    for b in bad:
        print(f"check_exports_table.py: {b}")
    print(f"check_exports_table.py: {len(names)} formats, {len(bad)} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
