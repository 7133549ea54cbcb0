"""ProfilingH5Reader: the reference tool's reading API over libscope_profiler_reader.

A script written for the reference package runs with one changed import::

    from scope_profiler_native.h5reader import ProfilingH5Reader

    reader = ProfilingH5Reader("profiling_data.h5")
    print(reader.num_ranks)
    for region in reader.get_regions():          # by first start time
        r0 = region[0]                            # rank 0
        print(f"{region.name}: {r0.num_calls} calls, avg {r0.average_duration/1e9:.6f} s")

Every file scope-profiler-pproc reads is read the same way (the C reader
library): the reference tool's schemas 1-3 with their columnar and
aggregate layouts, names with '/', stamps of several nodes put on rank 0's
clock. Times and durations are integer nanoseconds (numpy int64 arrays);
averages are float nanoseconds. Needs numpy.

Errors of the library become exceptions carrying its message:
FileNotFoundError for a missing file, ReaderError (a ValueError) for a
damaged file or one of another tool, KeyError for an unknown region or rank.
"""

import ctypes
import math
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import _io
from . import _reader_lib as _rl

__all__ = [
    "CallTreeNode",
    "MPIRegion",
    "ProfilingH5Reader",
    "ReaderError",
    "ReaderFileNotFoundError",
    "Region",
]


class ReaderError(ValueError):
    """The reader library refused a file or a request.

    ``code`` is the SP_READER_E* value, ``name`` its name
    ("SP_READER_ELAYOUT"); the message is the library's explanation.
    """

    def __init__(self, code, message):
        self.code = code
        self.name = _rl.lib().sp_reader_err_name(code).decode()
        super().__init__(message)


class ReaderFileNotFoundError(ReaderError, FileNotFoundError):
    """The file is missing or unreadable (SP_READER_EIO)."""


def _raise(code, message):
    cls = ReaderFileNotFoundError if code == _rl.EIO else ReaderError
    if code == _rl.ENOMEM:
        raise MemoryError(message)
    raise cls(code, message)


def _compile(patterns):
    """A list of compiled patterns from None, a str or an iterable of str."""
    if patterns is None:
        return None
    if isinstance(patterns, str):
        patterns = [patterns]
    return [re.compile(p) for p in patterns]


class _Owner:
    """Owns one sp_reader_intervals_t: the library's arrays are freed when
    the last numpy view of them is gone."""

    __slots__ = ("iv", "__weakref__")

    def __init__(self):
        self.iv = _rl.Intervals()

    def __del__(self):
        try:
            _rl.lib().sp_reader_intervals_free(ctypes.byref(self.iv))
        except Exception:  # interpreter shutdown: the process frees it
            pass


