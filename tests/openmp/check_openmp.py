#!/usr/bin/python3
"""Checks the OpenMP regions (issue 48) of omp_regions.c, omp_fortran.f90
and omp_mpi.c with h5py and numpy, against what each program did.

usage: check_openmp.py FILE --case CASE --threads T [--ranks N] [--rounds R]
                       [--pproc PPROC] [--source SRC]

  counts    per rank and thread: R calls each of one "omp parallel @"
            region, of "omp loop", "omp single" and "omp barrier"; the
            implicit barriers of the loop and the single (2R per thread)
            and the master's closing one (R more on thread 0); thread ids
            exactly 0..T-1; every construct inside its thread's parallel
            call, the master's parallel calls inside "outer"
  fortran   gfortran code on libomp: R parallel and R single calls per
            thread, no loop (libomp reports none for the GOMP_ loop entry
            points) and no explicit barrier: at least 2R "omp runtime
            barrier" calls per thread (the explicit barrier, the loop's end)
  sleep     the later explicit barrier: exactly one thread (OpenMP's thread
            1) came 50 ms after the first barrier and waited there less than
            half as long as any other thread;
            every other thread waited until it came (>= 50 ms less how late
            it arrived after the sleep began)
  nested    2 calls of the outer parallel region on 2 threads, 4 of the
            inner one, each outer call holding an inner call of its thread
            (the inner team's master)
  tasks     (SCOPE_PROFILER_OPENMP=tasks,locks) 20 calls of one "omp task"
            region over the threads, each inside that thread's parallel call
            or its taskwait's; one "omp taskwait" call; 3 "omp critical
            wait" calls per thread
  profile   a profile-mode file (time_trace 0): per thread the call path
            outer > omp parallel (thread 0) or omp parallel (workers) with
            R calls, omp loop below omp parallel with R calls
  libgomp   no region named "omp ..." at all; "outer" has 1 call
With --source (counts, fortran): every omp region is named "<construct> @
<file>:<line>" with SRC's base name; for counts (omp_regions.c) the lines
are those of run_counts' pragmas, as a reader of the source finds them:
parallel, loop, barrier and single each at its own pragma.
With --pproc (a trace file): `PPROC FILE --summary --by-thread --format csv`
lists every (thread, region) of the file with its calls and total time
as h5py finds them (the sum of end - start per thread).
Exit 0 when all hold; each failure is printed with what was found.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

import h5py
import numpy as np

fails = []


def fail(msg):
    fails.append(msg)


def regions(f, rank):
    """{name: (threads, starts, ends)} of rank's trace group."""
    out = {}
    for g in f[f"rank{rank}/regions"].values():
        name = g.attrs["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        n = int(g.attrs["num_calls"])
        st = g["start_times"][()] if "start_times" in g else np.zeros(0, np.int64)
        en = g["end_times"][()] if "end_times" in g else np.zeros(0, np.int64)
        th = g["thread_ids"][()] if "thread_ids" in g else np.zeros(n, np.int64)
        out[name] = (np.asarray(th, np.int64), np.asarray(st, np.int64), np.asarray(en, np.int64))
    return out


def kind(regs, prefix):
    """The regions named prefix + ' @ ...' (or exactly prefix)."""
    return {n: v for n, v in regs.items() if n == prefix or n.startswith(prefix + " @ ")}


def per_thread(regs, prefix, threads):
    """Calls per thread summed over the regions of prefix."""
    c = np.zeros(threads, np.int64)
    for th, _, _ in kind(regs, prefix).values():
        for t in th:
            if 0 <= t < threads:
                c[t] += 1
            else:
                fail(f"{prefix}: thread id {t} not in 0..{threads - 1}")
    return c


def want_counts(where, prefix, got, want):
    if not np.array_equal(got, want):
        fail(f"{where} {prefix}: calls per thread {got.tolist()}, want {want.tolist()}")


def inside(where, regs, child, parent):
    """Every call of a region of prefix child inside a call of a region of
    prefix parent on its thread."""
    par = [v for v in kind(regs, parent).values()]
    for name, (th, st, en) in kind(regs, child).items():
        for t, s, e in zip(th, st, en):
            ok = any(np.any((pt == t) & (ps <= s) & (pe >= e)) for pt, ps, pe in par)
            if not ok:
                fail(f"{where} '{name}': call [{s}, {e}] of thread {t} in no '{parent}' call")
                return


def check_counts(f, rank, threads, rounds, fortran):
    where = f"rank{rank}"
    regs = regions(f, rank)
    par = kind(regs, "omp parallel")
    if len(par) != 1:
        fail(f"{where}: {len(par)} 'omp parallel' regions {sorted(par)}, want 1")
    all_r = np.full(threads, rounds)
    want_counts(where, "omp parallel", per_thread(regs, "omp parallel", threads), all_r)
    ids = set()
    for n, (th, _, _) in regs.items():
        if n.startswith("omp "):
            ids |= set(int(t) for t in th)
    if ids != set(range(threads)):
        fail(f"{where}: thread ids of the omp regions {sorted(ids)}, want 0..{threads - 1}")
    if fortran:
        for w in ("omp loop", "omp barrier"):
            if kind(regs, w):
                fail(f"{where}: '{w}' regions {sorted(kind(regs, w))} from gfortran code")
        want_counts(where, "omp single", per_thread(regs, "omp single", threads), all_r)
        inside(where, regs, "omp single", "omp parallel")
        rb = per_thread(regs, "omp runtime barrier", threads)
        if np.any(rb < 2 * rounds):
            fail(f"{where} omp runtime barrier: calls per thread {rb.tolist()}, want >= {2 * rounds}")
        inside(where, regs, "omp runtime barrier", "omp parallel")
    else:
        for w in ("omp loop", "omp single", "omp barrier"):
            want_counts(where, w, per_thread(regs, w, threads), all_r)
            inside(where, regs, w, "omp parallel")
        ib = np.full(threads, 2 * rounds)
        ib[0] += rounds
        want_counts(where, "omp implicit barrier", per_thread(regs, "omp implicit barrier", threads), ib)
        inside(where, regs, "omp implicit barrier", "omp parallel")
    # The master's parallel calls inside the user's region.
    o = regs.get("outer")
    if o is None or len(o[1]) != 1:
        fail(f"{where}: 'outer' missing or not 1 call")
    else:
        for name, (th, st, en) in par.items():
            m = th == 0
            if not np.all((st[m] >= o[1][0]) & (en[m] <= o[2][0])):
                fail(f"{where}: '{name}' calls of thread 0 not inside 'outer'")
    print(f"{where}: {len(regs)} regions, threads {sorted(ids)}, "
          f"parallel per thread {per_thread(regs, 'omp parallel', threads).tolist()}")


def check_sleep(f, threads):
    regs = regions(f, 0)
    bars = sorted(kind(regs, "omp barrier").items(), key=lambda kv: float(np.mean(kv[1][1])))
    if len(bars) != 2:
        fail(f"{len(bars)} explicit barrier regions, want 2")
        return
    (_, (th0, st0, en0)), (name, (th1, st1, en1)) = bars
    if sorted(th1.tolist()) != list(range(threads)) or sorted(th0.tolist()) != list(range(threads)):
        fail(f"barrier threads {sorted(th0.tolist())}, {sorted(th1.tolist())}, want 0..{threads - 1}")
        return
    # The tool numbers threads in the order they first record, not by
    # omp_get_thread_num(): the sleeper is the thread that came to the
    # second barrier >= 50 ms after leaving the first.
    wait = {int(t): (int(s), int(e)) for t, s, e in zip(th1, st1, en1)}
    left = {int(t): int(e) for t, e in zip(th0, en0)}
    sleepers = [t for t in wait if wait[t][0] - left[t] >= 50_000_000]
    if len(sleepers) != 1:
        fail(f"threads {sleepers} came >= 50 ms after the first barrier, want exactly one: "
             + ", ".join(f"{t}: {(wait[t][0] - left[t]) / 1e6:.2f} ms" for t in sorted(wait)))
        return
    z = sleepers[0]
    sleep_from = left[z]
    own = wait[z][1] - wait[z][0]
    print(f"'{name}': thread {z} slept {(wait[z][0] - sleep_from) / 1e6:.2f} ms, waited "
          f"{own / 1e6:.3f} ms; others "
          + ", ".join(f"{t}: {(e - s) / 1e6:.2f} ms" for t, (s, e) in sorted(wait.items()) if t != z))
    # "Near zero": the sleeper only waits for the release, which on a loaded
    # 2-core machine (a sleeping master woken by a futex) takes up to tens of
    # ms: held to less than half the shortest wait of the others.
    others = [e - s for t, (s, e) in wait.items() if t != z]
    if own >= 0.5 * min(others):
        fail(f"thread {z} (the sleeper) waited {own} ns at the barrier, want < half of the "
             f"others' shortest wait {min(others)} ns")
    for t, (s, e) in wait.items():
        if t == z:
            continue
        bound = 50_000_000 - max(0, s - sleep_from)
        if e - s < bound:
            fail(f"thread {t} waited {e - s} ns, want >= {bound} (50 ms less its late arrival)")
        if e < wait[z][0]:
            fail(f"thread {t} left the barrier at {e}, before thread {z} came at {wait[z][0]}")


def check_nested(f):
    regs = regions(f, 0)
    par = sorted(kind(regs, "omp parallel").items(), key=lambda kv: len(kv[1][0]))
    if [len(v[0]) for _, v in par] != [2, 4]:
        fail(f"parallel regions' calls {[(n, len(v[0])) for n, v in par]}, want 2 and 4")
        return
    (oname, (oth, ost, oen)), (iname, (ith, ist, ien)) = par
    if len(set(oth.tolist())) != 2:
        fail(f"outer on threads {oth.tolist()}: want 2 distinct")
    # Each outer thread is the master of an inner team: an inner call of its
    # own inside its outer call. (A pool thread may serve both inner teams
    # one after the other.)
    for t, s0, e0 in zip(oth, ost, oen):
        m = ith == t
        if not np.any((ist[m] >= s0) & (ien[m] <= e0)):
            fail(f"outer call of thread {t} [{s0}, {e0}] holds no inner call of its thread")
    print(f"outer '{oname}' on {sorted(oth.tolist())}, inner '{iname}' on {sorted(ith.tolist())}")


def check_tasks(f, threads):
    regs = regions(f, 0)
    tasks = kind(regs, "omp task")
    if len(tasks) != 1 or sum(len(v[0]) for v in tasks.values()) != 20:
        fail(f"task regions {[(n, len(v[0])) for n, v in tasks.items()]}, want one with 20 calls")
    inside("rank0", regs, "omp task", "omp parallel")
    tw = kind(regs, "omp taskwait")
    if sum(len(v[0]) for v in tw.values()) != 1:
        fail(f"taskwait regions {[(n, len(v[0])) for n, v in tw.items()]}, want 1 call")
    want_counts("rank0", "omp critical wait", per_thread(regs, "omp critical wait", threads),
                np.full(threads, 3))
    inside("rank0", regs, "omp critical wait", "omp parallel")
    print(f"tasks on threads {sorted(set(int(t) for v in tasks.values() for t in v[0]))}, "
          f"critical waits per thread {per_thread(regs, 'omp critical wait', threads).tolist()}")


def check_profile(f, threads, rounds):
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["region_table/names"][()]]
    cp = f["call_paths"]
    rid, par, th, cnt = (cp[k][()] for k in ("region_ids", "parents", "threads", "counts"))
    label = [names[i] for i in rid]
    seen = np.zeros(threads, np.int64)
    loops = np.zeros(threads, np.int64)
    for row, name in enumerate(label):
        up = label[par[row]] if par[row] >= 0 else None
        t = int(th[row])
        if name.startswith("omp parallel @ "):
            want_up = "outer" if t == 0 else None
            if up != want_up:
                fail(f"thread {t}: '{name}' under {up!r}, want {want_up!r}")
            seen[t] += cnt[row]
        if name.startswith("omp loop @ "):
            if not (up or "").startswith("omp parallel @ "):
                fail(f"thread {t}: '{name}' under {up!r}, want an omp parallel region")
            loops[t] += cnt[row]
    want_counts("profile", "omp parallel", seen, np.full(threads, rounds))
    want_counts("profile", "omp loop", loops, np.full(threads, rounds))
    print(f"profile: parallel per thread {seen.tolist()}, loop {loops.tolist()}")


