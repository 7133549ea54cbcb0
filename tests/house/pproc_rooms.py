#!/usr/bin/python3
"""The rooms of scope-profiler-pproc (postproc/README.md, "Source layout").

usage: pproc_rooms.py ROOT

Checks postproc/{cli,charts,report,common} of the source tree ROOT and prints
one line per violation (file:line first); exit 1 when there is any, else 0:

1. Calls and includes run one way: cli may use charts, report and common;
   charts and report may use common; common uses none of them. A file uses
   a room when it includes one of its headers or calls a function that a
   .c file of that room defines.
2. No call cycle between files: a file A that calls a function defined in
   B, B one in ... A (each helper lives with the concern that owns it).
3. Only charts/ includes <plplot.h>: the rest builds without PLplot
   (SCOPE_PROFILER_ENABLE_PLPLOT=OFF).
4. Every function a room's .c defines without static is named sp_ and
   declared in a header of the rooms it may be used from.
5. cli/ (the front) holds at most 25 files.
"""
import os
import re
import sys

ROOMS = ["cli", "charts", "report", "common"]
# room -> rooms it may use (itself included).
MAY_USE = {
    "cli": {"cli", "charts", "report", "common"},
    "charts": {"charts", "common"},
    "report": {"report", "common"},
    "common": {"common"},
}
# Files that stand in for a room in another build (charts_none.c for the
# build without PLplot) define the same names; they are no callees.
STANDINS = {"charts/charts_none.c"}
FRONT_MAX = 25

FUNC_DEF = re.compile(r"^(?!static\b)(?!typedef\b)(?:[A-Za-z_][\w \t\*]*?[\s\*])"
                      r"([A-Za-z_]\w*)\s*\(([^;{}]*?)\)\s*\{", re.M | re.S)
STATIC_DEF = re.compile(r"^static\b[^;{}=]*?\b([A-Za-z_]\w*)\s*\([^;{}]*?\)\s*\{", re.M | re.S)
CALL = re.compile(r"\b(sp_\w+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def strip_comments(text):
    """text without comments, string and character literals, lines kept
    (one pass, so that "//" or "/*" inside a string is no comment)."""
    def blank(m):
        s = m.group(0)
        if s[0] in "\"'":
            return s[0] * 2 + re.sub(r"[^\n]", "", s[2:])
        return re.sub(r"[^\n]", " ", s)
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def load(root):
    files = {}
    for room in ROOMS:
        d = os.path.join(root, "postproc", room)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    files[f"{room}/{name}"] = f.read()
    return files


def room_of(rel):
    return rel.split("/")[0]


def check(root):
    files = load(root)
    problems = []
    headers = {rel.split("/")[1]: rel for rel in files if rel.endswith(".h")}
    code = {rel: strip_comments(t) for rel, t in files.items()}
    defined = {}  # function -> file that defines it (not static)
    for rel, c in code.items():
        if rel.endswith(".c") and rel not in STANDINS:
            for m in FUNC_DEF.finditer(c):
                name = m.group(1)
                if name in ("if", "for", "while", "switch", "return", "sizeof"):
                    continue
                if c[m.start():m.start(1)].lstrip().startswith("#"):
                    continue
                defined.setdefault(name, rel)
    declared = {}
    for rel, c in code.items():
        if rel.endswith(".h"):
            for name in CALL.findall(c):
                declared.setdefault(name, set()).add(rel)
    # 4: definitions named sp_ and declared where their users can see them.
    for name, rel in sorted(defined.items()):
        if name == "main":
            continue
        if not name.startswith("sp_"):
            problems.append(f"postproc/{rel}:1: {name}: not static and not sp_: make it static")
        elif name not in declared:
            problems.append(f"postproc/{rel}:1: {name} is declared in no header of the rooms")
    # 1 and 3: includes.
    for rel, text in files.items():
        here = room_of(rel)
        for m in INCLUDE.finditer(text):
            kind, inc = m.group(1), os.path.basename(m.group(2))
            line = line_of(text, m.start())
            if kind == "<" and inc == "plplot.h" and here != "charts":
                problems.append(f"postproc/{rel}:{line}: includes <plplot.h> outside charts/: "
                                "the postprocessor must build without PLplot")
            if kind == '"' and inc in headers:
                there = room_of(headers[inc])
                if there not in MAY_USE[here]:
                    problems.append(f"postproc/{rel}:{line}: includes {headers[inc]}: "
                                    f"{here}/ may not use {there}/")
    # 1 and 2: calls.
    edges = {}
    for rel, c in code.items():
        if not rel.endswith(".c") or rel in STANDINS:
            continue
        here = room_of(rel)
        for m in CALL.finditer(c):
            callee = defined.get(m.group(1))
            if not callee or callee == rel:
                continue
            if room_of(callee) not in MAY_USE[here]:
                problems.append(f"postproc/{rel}:{line_of(c, m.start())}: calls {m.group(1)} "
                                f"of {callee}: {here}/ may not use {room_of(callee)}/")
            edges.setdefault(rel, {}).setdefault(callee, m.group(1))
    for cycle in cycles(edges):
        ties = ", ".join(f"{a} -> {b} ({edges[a][b]})"
                         for a, b in zip(cycle, cycle[1:] + cycle[:1]))
        problems.append(f"postproc/{cycle[0]}:1: call cycle: {ties}")
    # 5: the front's size.
    front = [rel for rel in files if room_of(rel) == "cli"]
    if len(front) > FRONT_MAX:
        problems.append(f"postproc/cli:1: {len(front)} files in the front (at most {FRONT_MAX})")
    for p in problems:
        print(p)
    print(f"pproc_rooms.py: {len(files)} files in {len(ROOMS)} rooms, {len(problems)} problems")
    return 1 if problems else 0


def cycles(edges):
    """One cycle per strongly connected component of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(path_in(sorted(comp), edges))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def path_in(comp, edges):
    """A cycle through comp[0] inside comp (breadth-first)."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, {})):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path))
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
