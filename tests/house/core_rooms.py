#!/usr/bin/python3
"""The rooms of the core (docs/design.md, "Rooms") and no call cycle between
files of the core or of the reader library.

usage: core_rooms.py ROOT

Checks c/src/ and postproc/src/ of the source tree ROOT and prints one line
per violation (file:line first); exit 1 when there is any, else 0:

1. Every .c and .h of c/src/ lives in a room, c/src/ROOM/, and the rooms
   are those listed here and in c/CMakeLists.txt's SP_CORE_ROOMS.
2. Calls run one way between rooms: a file of a room names only functions
   (and global variables) defined in its own room or in a room it may use
   (MAY_USE, below). A file uses another when it calls, or takes the
   address of, a function that the other's .c defines without static, or
   reads or writes a global variable the other defines. A lower room that must
   reach up goes through the table sp__up (base/sp_internal.h), filled by
   the session; a table entry is no call by name.
3. No call cycle between files: of c/src/ (whatever their rooms) and of
   postproc/src/ (the reader library): a file A that calls a function
   defined in B, B one in ... A.

Stand-ins that replace a file in another build (mpi_stub.c for the build
without MPI, likwid_stub.c without LIKWID) define the same names: they are
no callees. Calls are found in the source (comments and string literals
blanked), so the check needs no build and takes well under a second.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pproc_rooms import FUNC_DEF, cycles, line_of, strip_comments  # noqa: E402

# The rooms, lowest first, and the rooms each may use (itself included).
# likwid, nvtx, mpi_profile and openmp are side rooms that the build may leave out:
# only the session names them.
ROOMS = ["base", "mpi", "record", "spill", "write", "likwid", "nvtx", "io", "mpi_profile", "openmp",
         "profile", "recover", "session"]
MAY_USE = {
    "base": {"base"},
    "mpi": {"base", "mpi"},
    "record": {"base", "mpi", "record"},
    "spill": {"base", "mpi", "record", "spill"},
    "write": {"base", "mpi", "record", "spill", "write"},
    "likwid": {"base", "mpi", "record", "write", "likwid"},
    "nvtx": {"base", "record", "nvtx"},
    "io": {"base", "mpi", "record", "spill", "write", "io"},
    "mpi_profile": {"base", "mpi", "record", "spill", "io", "mpi_profile"},
    "openmp": {"base", "record", "openmp"},
    "profile": {"base", "mpi", "record", "spill", "write", "profile"},
    "recover": {"base", "mpi", "record", "spill", "write", "profile", "recover"},
    "session": set(ROOMS),
}
STANDINS = {"mpi/mpi_stub.c", "likwid/likwid_stub.c", "nvtx/nvtx_stub.c", "openmp/openmp_stub.c"}
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof"}
# Any use of a name, a call or its address taken (a hook set by name).
USE = re.compile(r"\b(sp_\w+)\b")
# A global variable a file defines for others (not static): its readers use
# that file as much as its callers do.
DATA_DEF = re.compile(r"^(?!static\b|extern\b|typedef\b|return\b)(?:[A-Za-z_][\w \t\*]*?[\s\*])"
                      r"(sp_\w+)\s*(?:\[[^\]]*\])*\s*(?:__attribute__\s*\(\(.*?\)\))?\s*(?:=|;)",
                      re.M)


def load(top):
    """{path relative to top: text} of the .c and .h files under top."""
    files = {}
    for base, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                path = os.path.join(base, name)
                with open(path, encoding="utf-8") as f:
                    files[os.path.relpath(path, top).replace(os.sep, "/")] = f.read()
    return files


def graph(files, standins=()):
    """The file-level call graph: {caller: {callee: (name, line)}}."""
    code = {rel: strip_comments(t) for rel, t in files.items() if rel.endswith(".c")}
    defined = {}
    for rel, c in code.items():
        if rel in standins:
            continue
        for m in FUNC_DEF.finditer(c):
            name = m.group(1)
            if name in NOT_FUNCTIONS or c[m.start():m.start(1)].lstrip().startswith("#"):
                continue
            defined.setdefault(name, rel)
        for m in DATA_DEF.finditer(c):
            defined.setdefault(m.group(1), rel)
    edges = {}
    for rel, c in code.items():
        for m in USE.finditer(c):
            callee = defined.get(m.group(1))
            if callee and callee != rel:
                edges.setdefault(rel, {}).setdefault(callee, (m.group(1), line_of(c, m.start())))
    return edges


def cycle_problems(prefix, edges):
    out = []
    for cycle in cycles(edges):
        ties = ", ".join(f"{a} -> {b} ({edges[a][b][0]})"
                         for a, b in zip(cycle, cycle[1:] + cycle[:1]))
        out.append(f"{prefix}/{cycle[0]}:1: call cycle: {ties}")
    return out


def cmake_rooms(root):
    path = os.path.join(root, "c", "CMakeLists.txt")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"set\(SP_CORE_ROOMS([^)]*)\)", f.read())
    return m.group(1).split() if m else None


def check(root):
    problems = []
    src = os.path.join(root, "c", "src")
    core = load(src)
    # 1: every file in a known room.
    for rel in core:
        room = rel.split("/")[0] if "/" in rel else None
        if room is None:
            problems.append(f"c/src/{rel}:1: not in a room: move it to c/src/ROOM/ "
                            f"(rooms: {' '.join(ROOMS)})")
        elif room not in MAY_USE:
            problems.append(f"c/src/{rel}:1: {room}/ is not a room of core_rooms.py: "
                            "give it its place in ROOMS and MAY_USE and in docs/design.md")
    listed = cmake_rooms(root)
    if listed is not None and sorted(listed) != sorted(ROOMS):
        problems.append(f"c/CMakeLists.txt:1: SP_CORE_ROOMS is {' '.join(listed)}, "
                        f"core_rooms.py's rooms are {' '.join(ROOMS)}")
    # 2: calls one way between rooms.
    edges = graph(core, STANDINS)
    for caller in sorted(edges):
        here = caller.split("/")[0]
        if here not in MAY_USE:
            continue
        for callee, (name, line) in sorted(edges[caller].items()):
            there = callee.split("/")[0]
            if there not in MAY_USE[here]:
                problems.append(f"c/src/{caller}:{line}: calls {name} of {callee}: "
                                f"{here}/ may not use {there}/ (a call up goes through "
                                "sp__up)")
    # 3: no call cycle between files.
    problems += cycle_problems("c/src", edges)
    reader = load(os.path.join(root, "postproc", "src"))
    reader_edges = graph(reader)
    problems += cycle_problems("postproc/src", reader_edges)
    for p in problems:
        print(p)
    nedges = sum(len(v) for v in edges.values()) + sum(len(v) for v in reader_edges.values())
    print(f"core_rooms.py: {len(core)} core files in {len(ROOMS)} rooms, {len(reader)} reader "
          f"files, {nedges} file-to-file uses, {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