class _View:
    """Exposes n elements at ptr to numpy (``__array_interface__``) and keeps
    their owner alive: the array is the library's memory, not a copy."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, owner, ptr, n, typestr):
        self._owner = owner
        self.__array_interface__ = {
            "data": (ctypes.cast(ptr, ctypes.c_void_p).value or 0, False),
            "shape": (n,),
            "typestr": typestr,
            "version": 3,
        }


def _array(owner, ptr, n, typestr, dtype):
    if not ptr or n == 0:
        return np.empty(0, dtype=dtype)
    return np.asarray(_View(owner, ptr, n, typestr))


class Region:
    """One region on one rank: its calls' stamps and their statistics.

    The arrays are read on first use and kept (``release()`` drops them).
    In the reference tool's aggregate layout there are no stamps: the arrays
    are empty and the statistics are the stored figures (None when the file
    does not store one).
    """

    def __init__(self, reader, g, k, info):
        self._reader = reader
        self._g = g
        self._k = k
        self.rank = reader._rank_ids[k]
        self.num_calls = int(info.num_calls)
        self.num_intervals = int(info.num_intervals)
        self.has_timing = bool(info.has_times) and info.num_intervals > 0
        self._loaded = None

    def _load(self):
        # Read self._loaded once: another thread's release() may clear it
        # between a check and a second read (seen in CI with 4 threads).
        loaded = self._loaded
        if loaded is None:
            loaded = self._reader._load(self._g, self._k)
            self._loaded = loaded
        return loaded

    def _extent(self):
        loaded = self._loaded
        if loaded is not None:
            return int(loaded[0].min()), int(loaded[1].max())
        return self._reader._extent(self._g, self._k)

    @property
    def first_start_time(self):
        """Earliest start, ns (None without stamps). Without the arrays
        loaded, the reader's extent (sp_reader_extent: a scan of end_times,
        the first start noted at open), as scope-profiler-pproc takes it."""
        return self._extent()[0] if self.has_timing else None

    @property
    def last_end_time(self):
        """Latest end, ns (None without stamps); as first_start_time."""
        return self._extent()[1] if self.has_timing else None

    @property
    def loaded(self):
        """True while this object keeps the pair's arrays."""
        return self._loaded is not None

    def release(self):
        """Drops this object's reference to the arrays (they are freed once
        no array taken from it is in use)."""
        self._loaded = None

    @property
    def start_times(self):
        """Start stamps, ns (int64, the library's memory: no copy)."""
        return self._load()[0]

    @property
    def end_times(self):
        """End stamps, ns (int64)."""
        return self._load()[1]

    @property
    def thread_ids(self):
        """Thread id of every call (int32), or None when one thread recorded."""
        return self._load()[2]

    @property
    def io_bytes(self):
        """Bytes each call moved as the program saw them (int64; 0 for
        metadata calls, -1 on error), or None when the region has no I/O
        record (not an I/O call region, profile mode; docs/io.md)."""
        calls = _io.calls_of(self._reader, self._g, self._k)
        return None if calls is None else calls[0]

    @property
    def io_file_ids(self):
        """Each call's row of ``reader.io_files(rank)`` (int32, -1 unknown),
        or None as io_bytes."""
        calls = _io.calls_of(self._reader, self._g, self._k)
        return None if calls is None else calls[1]

    @property
    def metadata(self):
        """The values each call set (sp_call_set_int, sp_call_set_real,
        sp_call_set; the Python binding's metadata(**values), nested keys
        dotted): one dict per call, in the order of start_times, of key ->
        int, float or str; {} for a call that set none (every call of a
        file without values). Read on each use, not kept."""
        calls = self._reader._values(self._g, self._k)
        return calls or [{} for _ in range(self.num_intervals if self.has_timing else 0)]

    def events(self, origin=0):
        """One dict per call: call_index, start, end, duration (ns, start and
        end minus origin) and metadata (the call's values, as metadata)."""
        values = self.metadata
        out = []
        for i, (s, e) in enumerate(zip(self.start_times.tolist(), self.end_times.tolist())):
            out.append({"call_index": i, "start": s - origin, "end": e - origin,
                        "duration": e - s, "metadata": values[i] if i < len(values) else {}})
        return out

    @property
    def durations(self):
        """end_times - start_times, ns (int64)."""
        loaded = self._load()
        return loaded[1] - loaded[0]

    def _stats(self):
        loaded = self._load()
        if loaded[4] is None:  # computed on first use: reading alone needs no pass
            stats = _rl.Stats()
            self._reader._lib.sp_reader_stats_compute(ctypes.byref(loaded[3].iv), ctypes.byref(stats))
            self._loaded = loaded = loaded[:4] + (stats,)
        return loaded[4]

    def _aggregate(self, bit, field_name):
        ag = self._reader._aggregate(self._g, self._k)
        if ag is None or not ag.present:
            return None
        return int(getattr(ag, field_name)) if ag.have & bit and ag.calls > 0 else None

    @property
    def total_duration(self):
        """Sum of the durations, ns (int)."""
        if not self.has_timing:
            ag = self._reader._aggregate(self._g, self._k)
            if ag is not None and ag.present:
                return int(ag.total) if ag.have & _rl.AGG_TOTAL else None
            return 0
        return int(self._stats().total)

    @property
    def average_duration(self):
        """Mean duration per call, ns (float; 0.0 without calls)."""
        if not self.has_timing:
            total = self.total_duration
            if total is None:
                return None
            return total / self.num_calls if self.num_calls else 0.0
        return float(self._stats().mean)

    @property
    def min_duration(self):
        """Shortest call, ns (int; 0 without calls)."""
        if not self.has_timing:
            return self._aggregate(_rl.AGG_MIN, "min") if self._is_aggregate() else 0
        return int(self._stats().min)

    @property
    def max_duration(self):
        """Longest call, ns (int; 0 without calls)."""
        if not self.has_timing:
            return self._aggregate(_rl.AGG_MAX, "max") if self._is_aggregate() else 0
        return int(self._stats().max)

    @property
    def std_duration(self):
        """Population standard deviation of the durations, ns (float); from
        an aggregate file, from its stored sums of squares (None when it
        stores none: the reference tool's aggregate files)."""
        if not self.has_timing:
            if not self._is_aggregate():
                return 0.0
            return self._reader._agg_std([self])
        return float(np.std(self.durations))

    def _is_aggregate(self):
        ag = self._reader._aggregate(self._g, self._k)
        return ag is not None and bool(ag.present)

    def get_summary(self):
        """The statistics as a dict (the reference's get_summary())."""
        return {
            "num_calls": self.num_calls,
            "total_duration": self.total_duration,
            "average_duration": self.average_duration,
            "min_duration": self.min_duration,
            "max_duration": self.max_duration,
            "std_duration": self.std_duration,
        }

    def __len__(self):
        return self.num_calls

    def __repr__(self):
        return f"Region(rank={self.rank}, num_calls={self.num_calls})"


