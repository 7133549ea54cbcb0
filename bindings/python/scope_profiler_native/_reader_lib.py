"""Finds and loads libscope_profiler_reader and declares its C prototypes.

The reading API (h5reader, plotting_scripts) goes through the reader
library that scope-profiler-pproc uses, so Python reads every file pproc
reads, the same way: the reference tool's layouts, names with '/', clock
alignment of several nodes. The library is looked for, in order:

1. the path in the environment variable SCOPE_PROFILER_READER_LIBRARY;
2. the paths CMake wrote into ``_paths.py`` (READER_LIBRARIES);
3. ``ctypes.util.find_library("scope_profiler_reader")``;
4. ``libscope_profiler_reader.so`` through the dynamic loader.

Loaded on first use, so that recording never needs it.
"""

import ctypes
import ctypes.util
import os

from ._find import library_candidates

ENV_LIBRARY = "SCOPE_PROFILER_READER_LIBRARY"

c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_int32_p = ctypes.POINTER(ctypes.c_int32)


class Info(ctypes.Structure):
    """sp_reader_info_t"""

    _fields_ = [
        ("present", ctypes.c_int),
        ("has_times", ctypes.c_int),
        ("has_thread_ids", ctypes.c_int),
        ("num_calls", ctypes.c_int64),
        ("num_intervals", ctypes.c_int64),
        ("first_start", ctypes.c_int64),
    ]


class Aggregate(ctypes.Structure):
    """sp_reader_aggregate_t"""

    _fields_ = [
        ("present", ctypes.c_int),
        ("have", ctypes.c_uint),
        ("calls", ctypes.c_int64),
        ("total", ctypes.c_int64),
        ("min", ctypes.c_int64),
        ("max", ctypes.c_int64),
        ("exclusive", ctypes.c_int64),
    ]


AGG_TOTAL, AGG_MIN, AGG_MAX, AGG_EXCLUSIVE = 1, 2, 4, 8


class Moments(ctypes.Structure):
    """sp_reader_moments_t: an aggregate pair's calls, sum and sum of squares"""

    _fields_ = [
        ("calls", ctypes.c_int64),
        ("sum", ctypes.c_double),
        ("sum_squares", ctypes.c_double),
    ]


c_double_p = ctypes.POINTER(ctypes.c_double)


class Reduced(ctypes.Structure):
    """sp_reader_reduced_t: a file reduced across ranks, per call path"""

    _fields_ = [
        ("npaths", ctypes.c_int64),
        ("mpi_size", ctypes.c_int64),
        ("keep", ctypes.c_int64),
        ("region", c_int32_p),
        ("parent", c_int64_p),
        ("depth", c_int32_p),
        ("rank_counts", c_int32_p),
        ("min", c_int64_p * 3),
        ("max", c_int64_p * 3),
        ("sum", c_int64_p * 3),
        ("mean", c_double_p * 3),
        ("std", c_double_p * 3),
        ("min_rank", c_int32_p * 3),
        ("max_rank", c_int32_p * 3),
    ]


class Intervals(ctypes.Structure):
    """sp_reader_intervals_t"""

    _fields_ = [
        ("n", ctypes.c_int64),
        ("num_calls", ctypes.c_int64),
        ("start", c_int64_p),
        ("end", c_int64_p),
        ("thread_ids", c_int32_p),
        ("call_ids", c_int64_p),
        ("parent_ids", c_int64_p),
    ]


class Stats(ctypes.Structure):
    """sp_reader_stats_t"""

    _fields_ = [
        ("num_calls", ctypes.c_int64),
        ("n", ctypes.c_int64),
        ("total", ctypes.c_int64),
        ("mean", ctypes.c_double),
        ("min", ctypes.c_int64),
        ("max", ctypes.c_int64),
    ]


