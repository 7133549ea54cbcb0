#!/usr/bin/python3
"""exit_race.py - exit() under MPI without sp_finalize, mpirun tearing the
other ranks down (issue 36 item 8). Runs exit_mpi_race RUNS times on 4
ranks, merges each run's spill directory and reads the result with h5py.

  exit_race.py MERGE PROGRAM MODE RUNS [--kill] [--pairs N]

MODE is together or early (exit_mpi_race.c). --kill: as soon as a rank has
announced its exit, SIGKILL another rank after a random delay (0-20 ms),
at a random point of its exit drain or its recording.

Checked in every run: merge exits 0 (or 1 "partial" only when some rank
left no spill file at all because it was killed before its first flush);
no spill file is skipped as unreadable or damaged in its header; a rank
that finished its drain (done.rank<R>) has exactly its calls in the merged
file; no rank has more calls than it recorded."""
import argparse, glob, os, random, shutil, signal, subprocess, sys, time

import h5py

ap = argparse.ArgumentParser()
ap.add_argument("merge")
ap.add_argument("program")
ap.add_argument("mode", choices=["together", "early"])
ap.add_argument("runs", type=int)
ap.add_argument("--kill", action="store_true")
ap.add_argument("--pairs", type=int, default=20000)
ap.add_argument("--np", type=int, default=4)
ap.add_argument("--cut", metavar="SPEC",
                help="SP_TEST_CUT of exit_mpi_race.c: cut these ranks' exit drain")
ap.add_argument("--no-flush", action="store_true",
                help="SCOPE_PROFILER_FLUSH=0: everything is written by the exit drain")
args = ap.parse_args()
args.program = os.path.abspath(args.program)
args.merge = os.path.abspath(args.merge)

env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           SCOPE_PROFILER_BUFFER_LIMIT="500")
failures = 0
totals = {"runs": 0, "drained_ranks": 0, "killed_ranks": 0, "events": 0}


def fail(run, msg):
    global failures
    failures += 1
    print(f"run {run}: FAIL: {msg}")


def read(path):
    with open(path) as f:
        return int(f.read().split()[0])


for run in range(args.runs):
    d = os.path.abspath(f"race_{args.mode}{'_kill' if args.kill else ''}_{run}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    out = os.path.join(d, "out.h5")
    e = dict(env, SCOPE_PROFILER_FILE=out)
    if args.cut:
        e["SP_TEST_CUT"] = args.cut
    if args.no_flush:
        e["SCOPE_PROFILER_FLUSH"] = "0"
    cmd = ["mpirun", "--oversubscribe", "-np", str(args.np), args.program, args.mode,
           str(args.pairs)]
    p = subprocess.Popen(cmd, cwd=d, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killed = None
    if args.kill:
        while p.poll() is None and not glob.glob(os.path.join(d, "exiting.rank*")):
            time.sleep(0.0005)
        time.sleep(random.uniform(0, 0.02))
        victims = []
        for r in range(args.np):
            pf = os.path.join(d, f"exiting.rank{r}")
            if os.path.exists(pf) and not os.path.exists(os.path.join(d, f"done.rank{r}")):
                victims.append((r, read(pf)))
        if victims:
            killed = random.choice(victims)
            try:
                os.kill(killed[1], signal.SIGKILL)
            except ProcessLookupError:
                killed = None
    try:
        _, err = p.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(run, "mpirun did not end in 240 s")
        continue
    spill = out + ".spill"
    m = subprocess.run([args.merge, "-o", out, spill], capture_output=True, text=True)
    done = {}
    for r in range(args.np):
        f = os.path.join(d, f"done.rank{r}")
        if os.path.exists(f):
            done[r] = read(f)
    counts = {}
    if os.path.exists(out):
        with h5py.File(out, "r") as h:
            for r in range(args.np):
                g = h.get(f"rank{r}/regions/r")
                counts[r] = int(g.attrs["num_calls"]) if g is not None else 0
    msg = m.stderr
    if "not a spill file" in msg or "header is damaged" in msg or "cannot read" in msg:
        fail(run, f"a spill file was skipped: {msg.strip()}")
    if "damaged record" in msg:
        fail(run, f"damage inside a file: {msg.strip()}")
    # Exit 4 (partial) only for ranks killed before their first write: no file at all.
    files = glob.glob(os.path.join(spill, "*.spill"))
    if m.returncode != 0 and not (m.returncode == 4 and len(files) < args.np):
        fail(run, f"merge exit {m.returncode}: {msg.strip()}")
    for r, n in done.items():
        if counts.get(r, 0) != n:
            fail(run, f"rank {r} finished its drain with {n} calls, the merge has {counts.get(r, 0)}")
    for r in range(args.np):  # a cut drain: the calls of its whole records, B (or A)
        f = os.path.join(d, f"cut.rank{r}")
        if r in done or not os.path.exists(f) or os.path.getsize(f) == 0:
            continue
        b, a = (int(x) for x in open(f).read().split())
        if not b <= counts.get(r, 0) <= a:
            fail(run, f"rank {r} was cut with {b} calls in whole records ({a} with the one "
                      f"being written), the merge has {counts.get(r, 0)}")
    limit = args.pairs
    for r, c in counts.items():
        if c > limit:
            fail(run, f"rank {r}: {c} calls, more than recorded")
    for r in range(args.np):  # ended recording, killed in its drain: what it lost there
        if r not in done and os.path.exists(os.path.join(d, f"exiting.rank{r}")):
            totals["drain_cut"] = totals.get("drain_cut", 0) + 1
            totals["drain_lost"] = totals.get("drain_lost", 0) + limit - counts.get(r, 0)
    totals["runs"] += 1
    totals["drained_ranks"] += len(done)
    totals["killed_ranks"] += args.np - len(done)
    totals["events"] += sum(counts.values())
    print(f"run {run}: merge {m.returncode}, drained {sorted(done)}, "
          f"killed {killed[0] if killed else '-'}, per rank {[counts.get(r, 0) for r in range(args.np)]}"
          + ("" if m.returncode == 0 else f" | {msg.strip().splitlines()[-1][:150]}"))
    if failures == 0:
        shutil.rmtree(d, ignore_errors=True)
print(f"{totals}; {failures} failure(s)")
sys.exit(1 if failures else 0)
