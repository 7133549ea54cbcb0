#!/usr/bin/python3
"""function_length.py must catch a regression: plants a function of 101
lines (brace to brace) and one of exactly 100 in a copy of c/src/ and
postproc/, and expects function_length.py to report the first and only it.

usage: plant_long_function.py CASE ROOT WORKDIR
CASE: core (planted in c/src/base/serial.c), postproc (in postproc/src/reader_clock.c),
      braces_in_literals (the 101-line one holds `{` and `}` in strings,
      character literals and comments, which must not end it early)
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLANTS = {
    "core": "c/src/base/serial.c",
    "postproc": "postproc/src/reader_clock.c",
    "braces_in_literals": "c/src/base/serial.c",
}


def function(name, lines, literals=False):
    """A static C function whose braces are `lines` lines apart, both included."""
    body = [f"static int {name}(int x) {{"]
    if literals:
        body += ['  const char *s = "}}}";', "  char c = '}';", "  /* } */", "  // }",
                 "  x += s[0] + c;"]
    while len(body) < lines - 2:
        body.append(f"  x += {len(body)};")
    body += ["  return x;", "}"]
    assert len(body) == lines
    return "\n" + "\n".join(body) + "\n"


def main(argv):
    if len(argv) != 4 or argv[1] not in PLANTS:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    case, root, work = argv[1:]
    copy = os.path.join(work, "long_" + case)
    shutil.rmtree(copy, ignore_errors=True)
    for d in ("c/src", "postproc"):
        shutil.copytree(os.path.join(root, d), os.path.join(copy, d))
    target = PLANTS[case]
    with open(os.path.join(copy, target), "a", encoding="utf-8") as f:
        f.write(function("sp_planted_long", 101, literals=case == "braces_in_literals"))
        f.write(function("sp_planted_at_limit", 100))
    r = subprocess.run([sys.executable, os.path.join(HERE, "function_length.py"), copy],
                       capture_output=True, text=True)
    print(r.stdout, end="")
    print(r.stderr, end="", file=sys.stderr)
    expected = re.escape(target) + r":\d+: sp_planted_long: 101 lines"
    ok = (r.returncode == 1 and re.search(expected, r.stdout)
          and "sp_planted_at_limit" not in r.stdout)
    if not ok:
        print(f"plant_long_function.py: {case}: expected exit 1 and /{expected}/ without "
              f"sp_planted_at_limit, got exit {r.returncode}")
        return 1
    print(f"plant_long_function.py: {case}: caught")
    shutil.rmtree(copy)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
