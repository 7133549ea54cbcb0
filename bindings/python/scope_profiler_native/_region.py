"""Regions: context manager and decorator over sp_start/sp_stop."""

import functools

from . import _lib, _values

_start = _lib.sp_start
_stop = _lib.sp_stop
_SESSION = _lib.SESSION  # the core's session number: any language's sp_setup changes it


class Region:
    """A named region, usable as ``with region:`` and ``region.wrap(func)``.

    The C handle is registered on first use in each session (one lock in
    the core), then every enter/exit is one ctypes call. Outside a session,
    or with profiling off, enter and exit do nothing. Entering the same
    region again inside itself (recursion) is allowed.
    """

    __slots__ = ("name", "_encoded", "_file", "_line", "_generation", "_handle")

    def __init__(self, name, file=None, line=0):
        """file and line: where the region is in the source, stored as its
        source_file and source_lineno attributes (profile() passes the
        function's own)."""
        if not isinstance(name, str):
            raise TypeError(f"region name must be a str, not {type(name).__name__}")
        self.name = name
        self._encoded = name.encode("utf-8")
        self._file = file.encode("utf-8", "surrogateescape") if file else None
        self._line = int(line) if line and 0 <= line < 2**31 else 0
        self._generation = -1  # never a session number: register on first use
        self._handle = -1

    def _refresh(self):
        """Registers the name in the current session (or marks it off)."""
        handle = -1
        if _lib.sp_is_active():
            if self._file:
                handle = _lib.sp_region_at_f(
                    self._encoded, len(self._encoded), self._file, len(self._file), self._line
                )
            else:
                handle = _lib.sp_region_n(self._encoded, len(self._encoded))
        self._handle = handle if handle >= 0 else -1
        self._generation = _SESSION.value

    @property
    def handle(self):
        """The C handle in this session, or -1 when not recording."""
        if self._generation != _SESSION.value:
            self._refresh()
        return self._handle

    def __enter__(self):
        if self._generation != _SESSION.value:
            self._refresh()
        if self._handle >= 0:
            _start(self._handle)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # A session started or ended inside the block leaves nothing to stop.
        if self._handle >= 0 and self._generation == _SESSION.value:
            _stop(self._handle)
        return False

    def metadata(self, **values):
        """Attaches values to this thread's innermost open call (inside
        ``with region:`` that is this region's call, unless a call nested
        in it is open): ``region.metadata(iterations=12, residual=1e-9,
        solver={"name": "cg", "tol": 1e-8})``. Nested dicts are flattened
        to dotted keys (``solver.name``, ``solver.tol``). Values: str, int,
        float. Returns 0 or the first SP_E* code (said once on stderr)."""
        return _values.set_all(values)

    def wrap(self, func):
        """Returns func timed as this region (the stop also runs on exceptions)."""
        region = self
        session = _SESSION

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if region._generation != session.value:
                region._refresh()
            handle = region._handle
            if handle < 0:
                return func(*args, **kwargs)
            _start(handle)
            try:
                return func(*args, **kwargs)
            finally:
                if region._generation == session.value:
                    _stop(handle)

        return wrapper

    def __repr__(self):
        return f"Region({self.name!r})"


# One Region object per name, kept across sessions (each re-registers).
_REGIONS = {}


def profile_region(region_name, file=None, line=0):
    """The Region named region_name, for ``with profile_region("x"):``
    (file and line: its place in the source, kept from the first call)."""
    region = _REGIONS.get(region_name)
    if region is None:
        region = _REGIONS.setdefault(region_name, Region(region_name, file, line))
    return region


def _code_of(func):
    code = getattr(func, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else (None, 0)


def profile(region_name=None):
    """Decorator timing a function as region ``region_name`` (default: the
    function's ``__name__``). Works as ``@profile``, ``@profile()`` and
    ``@profile("name")``, like the reference package. Regions are looked up
    when the function runs, so decorating before setup() is fine.
    """
    if callable(region_name):
        func = region_name
        return profile_region(func.__name__, *_code_of(func)).wrap(func)

    def decorator(func):
        return profile_region(region_name or func.__name__, *_code_of(func)).wrap(func)

    return decorator


def get_region(region_name):
    """The Region of that name if one was created, else None."""
    return _REGIONS.get(region_name)


def get_all_regions():
    """A dict of all Regions created through profile_region() or profile()."""
    return dict(_REGIONS)
