"""Profile mode (setup(aggregate=True)): report(), reset(), region_stats()."""

import ctypes
import os

from . import _lib
from ._region import Region, get_region


def report(path):
    """Writes the aggregates recorded so far to ``path`` (sp_report); with
    MPI every rank must call it at the same step. Recording goes on.
    Returns 0 or an SP_E* code (SP_EINVAL when profile mode is off)."""
    return _lib.sp_report(os.fsencode(path))


def reset():
    """Starts a new window: the aggregates start again from zero (sp_reset).
    Returns 0 or an SP_E* code."""
    return _lib.sp_reset()


def region_stats(region):
    """This process's figures of ``region`` (a Region or a name) in the
    current window, summed over threads: a dict of calls, total_ns,
    min_ns, max_ns and exclusive_ns; None when profile mode is off or the
    region was never registered in this session."""
    r = region if isinstance(region, Region) else get_region(region) or Region(region)
    h = r.handle
    if h < 0:
        return None
    out = _lib.SpRegionStats()
    if _lib.sp_region_stats(h, ctypes.byref(out)) != 0:
        return None
    return {name: getattr(out, name) for name, _ in _lib.SpRegionStats._fields_}
