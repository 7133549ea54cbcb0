#!/usr/bin/env python3
"""Holds what describes or mirrors the settings to c/src/session/settings.def.

  settings.py table ROOT           docs/settings.md's table: a row per setting
                                   with its default, the sp_config field for
                                   CONFIG rows, and no row without a setting.
  settings.py header ROOT          scope_profiler.h: sp_config's fields are the
                                   CONFIG rows, and sp_setup's comment names
                                   each CONFIG row's variable.
  settings.py bindings ROOT LAYOUT the Fortran, ctypes and C++ mirrors of
                                   sp_config against the C layout that the
                                   program settings_layout printed to the file
                                   LAYOUT (names, order, offsets, sizes), and
                                   each binding's setup() takes every field.
  settings.py catches CASE ROOT [LAYOUT]
                                   plants one mistake in a copy of a text and
                                   expects the matching check to report it.

Exit 0 when everything agrees, 1 with one line per disagreement.
"""
import ast
import re
import sys
from pathlib import Path

from plant import run_catch

DEF = "c/src/session/settings.def"
HEADER = "c/include/scope_profiler.h"
FORTRAN = "fortran/scope_profiler.F90"
CTYPES = "bindings/python/scope_profiler_native/_lib.py"
PYSESSION = "bindings/python/scope_profiler_native/_session.py"
TABLE = "docs/settings.md"
CPP = "bindings/cpp/scope_profiler.hpp"

# Fields a binding does not offer on purpose, with the reason.
NOT_OFFERED = {
    ("python", "profile_mpi"): "not tried from Python: whether MPI calls are interposed "
                               "depends on the order in which Python loads libmpi and this "
                               "library (bindings/README.md); SCOPE_PROFILER_PROFILE_MPI=1 "
                               "sets it for a Python job",
}

# bind(C) kinds and ctypes types: (size, alignment) on LP64.
FORTRAN_KINDS = {"integer(c_int)": (4, 4), "integer(c_int64_t)": (8, 8), "type(c_ptr)": (8, 8),
                 "real(c_double)": (8, 8), "integer(c_int32_t)": (4, 4)}
CTYPES_SIZES = {"c_int": 4, "c_int64": 8, "c_char_p": 8, "c_double": 8, "c_int32": 4}


def split_args(text):
    """Top-level comma-separated arguments of a macro call's inside."""
    args, depth, cur, quote = [], 0, "", False
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur += c
            if c == "\\":
                cur += text[i + 1]
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur += c
        elif c in "(":
            depth += 1
            cur += c
        elif c == ")":
            depth -= 1
            cur += c
        elif c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    args.append(cur.strip())
    return args


def unquote(s):
    """A C string literal (adjacent literals joined) as text."""
    return "".join(ast.literal_eval(p) for p in re.findall(r'"(?:\\.|[^"\\])*"', s))


def rows(root):
    """The rows of settings.def as dicts, in order."""
    text = (Path(root) / DEF).read_text()
    body = text[text.index("#define SP_SETTINGS(XX)"):]
    body = re.sub(r"\\\n", " ", body)
    out = []
    keys = ["env", "where", "field", "kind", "def", "low", "high", "over", "unit", "choices",
            "shown", "doc"]
    for m in re.finditer(r"\bXX\(", body):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(body[i], 0) if body[i] != '"' else 0
            if body[i] == '"':
                i = body.index('"', i + 1)
                while body[i - 1] == "\\":
                    i = body.index('"', i + 1)
            i += 1
        args = split_args(body[m.end():i - 1])
        if len(args) != len(keys):
            raise SystemExit(f"{DEF}: row {args[0]!r} has {len(args)} fields, not {len(keys)}")
        row = dict(zip(keys, args))
        for k in ("unit", "choices", "shown", "doc"):
            row[k] = unquote(row[k])
        row["var"] = "SCOPE_PROFILER_" + row["env"]
        out.append(row)
    return out


def strip_md(cell):
    return cell.replace("`", "").strip()