class MPIRegion:
    """One named region over the ranks that ran it; ``region[rank]`` is the
    rank's Region (rank id, the N of rank<N>).

    From a ProfilingH5Reader the per-rank Regions are made on first use:
    num_calls, total_duration and len() come from the reader's per-region
    sums (one C pass over the file for every region, sp_reader_region_sums)
    until then, so that a file of 100,000 ranks x 50 regions needs no 5
    million Python objects for its per-region totals (issue 47)."""

    def __init__(self, name, regions, reader=None, index=-1):
        self.name = name
        self._regions = regions  # rank id -> Region, ascending; None: not made yet
        self._reader = reader
        self._index = index
        self.color = None

    @property
    def regions(self):
        """rank id -> Region, ascending (made on first use)."""
        if self._regions is None:
            self._regions = self._reader._pairs_of(self._index)
        return self._regions

    @regions.setter
    def regions(self, value):
        self._regions = value

    def _sums(self):
        """(pairs, calls, intervals, total) of this region from the reader's
        sums, or None when the Regions are made or the file stores
        aggregates (their totals are per pair: None when one is unknown)."""
        if self._regions is not None or self._reader is None or self._reader._aggregate_file():
            return None
        return tuple(int(col[self._index]) for col in self._reader._region_sums())

    @property
    def ranks(self):
        """Rank ids that ran the region, ascending."""
        return list(self.regions)

    def __getitem__(self, rank):
        try:
            return self.regions[rank]
        except KeyError:
            raise KeyError(
                f"region {self.name!r} has no rank {rank!r} (it ran on ranks {self.ranks})"
            ) from None

    def __contains__(self, rank):
        return rank in self.regions

    def __iter__(self):
        return iter(self.regions.values())

    def __len__(self):
        sums = self._sums()
        return sums[0] if sums else len(self.regions)

    @property
    def num_calls(self):
        """Calls summed over ranks."""
        sums = self._sums()
        return sums[1] if sums else sum(r.num_calls for r in self.regions.values())

    @property
    def total_duration(self):
        """Sum over ranks, ns (None when an aggregate file does not store a
        rank's total)."""
        sums = self._sums()
        if sums:
            return sums[3]
        totals = [r.total_duration for r in self.regions.values()]
        return None if None in totals else sum(totals)

    @property
    def first_start_time(self):
        """Earliest start over ranks, ns (None without stamps)."""
        starts = [r.first_start_time for r in self.regions.values() if r.has_timing]
        return min(starts) if starts else None

    def average_durations(self):
        return {k: r.average_duration for k, r in self.regions.items()}

    def min_durations(self):
        return {k: r.min_duration for k, r in self.regions.items()}

    def max_durations(self):
        return {k: r.max_duration for k, r in self.regions.items()}

    def total_durations(self):
        return {k: r.total_duration for k, r in self.regions.items()}

    def __repr__(self):
        return f"MPIRegion({self.name!r}, ranks={self.ranks})"


@dataclass
class CallTreeNode:
    """One call path of ``reader.call_tree()``; times in ns, summed over the
    selected ranks (and threads). Nodes come depth first, children by
    inclusive time descending, as scope-profiler-pproc --tree prints them."""

    path: tuple
    parent: int
    depth: int
    thread: int
    calls: int
    worker_calls: int
    inclusive: int
    exclusive: int
    rank_min: float
    rank_mean: float
    rank_max: float
    max_rank: int
    imbalance: float
    share: float
    timed: bool
    per_rank: dict = field(default_factory=dict)  # rank id -> {calls, inclusive, exclusive}

    @property
    def name(self):
        return self.path[-1]


