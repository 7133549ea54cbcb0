"""Values per call (docs/values.md): call_set() over sp__call_set_f, and the
flattening that Region.metadata(**values) uses."""

import ctypes
import sys

from . import _lib


def call_set(key, value):
    """Attaches key = value to the innermost call open on this thread
    (sp_call_set_int / _real / sp_call_set): a str (UTF-8), an int (int64;
    bool as 0/1) or a float (float64). Returns 0 or a negative SP_E* code;
    a refusal (no call open, a bad key, a 65th key in the region) is said
    once on stderr by the library, so a production run never stops on it.
    Any other type of value raises TypeError (a programming error)."""
    if not isinstance(key, str):
        raise TypeError(f"call value key must be a str, not {type(key).__name__}")
    k = key.encode("utf-8", "surrogatepass")
    if isinstance(value, str):
        v = value.encode("utf-8", "surrogatepass")
        return _lib.sp_call_set_f(k, len(k), 1, v, len(v))
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            sys.stderr.write(
                f"scope-profiler: warning: call_set: the value of {key!r} does not fit in "
                "int64; ignored (SP_EINVAL)\n"
            )
            return _lib.SP_EINVAL
        c = ctypes.c_int64(int(value))
        return _lib.sp_call_set_f(k, len(k), 2, ctypes.byref(c), 8)
    if isinstance(value, float):
        c = ctypes.c_double(value)
        return _lib.sp_call_set_f(k, len(k), 3, ctypes.byref(c), 8)
    raise TypeError(f"call value must be a str, int or float, not {type(value).__name__}")


def flatten(values, prefix=""):
    """Nested dicts to dotted keys: {"solver": {"tol": 1e-8}} gives
    [("solver.tol", 1e-8)], in the dicts' order."""
    out = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(flatten(value, name + "."))
        else:
            out.append((name, value))
    return out


def set_all(values):
    """Sets every flattened value; returns the first non-zero code, else 0."""
    first = 0
    for key, value in flatten(values):
        rc = call_set(key, value)
        if rc != 0 and first == 0:
            first = rc
    return first


__all__ = ["call_set", "flatten", "set_all"]
