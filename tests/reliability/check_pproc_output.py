#!/usr/bin/python3
"""Runs scope-profiler-pproc once on a hostile input and checks what it did.

usage: check_pproc_output.py [options] -- PPROC ARGS...

  --rc N[,N...]     allowed exit codes (default 0)
  --err REGEX       stderr must match (re.search)
  --stdout KIND     none, text, csv or json: stdout must be valid UTF-8 and,
                    for csv, parse with Python's csv module (header
                    rank,region,start_s,end_s, 4 fields a row); for json,
                    load with json.loads into a Chrome trace (on a
                    non-zero exit only the encoding is checked)
  --names HEX,...   raw region names (hex bytes) that the output must show,
                    each as bytes.decode("utf-8", "backslashreplace") (text
                    outputs: controls also as \\xNN), with no other names
  --image DIR:KIND  on exit 0, DIR/gantt_plot.KIND must be a complete png,
                    pdf or svg; otherwise no gantt_plot.* may be left there.
                    (but for --keep). Never a temporary .gantt_plot.* left.
  --keep PATH       PATH exists before the run and is unchanged after it
  --out-file PATH   stdout goes to PATH (a file on a full disk) instead
  --writer PATH     while pproc runs, another process keeps PATH open with
                    h5py and writes regions into it (HDF5's own file locks)
  --timeout S       the run must end within S seconds (default 60)
  --max-rss-mb M    the run's peak resident memory stays below M MiB

Always: stderr is valid UTF-8 and each line starts with
"scope-profiler-pproc: "; the exit code is never a signal.
"""
import argparse
import csv
import glob
import hashlib
import io
import json
import os
import re
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

PREFIX = "scope-profiler-pproc: "


def fail(msg, res=None):
    print("FAIL:", msg)
    if res is not None:
        print("--- exit", res.returncode)
        print("--- stdout (first 2000 bytes)\n", res.stdout[:2000])
        print("--- stderr\n", res.stderr[:4000])
    sys.exit(1)


def expected_name(raw, plain):
    s = raw.decode("utf-8", "backslashreplace")
    if plain:
        s = "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or c == "\x7f" else c for c in s)
    return s


def names_in(kind, text, args):
    """The region names an output shows."""
    if kind == "csv":
        return {row[1] for row in list(csv.reader(io.StringIO(text, newline="")))[1:]}
    if kind == "json":
        return {e["name"] for e in json.loads(text)["traceEvents"] if e.get("ph") == "X"}
    if kind == "table-json":  # --summary --format json: rows with "region"
        return {e["region"] for e in json.loads(text)}
    if kind == "tree-json":  # --tree --format json: nodes with their path
        return {n["path"][-1] for n in json.loads(text)["nodes"]}
    if kind == "tsv":  # a header line, the name last
        return {ln.split("\t")[-1] for ln in text.split("\n")[1:-1]}
    # '#' notes, then a header line whose last column is the name.
    lines = [ln for ln in text.split("\n")[:-1] if not ln.startswith("#")]
    ncols = len(lines[0].split())
    lines = lines[1:]
    if "--list" in args:  # lane rank intervals region
        return {ln.split(" ", 3)[3] for ln in lines}
    if "--tree" in args:  # numeric columns, the name indented by depth, maybe " [threads]"
        return {re.sub(r" \[threads\]$", "",
                       re.match(r"\s*\S+(?:\s+\S+){%d} (.*)$" % (ncols - 2), ln).group(1).lstrip(" "))
                for ln in lines if ln}
    # --summary: numeric columns, then one blank and the name.
    return {re.match(r"\s*\S+(?:\s+\S+){%d} (.*)$" % (ncols - 2), ln).group(1) for ln in lines if ln}


def check_stdout(kind, data, res):
    try:
        text = data.decode("utf-8")  # strict: no surrogate escapes
    except UnicodeDecodeError as e:
        fail(f"stdout is not valid UTF-8: {e}", res)
    if kind == "csv":
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows or rows[0] != ["rank", "region", "start_s", "end_s"]:
            fail(f"CSV header is {rows[:1]}", res)
        for row in rows[1:]:
            if len(row) != 4:
                fail(f"CSV row with {len(row)} fields: {row}", res)
            int(row[0]), float(row[2]), float(row[3])
    elif kind in ("table-json", "tree-json"):
        try:
            json.loads(text)
        except ValueError as e:
            fail(f"stdout is not valid JSON: {e}", res)
    elif kind == "tsv":
        rows = [ln.split("\t") for ln in text.split("\n")[:-1]]
        if any(len(r) != len(rows[0]) for r in rows):
            fail("TSV rows with different numbers of fields", res)
    elif kind == "json":
        try:
            doc = json.loads(text)
        except ValueError as e:
            fail(f"stdout is not valid JSON: {e}", res)
        for e in doc["traceEvents"]:
            if e["ph"] == "X" and not (isinstance(e["name"], str) and e["dur"] >= 0):
                fail(f"bad trace event {e}", res)
    elif kind == "text":
        if any(ord(c) < 0x20 and c != "\n" for c in text):
            fail("a control character other than newline in text output", res)
    return text


def check_image(spec, rc, res, keep):
    d, kind = spec.rsplit(":", 1)
    left = glob.glob(os.path.join(d, ".gantt_plot.*"))
    if left:
        fail(f"temporary files left behind: {left}", res)
    path = os.path.join(d, "gantt_plot." + kind)
    if rc != 0:
        if os.path.exists(path) and path != keep:
            fail(f"{path} written although the run failed", res)
        return
    with open(path, "rb") as f:
        data = f.read()
    ok = {"png": data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82"),
          "pdf": data.startswith(b"%PDF") and data.rstrip().endswith(b"%%EOF"),
          "svg": kind == "svg" and ET.fromstring(data).tag.endswith("svg")}[kind]
    if not ok:
        fail(f"{path} is not a complete {kind} ({len(data)} bytes)", res)


