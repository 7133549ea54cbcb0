"""Checks the installed Python package scope_profiler_native: it imports
from the install prefix and loads the libscope_profiler installed beside it
(not the build tree's), and its version is the project's.

Usage: check_python_install.py PREFIX VERSION   (PYTHONPATH names the
installed package directory)
"""
import os
import sys


def main():
    prefix = os.path.realpath(sys.argv[1])
    expected_version = sys.argv[2]
    os.environ.pop("SCOPE_PROFILER_LIBRARY", None)
    import scope_profiler_native as sp

    errors = []
    package = os.path.realpath(os.path.dirname(sp.__file__))
    library = os.path.realpath(sp.library_path)
    for what, path in (("package", package), ("library", library)):
        if os.path.commonpath([prefix, path]) != prefix:
            errors.append(f"{what} {path} is not under {prefix}")
    if sp.version() != expected_version:
        errors.append(f"version {sp.version()!r}, expected {expected_version!r}")
    for e in errors:
        print(f"check_python_install: {e}", file=sys.stderr)
    if not errors:
        print(f"check_python_install: {package} loads {library} ({sp.version()})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
