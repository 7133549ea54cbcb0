#!/usr/bin/env python3
"""Holds two documentation tables to the code they describe.

  tables.py build-options ROOT   docs/install.md's "Build options" table against the
                                 option() lines of CMakeLists.txt: every
                                 SCOPE_PROFILER_ENABLE_* option has a row with
                                 its default, and every row names an option.
  tables.py spack-variants ROOT  docs/install.md's "Variants:" sentence against
                                 the variant() calls of the Spack package: the
                                 same names with the same defaults.
  tables.py catches CASE ROOT    plants one mistake (a row or variant left out,
                                 a wrong default) in copies of the texts and
                                 expects the check to report it.

Exit 0 when the texts agree, 1 with one line per disagreement otherwise.
"""
import re
import sys
from pathlib import Path

from plant import run_catch

PACKAGE = "spack/packages/scope-profiler/package.py"


def cmake_options(cmake_text):
    """{name: 'ON'|'OFF'|'AUTO'} of the SCOPE_PROFILER_ENABLE_* options (option(), or a
    cache string set(... AUTO CACHE STRING ...) for a three-way one)."""
    found = {}
    for m in re.finditer(r'option\((SCOPE_PROFILER_ENABLE_\w+)\s+"[^"]*"\s+(ON|OFF)\)',
                         cmake_text):
        found[m.group(1)] = m.group(2)
    for m in re.finditer(r'set\((SCOPE_PROFILER_ENABLE_\w+)\s+(AUTO|ON|OFF)\s+CACHE\s+STRING\b',
                         cmake_text):
        found[m.group(1)] = m.group(2)
    return found


def build_rows(install_text):
    """{name: default} of the rows of docs/install.md's Build options table."""
    part = install_text.split("## Build options", 1)
    if len(part) < 2:
        return None
    rows = {}
    for line in part[1].splitlines():
        if line.startswith("## "):
            break
        m = re.match(r"\|\s*`(SCOPE_PROFILER_\w+)`\s*\|\s*(\w+)\s*\|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def check_build_options(cmake_text, install_text):
    options = cmake_options(cmake_text)
    rows = build_rows(install_text)
    if rows is None:
        return ["docs/install.md has no '## Build options' section"]
    errors = []
    if not options:
        errors.append("CMakeLists.txt: no SCOPE_PROFILER_ENABLE_* option found")
    for name, default in sorted(options.items()):
        if name not in rows:
            errors.append(f"docs/install.md Build options: no row for {name} (default {default})")
        elif rows[name] != default:
            errors.append(f"docs/install.md Build options: {name} default {rows[name]}, "
                          f"CMakeLists.txt says {default}")
    for name in sorted(set(rows) - set(options)):
        errors.append(f"docs/install.md Build options: {name} is not an option of CMakeLists.txt")
    return errors


def package_variants(package_text):
    """{name: True|False} of the variant() calls of the Spack package."""
    found = {}
    for m in re.finditer(r'variant\(\s*"(\w+)"\s*,\s*default\s*=\s*(True|False)', package_text):
        found[m.group(1)] = m.group(2) == "True"
    return found


def install_variants(install_text):
    """{name: True|False} of docs/install.md's 'Variants:' sentence."""
    m = re.search(r"^Variants:(.*?)(?:\n\n|\Z)", install_text, re.S | re.M)
    if not m:
        return None
    return {name: state == "on"
            for name, state in re.findall(r"`(\w+)` \((on|off)\)", m.group(1))}


def check_spack_variants(package_text, install_text):
    variants = package_variants(package_text)
    listed = install_variants(install_text)
    if listed is None:
        return ["docs/install.md has no paragraph starting 'Variants:'"]
    errors = []
    if not variants:
        errors.append(f"{PACKAGE}: no variant() found")
    for name, default in sorted(variants.items()):
        word = "on" if default else "off"
        if name not in listed:
            errors.append(f"docs/install.md Variants: `{name}` ({word}) is missing")
        elif listed[name] != default:
            errors.append(f"docs/install.md Variants: `{name}` is said "
                          f"{'on' if listed[name] else 'off'}, the package has {word}")
    for name in sorted(set(listed) - set(variants)):
        errors.append(f"docs/install.md Variants: `{name}` is not a variant of {PACKAGE}")
    return errors


def texts(root):
    root = Path(root)
    return {
        "cmake": (root / "CMakeLists.txt").read_text(),
        "package": (root / PACKAGE).read_text(),
        "install": (root / "docs/install.md").read_text(),
    }


def run_checks(which, t):
    if which == "build-options":
        return check_build_options(t["cmake"], t["install"])
    return check_spack_variants(t["package"], t["install"])


# Each case: the check it belongs to, the text it changes, and the change.
CATCHES = {
    "row_missing": ("build-options", "install",
                    lambda s: re.sub(r"^\| `SCOPE_PROFILER_ENABLE_PLPLOT`.*\n", "", s, flags=re.M)),
    "row_default": ("build-options", "install",
                    lambda s: s.replace("| `SCOPE_PROFILER_ENABLE_LIKWID` | OFF |",
                                        "| `SCOPE_PROFILER_ENABLE_LIKWID` | ON |")),
    "row_unknown": ("build-options", "install",
                    lambda s: s.replace("| `SCOPE_PROFILER_ENABLE_MPI` |",
                                        "| `SCOPE_PROFILER_ENABLE_GPU` | OFF | x |\n"
                                        "| `SCOPE_PROFILER_ENABLE_MPI` |")),
    "variant_missing": ("spack-variants", "install",
                        lambda s: s.replace("`plplot` (on), ", "")),
    "variant_default": ("spack-variants", "install",
                        lambda s: s.replace("`python` (off)", "`python` (on)")),
}


def main(argv):
    if len(argv) == 3 and argv[1] in ("build-options", "spack-variants"):
        errors = run_checks(argv[1], texts(argv[2]))
        for e in errors:
            print(e)
        return 1 if errors else 0
    if len(argv) == 4 and argv[1] == "catches" and argv[2] in CATCHES:
        return run_catch(argv[2], CATCHES, texts(argv[3]), run_checks)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