def check_pproc(f, pproc, path, ranks):
    """--summary --by-thread against h5py's sums per (thread, region)."""
    out = subprocess.run([pproc, path, "--summary", "--by-thread", "--format", "csv"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(f"{pproc} --summary --by-thread: exit {out.returncode}: {out.stderr.strip()}")
        return
    rows = {(int(r["thread"]), r["region"]): r for r in csv.DictReader(io.StringIO(out.stdout))}
    want = {}
    for rank in range(ranks):
        for name, (th, st, en) in regions(f, rank).items():
            for t in set(th.tolist()):
                m = th == t
                c, s = want.get((t, name), (0, 0))
                want[(t, name)] = (c + int(np.sum(m)), s + int(np.sum(en[m] - st[m])))
    if set(rows) != set(want):
        fail(f"--summary --by-thread rows {sorted(set(rows) ^ set(want))} differ from the file's")
        return
    for key, (calls, ns) in want.items():
        r = rows[key]
        if int(r["calls"]) != calls or abs(float(r["total_s"]) - ns / 1e9) > 1.5e-9 * max(1, calls):
            fail(f"--summary thread {key[0]} '{key[1]}': calls {r['calls']}, total_s "
                 f"{r['total_s']}; the file: {calls}, {ns / 1e9:.9f}")
    print(f"--summary --by-thread: {len(rows)} (thread, region) rows as in the file")


def check_names(f, rank, src, fortran):
    """Names "<construct> @ <file>:<line>" from the debug information."""
    base = os.path.basename(src)
    regs = regions(f, rank)
    pat = re.compile(r"^omp [a-z ]+ @ " + re.escape(base) + r":(\d+)$")
    omp = [n for n in regs if n.startswith("omp ")]
    bad = [n for n in omp if not pat.match(n)]
    if bad or not omp:
        fail(f"rank{rank}: omp regions not named '<construct> @ {base}:<line>': {bad or omp}")
        return
    if fortran:
        return
    text = open(src, encoding="utf-8").read().splitlines()
    lines = {}
    inside = False
    for i, line in enumerate(text, 1):
        if line.startswith("static int run_counts"):
            inside = True
        elif line.startswith("static int "):
            inside = False
        m = re.match(r"\s*#pragma omp (parallel|for|barrier|single)\b", line)
        if inside and m:
            lines[m.group(1)] = i
    want = {f"omp parallel @ {base}:{lines['parallel']}", f"omp loop @ {base}:{lines['for']}",
            f"omp barrier @ {base}:{lines['barrier']}", f"omp single @ {base}:{lines['single']}"}
    if not want <= set(omp):
        fail(f"rank{rank}: regions {sorted(omp)} lack {sorted(want - set(omp))}")
    else:
        print(f"rank{rank}: named at their pragmas: {sorted(want)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--case", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pproc")
    ap.add_argument("--source")
    a = ap.parse_args()
    with h5py.File(a.file, "r") as f:
        if a.case in ("counts", "fortran"):
            for r in range(a.ranks):
                check_counts(f, r, a.threads, a.rounds, a.case == "fortran")
                if a.source:
                    check_names(f, r, a.source, a.case == "fortran")
        elif a.case == "sleep":
            check_sleep(f, a.threads)
        elif a.case == "tasks":
            check_tasks(f, a.threads)
        elif a.case == "nested":
            check_nested(f)
        elif a.case == "profile":
            check_profile(f, a.threads, a.rounds)
        elif a.case == "libgomp":
            regs = regions(f, 0)
            omp = [n for n in regs if n.startswith("omp ")]
            if omp or "outer" not in regs or len(regs["outer"][1]) != 1:
                fail(f"regions {sorted(regs)}: want 'outer' (1 call) and no omp regions")
        else:
            sys.exit(f"check_openmp.py: unknown case {a.case}")
        if a.pproc:
            check_pproc(f, a.pproc, a.file, a.ranks)
    for m in fails:
        print("FAIL:", m, file=sys.stderr)
    if fails:
        sys.exit(1)
    print("ok")


main()
