"""Python binding cases; each writes a profile that check_profile.py checks.

Usage: python3 py_cases.py <case> <output.h5> [kernel library]

Runs with any python3 (standard library only); exit status 0 when the
in-process assertions hold. Each case is a function named case_<name>.
"""

import ctypes
import os
import shutil
import sys
import threading

import scope_profiler_native as spn
from scope_profiler_native import ProfileManager


def check_eq(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: got {actual!r}, expected {expected!r}")


def misuse_total():
    return sum(spn.misuse_count(k) for k in range(6))


# Decorated before setup, as module-level functions usually are.
@ProfileManager.profile("leaf")
def leaf(x):
    return x + 1


@ProfileManager.profile
def bare_decorated():
    return 7


@spn.profile()
def empty_parens():
    return 8


def case_nested(path):
    """outer x3 { middle x2 { leaf x1 } } plus the decorator forms."""
    check_eq(ProfileManager.setup(file_path=path), 0, "setup")
    check_eq(spn.is_active(), True, "is_active after setup")
    for _ in range(3):
        with ProfileManager.profile_region("outer"):
            for _ in range(2):
                with spn.region("middle"):
                    check_eq(leaf(1), 2, "decorated return value")
    check_eq(bare_decorated(), 7, "@profile without parentheses")
    check_eq(empty_parens(), 8, "@profile()")
    check_eq(leaf.__name__, "leaf", "functools.wraps")
    check_eq(misuse_total(), 0, "misuse")
    check_eq(ProfileManager.finalize(), 0, "finalize")
    check_eq(spn.is_active(), False, "is_active after finalize")


@spn.profile("raiser")
def raiser(depth):
    if depth == 0:
        raise ValueError("through the regions")
    raiser(depth - 1)


def case_exception(path):
    """Exceptions through a with-block and through decorated calls."""
    spn.setup(file_path=path)
    for _ in range(4):
        try:
            with spn.region("with_block"):
                raiser(2)
        except ValueError:
            with spn.region("handler"):
                pass
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_threads(path):
    """Four Python threads share regions; each thread records its own."""
    spn.setup(file_path=path)
    # Threads wait for each other before exiting: the core gives a new
    # thread the record (and thread id) of an exited one.
    barrier = threading.Barrier(4)

    def work(calls):
        for _ in range(calls):
            with spn.region("thread_work"):
                with spn.region("thread_inner"):
                    pass
        barrier.wait()

    threads = [threading.Thread(target=work, args=(50 * (t + 1),)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_count_only(path):
    """time_trace=False: call counts only."""
    spn.setup(file_path=path, time_trace=False)
    for _ in range(7):
        with spn.region("counted"):
            leaf(0)
    check_eq(spn.finalize(), 0, "finalize")


def case_profile(path):
    """Profile mode: region_stats, report() mid-run, reset(); the files are
    checked by tests/profile/check_counts.py."""
    spn.setup(file_path=path, time_trace=False, aggregate=True)
    check_eq(spn.get_config().aggregate, True, "get_config().aggregate")
    outer = spn.region("outer")
    for i in range(6):
        with outer:
            for _ in range(4):
                with spn.region("inner"):
                    leaf(0)
        if i == 1:
            st = spn.region_stats("inner")
            check_eq(st["calls"], 8, "inner calls after 2 steps")
            check_eq(st["min_ns"] <= st["max_ns"] <= st["total_ns"], True, "min <= max <= total")
            check_eq(spn.region_stats(outer)["exclusive_ns"] < spn.region_stats(outer)["total_ns"],
                     True, "outer exclusive < total")
            check_eq(spn.report(path + ".mid.h5"), 0, "report")
            check_eq(spn.reset(), 0, "reset")
            check_eq(spn.region_stats("inner")["calls"], 0, "inner calls after reset")
    check_eq(spn.region_stats("inner")["calls"], 16, "inner calls since reset")
    check_eq(spn.finalize(), 0, "finalize")
    check_eq(spn.region_stats("inner"), None, "region_stats after finalize")


def case_trace_window(path):
    """Trace windows: test_trace_window.c's case window_both from Python
    (10,000 steps traced at 100 to 110; "long" open across the pause,
    "span" started while paused); check_trace_window.py reads the files."""
    check_eq(spn.trace_pause(), -4, "trace_pause before setup: SP_ENOTSETUP")
    spn.setup(file_path=path, aggregate=True, buffer_limit=1000)
    step, work, lng, span = (spn.region(n) for n in ("step", "work", "long", "span"))
    check_eq(spn.trace_pause(), 0, "trace_pause")
    check_eq(spn.trace_paused(), True, "trace_paused")
    for s in range(10000):
        if s == 100:
            check_eq(spn.trace_resume(), 0, "trace_resume")
        if s == 111:
            spn.trace_pause()
        if s == 95:
            span.__enter__()
        if s == 105:
            lng.__enter__()
        with step:
            for _ in range(2):
                with work:
                    pass
        if s == 102:
            span.__exit__(None, None, None)
        if s == 120:
            lng.__exit__(None, None, None)
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_disabled(path):
    """profiling_activated=False: everything is a no-op."""
    spn.setup(profiling_activated=False, file_path=path)
    check_eq(spn.is_active(), False, "is_active")
    for _ in range(5):
        with spn.region("never"):
            leaf(0)
    check_eq(spn.get_region("never").handle, -1, "handle when off")
    check_eq(spn.finalize(), 0, "finalize")


def case_resetup(path):
    """A second setup discards the first session; regions re-register."""
    spn.setup(file_path=path)
    with spn.region("first_session_only"):
        pass
    with spn.region("both"):
        pass
    check_eq(spn.get_region("both").handle, 1, "handle in session 1")
    spn.setup(file_path=path)
    for _ in range(3):
        with spn.region("both"):
            pass
    check_eq(spn.get_region("both").handle, 0, "handle in session 2")
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_c_resetup(path):
    """A C (or Fortran) part of the program calls sp_setup again: a Python
    region's cached handle is stale and must not record into the region the
    C part registers first in the new session."""
    from scope_profiler_native import _lib

    spn.setup(file_path=path)
    with spn.region("py_region"):
        pass
    check_eq(spn.get_region("py_region").handle, 0, "handle in session 1")
    cfg = _lib.SpConfig()
    _lib.sp_config_init(ctypes.byref(cfg))
    cfg.file_path = os.fsencode(path)
    check_eq(_lib.sp_setup(ctypes.byref(cfg)), 0, "C sp_setup")
    c_first = _lib.sp_region_n(b"c_first", 7)
    check_eq(c_first, 0, "C handle in session 2")
    for _ in range(3):
        with spn.region("py_region"):
            pass
    check_eq(spn.get_region("py_region").handle, 1, "handle in session 2")
    _lib.sp_start(c_first)
    _lib.sp_stop(c_first)
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_defaults(path):
    """Python's defaults are the core's (sp_config_init), not a copy."""
    from scope_profiler_native import _lib

    cfg = _lib.SpConfig()
    _lib.sp_config_init(ctypes.byref(cfg))
    got = spn.get_config()
    check_eq(got.profiling_activated, bool(cfg.profiling_activated), "profiling_activated")
    check_eq(got.use_likwid, bool(cfg.use_likwid), "use_likwid")
    check_eq(got.time_trace, bool(cfg.time_trace), "time_trace")
    check_eq(got.flush_to_disk, bool(cfg.flush_to_disk), "flush_to_disk")
    check_eq(got.buffer_limit, cfg.buffer_limit, "buffer_limit")
    check_eq(got.file_path, os.fsdecode(cfg.file_path), "file_path")
    path = os.path.abspath(path)
    workdir = path + ".dir"  # its own directory: no other test writes the default name there
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    os.chdir(workdir)
    spn.setup()  # no arguments: the core's defaults, file_path included
    check_eq(spn.get_config(), got, "config of setup() without arguments")
    with spn.region("default_session"):
        pass
    check_eq(spn.finalize(), 0, "finalize")
    check_eq(os.path.exists(got.file_path), True, "the default file written")
    os.rename(got.file_path, path)


def case_mixed(path, kernel_path):
    """A Python driver calls a C kernel (ctypes) that records its own regions."""
    kernel = ctypes.CDLL(kernel_path)
    kernel.sp_test_kernel_run.argtypes = [ctypes.c_int]
    kernel.sp_test_kernel_run.restype = ctypes.c_int
    spn.setup(file_path=path)
    total = 0
    for _ in range(3):
        with spn.region("driver"):
            total += kernel.sp_test_kernel_run(4)
    check_eq(total, 3 * 4, "kernel iterations")
    check_eq(misuse_total(), 0, "misuse")
    check_eq(spn.finalize(), 0, "finalize")


def case_mpi(path):
    """Run under mpirun without mpi4py: the core uses whatever MPI state exists."""
    case_nested(path)


def case_mpi_init(path):
    """Several ranks under mpirun, no mpi4py: mpi_init() after setup makes
    them write one file together; each rank records rank+1 calls."""
    spn.setup(file_path=path)
    check_eq(spn.mpi_init(), True, "mpi_init initialised MPI")
    check_eq(spn.mpi_init(), False, "second mpi_init")
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
    for _ in range(rank + 1):
        with spn.region("per_rank"):
            pass
    check_eq(spn.finalize(), 0, "finalize")


def case_mpi_warning(path):
    """A launcher says 2 processes but MPI is not initialised: finalize warns."""
    import warnings

    os.environ["OMPI_COMM_WORLD_SIZE"] = "2"
    spn.setup(file_path=path)
    with spn.region("alone"):
        pass
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_eq(spn.finalize(), 0, "finalize")
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    check_eq(len(messages), 1, "RuntimeWarning count")
    check_eq("mpi_init()" in messages[0], True, "warning names mpi_init()")


def expect_raise(exc_type, func, *args, **kwargs):
    try:
        func(*args, **kwargs)
    except exc_type as err:
        return err
    raise AssertionError(f"{func.__name__}{args}{kwargs} did not raise {exc_type.__name__}")


def case_errors(path):
    """Bad options raise; an unwritable output is reported by return codes."""
    err = expect_raise(spn.ScopeProfilerError, spn.setup, buffer_limit=0, file_path=path)
    check_eq(err.code, -1, "SP_EINVAL for buffer_limit=0")
    expect_raise(TypeError, spn.setup, buffer_limit="many", file_path=path)
    expect_raise(TypeError, spn.region, 123)
    unwritable = os.path.join(path + ".missing_dir", "out.h5")
    # The spill then goes to $TMPDIR and is kept after the failed finalize:
    # give it a directory of this test's own, check it and remove it.
    tmpdir = path + ".tmp"
    os.makedirs(tmpdir, exist_ok=True)
    old_tmpdir = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = tmpdir
    try:
        check_eq(spn.setup(file_path=unwritable), -8, "SP_EPATH from setup")
        with spn.region("kept_running"):
            pass
        check_eq(spn.finalize(), -8, "SP_EPATH from finalize")
        check_eq(spn.finalize(), 0, "second finalize")
    finally:
        if old_tmpdir is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = old_tmpdir
    kept = [os.path.join(d, f) for d, _, files in os.walk(tmpdir) for f in files]
    check_eq(len(kept), 1, "one spill file kept in TMPDIR")
    check_eq(kept[0].endswith(".spill"), True, "kept file is a spill file")
    shutil.rmtree(tmpdir)


def case_library_lookup(path):
    """Without SCOPE_PROFILER_LIBRARY the package finds the library itself."""
    del path
    check_eq(os.environ.get("SCOPE_PROFILER_LIBRARY"), None, "env var unset")
    check_eq(os.path.isabs(spn.library_path), True, "library found by path")
    check_eq(os.path.basename(spn.library_path).startswith("libscope_profiler"), True,
             "library file name")
    check_eq(spn.version().count("."), 2, "version string")
    check_eq(spn.__version__, spn.version(), "__version__")


def case_columnar(path):
    """layout="columnar" reaches sp_config; a wrong name is refused."""
    try:
        spn.setup(file_path=path, layout="rows")
        raise AssertionError("layout='rows' was accepted")
    except ValueError:
        pass
    spn.setup(file_path=path, layout="columnar")
    check_eq(spn.get_config().layout, "columnar", "get_config().layout")
    for _ in range(3):
        with ProfileManager.profile_region("outer"):
            for _ in range(2):
                with ProfileManager.profile_region("inner"):
                    pass
    check_eq(spn.finalize(), 0, "finalize")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    case = globals().get("case_" + argv[1])
    if case is None:
        print(f"py_cases.py: unknown case {argv[1]!r}", file=sys.stderr)
        return 2
    if os.path.exists(argv[2]):
        os.remove(argv[2])  # a stale file must not pass the h5py check
    case(*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
