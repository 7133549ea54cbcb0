"""Where the package finds its C libraries (the recording library for _lib,
the reader library for _reader_lib): one search order for both."""

import ctypes.util
import os


def library_candidates(env, paths_attr, name):
    """Yields the paths or names to try for library ``name`` (as
    ``find_library`` takes it), best first: ``$env`` alone when set, then
    the paths ``_paths.<paths_attr>`` lists (relative to this package), the
    system's, and the bare soname."""
    explicit = os.environ.get(env)
    if explicit:
        # An explicit choice is not second-guessed with fallbacks: loading
        # another copy silently would split the profile.
        yield explicit
        return
    try:
        from . import _paths
    except ImportError:  # running from the source tree
        _paths = None
    here = os.path.dirname(os.path.abspath(__file__))
    for path in getattr(_paths, paths_attr, ()):
        full = os.path.normpath(os.path.join(here, path))
        if os.path.exists(full):
            yield full
    found = ctypes.util.find_library(name)
    if found:
        yield found
    yield f"lib{name}.so"
