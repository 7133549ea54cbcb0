#!/usr/bin/python3
"""No function over 100 lines in the core and the postprocessor
(STYLE.md, "functions under ~100"; issue 45, item 4).

usage: function_length.py ROOT [LIMIT]

Reads every .c and .h under c/src/ and postproc/ (its reader in src/ and
its rooms cli/, common/, charts/, report/, otf2/) of the source tree
ROOT and prints one line per function whose body, counted from the line of
its opening brace to the line of its closing brace (both included), takes
more than LIMIT (100) lines: file:line: name: N lines. Exit 1 when there is
any, else 0.

A function definition is a brace at file level whose text since the last
file-level `;`, `}` or preprocessor line ends with `)` (after leaving out
any __attribute__) and holds no `=` (an initializer); its name is the word
before the parameters' `(`.
"""
import os
import re
import sys

LIMIT = 100
DIRS = ("c/src", "postproc")


def blank_comments_and_literals(text):
    """text with comments, strings and character literals blanked, newlines
    kept, so that braces inside them do not count and lines stay numbered."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


NAME = re.compile(r"([A-Za-z_]\w*)\s*\($")


def without_attributes(head):
    """head without its __attribute__((...)) groups (parentheses matched)."""
    while True:
        m = re.search(r"\b__attribute__\s*\(", head)
        if not m:
            return head
        depth, j = 0, m.end() - 1
        for j in range(m.end() - 1, len(head)):
            depth += {"(": 1, ")": -1}.get(head[j], 0)
            if depth == 0:
                break
        head = head[:m.start()] + " " + head[j + 1:]


def function_name(head):
    """The name of the function whose head (text before its brace) this is,
    or None when the brace opens something else."""
    head = without_attributes(head).rstrip()
    if not head.endswith(")") or "=" in head:
        return None
    depth = 0
    for j in range(len(head) - 1, -1, -1):  # back to the parameters' `(`
        depth += {")": 1, "(": -1}.get(head[j], 0)
        if depth == 0:
            m = NAME.search(head[:j + 1])
            return m.group(1) if m else None
    return None


def functions(text):
    """(name, first line, line count) of every function defined in text."""
    code = blank_comments_and_literals(text)
    # Preprocessor lines end a head too (a function follows an #include).
    # Directives, with their continued lines, are blanked to a `;`.
    code = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                  lambda m: ";" + re.sub(r"[^\n]", " ", m.group(0)[1:]), code)
    depth, head_start, line = 0, 0, 1
    open_line, name = 0, None
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0:
                name = function_name(code[head_start:i])
                open_line = line
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if name:
                    yield name, open_line, line - open_line + 1
                name = None
                head_start = i + 1
            depth = max(depth, 0)
        elif c == ";" and depth == 0:
            head_start = i + 1


def sources(root):
    for d in DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(base, f)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1]
    limit = int(argv[2]) if len(argv) == 3 else LIMIT
    bad = 0
    seen = 0
    for path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, root)
        for name, line, count in functions(text):
            seen += 1
            if count > limit:
                print(f"{rel}:{line}: {name}: {count} lines (more than {limit})")
                bad += 1
    if seen == 0:
        print(f"function_length.py: no function found under {root}", file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
