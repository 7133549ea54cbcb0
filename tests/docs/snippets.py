#!/usr/bin/python3
"""Code blocks of the documentation, each tested or explicitly skipped.

usage: snippets.py check ROOT CASES_DIR
       snippets.py get ROOT NAME
       snippets.py links ROOT

Every fenced code block (```) in the documentation files below must have,
on the line just before its opening fence, either

    <!-- snippet: NAME -->                 tested by CASES_DIR/NAME.sh
    <!-- snippet: skip (REASON) -->         not code, or not runnable here

`check` fails (exit 1, one line per problem, file:line first) on a block
without a marker, a skip without a reason, a name used twice, a named
block without its case script, or a case script without its block.
`get` prints the block NAME as it is in the file (the fences excluded,
the list indentation of the fence removed), for the case scripts.
`links` fails (exit 1, one line per problem) on a relative link
[text](path#anchor) outside code blocks whose file does not exist or,
for a Markdown file, whose anchor is not one of its headings.
"""
import glob
import os
import re
import sys

# The files whose code blocks are checked, relative to the source root.
DOC_FILES = ["README.md", "docs/*.md", "bindings/README.md",
             "examples/fortran/README.md", "postproc/README.md"]

FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SKIP = re.compile(r"^skip\s+\((.+)\)$")


def doc_files(root):
    """The documentation files that exist, in a fixed order."""
    files = []
    for pattern in DOC_FILES:
        files.extend(sorted(glob.glob(os.path.join(root, pattern))))
    return files


def blocks(path):
    """Yields (line number, marker text or None, indentation, code) per block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m.group(1), m.group(2)
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        start = i
        i += 1
        code = []
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and lines[i].strip().strip(fence[0]) == ""):
            line = lines[i]
            code.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1  # the closing fence
        yield start + 1, (marker.group(1) if marker else None), "\n".join(code) + "\n"


def check(root, cases_dir):
    problems = []
    names = {}
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        for line, marker, _ in blocks(path):
            where = f"{rel}:{line}"
            if marker is None:
                problems.append(f"{where}: code block without <!-- snippet: NAME --> or "
                                "<!-- snippet: skip (reason) --> on the line before it")
            elif marker.startswith("skip"):
                if not SKIP.match(marker):
                    problems.append(f"{where}: a skip needs a reason: <!-- snippet: skip (why) -->")
            elif not NAME.match(marker):
                problems.append(f"{where}: snippet name '{marker}' is not lowercase-with-dashes")
            elif marker in names:
                problems.append(f"{where}: snippet '{marker}' also at {names[marker]}")
            else:
                names[marker] = where
                if not os.path.isfile(os.path.join(cases_dir, marker + ".sh")):
                    problems.append(f"{where}: snippet '{marker}' has no case script "
                                    f"{os.path.relpath(cases_dir, root)}/{marker}.sh")
    for case in sorted(os.listdir(cases_dir)):
        if case.endswith(".sh") and case[:-3] not in names:
            problems.append(f"{os.path.relpath(cases_dir, root)}/{case}: no code block "
                            f"<!-- snippet: {case[:-3]} --> in the documentation")
    for p in problems:
        print(p)
    print(f"snippets.py: {len(names)} tested blocks, {len(problems)} problems")
    return 1 if problems else 0


def get(root, name):
    for path in doc_files(root):
        for _, marker, code in blocks(path):
            if marker == name:
                sys.stdout.write(code)
                return 0
    print(f"snippets.py: no block <!-- snippet: {name} -->", file=sys.stderr)
    return 1


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and fence is None:
            fence = m.group(2)[0] * 3
        elif m and fence is not None and m.group(2).startswith(fence):
            fence = None
        elif fence is None:
            yield i, line


def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    result = set()
    for _, line in prose_lines(path):
        m = re.match(r"^#+\s+(.*?)\s*$", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).lower())
            result.add(text.replace(" ", "-"))
    return result


def links(root):
    problems = []
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        for number, line in prose_lines(path):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                if not os.path.exists(dest):
                    problems.append(f"{rel}:{number}: {target}: no such file")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{rel}:{number}: {target}: no heading #{anchor}")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "links":
        return links(argv[2])
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "get":
        return get(argv[2], argv[3])
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
