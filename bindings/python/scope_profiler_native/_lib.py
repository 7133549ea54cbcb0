"""Finds and loads libscope_profiler and declares the C prototypes.

The library is looked for, in order:

1. the path in the environment variable SCOPE_PROFILER_LIBRARY;
2. the paths CMake wrote into ``_paths.py`` when it built or installed this
   package (relative to the package directory, so an installed prefix can
   be moved);
3. ``ctypes.util.find_library("scope_profiler")`` (ldconfig's cache);
4. ``libscope_profiler.so`` through the dynamic loader (LD_LIBRARY_PATH).

One process must use one copy of the library: a C or Fortran kernel loaded
later that links libscope_profiler.so.0 then shares this copy (the loader
matches the soname), so all regions go to one profile.
"""

import ctypes
import ctypes.util
import os

from ._find import library_candidates

ENV_LIBRARY = "SCOPE_PROFILER_LIBRARY"


class SpConfig(ctypes.Structure):
    """Mirror of ``sp_config`` in scope_profiler.h (field order and types)."""

    _fields_ = [
        ("profiling_activated", ctypes.c_int),
        ("use_likwid", ctypes.c_int),
        ("time_trace", ctypes.c_int),
        ("flush_to_disk", ctypes.c_int),
        ("buffer_limit", ctypes.c_int64),
        ("file_path", ctypes.c_char_p),
        ("profile_mpi", ctypes.c_int),
        ("aggregate", ctypes.c_int),
        ("sample_ms", ctypes.c_int),
        ("layout", ctypes.c_int),

        ("reduce", ctypes.c_int),
        ("nvtx", ctypes.c_int),
        ("trace_max_mb", ctypes.c_int),
        ("openmp", ctypes.c_int),
        ("profile_io", ctypes.c_int),
    ]


class SpRegionStats(ctypes.Structure):
    """Mirror of ``sp_region_stats_t`` in scope_profiler.h."""

    _fields_ = [
        ("calls", ctypes.c_int64),
        ("total_ns", ctypes.c_int64),
        ("min_ns", ctypes.c_int64),
        ("max_ns", ctypes.c_int64),
        ("exclusive_ns", ctypes.c_int64),
    ]


def _candidates():
    """Yields the library paths or names to try, best first."""
    return library_candidates(ENV_LIBRARY, "LIBRARIES", "scope_profiler")


def _load():
    errors = []
    for candidate in _candidates():
        try:
            # RTLD_GLOBAL: with MPI the library pulls in libmpi, whose
            # plugins expect its symbols to be globally visible.
            return ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL), candidate
        except OSError as err:
            errors.append(f"{candidate}: {err}")
    raise ImportError(
        "scope_profiler_native: cannot load libscope_profiler ("
        + "; ".join(errors)
        + f"). Set {ENV_LIBRARY} to the path of libscope_profiler.so."
    )


def _declare(lib, name, restype, argtypes):
    func = getattr(lib, name)
    func.restype = restype
    func.argtypes = argtypes
    return func


LIB, LIBRARY_PATH = _load()

# Hot path: the same functions through a PyDLL view of the same handle.
# PyDLL keeps the GIL across the call; sp_start/sp_stop take tens of
# nanoseconds and no lock, so releasing and re-taking the GIL (CDLL) would
# cost more than the call itself. No argtypes: a Python int already
# converts to a C int, and skipping the conversion layer is faster.
_HOT = ctypes.PyDLL(LIBRARY_PATH, handle=LIB._handle)
sp_start = _HOT.sp_start
sp_start.restype = None
sp_stop = _HOT.sp_stop
sp_stop.restype = None

sp_version_string = _declare(LIB, "sp_version_string", ctypes.c_char_p, [])
sp_version_number = _declare(LIB, "sp_version_number", ctypes.c_uint, [])
sp_strerror = _declare(LIB, "sp_strerror", ctypes.c_char_p, [ctypes.c_int])
sp_err_name = _declare(LIB, "sp_err_name", ctypes.c_char_p, [ctypes.c_int])
sp_config_init = _declare(LIB, "sp_config_init", None, [ctypes.POINTER(SpConfig)])
sp_setup = _declare(LIB, "sp_setup", ctypes.c_int, [ctypes.POINTER(SpConfig)])
sp_finalize = _declare(LIB, "sp_finalize", ctypes.c_int, [])
sp_is_active = _declare(LIB, "sp_is_active", ctypes.c_int, [])
sp_region_n = _declare(LIB, "sp_region_n", ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t])
sp_metadata_set_n = _declare(
    LIB,
    "sp_metadata_set_n",
    ctypes.c_int,
    [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t],
)
sp_metadata_set_f = _declare(
    LIB,
    "sp__metadata_set_f",
    ctypes.c_int,
    [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t],
)
sp_call_set_f = _declare(
    LIB,
    "sp__call_set_f",
    ctypes.c_int,
    [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t],
)
sp_region_at_f = _declare(
    LIB,
    "sp__region_at_f",
    ctypes.c_int,
    [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int],
)
sp_misuse_count = _declare(LIB, "sp_misuse_count", ctypes.c_int64, [ctypes.c_int])
sp_clock_name = _declare(LIB, "sp_clock_name", ctypes.c_char_p, [])
sp_clock_now_ns = _declare(LIB, "sp_clock_now_ns", ctypes.c_int64, [])
sp_report = _declare(LIB, "sp_report", ctypes.c_int, [ctypes.c_char_p])
sp_reset = _declare(LIB, "sp_reset", ctypes.c_int, [])
sp_trace_pause = _declare(LIB, "sp_trace_pause", ctypes.c_int, [])
sp_trace_resume = _declare(LIB, "sp_trace_resume", ctypes.c_int, [])
sp_trace_paused = _declare(LIB, "sp_trace_paused", ctypes.c_int, [])
sp_region_stats = _declare(
    LIB, "sp_region_stats", ctypes.c_int, [ctypes.c_int, ctypes.POINTER(SpRegionStats)]
)

#: The core's session number (``sp__session``): every sp_setup and
#: sp_finalize changes it, whichever language calls them, so that cached
#: region handles can tell that they are stale. ``SESSION.value`` reads it.
SESSION = ctypes.c_uint.in_dll(LIB, "sp__session")

# Returns SP_ENOTSUP in a build without MPI; looked up defensively so an
# older library without the symbol still loads.
if hasattr(LIB, "sp_mpi_set_comm_f"):
    sp_mpi_set_comm_f = _declare(LIB, "sp_mpi_set_comm_f", ctypes.c_int, [ctypes.c_int])
else:
    sp_mpi_set_comm_f = None

# Error codes of SP_ERRNO_MAP that the Python layer acts on.
SP_EINVAL = -1
SP_ENOMEM = -2
SP_ENOTSETUP = -4
SP_ENOTSUP = -10
SP_ELOST = -12  # from finalize: the file lacks events (counted on stderr)
SP_EBUSY = -15  # from setup: another thread stays inside a profiler call


def strerror(code):
    """Text of an SP_E* code, as sp_strerror()."""
    return sp_strerror(code).decode("utf-8", "replace")
