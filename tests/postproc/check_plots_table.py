#!/usr/bin/python3
"""The charts of --plots come from one table (postproc/cli/plots.c): the
help text, the parser's error message and the parser itself name the same
charts, and postproc/README.md's chart list shows them.

usage: check_plots_table.py PPROC FILE README
Prints one line per disagreement; exit 1 if any, else 0.
"""
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    pproc, h5, readme = argv[1:]
    bad = []
    help_text = run(pproc, "--help").stdout
    head = "\n      --plots NAME,...   "
    para = help_text.split(head, 1)[1].split("\n      --", 1)[0] if head in help_text else ""
    in_help = re.findall(r"^ {25}([a-z_]+)[*+]*: ", para, re.M)
    err = run(pproc, h5, "--plots", "no_such_chart").stderr
    m = re.search(r"\(expected (.*), comma-separated\)", err)
    in_error = [w for w in m.group(1).split(", ") if w != "or all"] if m else []
    print(f"help: {in_help}\nerror message: {in_error}")
    if not in_help:
        bad.append("--help lists no chart under --plots")
    if in_help != in_error:
        bad.append(f"--help lists {in_help}, the error message {in_error}")
    for name in in_help + ["all"]:
        r = run(pproc, h5, "--plots", name, "--list")
        if r.returncode != 0:
            bad.append(f"--plots {name}: exit {r.returncode}: {r.stderr.strip()}")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    if para not in text:
        bad.append("postproc/README.md does not show the --plots paragraph of --help")
    for b in bad:
        print(f"check_plots_table.py: {b}")
    print(f"check_plots_table.py: {len(in_help)} charts, {len(bad)} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
