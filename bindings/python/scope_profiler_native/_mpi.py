"""MPI without mpi4py: initialise MPI through the library's own libmpi.

The core initialises nothing. A Python driver started by mpirun with
several processes must have MPI initialised before finalize(), or every
process writes the file as a lone rank 0 and they collide. mpi4py does
that on import; mpi_init() does it with no extra package.
"""

import atexit
import ctypes
import os
import warnings

from . import _lib

# Launchers export the number of processes they started.
_LAUNCHER_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def _mpi_function(name):
    # dlsym on the library's handle also searches its dependencies, so in
    # an MPI build this finds MPI (and the core's MPI_Init wrapper, which
    # tells the core its rank).
    func = getattr(_lib.LIB, name, None)
    if func is not None:
        func.restype = ctypes.c_int
    return func


def _flag(name):
    func = _mpi_function(name)
    if func is None:
        return False
    value = ctypes.c_int(0)
    func(ctypes.byref(value))
    return bool(value.value)


def available():
    """True when libscope_profiler was built with (and loaded) MPI."""
    return _mpi_function("MPI_Initialized") is not None


def initialized():
    """True when MPI is initialised and not yet finalised in this process."""
    return _flag("MPI_Initialized") and not _flag("MPI_Finalized")


def launcher_size():
    """Number of processes the MPI launcher started (1 when not under one)."""
    for var in _LAUNCHER_SIZE_VARS:
        try:
            return max(1, int(os.environ[var]))
        except (KeyError, ValueError):
            continue
    return 1


def _finalize_at_exit():
    # The core's MPI_Finalize hook writes the profile first if the session
    # is still open.
    if initialized():
        _mpi_function("MPI_Finalize")()


def mpi_init():
    """Initialises MPI unless something (mpi4py, a kernel) already did.

    MPI_Finalize then runs when the interpreter exits; call finalize()
    before. Returns True if this call initialised MPI. Raises RuntimeError
    in a build without MPI.
    """
    if not available():
        raise RuntimeError("scope_profiler_native: libscope_profiler was built without MPI")
    if _flag("MPI_Initialized"):
        return False
    init = _mpi_function("MPI_Init")
    init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    rc = init(None, None)
    if rc != 0:
        raise RuntimeError(f"scope_profiler_native: MPI_Init failed ({rc})")
    atexit.register(_finalize_at_exit)
    return True


def warn_if_ranks_would_collide():
    """Warns when several launched processes would each write as rank 0."""
    size = launcher_size()
    if size > 1 and available() and not initialized():
        warnings.warn(
            f"scope_profiler_native: {size} processes were launched but MPI is not "
            "initialised, so each writes the profile as a single rank 0 and they "
            "collide. Call scope_profiler_native.mpi_init() (or import mpi4py) "
            "before finalize().",
            RuntimeWarning,
            stacklevel=3,
        )