def _merge(a, b):
    """Chan's merge of two sp_reader_durations_t figures (as dicts)."""
    if b["n"] == 0:
        return a
    if a["n"] == 0:
        return dict(b)
    n = a["n"] + b["n"]
    delta = b["mean"] - a["mean"]
    out = dict(a)
    out["m2"] = a["m2"] + b["m2"] + delta * delta * a["n"] * b["n"] / n
    out["mean"] = a["mean"] + delta * b["n"] / n
    out["n"] = n
    out["total"] = a["total"] + b["total"]
    out["min"] = min(a["min"], b["min"])
    out["max"] = max(a["max"], b["max"])
    if b["first_start"] < a["first_start"]:
        out["first_start"], out["first"] = b["first_start"], b["first"]
    if b["last_end"] > a["last_end"]:
        out["last_end"], out["last"] = b["last_end"], b["last"]
    return out


def _stats_dict(d):
    if d["n"] == 0:
        keys = ("average", "min", "max", "first", "last", "std", "total")
        return {"count": 0, **{f"{k}_duration": None for k in keys}}
    return {
        "count": d["n"],
        "average_duration": d["mean"],
        "min_duration": d["min"],
        "max_duration": d["max"],
        "first_duration": d["first"],
        "last_duration": d["last"],
        "std_duration": math.sqrt(d["m2"] / d["n"]),
        "total_duration": d["total"],
    }


