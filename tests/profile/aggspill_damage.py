#!/usr/bin/python3
"""Damaged .aggspill files through scope-profiler-merge: never a crash.

usage: aggspill_damage.py TEST_PROFILE MERGE WORK [ITERATIONS]

Two real .aggspill files come from test_profile ("exit": profile mode, the
process ends without sp_finalize and saves its aggregates), one per run.
Each iteration damages a copy of the first (a fixed seed: 1 to 40 random
bytes replaced, a third of them in the first 88 bytes where the head and
the counts are, sometimes a flipped bit in a count's high byte, sometimes
cut short) and merges it with an intact copy of the second. issue 43 item
5: five changed bytes made the merge free(0x2). Every merge must end with
exit 0 (the damage hit only figures) or 4 (the damaged file skipped,
named on stderr), never by a signal; the inputs stay byte for byte; the
two runs go to OUT and at most OUT.earlier1 (one file per run), each
written file is read with h5py, and one of them holds the intact file's
regions. Exit 0 when every iteration holds.
"""
import os
import random
import shutil
import struct
import subprocess
import sys

import h5py

exe, merge, work = sys.argv[1:4]
iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 400
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def real_aggspill(tag):
    """One real .aggspill: test_profile exit 0 (profile mode alone)."""
    d = os.path.join(work, tag)
    os.makedirs(d)
    r = subprocess.run([exe, "exit", "0", "p.h5"], cwd=d, capture_output=True, text=True,
                       timeout=120)
    spill = os.path.join(d, "p.h5.spill")
    files = [f for f in os.listdir(spill) if f.endswith(".aggspill")] if os.path.isdir(spill) else []
    if r.returncode != 0 or len(files) != 1:
        sys.exit(f"writer: exit {r.returncode}, files {files}: {r.stderr}")
    return open(os.path.join(spill, files[0]), "rb").read()


first, second = real_aggspill("a"), real_aggspill("b")
# The head: 16 bytes (magic, version, blob length), from version 2 the
# writer's 24 more; then the blob's three counts.
HEAD = 16 + (24 if struct.unpack_from("<I", first, 4)[0] >= 2 else 0)
rnd = random.Random(43005)
inp = os.path.join(work, "in")
out = os.path.join(work, "out.h5")
failures = 0
counts = {}
for it in range(iterations):
    data = bytearray(first)
    kind = rnd.random()
    if kind < 0.1:  # a count's high byte: sizes that wrap when multiplied
        data[HEAD + 8 * rnd.randrange(3) + 7] ^= 1 << rnd.randrange(8)
    else:
        for _ in range(rnd.randint(1, 40)):
            pos = rnd.randrange(HEAD + 48) if rnd.random() < 0.33 else rnd.randrange(len(data))
            data[pos] = rnd.randrange(256)
    if rnd.random() < 0.1:
        del data[rnd.randrange(len(data)):]
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    damaged = os.path.join(inp, "rank0.x.1.aggspill")
    intact = os.path.join(inp, "rank1.x.2.aggspill")
    open(damaged, "wb").write(bytes(data))
    open(intact, "wb").write(second)
    if os.path.exists(out):
        os.unlink(out)
    try:
        r = subprocess.run([merge, "-f", "-o", out, inp], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        print(f"FAIL: iteration {it}: merge hangs")
        failures += 1
        continue
    counts[r.returncode] = counts.get(r.returncode, 0) + 1
    problems = []
    if r.returncode not in (0, 4):  # the intact file is always recovered
        problems.append(f"exit {r.returncode}")
    if r.returncode == 4 and "rank0.x.1.aggspill" not in r.stderr:
        problems.append("the skipped file is not named")
    if open(damaged, "rb").read() != bytes(data) or open(intact, "rb").read() != second:
        problems.append("an input changed")
    if sorted(os.listdir(inp)) != ["rank0.x.1.aggspill", "rank1.x.2.aggspill"]:
        problems.append(f"inputs now {sorted(os.listdir(inp))}")
    earlier = os.path.join(work, "out.earlier1.h5")
    if os.path.exists(os.path.join(work, "out.earlier2.h5")):
        problems.append("three outputs for two runs")
    if r.returncode in (0, 4):
        intact = False
        for path in (out, earlier):
            if path == earlier and not os.path.exists(path):
                continue
            try:
                with h5py.File(path, "r") as f:
                    names = {n.decode(errors="replace") if isinstance(n, bytes) else n
                             for n in f["region_table/names"][()]}
                    intact |= {"step", "compute", "fib"} <= names
            except Exception as e:  # noqa: BLE001 - any failure to read is one
                problems.append(f"{os.path.basename(path)} unreadable: {e}")
        if not intact:
            problems.append("no output holds the intact file's regions")
    for path in (out, earlier):
        if os.path.exists(path):
            os.unlink(path)
    if problems:
        failures += 1
        print(f"FAIL: iteration {it}: {'; '.join(problems)}\n{r.stderr[-600:]}")
        open(os.path.join(work, f"failed{it}.aggspill"), "wb").write(bytes(data))
        if failures >= 5:
            break
print(f"exit codes over {iterations} merges: {dict(sorted(counts.items()))}")
if failures:
    print(f"{failures} iteration(s) failed")
    sys.exit(1)
print("PASS: no crash, inputs kept, every written file readable")
