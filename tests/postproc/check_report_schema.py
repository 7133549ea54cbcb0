#!/usr/bin/python3
"""report.html's data against its contract, docs/report-data.md.

usage: check_report_schema.py DOC VIEWER_JS|REPORT_DIR REPORT.html...

VIEWER_JS: a script, or a folder whose *.js are the viewer's scripts
(postproc/report/: viewer.js and the report_*.js of the sections).

Reads the key table of DOC (between the "report-data keys" markers), the
JSON object of each report (<script id="sp-data">) and the viewer's scripts, and
fails (exit 1, one line per problem) when
  - a report holds a key path that the table does not list;
  - a key of the table that is not marked optional is missing from a report
    (a key under an optional one counts as optional, the keys of an array's
    elements count only when it has some);
  - a key's JSON type is not the table's;
  - no script of the viewer (viewer.js and every other *.js beside it, the
    sections of report_*.js; JS may name viewer.js or its folder) names a key
    of the table (as .key, 'key' or "key") unless the table says "not read by the viewer".
"""
import glob
import json
import os
import re
import sys

TYPES = {"int": (int,), "float": (float, int), "string": (str,), "object": (dict,),
         "int[]": (list,), "int[][]": (list,), "string[]": (list,), "object[]": (list,),
         "array[]": (list,)}  # array[]: tuples of mixed types (waits.rows)


def table(doc):
    text = open(doc, encoding="utf-8").read()
    body = text.split("<!-- report-data keys: begin -->", 1)[1]
    body = body.split("<!-- report-data keys: end -->", 1)[0]
    rows = {}
    for m in re.finditer(r"^\| `([^`]+)` \| ([a-z\[\]]+) \| (.*) \|$", body, re.M):
        rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def report_data(path):
    text = open(path, encoding="utf-8").read()
    head = '<script type="application/json" id="sp-data">'
    a = text.index(head) + len(head)
    return json.loads(text[a:text.index("</script>", a)])


def walk(v, path, out, star=False):
    """out: key path -> list of values; keys of an object under a path
    ending in 'regions' of files are region names (written as *)."""
    if isinstance(v, dict):
        for k, x in v.items():
            key = "*" if star else k
            p = f"{path}.{key}" if path else key
            out.setdefault(p, []).append(x)
            walk(x, p, out, star=(p == "files[].regions"))
    elif isinstance(v, list):
        for x in v:
            walk(x, path + "[]", out)


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    doc, js, reports = argv[1], argv[2], argv[3:]
    rows = table(doc)
    # JS: viewer.js or the report/ folder: every script of that folder
    folder = js if os.path.isdir(js) else os.path.dirname(js)
    viewer = "".join(open(f, encoding="utf-8").read()
                     for f in sorted(glob.glob(os.path.join(folder, "*.js"))))
    bad = []
    optional = {k for k, (_, meaning) in rows.items() if "*optional*" in meaning}
    for k in rows:
        parent = k
        while "." in parent or parent.endswith("[]"):
            parent = parent[:-2] if parent.endswith("[]") else parent.rsplit(".", 1)[0]
            if parent in optional:
                optional.add(k)
    for path in reports:
        seen = {}
        walk(report_data(path), "", seen)
        for k in sorted(set(seen) - set(rows)):
            bad.append(f"{path}: key {k} is not in {doc}")
        for k in sorted(set(rows) - set(seen) - optional):
            # The keys of an array's elements are required only when it has some.
            arrays = [k[:i] for i in range(len(k)) if k.startswith("[]", i)]
            if any(a in seen and not any(seen[a]) for a in arrays):
                continue
            bad.append(f"{path}: key {k} of {doc} is missing")
        for k, values in seen.items():
            if k in rows and not all(isinstance(v, TYPES[rows[k][0]]) and
                                     not isinstance(v, bool) for v in values):
                bad.append(f"{path}: key {k}: not all {rows[k][0]}")
    for k, (_, meaning) in rows.items():
        name = k.rsplit(".", 1)[-1].replace("[]", "")
        if name == "*" or "not read by the viewer" in meaning:
            continue
        if not re.search(r"\.%s\b|['\"]%s['\"]" % (name, name), viewer):
            bad.append(f"{js}: never names key {k} (or mark it 'not read by the viewer')")
    for b in bad:
        print(f"check_report_schema.py: {b}")
    print(f"check_report_schema.py: {len(rows)} keys, {len(reports)} reports, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
