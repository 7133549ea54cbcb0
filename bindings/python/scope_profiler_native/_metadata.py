"""Run metadata: metadata_set() over sp_metadata_set_n / sp__metadata_set_f."""

import ctypes
import sys

from . import _lib


def metadata_set(key, value):
    """Stores key = value in the profile's /metadata group (sp_metadata_set):
    a str (UTF-8), an int (int64; bool as 0/1) or a float (float64). Returns
    0 or a negative SP_E* code; a refusal (bad key, a key of the library's
    own, outside a session, a value out of range) is said on stderr and
    changes nothing, so a production run never stops on it. Any other type
    of value raises TypeError (a programming error)."""
    if not isinstance(key, str):
        raise TypeError(f"metadata key must be a str, not {type(key).__name__}")
    k = key.encode("utf-8", "surrogatepass")
    if isinstance(value, str):
        v = value.encode("utf-8", "surrogatepass")
        return _lib.sp_metadata_set_n(k, len(k), v, len(v))
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            sys.stderr.write(
                f"scope-profiler: warning: metadata_set: the value of {key!r} does not fit "
                "in int64; ignored (SP_EINVAL)\n"
            )
            return _lib.SP_EINVAL
        c = ctypes.c_int64(int(value))
        return _lib.sp_metadata_set_f(k, len(k), 2, ctypes.byref(c), 8)
    if isinstance(value, float):
        c = ctypes.c_double(value)
        return _lib.sp_metadata_set_f(k, len(k), 3, ctypes.byref(c), 8)
    raise TypeError(f"metadata value must be a str, int or float, not {type(value).__name__}")


__all__ = ["metadata_set"]
