#!/usr/bin/python3
"""check_example.py PROGRAM FILE: runs examples/c/values_per_call.c and
holds FILE to what it printed: solve's call_values/iterations (int64),
residual (float64) and method (strings), call by call, read with h5py."""
import subprocess
import sys

import h5py


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    prog, path = sys.argv[1:3]
    p = subprocess.run([prog, path], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{prog} ended with {p.returncode}: {p.stderr}")
    printed = [line.split() for line in p.stdout.splitlines() if line.startswith("step ")]
    with h5py.File(path, "r") as f:
        cv = f["rank0/regions/solve/call_values"]
        it, res, meth = cv["iterations"][:], cv["residual"][:], cv["method"][:]
        if it.dtype != "int64" or res.dtype != "float64":
            fail(f"types {it.dtype} {res.dtype}")
        if len(it) != len(printed) or len(f["rank0/regions/solve/start_times"]) != len(printed):
            fail(f"{len(it)} values for {len(printed)} printed solves")
        for j, row in enumerate(printed):
            if int(it[j]) != int(row[3]) or float(res[j]) != float(row[5]):
                fail(f"solve {j}: {it[j]} {res[j]!r}, printed {row[3]} {row[5]}")
            if meth[j].decode() != "jacobi":
                fail(f"solve {j}: method {meth[j]!r}")
        if len(set(it.tolist())) < 2:
            fail("every solve took the same iterations: the example shows nothing")
    print(f"OK: {len(printed)} solves, their iterations and residuals as printed")


if __name__ == "__main__":
    main()
