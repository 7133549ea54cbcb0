"""check_folded.py - --export folded against a brute-force call tree.

Reads the profile with h5py; per rank and thread orders the calls by start,
longest first, then name, and gives each call as parent the innermost
earlier call that contains it (the reader's rule; calls on threads other
than 0 are roots of their thread); sums per call path the exclusive time
(duration minus the durations of the calls directly under it) and
compares with the lines 'a;b;c NS' scope-profiler-pproc prints.

usage: check_folded.py PPROC H5 [--ranks N]"""
import subprocess
import sys
from collections import defaultdict
from urllib.parse import unquote

import h5py
import numpy as np


def calls_of(path):
    out = defaultdict(list)  # (rank, thread) -> [(start, end, name)]
    with h5py.File(path, "r") as f:
        for key in f:
            if not key.startswith("rank") or not key[4:].isdigit():
                continue
            regs = f[key].get("regions") or {}
            for link in regs:
                g = regs[link]
                if "start_times" not in g:
                    continue
                name = g.attrs.get("name", unquote(link))
                name = name.decode() if isinstance(name, bytes) else str(name)
                s, e = g["start_times"][()], g["end_times"][()]
                t = g["thread_ids"][()] if "thread_ids" in g else np.zeros(len(s), int)
                for a, b, th in zip(s, e, t):
                    out[(int(key[4:]), int(th))].append((int(a), int(b), name))
    return out


def folded(path, ranks=None):
    excl = defaultdict(int)
    for (rank, _), calls in calls_of(path).items():
        if ranks is not None and rank not in ranks:
            continue
        calls.sort(key=lambda c: (c[0], -c[1], c[2]))
        paths, child = [], [0] * len(calls)
        for i, (a, b, name) in enumerate(calls):
            parent = None
            for j in range(i - 1, -1, -1):
                if calls[j][0] <= a and b <= calls[j][1]:
                    parent = j
                    break
            paths.append((paths[parent] + ";" if parent is not None else "") + name)
            if parent is not None:
                child[parent] += b - a
        for i, (a, b, _) in enumerate(calls):
            excl[paths[i]] += (b - a) - child[i]
    return {p: v for p, v in excl.items() if v > 0}


def main():
    pproc, h5 = sys.argv[1:3]
    out = subprocess.run([pproc, h5, "--export", "folded"] + sys.argv[3:], check=True,
                         capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        path, _, ns = line.rpartition(" ")
        assert path not in got, f"path printed twice: {path}"
        got[path] = int(ns)
    extra = sys.argv[3:]
    ranks = {int(extra[extra.index("--ranks") + 1])} if "--ranks" in extra else None
    exp = folded(h5, ranks)
    for p in sorted(set(got) | set(exp)):
        print(f"{p}: {got.get(p)} expected {exp.get(p)}")
    sys.exit(0 if got == exp else 1)


if __name__ == "__main__":
    main()