def check_json_dir(d, rc, res, want):
    """-o DIR's region_statistics.json and call_tree.json: strict UTF-8 JSON
    holding every region name (want), or absent when the run failed; never
    a temporary left behind."""
    left = glob.glob(os.path.join(d, ".*.tmp"))
    if left:
        fail(f"temporary files left behind: {left}", res)
    files = [os.path.join(d, n) for n in ("region_statistics.json", "call_tree.json")]
    if rc != 0:
        for path in files:
            if os.path.exists(path):
                fail(f"{path} written although the run failed", res)
        return
    docs = []
    for path in files:
        with open(path, "rb") as f:
            try:
                docs.append(json.loads(f.read().decode("utf-8")))
            except ValueError as e:
                fail(f"{path} is not strict UTF-8 JSON: {e}", res)
    if want is None:
        return
    stats = set(docs[0]["files"][0]["region_statistics"])
    tree = {n["path"][-1] for n in docs[1]["nodes"]}
    for what, got in (("region_statistics.json", stats), ("call_tree.json", tree)):
        if not got <= want or (what == "region_statistics.json" and got != want):
            fail(f"{what} names {sorted(got)}, expected {sorted(want)}", res)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rc", default="0")
    p.add_argument("--err")
    p.add_argument("--stdout", default="none",
                   choices=["none", "text", "csv", "json", "tsv", "table-json", "tree-json"])
    p.add_argument("--json-dir")
    p.add_argument("--names")
    p.add_argument("--image")
    p.add_argument("--keep")
    p.add_argument("--out-file")
    p.add_argument("--writer")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--max-rss-mb", type=float)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    kept = sha(a.keep) if a.keep else None
    if a.json_dir:
        for old in glob.glob(os.path.join(a.json_dir, "*.json")):
            os.remove(old)
    if a.image:
        for old in glob.glob(os.path.join(a.image.rsplit(":", 1)[0], "gantt_plot.*")):
            if not a.keep:
                os.remove(old)
    writer = None
    if a.writer:
        writer = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--write-loop",
                                   a.writer], stdout=subprocess.PIPE)
        writer.stdout.readline()  # "open": the file is open for writing
    out = open(a.out_file, "wb") if a.out_file else subprocess.PIPE
    t = time.monotonic()
    try:
        res = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                             timeout=a.timeout)
    except subprocess.TimeoutExpired:
        fail(f"still running after {a.timeout} s: {cmd}")
    finally:
        if writer:
            writer.kill()
            writer.wait()
    if a.out_file:
        out.close()
        res.stdout = b""
    print(f"{cmd}: exit {res.returncode} in {time.monotonic() - t:.2f} s")
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the largest child: {rss_mb:.0f} MiB")
    if a.max_rss_mb and rss_mb >= a.max_rss_mb:
        fail(f"peak RSS {rss_mb:.0f} MiB, expected below {a.max_rss_mb} MiB", res)
    if res.returncode < 0:
        fail(f"killed by signal {-res.returncode}", res)
    if str(res.returncode) not in a.rc.split(","):
        fail(f"exit code {res.returncode}, expected {a.rc}", res)
    try:
        err = res.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"stderr is not valid UTF-8: {e}", res)
    for line in err.splitlines():
        if not line.startswith(PREFIX):
            fail(f"stderr line without the program prefix: {line!r}", res)
    if a.err and not re.search(a.err, err):
        fail(f"stderr does not match {a.err!r}", res)
    # A failed run may stop mid-output: then only its encoding is checked.
    kind = a.stdout if res.returncode == 0 or a.stdout == "none" else "text"
    text = check_stdout(kind, res.stdout, res) if kind != "none" else ""
    if a.names is not None and a.stdout != "none" and res.returncode == 0:
        raw = [bytes.fromhex(h) for h in a.names.split(",") if h]
        want = {expected_name(r, a.stdout in ("text", "tsv")) for r in raw}
        got = names_in(a.stdout, text, cmd)
        if got != want:
            fail(f"names {sorted(got)}, expected {sorted(want)}", res)
    if a.image:
        check_image(a.image, res.returncode, res, a.keep)
    if a.json_dir:
        raw = [bytes.fromhex(h) for h in a.names.split(",") if h] if a.names is not None else None
        want = {expected_name(r, False) for r in raw} if raw is not None else None
        check_json_dir(a.json_dir, res.returncode, res, want)
    if a.keep and sha(a.keep) != kept:
        fail(f"{a.keep} changed", res)
    print("ok")
    return 0


def write_loop(path):
    """Keeps path open for writing and adds regions until killed."""
    import h5py
    import numpy as np
    with h5py.File(path, "w") as f:
        f.attrs.create("scope_profiler_schema", 1, dtype=np.int32)
        print("open", flush=True)
        for i in range(10**9):
            g = f.create_group(f"rank0/regions/r{i}")
            g.attrs["name"] = f"r{i}"
            g.attrs.create("num_calls", 1, dtype=np.int64)
            g.create_dataset("start_times", data=np.array([i], dtype=np.int64))
            g.create_dataset("end_times", data=np.array([i + 1], dtype=np.int64))
            if i % 20 == 0:
                f.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write-loop"]:
        sys.exit(write_loop(sys.argv[2]))
    sys.exit(main())
