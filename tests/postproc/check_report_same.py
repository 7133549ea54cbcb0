#!/usr/bin/env python3
"""check_report_same.py - the data of reports written two ways is the same.

Usage: check_report_same.py A.html B.html [A2.html B2.html ...]

Each pair: report.html written with its ranks' pairs loaded whole and
written from the reader's merge (SCOPE_PROFILER_READER_STREAM=0 streams
every rank, html_stream.c): the embedded data objects must be equal key by
key (only "generator" may differ: none does today). Exit 0 and "PASS same"
when every pair is equal, 1 with the first difference otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import fail, report_data  # noqa: E402


def first_diff(a, b, path="data"):
    if type(a) is not type(b):
        return "%s: %r against %r" % (path, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: only in %s" % (path, k, "the first" if k in a else "the second")
            d = first_diff(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d items against %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r against %r" % (path, a, b)


def main(argv):
    if len(argv) < 3 or len(argv) % 2 == 0:
        print(__doc__)
        return 2
    for a, b in zip(argv[1::2], argv[2::2]):
        da, db = report_data(a), report_data(b)
        da.pop("generator", None)
        db.pop("generator", None)
        d = first_diff(da, db)
        if d:
            fail("%s and %s differ: %s" % (a, b, d))
        print("ok: %s = %s (%d lanes)" % (a, b, len(da.get("lanes", []))))
    print("PASS same")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
