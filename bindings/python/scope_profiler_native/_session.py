"""Session lifecycle: setup() and finalize() over sp_setup/sp_finalize."""

import ctypes
import dataclasses
import os

from . import _lib, _mpi


@dataclasses.dataclass(frozen=True)
class ProfilingConfig:
    """The options of the last setup(), as passed (before environment overrides)."""

    profiling_activated: bool
    use_likwid: bool
    time_trace: bool
    flush_to_disk: bool
    buffer_limit: int
    file_path: str
    aggregate: bool = False
    sample_ms: int = 0
    layout: str = "auto"
    reduce: int = -1
    nvtx: bool = False
    trace_max_mb: int = 0
    openmp: str = "0"
    profile_io: bool = False


# sp_config.layout's values (SP_LAYOUT_AUTO, _COLUMNAR, _RANKS, _BOTH), by name.
LAYOUTS = ("auto", "columnar", "ranks", "both")
# sp_config.openmp's values (SP_OPENMP_OFF, _ON, _TASKS, _LOCKS, _ALL), by name.
OPENMP = ("0", "1", "tasks", "locks", "tasks,locks")


def _core_defaults():
    """The core's defaults (sp_config_init), never written out here."""
    cfg = _lib.SpConfig()
    _lib.sp_config_init(ctypes.byref(cfg))
    return ProfilingConfig(
        bool(cfg.profiling_activated),
        bool(cfg.use_likwid),
        bool(cfg.time_trace),
        bool(cfg.flush_to_disk),
        cfg.buffer_limit,
        os.fsdecode(cfg.file_path),
        bool(cfg.aggregate),
        cfg.sample_ms,
        LAYOUTS[cfg.layout],
        cfg.reduce,
        bool(cfg.nvtx),
        cfg.trace_max_mb,
        OPENMP[cfg.openmp],
        bool(cfg.profile_io),
    )


_config = _core_defaults()


class ScopeProfilerError(RuntimeError):
    """A call into libscope_profiler failed; ``code`` is the SP_E* value."""

    def __init__(self, code, what):
        self.code = code
        super().__init__(f"{what}: {_lib.strerror(code)} ({code})")


