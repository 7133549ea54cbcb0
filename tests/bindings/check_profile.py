"""Independent check (h5py) of the profiles written by the binding cases.

Usage: /usr/bin/python3 check_profile.py <case> <file.h5> [ranks]

Reads the file with h5py only (no scope-profiler code) and checks the
public layout: rank<N>/regions/<link name>/{start_times,end_times}, the
"name" and "num_calls" attributes, thread_ids, and the nesting of calls.
"""

import os
import sys

import h5py
import numpy as np


def fail(msg):
    raise AssertionError(msg)


def check_eq(actual, expected, what):
    if actual != expected:
        fail(f"{what}: got {actual!r}, expected {expected!r}")


def link_name(name):
    """The documented reversible encoding of region names."""
    if name == ".":
        return "%2E"
    return name.replace("%", "%25").replace("/", "%2F")


def regions(f, rank=0):
    """{original name: group} of one rank, checking name and link agree."""
    out = {}
    for link, grp in f[f"rank{rank}/regions"].items():
        name = grp.attrs["name"]
        if isinstance(name, bytes):
            name = name.decode("utf-8")
        check_eq(link, link_name(name), f"link name of region {name!r}")
        out[name] = grp
    return out


def calls(grp):
    """(starts, ends, thread ids) of a region; thread ids 0 when absent."""
    starts = grp["start_times"][:]
    ends = grp["end_times"][:]
    check_eq(starts.dtype, np.dtype("int64"), "start_times dtype")
    check_eq(len(starts), len(ends), "start/end length")
    check_eq(int(grp.attrs["num_calls"]), len(starts), "num_calls vs events")
    if not np.all(ends >= starts):
        fail(f"region {grp.name}: an end before its start")
    tids = grp["thread_ids"][:] if "thread_ids" in grp else np.zeros(len(starts), np.int32)
    return starts, ends, tids


def check_nested(inner, outer, what):
    """Each call of inner lies within some call of outer on the same thread."""
    i_s, i_e, i_t = calls(inner)
    o_s, o_e, o_t = calls(outer)
    for s, e, t in zip(i_s, i_e, i_t):
        inside = (o_t == t) & (o_s <= s) & (e <= o_e)
        if not inside.any():
            fail(f"{what}: call [{s}, {e}] on thread {t} is not inside any outer call")


def check_counts(regs, expected):
    check_eq(sorted(regs), sorted(expected), "region names")
    for name, n in expected.items():
        check_eq(int(regs[name].attrs["num_calls"]), n, f"num_calls of {name!r}")


def check_file_header(f, ranks):
    check_eq(int(f.attrs["scope_profiler_schema"]), 1, "schema attribute")
    check_eq(int(f["metadata"].attrs["mpi_size"]), ranks, "metadata mpi_size")
    check_eq(sorted(k for k in f if k.startswith("rank")), sorted(f"rank{r}" for r in range(ranks)),
             "rank groups")


def check_no_file(path):
    """Profiling off: finalize writes nothing (as the reference package)."""
    if os.path.exists(path):
        fail(f"{path} was written although profiling was off")


# ---- C++ cases -------------------------------------------------------


def case_cpp_nested(f):
    regs = regions(f)
    check_counts(regs, {"outer": 3, "middle": 6, "inner_function": 6})
    check_nested(regs["middle"], regs["outer"], "middle in outer")
    check_nested(regs["inner_function"], regs["middle"], "inner_function in middle")


def case_cpp_exception(f):
    regs = regions(f)
    check_counts(regs, {"catcher": 4, "throw_outer": 4, "throw_inner": 12, "handler": 4})
    check_nested(regs["throw_inner"], regs["throw_outer"], "throw_inner in throw_outer")
    check_nested(regs["handler"], regs["catcher"], "handler in catcher")
    # The handler runs after the throwing scope was closed by unwinding.
    o_s, o_e, _ = calls(regs["throw_outer"])
    h_s, _, _ = calls(regs["handler"])
    for i in range(4):
        if not o_e[i] <= h_s[i]:
            fail(f"handler call {i} starts before throw_outer call {i} ended")