def table_rows(page):
    """[(first cell, default cell)] of the table of docs/settings.md (the page's only one)."""
    out = []
    for line in page.splitlines():
        cells = [c for c in line.split("|")[1:-1]]
        if len(cells) >= 3 and "`" in cells[0]:
            out.append((cells[0], cells[1]))
    return out


def names_in_cell(cell):
    """The variables a first cell names: `field` / `VAR`, or `A`, `_B`, ... (A's prefix)."""
    names = re.findall(r"`([A-Z_][A-Z0-9_]*)`", cell)
    out, prefix = [], ""
    for n in names:
        if n.startswith("_") and prefix:
            out.append(prefix + n)
        else:
            out.append(n)
            prefix = n.split("_")[0]
    return ["SCOPE_PROFILER_" + n for n in out]


def check_table(t, rs):
    errors, seen = [], set()
    by_var = {r["var"]: r for r in rs}
    for cell, default in table_rows(t["table"]):
        for var in names_in_cell(cell):
            seen.add(var)
            r = by_var.get(var)
            if r is None:
                errors.append(f"{TABLE}: {var} is no row of {DEF}")
                continue
            if len(names_in_cell(cell)) == 1 and strip_md(default) != r["shown"]:
                errors.append(f"{TABLE}: {var} default {strip_md(default)!r}, "
                              f"{DEF} says {r['shown']!r}")
            if r["where"] == "CONFIG" and f"`{r['field']}`" not in cell:
                errors.append(f"{TABLE}: the row of {var} does not name the "
                              f"sp_config field `{r['field']}`")
    for r in rs:
        if r["var"] not in seen:
            errors.append(f"{TABLE}: no row for {r['var']} ({r['doc']})")
    return errors


def struct_fields(header):
    m = re.search(r"typedef struct sp_config \{(.*?)\} sp_config;", header, re.S)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return re.findall(r"(\w+)\s*;", body)


def check_header(t, rs):
    errors = []
    config = [r["field"] for r in rs if r["where"] == "CONFIG"]
    fields = struct_fields(t["header"])
    if sorted(fields) != sorted(config):
        errors.append(f"{HEADER}: sp_config has {fields}, {DEF}'s CONFIG rows {config}")
    m = re.search(r"/\*\*\s*\n\s*\* Starts a profiling session(.*?)\*/", t["header"], re.S)
    comment = m.group(1) if m else ""
    for r in rs:
        if r["where"] == "CONFIG" and r["var"] not in comment:
            errors.append(f"{HEADER}: sp_setup's comment does not name {r['var']}")
    return errors


def c_layout(text):
    fields, size = [], None
    for line in text.splitlines():
        parts = line.split()
        if parts[0] == "sizeof":
            size = int(parts[1])
        else:
            fields.append((parts[0], int(parts[1]), int(parts[2])))
    return fields, size


def fortran_layout(src):
    m = re.search(r"type, bind\(C\) :: sp_config_c\n(.*?)end type sp_config_c", src, re.S)
    out, off = [], 0
    for line in m.group(1).splitlines():
        line = line.split("!")[0].strip()
        if not line:
            continue
        kind, name = [p.strip() for p in line.split("::")]
        size, align = FORTRAN_KINDS[kind]
        off = (off + align - 1) // align * align
        out.append((name, off, size))
        off += size
    return out


def ctypes_layout(src):
    m = re.search(r"class SpConfig\(ctypes.Structure\):.*?_fields_ = \[(.*?)\]", src, re.S)
    out, off = [], 0
    for name, typ in re.findall(r'\("(\w+)",\s*ctypes\.(\w+)\)', m.group(1)):
        size = CTYPES_SIZES[typ]
        off = (off + size - 1) // size * size
        out.append((name, off, size))
        off += size
    return out


def fortran_setup_args(src):
    m = re.search(r"function sp_setup_config\((.*?)\) result", src, re.S)
    return set(re.findall(r"\w+", m.group(1).replace("&", " ")))


def python_setup_args(src):
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "setup":
            return {a.arg for a in node.args.args}
    return set()


def cpp_members(src):
    m = re.search(r"struct Config \{(.*?)\n\};", src, re.S)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    members = set(re.findall(r"^\s*[\w:]+\s+(\w+);", body, re.M))
    assigned = set(re.findall(r"\bc\.(\w+)\s*=", src))
    return members, assigned


