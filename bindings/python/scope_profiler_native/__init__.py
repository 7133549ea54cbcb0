"""scope_profiler_native: Python regions recorded by the scope-profiler C core.

A ctypes binding (standard library only) over libscope_profiler. Python
regions and the C, C++ or Fortran regions of the same process go to one
profile file, on one clock (CLOCK_MONOTONIC, the clock of
time.perf_counter_ns() on Linux).

The API mirrors the reference pure-Python package ``scope_profiler``::

    from scope_profiler_native import ProfileManager

    ProfileManager.setup(file_path="profiling_data.h5")

    @ProfileManager.profile("main")
    def main():
        for i in range(10):
            with ProfileManager.profile_region("iteration"):
                pass

    main()
    ProfileManager.finalize()

The same functions exist at module level (``setup``, ``finalize``,
``region``/``profile_region``, ``profile``).
"""

from . import _lib
from ._metadata import metadata_set
from ._values import call_set
from ._mpi import mpi_init
from ._profile_mode import region_stats, report, reset
from ._region import Region, get_all_regions, get_region, profile, profile_region
from ._session import (
    ProfilingConfig,
    ScopeProfilerError,
    finalize,
    get_config,
    is_active,
    set_mpi_comm,
    setup,
)
from ._trace_window import trace_pause, trace_paused, trace_resume

region = profile_region

#: Path or name of the libscope_profiler that was loaded.
library_path = _lib.LIBRARY_PATH


def version():
    """Version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _lib.sp_version_string().decode("ascii")


def clock_now_ns():
    """Now, in the stamps' clock: CLOCK_MONOTONIC nanoseconds."""
    return _lib.sp_clock_now_ns()


def misuse_count(kind):
    """How often misuse of this kind (sp_misuse_t: 0 stop without start,
    1 stop mismatch, 2 invalid handle, 3 bad name, 4 unbalanced,
    5 not active, 6 reentered, 7 value with no call open, 8 values lost) happened in the current or last session."""
    return _lib.sp_misuse_count(kind)


class ProfileManager:
    """The reference package's entry point, as static methods, so that
    ``from scope_profiler_native import ProfileManager`` is a drop-in change."""

    setup = staticmethod(setup)
    finalize = staticmethod(finalize)
    profile_region = staticmethod(profile_region)
    profile = staticmethod(profile)
    get_region = staticmethod(get_region)
    get_all_regions = staticmethod(get_all_regions)
    get_config = staticmethod(get_config)
    metadata_set = staticmethod(metadata_set)
    call_set = staticmethod(call_set)


__version__ = version()

__all__ = [
    "ProfileManager",
    "ProfilingConfig",
    "Region",
    "ScopeProfilerError",
    "call_set",
    "clock_now_ns",
    "finalize",
    "get_all_regions",
    "get_config",
    "get_region",
    "is_active",
    "library_path",
    "metadata_set",
    "misuse_count",
    "mpi_init",
    "profile",
    "profile_region",
    "region",
    "region_stats",
    "report",
    "reset",
    "set_mpi_comm",
    "setup",
    "trace_pause",
    "trace_paused",
    "trace_resume",
    "version",
]
