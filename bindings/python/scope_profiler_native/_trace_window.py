"""Trace windows: trace_pause(), trace_resume(), trace_paused()."""

from . import _lib


def trace_pause():
    """No call starts in the trace until trace_resume() (sp_trace_pause):
    calls open now are kept whole, profile mode's aggregates count on. Per
    process, no MPI call. Returns 0 or SP_ENOTSETUP (-4) without a session."""
    return _lib.sp_trace_pause()


def trace_resume():
    """Ends a pause of the trace (sp_trace_resume); a trace truncated by
    trace_max_mb stays truncated. Returns 0 or SP_ENOTSETUP (-4)."""
    return _lib.sp_trace_resume()


def trace_paused():
    """True while no call starts in the trace (paused or truncated)."""
    return _lib.sp_trace_paused() != 0
