"""values_py.py FILE: the Python binding's values per call (Region.metadata
with nested dicts flattened to dotted keys, call_set), and the same oracle
lines as test_values.c (FILE.oracle.0) for check_values.py."""
import sys

import scope_profiler_native as sp


def main():
    path = sys.argv[1]
    oracle = open(path + ".oracle.0", "w", encoding="utf-8")

    def say(region, seq, key, value):
        kind = "s" if isinstance(value, str) else "d" if isinstance(value, float) else "i"
        text = value if kind == "s" else repr(value)
        oracle.write(f"0\t0\t{region}\t{seq}\t{key}\t{kind}\t{text}\n")

    sp.setup(file_path=path, time_trace=True)
    solve, inner = sp.Region("solve"), sp.Region("inner")
    if sp.call_set("nothing", 1) != -1:  # no call open: SP_EINVAL, the program goes on
        sys.exit("call_set with no call open did not give SP_EINVAL")
    for i in range(40):
        with solve as r:
            vals = {"iterations": 10 + i, "solver": {"name": f"cg-{i}", "tol": 1e-8 * (i + 1),
                                                     "opts": {"restart": i % 5}}}
            if r.metadata(**vals) != 0:
                sys.exit("metadata refused")
            say("solve", i, "iterations", 10 + i)
            say("solve", i, "solver.name", f"cg-{i}")
            say("solve", i, "solver.tol", 1e-8 * (i + 1))
            say("solve", i, "solver.opts.restart", i % 5)
            with inner:
                sp.call_set("depth", 2)  # the innermost call: inner's
                say("inner", i, "depth", 2)
            if i % 2 == 0:
                sp.call_set("after", float(i) / 3)  # solve's again
                say("solve", i, "after", float(i) / 3)
    oracle.close()
    rc = sp.finalize()
    print(f"finalize {rc}")
    sys.exit(0 if rc == 0 else 1)


if __name__ == "__main__":
    main()
