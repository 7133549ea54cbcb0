#!/usr/bin/python3
"""The aggregate file's names are one list (c/src/profile/agg_layout.h), which the
writer (c/src/profile/aggregate_h5.c) and the reader (postproc/src) both use.

usage: agg_names.py ROOT           check the tree at ROOT
       agg_names.py catches ROOT   plant a spelled-out name in a copy of the
                                   reader and expect it reported

Reports (file:line) every string literal in the writer that is one of the
list's names, and every literal in the reader that names a group or dataset
only the aggregate layout has (call_paths, call_path_histograms,
region_table, rank_region_index, thread_region_index, sum_squares,
inclusives, source_files, source_lines, open_calls, aggregate_*): such a
name belongs in agg_layout.h. Exit 1 when there is any, else 0.
"""
import glob
import os
import re
import shutil
import sys
import tempfile

DEFINE = re.compile(r'^#define (SP_AGG_\w+) "([^"]*)"', re.M)
LITERAL = re.compile(r'"((?:\\.|[^"\\\n])*)"')
READER_ONLY = re.compile(r"(^|/)(call_paths|call_path_histograms|region_table|rank_region_index|"
                         r"thread_region_index|sum_squares|inclusives|source_files|source_lines|"
                         r"open_calls|aggregate_\w+)($|/)")


def code_of(text):
    """text with comments blanked (lines kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def literals(path):
    code = code_of(open(path, encoding="utf-8").read())
    for m in LITERAL.finditer(code):
        yield code.count("\n", 0, m.start()) + 1, m.group(1)


def check(root):
    header = os.path.join(root, "c", "src", "profile", "agg_layout.h")
    names = {v for _, v in DEFINE.findall(open(header, encoding="utf-8").read()) if v}
    problems = []
    if not names:
        problems.append(f"{header}: no names")
    writer = os.path.join(root, "c", "src", "profile", "aggregate_h5.c")
    for line, lit in literals(writer):
        if lit in names:
            problems.append(f"c/src/profile/aggregate_h5.c:{line}: \"{lit}\" is spelled out: use "
                            "agg_layout.h's name")
    for path in sorted(glob.glob(os.path.join(root, "postproc", "src", "*.c"))):
        for line, lit in literals(path):
            if READER_ONLY.search(lit):
                problems.append(f"postproc/src/{os.path.basename(path)}:{line}: \"{lit}\" is "
                                "spelled out: use agg_layout.h's names")
    for p in problems:
        print(p)
    print(f"agg_names.py: {len(names)} names, {len(problems)} problems")
    return 1 if problems else 0


def catches(root):
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("c/src", "postproc/src"):
            shutil.copytree(os.path.join(root, part), os.path.join(tmp, part))
        with open(os.path.join(tmp, "postproc/src/reader_source.c"), "a", encoding="utf-8") as f:
            f.write('\nstatic const char *sp_planted = "call_paths/inclusives";\n')
        with open(os.path.join(tmp, "c/src/profile/aggregate_h5.c"), "a", encoding="utf-8") as f:
            f.write('\nstatic const char *sp_planted = "sum_squares";\n')
        import io
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check(tmp)
        text = out.getvalue()
        print(text, end="")
        ok = rc == 1 and "reader_source.c" in text and "aggregate_h5.c" in text
        print("agg_names.py catches: " + ("both caught" if ok else "NOT caught"))
        return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.exit(check(sys.argv[1]))
    if len(sys.argv) == 3 and sys.argv[1] == "catches":
        sys.exit(catches(sys.argv[2]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