def check_threads(regs, per_thread):
    check_counts(regs, {"thread_work": sum(per_thread), "thread_inner": sum(per_thread)})
    grp = regs["thread_work"]
    if "thread_ids" not in grp:
        fail("thread_work: no thread_ids dataset although several threads recorded it")
    starts, _, tids = calls(grp)
    per = sorted(int((tids == t).sum()) for t in np.unique(tids))
    check_eq(per, sorted(per_thread), "calls per thread")
    for t in np.unique(tids):
        s = starts[tids == t]
        if not np.all(np.diff(s) >= 0):
            fail(f"thread {t}: starts not non-decreasing")
    check_nested(regs["thread_inner"], grp, "thread_inner in thread_work")


def case_cpp_threads(f):
    check_threads(regions(f), [100, 200, 300, 400])


def case_cpp_resetup(f):
    check_counts(regions(f), {"early": 5, "before_setup": 2})


def case_cpp_c_resetup(f):
    check_counts(regions(f), {"cpp_region": 3, "c_first": 1})


def case_cpp_names(f):
    regs = regions(f)
    check_counts(regs, {"a/b": 1, "100%": 1, ".": 1, "ünïcode name": 1, "early_stop": 1,
                        "after_stop": 1})
    for name, link in (("a/b", "a%2Fb"), ("100%", "100%25"), (".", "%2E")):
        if link not in f["rank0/regions"]:
            fail(f"region {name!r}: link {link!r} missing")
    _, stop_end, _ = calls(regs["early_stop"])
    after_start, _, _ = calls(regs["after_stop"])
    if not stop_end[0] <= after_start[0]:
        fail("Scope::stop() did not end the call before the next scope")


def case_cpp_mpi(f, ranks):
    for r in range(ranks):
        check_counts(regions(f, r), {"per_rank": r + 1})


# ---- Python cases ----------------------------------------------------


def case_py_nested(f):
    regs = regions(f)
    check_counts(regs, {"outer": 3, "middle": 6, "leaf": 6, "bare_decorated": 1, "empty_parens": 1})
    check_nested(regs["middle"], regs["outer"], "middle in outer")
    check_nested(regs["leaf"], regs["middle"], "leaf in middle")


def case_py_exception(f):
    regs = regions(f)
    check_counts(regs, {"with_block": 4, "raiser": 12, "handler": 4})
    check_nested(regs["raiser"], regs["with_block"], "raiser in with_block")


def case_py_threads(f):
    check_threads(regions(f), [50, 100, 150, 200])


def case_py_count_only(f):
    regs = regions(f)
    check_eq(sorted(regs), ["counted", "leaf"], "region names")
    for name in ("counted", "leaf"):
        grp = regs[name]
        check_eq(int(grp.attrs["num_calls"]), 7, f"num_calls of {name}")
        check_eq(sorted(grp.keys()), [], f"datasets of {name} in count-only mode")


def case_py_resetup(f):
    check_counts(regions(f), {"both": 3})


def case_py_c_resetup(f):
    check_counts(regions(f), {"py_region": 3, "c_first": 1})


def case_py_defaults(f):
    check_counts(regions(f), {"default_session": 1})


def case_py_mixed(f):
    regs = regions(f)
    check_counts(regs, {"driver": 3, "kernel": 3, "kernel/step": 12})
    check_nested(regs["kernel"], regs["driver"], "C kernel in Python driver")
    check_nested(regs["kernel/step"], regs["kernel"], "kernel/step in kernel")


CASES = {
    "cpp_nested": case_cpp_nested,
    "cpp_exception": case_cpp_exception,
    "cpp_threads": case_cpp_threads,
    "cpp_resetup": case_cpp_resetup,
    "cpp_names": case_cpp_names,
    "cpp_c_resetup": case_cpp_c_resetup,
    "py_c_resetup": case_py_c_resetup,
    "py_defaults": case_py_defaults,
    "py_nested": case_py_nested,
    "py_exception": case_py_exception,
    "py_threads": case_py_threads,
    "py_count_only": case_py_count_only,
    "py_resetup": case_py_resetup,
    "py_mixed": case_py_mixed,
    "py_mpi": case_py_nested,
}


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    case, path = argv[1], argv[2]
    ranks = int(argv[3]) if len(argv) > 3 else 1
    if case in ("cpp_disabled", "py_disabled"):
        check_no_file(path)
        return 0
    with h5py.File(path, "r") as f:
        check_file_header(f, ranks)
        if case in ("cpp_mpi", "py_mpi_init"):
            case_cpp_mpi(f, ranks)
        elif case in CASES:
            CASES[case](f)
        else:
            print(f"check_profile.py: unknown case {case!r}", file=sys.stderr)
            return 2
    print(f"{case}: {path} ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