def setup(
    profiling_activated=None,
    use_likwid=None,
    time_trace=None,
    flush_to_disk=None,
    buffer_limit=None,
    file_path=None,
    aggregate=None,
    sample_ms=None,
    layout=None,
    reduce=None,
    nvtx=None,
    trace_max_mb=None,
    openmp=None,
    profile_io=None,
):
    """Starts a profiling session (sp_setup); the options of the reference
    ``ProfileManager.setup()``. An option left out (None) takes the core's
    default (sp_config_init; get_config() before any setup() shows them).

    ``aggregate=True`` is profile mode: statistics per call path instead
    of (or, with ``time_trace``, besides) the events; see report().

    ``sample_ms=N`` samples the process's RSS and CPU time every N ms
    (1 to 3600000; 0 = off) into ``rank<N>/samples``.

    ``layout`` is the trace file's layout: "auto" (rank<N> groups below
    1,024 ranks, columnar from 1,024 on), "columnar" (the reference tool's
    columnar schema 3), "ranks" or "both" (docs/settings.md).
    ``reduce`` (profile mode): 1 writes the file reduced across ranks
    (per call path min, max, mean, std over the ranks), 0 per rank, -1
    (the default) from 1,024 ranks on.
    ``nvtx=True`` makes each region also an NVTX range (domain
    "scope-profiler") that Nsight Systems shows (docs/gpu.md).
    ``trace_max_mb=N``: the trace stops growing past N MB of stamps per
    process (0, the default: no cap); see trace_pause() for windows.
    ``openmp`` records OpenMP constructs through the tools interface of
    LLVM's libomp: "0" (off), "1", "tasks", "locks" or "tasks,locks"
    (docs/openmp.md).
    ``profile_io=True`` records the process's POSIX, stdio and MPI-IO calls
    as regions with their bytes and files, and a record per file
    (docs/io.md).

    Environment variables (SCOPE_PROFILER_ENABLE, SCOPE_PROFILER_FILE, ...)
    override these arguments, as for C programs. Calling setup() again
    discards the previous session without writing it.

    Returns 0, or SP_EPATH (-8) when the output directory is not writable
    (profiling stays on; finalize() reports the failure). Raises
    ScopeProfilerError for invalid options or when memory runs out.
    """
    global _config
    d = _core_defaults()
    profiling_activated = d.profiling_activated if profiling_activated is None else profiling_activated
    use_likwid = d.use_likwid if use_likwid is None else use_likwid
    time_trace = d.time_trace if time_trace is None else time_trace
    flush_to_disk = d.flush_to_disk if flush_to_disk is None else flush_to_disk
    buffer_limit = d.buffer_limit if buffer_limit is None else buffer_limit
    file_path = d.file_path if file_path is None else file_path
    aggregate = d.aggregate if aggregate is None else aggregate
    sample_ms = d.sample_ms if sample_ms is None else sample_ms
    layout = d.layout if layout is None else layout
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    reduce = d.reduce if reduce is None else reduce
    if reduce not in (-1, 0, 1) or isinstance(reduce, bool):
        raise ValueError(f"reduce must be -1 (auto), 0 or 1, not {reduce!r}")
    nvtx = d.nvtx if nvtx is None else nvtx
    trace_max_mb = d.trace_max_mb if trace_max_mb is None else trace_max_mb
    if isinstance(trace_max_mb, bool) or not isinstance(trace_max_mb, int):
        raise TypeError(f"trace_max_mb must be an int, not {type(trace_max_mb).__name__}")
    if not 0 <= trace_max_mb <= 16777216:
        raise ValueError(f"trace_max_mb must be 0 (no cap) to 16777216 MB, not {trace_max_mb}")
    openmp = d.openmp if openmp is None else str(openmp)
    if openmp not in OPENMP:
        raise ValueError(f"openmp must be one of {', '.join(OPENMP)}, not {openmp!r}")
    profile_io = d.profile_io if profile_io is None else profile_io
    if isinstance(sample_ms, bool) or not isinstance(sample_ms, int):
        raise TypeError(f"sample_ms must be an int, not {type(sample_ms).__name__}")
    if not 0 <= sample_ms <= 3600000:
        raise ValueError(f"sample_ms must be 0 (off) to 3600000 ms, not {sample_ms}")
    if isinstance(buffer_limit, bool) or not isinstance(buffer_limit, int):
        raise TypeError(f"buffer_limit must be an int, not {type(buffer_limit).__name__}")
    path = os.fsencode(file_path)
    cfg = _lib.SpConfig()
    _lib.sp_config_init(ctypes.byref(cfg))
    cfg.profiling_activated = 1 if profiling_activated else 0
    cfg.use_likwid = 1 if use_likwid else 0
    cfg.time_trace = 1 if time_trace else 0
    cfg.flush_to_disk = 1 if flush_to_disk else 0
    cfg.buffer_limit = buffer_limit
    cfg.file_path = path  # sp_setup copies it
    cfg.aggregate = 1 if aggregate else 0
    cfg.sample_ms = sample_ms
    cfg.layout = LAYOUTS.index(layout)
    cfg.reduce = reduce
    cfg.nvtx = 1 if nvtx else 0
    cfg.trace_max_mb = trace_max_mb
    cfg.openmp = OPENMP.index(openmp)
    cfg.profile_io = 1 if profile_io else 0
    rc = _lib.sp_setup(ctypes.byref(cfg))
    _config = ProfilingConfig(
        bool(profiling_activated),
        bool(use_likwid),
        bool(time_trace),
        bool(flush_to_disk),
        buffer_limit,
        os.fsdecode(path),
        bool(aggregate),
        sample_ms,
        layout,
        reduce,
        bool(nvtx),
        trace_max_mb,
        openmp,
        bool(profile_io),
    )
    if rc in (_lib.SP_EINVAL, _lib.SP_ENOMEM):
        raise ScopeProfilerError(rc, "setup")
    return rc


def finalize(verbose=False):
    """Writes the profile and ends the session (sp_finalize).

    With MPI every rank must call it (it is collective). Returns 0 or the
    SP_E* code of the failure (the library has already logged it; the
    spill files are kept for ``scope-profiler-pproc merge``). With
    ``verbose`` a line naming the file is printed on success; the reference
    package's per-region statistics come from ``scope-profiler-pproc``.
    """
    active = _lib.sp_is_active() != 0
    if active:
        _mpi.warn_if_ranks_would_collide()
    rc = _lib.sp_finalize()
    if verbose and active and rc == 0:
        print(f"scope-profiler: profile written to {_config.file_path}")
    return rc


def is_active():
    """True between setup() and finalize() with profiling activated."""
    return _lib.sp_is_active() != 0


def get_config():
    """The ProfilingConfig of the last setup() (defaults before any)."""
    return _config


def set_mpi_comm(comm):
    """Makes finalize() write over ``comm`` instead of MPI_COMM_WORLD.

    ``comm`` is an mpi4py communicator (anything with ``py2f()``) or a
    Fortran handle (int). Returns 0, or SP_ENOTSUP (-10) in a build without
    MPI.
    """
    if _lib.sp_mpi_set_comm_f is None:
        return _lib.SP_ENOTSUP
    handle = comm.py2f() if hasattr(comm, "py2f") else int(comm)
    return _lib.sp_mpi_set_comm_f(handle)
