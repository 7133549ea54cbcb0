#!/usr/bin/python3
"""Every case of the C test programs is registered as a CTest test.

usage: check_cases.py CTEST BUILD_DIR PROGRAM...

Each PROGRAM (a test program built on tests/common/sp_test_cases.h) prints
its cases with --list. The tests CTest has in BUILD_DIR come from
`ctest --show-only=json-v1`; a case counts as registered when some test's
command has the program followed by the case name (or, for a CMake
script, -DEXE=PROGRAM and -DCASE=NAME). Exit 1, one line per
case, when a case exists in C but no test runs it (it would never run).
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    ctest, build, programs = argv[1], argv[2], argv[3:]
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True,
                         capture_output=True, text=True).stdout
    runs = set()  # (program path, first argument)
    for test in json.loads(out)["tests"]:
        cmd = test.get("command", [])
        for i, word in enumerate(cmd[:-1]):
            runs.add((os.path.realpath(word), cmd[i + 1]))
        # A CMake script that runs the program: cmake -DEXE=PROGRAM -DCASE=NAME -P ...
        defs = dict(w[2:].split("=", 1) for w in cmd if w.startswith("-D") and "=" in w)
        if "EXE" in defs and "CASE" in defs:
            runs.add((os.path.realpath(defs["EXE"]), defs["CASE"]))
    missing = []
    total = 0
    for prog in programs:
        listed = subprocess.run([prog, "--list"], check=True, capture_output=True,
                                text=True).stdout.split()
        if not listed:
            missing.append(f"{prog}: --list printed no case")
        real = os.path.realpath(prog)
        for case in listed:
            total += 1
            if (real, case) not in runs:
                missing.append(f"{os.path.basename(prog)} {case}: no CTest test runs this case")
    for m in missing:
        print(m)
    print(f"{total} cases of {len(programs)} programs, {total - len(missing)} registered")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