class ProfilingH5Reader:
    """Reads a profile file (scope-profiler's or the reference tool's).

    file_path:   the HDF5 file.
    clock_align: put every rank's stamps on rank 0's clock where the file
                 measured the offsets (the default, as pproc; False: as
                 recorded).
    verbose:     accepted for the reference's signature; prints nothing.

    Opening reads the structure only; a (region, rank) pair's arrays are
    read when first used. ``close()`` (or ``with``) releases the file;
    arrays already taken stay valid.
    """

    def __init__(self, file_path, verbose=False, clock_align=True):
        self._file_path = Path(file_path)
        self._lib = _rl.lib()
        # The C reader is used by one thread at a time; ctypes releases the
        # GIL during its calls, so the reader's own lock orders them.
        self._lock = threading.RLock()
        self._r = None
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(1024)
        rc = self._lib.sp_reader_open(
            os.fsencode(os.fspath(file_path)), ctypes.byref(handle), err, len(err)
        )
        if rc < 0:
            _raise(rc, err.value.decode("utf-8", "replace"))
        self._r = handle
        if not clock_align:
            self._lib.sp_reader_set_clock_align(self._r, 0)
        lib = self._lib
        self._rank_ids = [lib.sp_reader_rank_id(self._r, k) for k in range(lib.sp_reader_num_ranks(self._r))]
        self._agg_cache = {}
        self._regions = {}
        self._sums_cache = None
        self._is_agg = None
        for g in range(lib.sp_reader_num_regions(self._r)):
            name = lib.sp_reader_region_name(self._r, g).decode("utf-8", "replace")
            self._regions[name] = MPIRegion(name, None, self, g)
        self._metadata = None

    # ---- the file ------------------------------------------------------

    def _handle(self):
        if self._r is None:
            raise ValueError(f"ProfilingH5Reader of {self._file_path}: the reader is closed")
        return self._r

    def _fail(self, rc):
        _raise(rc, self._lib.sp_reader_errmsg(self._r).decode("utf-8", "replace"))

    def close(self):
        """Closes the file; numpy arrays already taken stay valid."""
        if getattr(self, "_r", None):
            with self._lock:
                self._lib.sp_reader_close(self._r)
                self._r = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def file_path(self):
        return self._file_path

    @property
    def num_ranks(self):
        """Number of rank groups in the file."""
        return len(self._rank_ids)

    @property
    def ranks(self):
        """Rank ids (the N of rank<N>), ascending; may have gaps."""
        return list(self._rank_ids)

    @property
    def schema(self):
        """The file's scope_profiler_schema (0 when it has none)."""
        return self._lib.sp_reader_schema(self._handle())

    @property
    def clock_aligned(self):
        """True when stamps are being moved onto rank 0's clock."""
        return bool(self._lib.sp_reader_clock_aligned(self._handle()))

    @property
    def metadata(self):
        """The /metadata attributes: int, float or str values ({} if none)."""
        if self._metadata is None:
            self._metadata = self._read_metadata()
        return dict(self._metadata)

    def _read_metadata(self):
        with self._lock:
            return self._read_metadata_locked()

    def _read_metadata_locked(self):
        r, out = self._handle(), {}
        name, value = ctypes.create_string_buffer(1024), ctypes.create_string_buffer(65536)
        kind = ctypes.c_int()
        for i in range(self._lib.sp_reader_metadata_count(r)):
            rc = self._lib.sp_reader_metadata_entry(
                r, i, name, len(name), value, len(value), ctypes.byref(kind)
            )
            if rc < 0:
                continue  # a name too long for the buffer
            text = value.value.decode("utf-8", "replace")
            key = name.value.decode("utf-8", "replace")
            if kind.value == _rl.META_INT:
                out[key] = int(text)
            elif kind.value == _rl.META_FLOAT:
                out[key] = float(text)
            elif kind.value == _rl.META_STRING:
                out[key] = text
            else:
                out[key] = None
        return out

    # ---- regions -------------------------------------------------------

    @property
    def region_names(self):
        """All region names, in region order (first start time)."""
        return list(self._regions)

    def io_files(self, rank=None):
        """The per-file I/O records (SCOPE_PROFILER_PROFILE_IO, docs/io.md).
        With rank: a numpy structured array, one row per file of that rank
        (name, apis, opens, reads, writes, seeks, syncs, meta_ops,
        bytes_read, bytes_written, max_offset, read_ns, write_ns, meta_ns,
        first_ns, last_ns, slowest_ns, slowest_start_ns, mmaps, slowest_op,
        size_hist[10]), None when the rank has none; KeyError for a rank
        the file lacks. Without: {rank: array} of the ranks that have
        records. Read one rank at a time (copies)."""
        if rank is not None:
            return _io.files_of(self, self._rank_index(rank))[0]
        out = {}
        for k, r in enumerate(self._rank_ids):
            recs = _io.files_of(self, k)[0]
            if recs is not None:
                out[r] = recs
        return out

    def io_size_bins(self, rank):
        """Upper bounds (exclusive, bytes) of the size_hist buckets of rank's
        records, int64[10]; None when it has none."""
        return _io.files_of(self, self._rank_index(rank))[1]

    def get_region(self, region_name):
        """The MPIRegion of that name; KeyError if the file has none."""
        try:
            return self._regions[region_name]
        except KeyError:
            raise KeyError(
                f"no region named {region_name!r} in {self._file_path} "
                f"(regions: {self.region_names})"
            ) from None

    __getitem__ = get_region

    def __contains__(self, region_name):
        return region_name in self._regions

    def __iter__(self):
        return iter(self._regions.values())

    def __len__(self):
        return len(self._regions)

    def get_regions(self, include=None, exclude=None):
        """Regions by first start time over all ranks (regions without stamps
        last, by name). include/exclude: a Python regular expression or a
        list of them, matched at the start of the name (re.match); a region
        is kept when any include matches (or include is None) and no
        exclude matches."""
        inc, exc = _compile(include), _compile(exclude)
        return [
            region
            for name, region in self._regions.items()
            if (inc is None or any(p.match(name) for p in inc))
            and not (exc and any(p.match(name) for p in exc))
        ]

    @property
    def minimum_start_time(self):
        """Earliest start over all regions and ranks, ns (None without stamps)."""
        starts = [r.first_start_time for r in self._regions.values()]
        starts = [s for s in starts if s is not None]
        return min(starts) if starts else None

    def _rank_index(self, rank):
        try:
            return self._rank_ids.index(rank)
        except ValueError:
            raise KeyError(
                f"{self._file_path} has no rank {rank!r} (ranks: {self._rank_ids})"
            ) from None

    def _values(self, g, k):
        v = _rl.Values()
        with self._lock:
            rc = self._lib.sp_reader_values_load(self._handle(), g, k, ctypes.byref(v))
            if rc < 0:
                self._fail(rc)
        try:
            n = int(v.n)
            calls = [{} for _ in range(n)] if v.present else []
            for j in range(v.nkeys if v.present else 0):
                c = v.keys[j]
                key = c.key.decode("utf-8", "replace")
                if c.kind == _rl.VALUE_INT:
                    for i, x in enumerate(c.ints[:n]):
                        if x != -(1 << 63):
                            calls[i][key] = x
                elif c.kind == _rl.VALUE_REAL:
                    for i, x in enumerate(c.reals[:n]):
                        if x == x:
                            calls[i][key] = x
                else:
                    for i, x in enumerate(c.strings[:n]):
                        if x:
                            calls[i][key] = x.decode("utf-8", "replace")
            return calls
        finally:
            self._lib.sp_reader_values_free(ctypes.byref(v))

    def _load(self, g, k):
        owner = _Owner()
        with self._lock:
            rc = self._lib.sp_reader_load(self._handle(), g, k, ctypes.byref(owner.iv))
            if rc < 0:
                self._fail(rc)
        iv = owner.iv
        n = int(iv.n)
        starts = _array(owner, iv.start, n, "<i8", np.int64)
        ends = _array(owner, iv.end, n, "<i8", np.int64)
        tids = _array(owner, iv.thread_ids, n, "<i4", np.int32) if iv.thread_ids else None
        return starts, ends, tids, owner, None

    def _pairs_of(self, g):
        """rank id -> Region of region g, ranks ascending."""
        info, per_rank = _rl.Info(), {}
        with self._lock:
            r = self._handle()
            for k, rank in enumerate(self._rank_ids):
                self._lib.sp_reader_info(r, g, k, ctypes.byref(info))
                if info.present:
                    per_rank[rank] = Region(self, g, k, info)
        return per_rank

    def _region_sums(self):
        """(pairs, calls, intervals, total) per region, int64 arrays
        (sp_reader_region_sums), computed once."""
        if self._sums_cache is None:
            n = max(1, len(self._regions))
            cols = tuple((ctypes.c_int64 * n)() for _ in range(4))
            with self._lock:
                rc = self._lib.sp_reader_region_sums(self._handle(), *cols)
                if rc < 0:
                    self._fail(rc)
            self._sums_cache = tuple(np.ctypeslib.as_array(c) for c in cols)
        return self._sums_cache

    def _aggregate_file(self):
        """True for the reference tool's aggregate layout (no stamps)."""
        if self._is_agg is None:
            self._is_agg = False
            info = _rl.Info()
            with self._lock:
                r = self._handle()
                for g in range(len(self._regions)):
                    for k in range(len(self._rank_ids)):
                        self._lib.sp_reader_info(r, g, k, ctypes.byref(info))
                        if info.present:
                            self._is_agg = self._aggregate(g, k).present != 0
                            return self._is_agg
        return self._is_agg

    def _extent(self, g, k):
        first, last = ctypes.c_int64(), ctypes.c_int64()
        with self._lock:
            rc = self._lib.sp_reader_extent(self._handle(), g, k, ctypes.byref(first), ctypes.byref(last))
            if rc < 0:
                self._fail(rc)
        return first.value, last.value

    def _aggregate(self, g, k):
        key = (g, k)
        if key not in self._agg_cache:
            ag = _rl.Aggregate()
            with self._lock:
                self._lib.sp_reader_aggregate(self._handle(), g, k, ctypes.byref(ag))
            self._agg_cache[key] = ag
        return self._agg_cache[key]

    def reduced(self):
        """A profile-mode file reduced across ranks (SCOPE_PROFILER_REDUCE;
        docs/profile-mode.md, "Reduced across ranks"): None for any other
        file, else a dict: ``mpi_size``, ``keep`` (k), and ``paths``, one
        dict per call path with ``path`` (the tuple of region names from the
        top), ``parent`` (index, -1 at the top), ``ranks`` (ranks with a
        finished call) and for each of ``calls``, ``inclusive``,
        ``exclusive`` (ns) a dict of ``min``, ``max``, ``sum``, ``mean``,
        ``std`` (population, over those ranks), ``min_rank``, ``max_rank``.
        The regions' per-rank figures of this file (get_region) are those
        of the kept ranks only."""
        red = _rl.Reduced()
        with self._lock:
            rc = self._lib.sp_reader_reduced(self._handle(), ctypes.byref(red))
            if rc < 0:
                self._fail(rc)
            if rc == 0:
                return None
            try:
                n = int(red.npaths)
                names = [self._lib.sp_reader_region_name(self._handle(), red.region[i])
                         for i in range(n)]
                paths = []
                for i in range(n):
                    p = int(red.parent[i])
                    name = os.fsdecode(names[i])
                    entry = {"path": (paths[p]["path"] if p >= 0 else ()) + (name,),
                             "parent": p, "ranks": int(red.rank_counts[i])}
                    for f, fig in enumerate(("calls", "inclusive", "exclusive")):
                        entry[fig] = {"min": int(red.min[f][i]), "max": int(red.max[f][i]),
                                      "sum": int(red.sum[f][i]), "mean": float(red.mean[f][i]),
                                      "std": float(red.std[f][i]),
                                      "min_rank": int(red.min_rank[f][i]),
                                      "max_rank": int(red.max_rank[f][i])}
                    paths.append(entry)
                return {"mpi_size": int(red.mpi_size), "keep": int(red.keep), "paths": paths}
            finally:
                self._lib.sp_reader_reduced_free(ctypes.byref(red))

    def call_path_values(self):
        """Profile mode's values per call path (sp_call_set_int,
        sp_call_set_real, sp_call_set in a run with aggregate = 1;
        docs/values.md): one dict per (call path, key) set there, with
        ``path`` (the tuple of region names from the top), ``rank`` and
        ``thread`` (None in a file reduced across ranks, whose rows are over
        every rank), ``key``, ``calls`` (the calls that set it) and
        ``sum``, ``mean``, ``min``, ``max`` (float; None for a key that
        held strings, which is counted only). [] for a file without."""
        pv = _rl.PathValues()
        with self._lock:
            rc = self._lib.sp_reader_path_values_load(self._handle(), ctypes.byref(pv))
            if rc < 0:
                self._fail(rc)
            try:
                paths = {}

                def path_of(p):
                    if p < 0:
                        return ()
                    if p not in paths:
                        g = int(pv.path_region[p])
                        name = os.fsdecode(self._lib.sp_reader_region_name(self._handle(), g)) \
                            if g >= 0 else "?"
                        paths[p] = path_of(int(pv.path_parent[p])) + (name,)
                    return paths[p]

                rows = []
                for i in range(int(pv.n) if rc > 0 else 0):
                    count, total = int(pv.counts[i]), float(pv.sums[i])
                    text = math.isnan(total)
                    rows.append({
                        "path": path_of(int(pv.row[i])),
                        "rank": None if pv.reduced else int(pv.rank[i]),
                        "thread": None if pv.reduced else int(pv.thread[i]),
                        "key": pv.keys[i].decode("utf-8", "replace"),
                        "calls": count,
                        "sum": None if text else total,
                        "mean": None if text or count == 0 else total / count,
                        "min": None if text else float(pv.mins[i]),
                        "max": None if text else float(pv.maxs[i])})
                return rows
            finally:
                self._lib.sp_reader_path_values_free(ctypes.byref(pv))

    # ---- analysis (as scope-profiler-pproc computes it) ----------------

    def _selection(self, include, exclude, ranks):
        regions = self.get_regions(include=include, exclude=exclude)
        if ranks is None:
            ks = list(range(len(self._rank_ids)))
        else:
            if isinstance(ranks, int):
                ranks = [ranks]
            ks = sorted({self._rank_index(rank) for rank in ranks})
        return regions, ks

    def _tree(self, regions, ks, flags):
        gs = (ctypes.c_int * max(1, len(regions)))(*[r._index for r in regions])
        kk = (ctypes.c_int * max(1, len(ks)))(*ks)
        tree = ctypes.c_void_p()
        with self._lock:
            rc = self._lib.sp_reader_tree_build(
                self._handle(), gs, len(regions), kk, len(ks), flags, ctypes.byref(tree)
            )
            if rc < 0:
                self._fail(rc)
        return tree

    def call_tree(self, include=None, exclude=None, ranks=None, by_thread=False):
        """The call tree of the selected regions and ranks (rank ids), as
        ``scope-profiler-pproc --tree`` computes it: a list of CallTreeNode,
        depth first. by_thread: a node per (call path, thread)."""
        regions, ks = self._selection(include, exclude, ranks)
        flags = _rl.TREE_BY_THREAD if by_thread else 0
        tree = self._tree(regions, ks, flags)
        lib, nodes = self._lib, []
        try:
            rk = _rl.TreeRank()
            nranks = lib.sp_reader_tree_num_ranks(tree)
            for i in range(lib.sp_reader_tree_num_nodes(tree)):
                nd = lib.sp_reader_tree_node(tree, i).contents
                name = lib.sp_reader_region_name(self._r, nd.region).decode("utf-8", "replace")
                path = (nodes[nd.parent].path if nd.parent >= 0 else ()) + (name,)
                per_rank = {}
                for j in range(nranks):
                    lib.sp_reader_tree_rank(tree, i, j, ctypes.byref(rk))
                    if rk.calls:
                        per_rank[rk.rank] = {
                            "calls": rk.calls,
                            "inclusive": rk.inclusive,
                            "exclusive": rk.exclusive,
                        }
                nodes.append(
                    CallTreeNode(
                        path, nd.parent, nd.depth, nd.thread, nd.calls, nd.worker_calls,
                        nd.inclusive, nd.exclusive, nd.rank_min, nd.rank_mean, nd.rank_max,
                        nd.max_rank, nd.imbalance, nd.share, bool(nd.timed), per_rank,
                    )
                )
        finally:
            lib.sp_reader_tree_free(tree)
        return nodes

    def region_statistics(self, include=None, exclude=None, ranks=None):
        """Per region, the statistics of scope-profiler-pproc's
        region_statistics.json, in ns: count, average_duration,
        min_duration, max_duration, first_duration, last_duration,
        std_duration (population), total_duration over the calls of the
        selected ranks together, and per_rank (rank id -> the same).
        Figures an aggregate file does not store are None."""
        regions, ks = self._selection(include, exclude, ranks)
        tree = self._tree(regions, ks, _rl.TREE_DURATIONS)
        out, d = {}, _rl.Durations()
        try:
            for region in regions:
                total = {"n": 0}
                per_rank = {}
                for j, k in enumerate(ks):
                    self._lib.sp_reader_tree_durations(tree, region._index, j, ctypes.byref(d))
                    one = {f: getattr(d, f) for f, _ in _rl.Durations._fields_}
                    one["total"] = int(one["total"])
                    rank = self._rank_ids[k]
                    if rank in region.regions:
                        per_rank[rank] = self._pair_stats(region.regions[rank], one)
                    total = _merge(total, one) if total["n"] else dict(one)
                stats = _stats_dict(total) if total["n"] else self._agg_stats(region, ks)
                stats["per_rank"] = per_rank
                out[region.name] = stats
        finally:
            self._lib.sp_reader_tree_free(tree)
        return out

    def _pair_stats(self, pair, durations):
        if durations["n"] or not pair._is_aggregate():
            return _stats_dict(durations)
        return self._agg_stats_of([pair])

    def _agg_stats(self, region, ks):
        pairs = [region.regions[self._rank_ids[k]] for k in ks if self._rank_ids[k] in region.regions]
        pairs = [p for p in pairs if p._is_aggregate()]
        return self._agg_stats_of(pairs) if pairs else _stats_dict({"n": 0})

    def _moments(self, g, k):
        m = _rl.Moments()
        with self._lock:
            have = self._lib.sp_reader_aggregate_moments(self._handle(), g, k, ctypes.byref(m))
        return m if have == 1 else None

    def _agg_std(self, pairs):
        """Population std (ns) of the calls of pairs from the stored sums of
        squares, as scope-profiler-pproc's std_duration_seconds: None unless
        every pair with calls stores them (0.0 without calls)."""
        calls, s, sq = 0, 0.0, 0.0
        for p in pairs:
            ag = self._aggregate(p._g, p._k)
            if not ag.calls:
                continue
            m = self._moments(p._g, p._k)
            if m is None:
                return None
            calls, s, sq = calls + m.calls, s + m.sum, sq + m.sum_squares
        if not calls:
            return 0.0
        var = sq / calls - (s / calls) ** 2
        return math.sqrt(var) if var > 0 else 0.0

    def _agg_stats_of(self, pairs):
        """The aggregate layout's figures merged over pairs, as pproc does."""
        calls, total, have, mn, mx = 0, 0, None, None, None
        for p in pairs:
            ag = self._aggregate(p._g, p._k)
            have = ag.have if have is None else have & ag.have
            calls += ag.calls
            total += ag.total
            if ag.calls:
                mn = ag.min if mn is None else min(mn, ag.min)
                mx = ag.max if mx is None else max(mx, ag.max)
        have = have or 0
        known_total = bool(have & _rl.AGG_TOTAL)
        return {
            "count": calls,
            "average_duration": total / calls if known_total and calls else None,
            "min_duration": mn if calls and have & _rl.AGG_MIN else None,
            "max_duration": mx if calls and have & _rl.AGG_MAX else None,
            "first_duration": None,
            "last_duration": None,
            "std_duration": self._agg_std(pairs) if calls else None,
            "total_duration": total if known_total else None,
        }

    def __repr__(self):
        return (
            f"ProfilingH5Reader({str(self._file_path)!r}: {self.num_ranks} rank(s), "
            f"{len(self._regions)} region(s))"
        )
