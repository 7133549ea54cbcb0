#!/usr/bin/env python3
"""The postprocessor with run metadata and source locations, checked against
h5py's reading of the same files.

check_runmeta_pproc.py CASE --pproc EXE --writer EXE --work DIR [--mpiexec EXE]
                       [--src DIR]

summary: --summary --columns source and the "# run metadata" headers of
--summary and --tree; call_tree: source_file/source_lineno of call_tree.json;
reference: a file written the reference tool's way (h5py, as its h5writer)
shows its sources too; scaling: weak_scaling's work per rank from
/metadata work_per_rank (and not when the files differ), --x-field with a
string, an integer and a real key; report: report.html's meta and
regions[].src, and the schema check of docs/report-data.md.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

FAIL = []
OWN = {"mpi_size", "hostname", "timestamp", "library_version", "clock", "clock_source",
       "recovered_from_spill", "omp_threads", "omp_num_threads", "total_cores", "time_trace",
       "events_lost"}


def check(cond, what):
    if not cond:
        FAIL.append(what)
        print("FAIL:", what)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)
    sys.stderr.write(r.stderr)
    return r


def sources(path):
    """region name -> "file:line" from h5py, rank 0 (None: no source)."""
    out = {}
    with h5py.File(path, "r") as f:
        for g in f["rank0/regions"].values():
            name = g.attrs["name"] if "name" in g.attrs else os.path.basename(g.name)
            a = g.attrs
            out[name] = (f"{a['source_file']}:{int(a['source_lineno'])}"
                         if "source_file" in a else None)
    return out


def text_of(v):
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    return v


def user_meta(path):
    with h5py.File(path, "r") as f:
        return {k: text_of(v) for k, v in f["metadata"].attrs.items() if k not in OWN}


def case_summary(a, work):
    h5 = os.path.join(work, "m.h5")
    check(run([a.writer, "values", h5, os.path.join(work, "e.json")], cwd=work).returncode == 0,
          "writer")
    want = sources(h5)
    r = run([a.pproc, "--summary", "--columns", "p50,source", "--format", "csv", h5])
    check(r.returncode == 0, "summary csv exit 0")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(len(rows) == len(want), f"{len(rows)} rows for {len(want)} regions")
    cols = list(rows[0].keys()) if rows else []
    check(cols[-2:] == ["source", "region"] and "p50" in cols, f"columns {cols}")
    for row in rows:
        exp = want.get(row["region"])
        check(row["source"] == (exp or "-"), f"{row['region']}: source {row['source']!r} == {exp!r}")
    r = run([a.pproc, "--summary", "--columns", "source", "--format", "json", h5])
    data = json.loads(r.stdout)
    for row in data:
        check(row["source"] == want[row["region"]], f"json {row['region']}: {row['source']!r}")
    meta = user_meta(h5)
    for args in (["--summary"], ["--tree"]):
        r = run([a.pproc] + args + [h5])
        head = [ln for ln in r.stdout.splitlines() if ln.startswith("#")]
        text = "\n".join(head)
        check(head and head[0].startswith("# run metadata: "), f"{args}: metadata header first")
        for k in ("input", "work_per_rank", "dt", "repeated", "Grüße"):
            check(f"{k} = {meta[k]}" in text, f"{args}: header has {k} = {meta[k]}")
        check("hostname =" not in text, f"{args}: the library's keys not repeated")
    r = run([a.pproc, "--tree", "--columns", "source", h5])
    check(r.returncode == 2 and "--columns applies to --summary" in r.stderr,
          "--columns source without --summary: usage error")
    r = run([a.pproc, "--summary", "--columns", "sauce", h5])
    check(r.returncode == 2 and re.search(r"or a column of:[a-z ]* source", r.stderr),
          "a bad --columns word names source")


def case_call_tree(a, work, h5=None):
    if h5 is None:
        h5 = os.path.join(work, "m.h5")
        check(run([a.writer, "values", h5, os.path.join(work, "e.json")], cwd=work).returncode == 0,
              "writer")
    want = sources(h5)
    r = run([a.pproc, "--tree", "--format", "json", h5])
    check(r.returncode == 0, "tree json exit 0")
    nodes = json.loads(r.stdout)["nodes"]
    check(len(nodes) > 0, "nodes")
    for n in nodes:
        name = n["path"][-1]
        exp = want[name]
        got = f"{n['source_file']}:{n['source_lineno']}" if "source_file" in n else None
        check(got == exp, f"call_tree {name}: {got!r} == {exp!r}")
        if exp:
            check(isinstance(n["source_lineno"], int), f"{name}: source_lineno an int")
    return want


def case_reference(a, work):
    """The reference tool's h5writer: groups per region, start/end datasets,
    source_file (str), source_lineno (int) and source_text attributes."""
    h5 = os.path.join(work, "ref.h5")
    with h5py.File(h5, "w") as f:
        f.create_group("metadata").attrs["mpi_size"] = 1
        for r in range(2):
            regs = f.create_group(f"rank{r}").create_group("regions")
            for name, t0, src in (("main", 0, ("/home/u/app.py", 12)), ("step", 10, None)):
                g = regs.create_group(name)
                g.create_dataset("start_times", data=np.array([t0, t0 + 100], dtype=np.int64))
                g.create_dataset("end_times", data=np.array([t0 + 50, t0 + 150], dtype=np.int64))
                if src:
                    g.attrs["source_file"] = src[0]
                    g.attrs["source_lineno"] = src[1]
                    g.attrs["source_text"] = "def main():"
    r = run([a.pproc, "--summary", "--columns", "source", "--format", "csv", h5])
    check(r.returncode == 0, "reference file: summary exit 0")
    rows = {row["region"]: row["source"] for row in csv.DictReader(io.StringIO(r.stdout))}
    check(rows == {"main": "/home/u/app.py:12", "step": "-"}, f"reference sources {rows}")
    case_call_tree(a, work, h5)


def mpi_runs(a, work, sizes=(1, 2, 4)):
    files = []
    for n in sizes:
        h5 = os.path.join(work, f"w{n}.h5")
        r = run([a.mpiexec, "-np", str(n), a.writer, "work", h5, os.path.join(work, f"e{n}.json")],
                cwd=work)
        check(r.returncode == 0, f"writer on {n} ranks")
        files.append(h5)
    return files


def case_scaling(a, work):
    files = mpi_runs(a, work)
    wpr = [int(h5py.File(p, "r")["metadata"].attrs["work_per_rank"]) for p in files]
    out = os.path.join(work, "weak")
    r = run([a.pproc] + files + ["--plots", "weak_scaling", "--export-data",
                                 "--export-data-format", "json", "--skip-plot-images", "-o", out])
    check(r.returncode == 0, "weak_scaling exit 0")
    check(f"work per rank {wpr[0]} from the files' /metadata work_per_rank" in r.stderr,
          "weak_scaling says where the work per rank comes from")
    opts = json.load(open(os.path.join(out, "weak_scaling_data.json")))["options"]
    check(opts.get("work_per_rank") == wpr[0], f"options.work_per_rank {opts.get('work_per_rank')}")
    # --work-per-rank still wins
    r = run([a.pproc] + files + ["--plots", "weak_scaling", "--work-per-rank", "7,7,7",
                                 "--export-data", "--export-data-format", "json",
                                 "--skip-plot-images", "-o", out + "2"])
    opts = json.load(open(os.path.join(out + "2", "weak_scaling_data.json")))["options"]
    check(opts.get("work_per_rank") == 7 and "from the files'" not in r.stderr, "option wins")
    # one file differs: not shown, said why
    odd = os.path.join(work, "odd.h5")
    shutil.copy(files[2], odd)
    with h5py.File(odd, "a") as f:
        f["metadata"].attrs["work_per_rank"] = np.int64(wpr[0] * 2)
    r = run([a.pproc, files[0], files[1], odd, "--plots", "weak_scaling", "--export-data",
             "--export-data-format", "json", "--skip-plot-images", "-o", out + "3"])
    check(r.returncode == 0 and "work_per_rank differs between the files" in r.stderr,
          "differing work_per_rank said")
    opts = json.load(open(os.path.join(out + "3", "weak_scaling_data.json")))["options"]
    check("work_per_rank" not in opts, "differing work_per_rank not used")
    # --x-field with a real, a string and an integer key
    for key in ("dt", "label", "work_per_rank"):
        o = os.path.join(work, "x_" + key)
        r = run([a.pproc] + files + ["--plots", "speedup", "--x-field", key, "--export-data",
                                     "--skip-plot-images", "-o", o])
        check(r.returncode == 0, f"--x-field {key}: exit 0")
        rows = list(csv.DictReader(open(os.path.join(o, "speedup_data.csv"))))
        got = sorted({row[key] for row in rows})
        vals = [h5py.File(p, "r")["metadata"].attrs[key] for p in files]
        if key == "label":
            exp = sorted(v if isinstance(v, str) else v.decode() for v in vals)
            check(got == exp, f"--x-field label: {got} == {exp}")
        else:
            exp = sorted({float(v) for v in vals})
            check(sorted({float(g) for g in got}) == exp, f"--x-field {key}: {got} == {exp}")


def case_report(a, work):
    h5 = os.path.join(work, "m.h5")
    check(run([a.writer, "values", h5, os.path.join(work, "e.json")], cwd=work).returncode == 0,
          "writer")
    out = os.path.join(work, "html")
    r = run([a.pproc, h5, "--backend", "html", "-o", out])
    check(r.returncode == 0, "report exit 0")
    page = os.path.join(out, "report.html")
    text = open(page, encoding="utf-8").read()
    head = '<script type="application/json" id="sp-data">'
    i = text.index(head) + len(head)
    data = json.loads(text[i:text.index("</script>", i)])
    meta = {m["k"]: m["v"] for m in data.get("meta", [])}
    want = user_meta(h5)
    for k, v in want.items():
        got = meta.get(k)
        if k == "long_value":
            check(got == v[:4096], "long value cut at 4096 bytes")
        else:
            check(got == v, f"report meta {k}: {got!r} == {v!r}")
    check(set(meta) == set(want), f"report meta keys {sorted(set(meta) ^ set(want))}")
    srcs = sources(h5)
    for reg in data["regions"]:
        check(reg.get("src") == srcs[reg["name"]], f"report src {reg['name']}: {reg.get('src')}")
    s = run([sys.executable, os.path.join(a.src, "tests/postproc/check_report_schema.py"),
             os.path.join(a.src, "docs/report-data.md"),
             os.path.join(a.src, "postproc/report"), page])
    check(s.returncode == 0 and " 0 problems" in s.stdout, "report schema: " + s.stdout.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--pproc", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec")
    ap.add_argument("--src")
    a = ap.parse_args()
    work = os.path.join(a.work, "pproc_" + a.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"summary": case_summary, "call_tree": case_call_tree, "reference": case_reference,
     "scaling": case_scaling, "report": case_report}[a.case](a, work)
    if FAIL:
        print(f"{len(FAIL)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