def check_bindings(t, rs, layout_text):
    errors = []
    c_fields, c_size = c_layout(layout_text)
    config = [r["field"] for r in rs if r["where"] == "CONFIG"]
    if sorted(f for f, _, _ in c_fields) != sorted(config):
        errors.append(f"settings_layout: fields {c_fields} are not the CONFIG rows {config}")
    c_sorted = sorted(c_fields, key=lambda f: f[1])
    for name, mirror in (("Fortran sp_config_c", fortran_layout(t["fortran"])),
                         ("ctypes SpConfig", ctypes_layout(t["ctypes"]))):
        if mirror != c_sorted:
            errors.append(f"{name}: {mirror} differs from C's sp_config {c_sorted}")
        end = mirror[-1][1] + mirror[-1][2] if mirror else 0
        if c_size is not None and (end + 7) // 8 * 8 != c_size:
            errors.append(f"{name}: ends at {end}, C's sizeof(sp_config) is {c_size}")
    offered = {"fortran": fortran_setup_args(t["fortran"]),
               "python": python_setup_args(t["pysession"])}
    members, assigned = cpp_members(t["cpp"])
    offered["cpp"] = members & assigned
    for binding, names in sorted(offered.items()):
        for field in config:
            if field not in names and (binding, field) not in NOT_OFFERED:
                errors.append(f"{binding} setup: does not take the sp_config field {field}")
    return errors


def texts(root):
    root = Path(root)
    return {"table": (root / TABLE).read_text(), "header": (root / HEADER).read_text(),
            "fortran": (root / FORTRAN).read_text(), "ctypes": (root / CTYPES).read_text(),
            "pysession": (root / PYSESSION).read_text(), "cpp": (root / CPP).read_text()}


# Each case: the check, the text it changes, and the change.
CATCHES = {
    "table_row_missing": ("table", "table",
                          lambda s: re.sub(r"^\| `VERBOSE`.*\n", "", s, flags=re.M)),
    "table_default": ("table", "table",
                      lambda s: s.replace("| `FINALIZE_TIMEOUT` | 600 |",
                                          "| `FINALIZE_TIMEOUT` | 60 |")),
    "table_unknown": ("table", "table",
                      lambda s: s.replace("| `VERBOSE` |", "| `QUIET` | 0 | x |\n| `VERBOSE` |")),
    "header_comment": ("header", "header",
                       lambda s: s.replace("SCOPE_PROFILER_SAMPLE_MS=n", "SAMPLE_MS=n")),
    "fortran_order": ("bindings", "fortran",
                      lambda s: s.replace("    integer(c_int) :: aggregate\n    integer(c_int) :: sample_ms",
                                          "    integer(c_int) :: sample_ms\n    integer(c_int) :: aggregate")),
    "ctypes_type": ("bindings", "ctypes",
                    lambda s: s.replace('("buffer_limit", ctypes.c_int64)',
                                        '("buffer_limit", ctypes.c_int)')),
    "cpp_field": ("bindings", "cpp",
                  lambda s: s.replace("c.sample_ms = cfg.sample_ms;", "")),
}


def run(which, t, rs, layout):
    if which == "table":
        return check_table(t, rs)
    if which == "header":
        return check_header(t, rs)
    return check_bindings(t, rs, layout)


def main(argv):
    if len(argv) >= 3 and argv[1] in ("table", "header", "bindings"):
        layout = Path(argv[3]).read_text() if len(argv) > 3 else ""
        errors = run(argv[1], texts(argv[2]), rows(argv[2]), layout)
        print("\n".join(errors) if errors else f"settings.py {argv[1]}: agrees with {DEF}")
        return 1 if errors else 0
    if len(argv) >= 4 and argv[1] == "catches" and argv[2] in CATCHES:
        layout = Path(argv[4]).read_text() if len(argv) > 4 else ""
        return run_catch(argv[2], CATCHES, texts(argv[3]),
                         lambda which, t: run(which, t, rows(argv[3]), layout))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
