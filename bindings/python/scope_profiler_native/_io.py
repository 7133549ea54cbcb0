"""The I/O records of SCOPE_PROFILER_PROFILE_IO (docs/io.md) for
ProfilingH5Reader: one rank's per-file records as a numpy structured array,
and the bytes and file ids of an I/O region's calls. Copies: the library's
arrays are freed before returning."""

import ctypes

import numpy as np

from . import _reader_lib as _rl

FILE_DTYPE = np.dtype(
    [("name", object), ("apis", np.int32)]
    + [(c, np.int64) for c in _rl.IO_COLUMNS]
    + [("slowest_op", object), ("size_hist", np.int64, (_rl.IO_NBINS,))]
)


def files_of(reader, k):
    """(records, size_bins) of rank index k; (None, None) without records."""
    lib, f = reader._lib, _rl.IoFiles()
    with reader._lock:
        rc = lib.sp_reader_io_files_load(reader._handle(), k, ctypes.byref(f))
        if rc < 0:
            reader._fail(rc)
    try:
        if not f.present:
            return None, None
        n = int(f.n)
        out = np.zeros(n, dtype=FILE_DTYPE)
        for i in range(n):
            out["name"][i] = f.names[i].decode("utf-8", "replace")
            out["slowest_op"][i] = f.slowest_ops[i].decode("utf-8", "replace")
        if n:
            out["apis"] = np.ctypeslib.as_array(f.apis, (n,))
            for c, name in enumerate(_rl.IO_COLUMNS):
                out[name] = np.ctypeslib.as_array(f.v[c], (n,))
            out["size_hist"] = np.ctypeslib.as_array(f.size_hist, (n * _rl.IO_NBINS,)).reshape(
                n, _rl.IO_NBINS)
        return out, np.array(f.size_bins[:], dtype=np.int64)
    finally:
        lib.sp_reader_io_files_free(ctypes.byref(f))


def calls_of(reader, g, k):
    """(bytes int64[n], file_ids int32[n]) of region g's calls on rank index
    k, or None when the pair has no I/O record."""
    lib, c = reader._lib, _rl.IoCalls()
    with reader._lock:
        rc = lib.sp_reader_io_calls_load(reader._handle(), g, k, ctypes.byref(c))
        if rc < 0:
            reader._fail(rc)
    try:
        if not c.present:
            return None
        n = int(c.n)
        if n == 0:
            return np.empty(0, np.int64), np.empty(0, np.int32)
        return (np.ctypeslib.as_array(c.bytes, (n,)).copy(),
                np.ctypeslib.as_array(c.file_ids, (n,)).copy())
    finally:
        lib.sp_reader_io_calls_free(ctypes.byref(c))