class TreeNode(ctypes.Structure):
    """sp_reader_tree_node_t"""

    _fields_ = [
        ("parent", ctypes.c_int),
        ("first_child", ctypes.c_int),
        ("next_sibling", ctypes.c_int),
        ("region", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("thread", ctypes.c_int),
        ("timed", ctypes.c_int),
        ("nranks", ctypes.c_int),
        ("calls", ctypes.c_int64),
        ("worker_calls", ctypes.c_int64),
        ("inclusive", ctypes.c_int64),
        ("exclusive", ctypes.c_int64),
        ("rank_min", ctypes.c_double),
        ("rank_mean", ctypes.c_double),
        ("rank_max", ctypes.c_double),
        ("max_rank", ctypes.c_int),
        ("imbalance", ctypes.c_double),
        ("share", ctypes.c_double),
    ]


class TreeRank(ctypes.Structure):
    """sp_reader_tree_rank_t"""

    _fields_ = [
        ("rank", ctypes.c_int),
        ("calls", ctypes.c_int64),
        ("inclusive", ctypes.c_int64),
        ("exclusive", ctypes.c_int64),
    ]


class Durations(ctypes.Structure):
    """sp_reader_durations_t"""

    _fields_ = [
        ("n", ctypes.c_int64),
        ("total", ctypes.c_double),
        ("mean", ctypes.c_double),
        ("m2", ctypes.c_double),
        ("min", ctypes.c_int64),
        ("max", ctypes.c_int64),
        ("first_start", ctypes.c_int64),
        ("first", ctypes.c_int64),
        ("last_end", ctypes.c_int64),
        ("last", ctypes.c_int64),
    ]


class ValueKey(ctypes.Structure):
    """sp_reader_value_key_t: one key's values on the calls of a pair"""

    _fields_ = [
        ("key", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("ints", c_int64_p),
        ("reals", ctypes.POINTER(ctypes.c_double)),
        ("strings", ctypes.POINTER(ctypes.c_char_p)),
    ]


class Values(ctypes.Structure):
    """sp_reader_values_t: the values per call of one (region, rank) pair"""

    _fields_ = [
        ("present", ctypes.c_int),
        ("n", ctypes.c_int64),
        ("nkeys", ctypes.c_int),
        ("keys", ctypes.POINTER(ValueKey)),
        ("lost", ctypes.c_int64),
    ]


class PathValues(ctypes.Structure):
    """sp_reader_path_values_t: profile mode's values per call path"""

    _fields_ = [
        ("n", ctypes.c_int64),
        ("row", c_int64_p),
        ("region", c_int32_p),
        ("rank", c_int32_p),
        ("thread", c_int32_p),
        ("keys", ctypes.POINTER(ctypes.c_char_p)),
        ("counts", c_int64_p),
        ("sums", ctypes.POINTER(ctypes.c_double)),
        ("mins", ctypes.POINTER(ctypes.c_double)),
        ("maxs", ctypes.POINTER(ctypes.c_double)),
        ("reduced", ctypes.c_int),
        ("npaths", ctypes.c_int64),
        ("path_parent", c_int64_p),
        ("path_region", c_int32_p),
    ]


VALUE_INT, VALUE_REAL, VALUE_STRING = 1, 2, 3

TREE_BY_THREAD = 1
TREE_DURATIONS = 2
META_OTHER, META_INT, META_FLOAT, META_STRING = 0, 1, 2, 3

# SP_READER_ERRNO_MAP codes the Python layer maps to exception classes.
EINVAL, ENOMEM, EIO, ENOTHDF5, ELAYOUT, EDATA, EHDF5, EPATTERN, ESCHEMA = range(-1, -10, -1)

_P = ctypes.c_void_p  # sp_reader_t *, sp_reader_tree_t *

IO_COLUMNS = (
    "opens", "reads", "writes", "seeks", "syncs", "meta_ops", "bytes_read", "bytes_written",
    "max_offset", "read_ns", "write_ns", "meta_ns", "first_ns", "last_ns", "slowest_ns",
    "slowest_start_ns", "mmaps",
)  # sp_reader_io_files_t.v, in SP_READER_IO_COLUMNS order
IO_NBINS = 10


class IoFiles(ctypes.Structure):
    """sp_reader_io_files_t: one rank's file records (docs/io.md)"""

    _fields_ = [
        ("present", ctypes.c_int),
        ("n", ctypes.c_int64),
        ("names", ctypes.POINTER(ctypes.c_char_p)),
        ("slowest_ops", ctypes.POINTER(ctypes.c_char_p)),
        ("apis", c_int32_p),
        ("v", c_int64_p * len(IO_COLUMNS)),
        ("size_hist", c_int64_p),
        ("size_bins", ctypes.c_int64 * IO_NBINS),
    ]


class IoCalls(ctypes.Structure):
    """sp_reader_io_calls_t: bytes and file of each call of an I/O region"""

    _fields_ = [
        ("present", ctypes.c_int),
        ("n", ctypes.c_int64),
        ("bytes", c_int64_p),
        ("file_ids", c_int32_p),
    ]


_PROTOTYPES = {
    "sp_reader_io_files_load": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(IoFiles)]),
    "sp_reader_io_files_free": (None, [ctypes.POINTER(IoFiles)]),
    "sp_reader_io_column_name": (ctypes.c_char_p, [ctypes.c_int]),
    "sp_reader_io_calls_load": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(IoCalls)],
    ),
    "sp_reader_io_calls_free": (None, [ctypes.POINTER(IoCalls)]),
    "sp_reader_version_string": (ctypes.c_char_p, []),
    "sp_reader_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "sp_reader_err_name": (ctypes.c_char_p, [ctypes.c_int]),
    "sp_reader_open": (
        ctypes.c_int,
        [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.c_char_p, ctypes.c_size_t],
    ),
    "sp_reader_close": (None, [_P]),
    "sp_reader_errmsg": (ctypes.c_char_p, [_P]),
    "sp_reader_schema": (ctypes.c_int, [_P]),
    "sp_reader_num_ranks": (ctypes.c_int, [_P]),
    "sp_reader_rank_id": (ctypes.c_int, [_P, ctypes.c_int]),
    "sp_reader_num_regions": (ctypes.c_int, [_P]),
    "sp_reader_region_name": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "sp_reader_info": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Info)]),
    "sp_reader_aggregate": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Aggregate)],
    ),
    "sp_reader_aggregate_moments": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Moments)],
    ),
    "sp_reader_reduced": (ctypes.c_int, [_P, ctypes.POINTER(Reduced)]),
    "sp_reader_reduced_free": (None, [ctypes.POINTER(Reduced)]),
    "sp_reader_load": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Intervals)]),
    "sp_reader_intervals_free": (None, [ctypes.POINTER(Intervals)]),
    "sp_reader_values_load": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Values)]),
    "sp_reader_values_free": (None, [ctypes.POINTER(Values)]),
    "sp_reader_path_values_load": (ctypes.c_int, [_P, ctypes.POINTER(PathValues)]),
    "sp_reader_path_values_free": (None, [ctypes.POINTER(PathValues)]),
    "sp_reader_extent": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, c_int64_p, c_int64_p],
    ),
    "sp_reader_stats_compute": (ctypes.c_int, [ctypes.POINTER(Intervals), ctypes.POINTER(Stats)]),
    "sp_reader_set_clock_align": (ctypes.c_int, [_P, ctypes.c_int]),
    "sp_reader_clock_aligned": (ctypes.c_int, [_P]),
    "sp_reader_rank_host": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "sp_reader_tree_build": (
        ctypes.c_int,
        [
            _P,
            ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_P),
        ],
    ),
    "sp_reader_tree_free": (None, [_P]),
    "sp_reader_tree_num_nodes": (ctypes.c_int, [_P]),
    "sp_reader_tree_node": (ctypes.POINTER(TreeNode), [_P, ctypes.c_int]),
    "sp_reader_tree_num_ranks": (ctypes.c_int, [_P]),
    "sp_reader_tree_rank": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(TreeRank)],
    ),
    "sp_reader_region_sums": (
        ctypes.c_int,
        [_P, c_int64_p, c_int64_p, c_int64_p, c_int64_p],
    ),
    "sp_reader_tree_durations": (
        ctypes.c_int,
        [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Durations)],
    ),
    "sp_reader_metadata_count": (ctypes.c_int, [_P]),
    "sp_reader_metadata_entry": (
        ctypes.c_int,
        [
            _P,
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_int),
        ],
    ),
}


def _candidates():
    return library_candidates(ENV_LIBRARY, "READER_LIBRARIES", "scope_profiler_reader")


class _Lib:
    """The loaded library with its prototypes, as attributes."""

    def __init__(self):
        errors = []
        for candidate in _candidates():
            try:
                lib = ctypes.CDLL(candidate)
                break
            except OSError as err:
                errors.append(f"{candidate}: {err}")
        else:
            raise ImportError(
                "scope_profiler_native: cannot load libscope_profiler_reader ("
                + "; ".join(errors)
                + f"). Set {ENV_LIBRARY} to the path of libscope_profiler_reader.so "
                "(built with -DSCOPE_PROFILER_ENABLE_POSTPROC=ON)."
            )
        self.path = candidate
        self.handle = lib
        for name, (restype, argtypes) in _PROTOTYPES.items():
            func = getattr(lib, name)
            func.restype = restype
            func.argtypes = argtypes
            setattr(self, name, func)


_LIB = None


def lib():
    """The reader library, loaded on first call."""
    global _LIB
    if _LIB is None:
        _LIB = _Lib()
    return _LIB
