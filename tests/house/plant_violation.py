#!/usr/bin/python3
"""header_rule.py must catch a regression: plants one violation of the
header rule in a copy of c/ and expects header_rule.py to fail with the
matching message.

usage: plant_violation.py CASE ROOT WORKDIR
CASE: no_header, hdf5_include, mpi_include, own_header_not_included,
      used_once, non_static, declared_twice
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def replace(path, old, new):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if old not in text:
        sys.exit(f"plant_violation.py: {old!r} not in {path}: update the plant")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def plant(case, src):
    """Plants CASE into the copy's c/src; returns the expected message (regex)."""
    if case == "no_header":
        # A new module whose cross-file function is declared nowhere.
        with open(os.path.join(src, "base", "planted.c"), "w", encoding="utf-8") as f:
            f.write('#include "sp_internal.h"\n\nint sp__planted(void) { return 1; }\n')
        return r"c/src/base/planted\.c:3: sp__planted is declared in no header"
    if case == "hdf5_include":
        # An MPI-only header that pulls in HDF5 for nothing.
        replace(os.path.join(src, "mpi", "mpi_crowding.h"), "#include <mpi.h>",
                "#include <hdf5.h>\n#include <mpi.h>")
        return r"c/src/mpi/mpi_crowding\.h:\d+: includes <hdf5\.h> but declares nothing"
    if case == "mpi_include":
        replace(os.path.join(src, "base", "serial.h"), "#include <stddef.h>",
                "#include <mpi.h>\n#include <stddef.h>")
        return r"c/src/base/serial\.h:\d+: includes <mpi\.h> but declares nothing"
    if case == "own_header_not_included":
        replace(os.path.join(src, "base", "serial.c"), '#include "serial.h"', "")
        return r"c/src/base/serial\.c:1: does not include its own header serial\.h"
    if case == "used_once":
        # A declared function no other file calls.
        append(os.path.join(src, "base", "serial.h"), "\nSP_HIDDEN int sp__serial_lonely(void);\n")
        append(os.path.join(src, "base", "serial.c"), "\nint sp__serial_lonely(void) { return 0; }\n")
        return r"c/src/base/serial\.h:\d+: sp__serial_lonely is used only in serial\.c"
    if case == "non_static":
        append(os.path.join(src, "base", "serial.c"), "\nint helper_without_static(void) { return 0; }\n")
        return r"c/src/base/serial\.c:\d+: helper_without_static: not static"
    if case == "declared_twice":
        # A prototype repeated in a second header.
        append(os.path.join(src, "base", "serial.h"),
               "\nSP_HIDDEN uint64_t sp__name_hash(const char *s, size_t len);\n")
        return r"c/src/base/(serial|sp_internal)\.h:\d+: sp__name_hash is declared again"
    sys.exit(f"plant_violation.py: unknown case {case}")


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    case, root, work = argv[1:]
    copy = os.path.join(work, case)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(os.path.join(root, "c"), os.path.join(copy, "c"))
    expected = plant(case, os.path.join(copy, "c", "src"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "header_rule.py"), copy],
                       capture_output=True, text=True)
    print(r.stdout, end="")
    ok = r.returncode == 1 and re.search(expected, r.stdout)
    if not ok:
        print(f"plant_violation.py: {case}: expected exit 1 and /{expected}/, "
              f"got exit {r.returncode}")
        return 1
    print(f"plant_violation.py: {case}: caught")
    shutil.rmtree(copy)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
