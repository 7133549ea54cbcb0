#!/usr/bin/python3
"""Checks the NVTX calls nvtx_record.so recorded from nvtx_forward.

usage: check_forward.py RECORD on|off

on: the domain "scope-profiler" was created, and its pushes and pops are
exactly those of nvtx_forward's regions, each name registered once and
pushed as a registered string. off: not one NVTX call was made (no record).
"""
import os
import sys

MAIN = ["push outer", "push inner", "pop", "push inner", "pop", "pop", "push by_name", "pop",
        "push a", "push b", "pop", "pop"]
WORKER = ["push worker", "push step", "pop", "push step", "pop", "pop"]


def main():
    path, mode = sys.argv[1], sys.argv[2]
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    fails = []
    if mode == "off":
        if lines:
            fails.append(f"NVTX calls made with forwarding off: {lines[:5]}")
    else:
        if lines[:1] != ["domain scope-profiler"]:
            fails.append(f"first call {lines[:1]}, want the domain scope-profiler")
        strings = [ln.split(" ", 2)[2] for ln in lines if ln.startswith("string ")]
        if sorted(strings) != sorted(set(strings)):
            fails.append(f"names registered more than once: {strings}")
        calls = []
        for ln in lines:
            w = ln.split(" ")
            if w[0] == "push":
                if w[1] != "scope-profiler" or len(w) != 4 or w[3] != "registered":
                    fails.append(f"push not in our domain as a registered string: {ln}")
                calls.append(f"push {w[2]}")
            elif w[0] == "pop":
                if w[1] != "scope-profiler":
                    fails.append(f"pop in another domain: {ln}")
                calls.append("pop")
        # The worker thread runs after the main thread's regions (joined).
        if calls != MAIN + WORKER:
            fails.append(f"calls {calls}\n  want {MAIN + WORKER}")
    for m in fails:
        print("FAIL:", m)
    if fails:
        return 1
    print(f"ok: {len(lines)} NVTX calls, forwarding {mode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
