#!/usr/bin/python3
"""The options of scope-profiler-pproc and its --help agree (the help is
printed from the option rows of postproc/cli/options.c):

- every option the parser accepts appears in --help as an item with text:
  each short option -a..-z, -A..-Z and each --word named anywhere in
  options.c is tried on the binary, and the accepted ones are looked up
  among the help's items;
- every option of an item of --help is accepted, and every item has text;
- the options in the check and merge items are accepted by those commands,
  and every option the help names anywhere by one of the three parsers.

An option is accepted when the parser's message is not "unknown option".

usage: check_options_help.py PPROC OPTIONS_C
Prints one line per disagreement; exit 1 if any, else 0.
"""
import re
import subprocess
import sys

INDENT = 25  # the column where the help's texts start
LONG = r"--[a-z][a-z0-9-]*"
ITEM = re.compile(r"^(  -[A-Za-z], --|      --|  FILE\.\.\. |  (check|merge) )")
OPTION = re.compile(r"(?<![\w-])(-[A-Za-z]|" + LONG + r")(?![\w-])")


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def accepted(pproc, command, opt):
    """Whether the (sub)command's parser knows opt (its message is not
    'unknown option')."""
    before = {"": [], "check": ["check", "--max-regression", "5%"], "merge": ["merge"]}[command]
    r = run(pproc, *before, opt)
    return "unknown option" not in r.stderr


def help_items(text):
    """The items of --help: (label, text) per line whose label starts at
    column 2 ('-o, --output DIR', FILE..., check ..., merge ...) or 6 (an
    option without alias), the text from column 25 and the lines under it;
    the notes between items ('  With none of -o, ...') are not items."""
    lines = text.split("\n")
    items = []
    for k, line in enumerate(lines):
        if not ITEM.match(line):
            continue
        if len(line) > INDENT and line[INDENT - 1] == " " and line[INDENT] != " ":
            label, words = line[:INDENT].strip(), [line[INDENT:].strip()]
        else:
            label, words = line.strip(), []
        for more in lines[k + 1:]:
            if not more.startswith(" " * INDENT) or not more.strip():
                break
            words.append(more.strip())
        items.append((label, " ".join(words)))
    return items


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    pproc, options_c = argv[1:]
    bad = []
    r = run(pproc, "--help")
    if r.returncode != 0 or not r.stdout:
        print(f"check_options_help.py: --help: exit {r.returncode}, {r.stderr.strip()}")
        return 1
    items = help_items(r.stdout)
    # The probe itself: a made-up option is refused, a known one accepted.
    if accepted(pproc, "", "--no-such-option") or not accepted(pproc, "", "--summary"):
        bad.append("the probe cannot tell a known option from an unknown one")

    in_help = {}  # option of the main parser -> its items' texts
    for label, text in items:
        if not text:
            bad.append(f"help item '{label}' has no text")
        command = label.split()[0] if label.split()[0] in ("check", "merge") else ""
        opts = OPTION.findall(label)
        if command:
            for opt in opts:
                if not accepted(pproc, command, opt):
                    bad.append(f"'{opt}' of the help's '{command}' item: {command} refuses it")
            continue
        if not opts and label != "FILE...":
            bad.append(f"help item '{label}' names no option")
        for opt in opts:
            in_help.setdefault(opt, []).append(text)
            if not accepted(pproc, "", opt):
                bad.append(f"'{opt}' is in --help ('{label}') but the parser refuses it")

    # Every option the help names anywhere is some parser's.
    for opt in sorted(set(OPTION.findall(r.stdout))):
        if not any(accepted(pproc, c, opt) for c in ("", "check", "merge")):
            bad.append(f"--help names '{opt}', which no parser accepts")

    # Every option the parser accepts is an item of --help with text.
    with open(options_c, encoding="utf-8") as f:
        source = f.read()
    candidates = {f"-{c}" for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    candidates |= set(re.findall(LONG, source))
    known = sorted(o for o in candidates if accepted(pproc, "", o))
    for opt in known:
        if opt not in in_help:
            bad.append(f"the parser accepts '{opt}' but --help has no item for it")
        elif not any(in_help[opt]):
            bad.append(f"'{opt}' has no help text")
    print(f"accepted by the parser: {' '.join(known)}")
    print(f"items of --help: {len(items)}")
    for b in bad:
        print(f"check_options_help.py: {b}")
    print(f"check_options_help.py: {len(known)} options, {len(bad)} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
