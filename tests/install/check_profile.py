"""Checks a profile written by an install consumer, with h5py (independent
of the library that wrote it).

Usage: check_profile.py FILE --ranks N --region NAME:CALLS [--region ...]
Every rank group must hold every region with CALLS start/end pairs,
end >= start, the attributes name and num_calls, and the root attribute
scope_profiler_schema = 1.
"""
import argparse
import sys

import h5py
import numpy as np


def encode(name):
    """Link name of a region name (the file layout's reversible encoding)."""
    if name == ".":
        return "%2E"
    return name.replace("%", "%25").replace("/", "%2F")


def as_text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check(path, ranks, regions):
    errors = []
    with h5py.File(path, "r") as f:
        schema = f.attrs.get("scope_profiler_schema")
        if schema is None or int(schema) != 1:
            errors.append(f"scope_profiler_schema: expected 1, got {schema!r}")
        rank_groups = sorted(k for k in f.keys() if k.startswith("rank"))
        expected_groups = sorted(f"rank{r}" for r in range(ranks))
        if rank_groups != expected_groups:
            errors.append(f"rank groups: expected {expected_groups}, got {rank_groups}")
        for rank in expected_groups:
            for name, calls in regions:
                where = f"{rank}/regions/{encode(name)}"
                if where not in f:
                    errors.append(f"{where}: missing")
                    continue
                g = f[where]
                stored = as_text(g.attrs.get("name", b""))
                if stored != name:
                    errors.append(f"{where}: attribute name expected {name!r}, got {stored!r}")
                num_calls = int(g.attrs.get("num_calls", -1))
                if num_calls != calls:
                    errors.append(f"{where}: num_calls expected {calls}, got {num_calls}")
                starts = np.asarray(g["start_times"])
                ends = np.asarray(g["end_times"])
                if starts.dtype != np.int64 or ends.dtype != np.int64:
                    errors.append(f"{where}: dtypes {starts.dtype}/{ends.dtype}, expected int64")
                if len(starts) != calls or len(ends) != calls:
                    errors.append(f"{where}: {len(starts)} starts, {len(ends)} ends, expected {calls}")
                elif np.any(ends < starts):
                    errors.append(f"{where}: an end precedes its start")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--region", action="append", required=True, metavar="NAME:CALLS")
    args = parser.parse_args()
    regions = []
    for spec in args.region:
        name, _, calls = spec.rpartition(":")
        regions.append((name, int(calls)))
    errors = check(args.file, args.ranks, regions)
    for e in errors:
        print(f"check_profile: {args.file}: {e}", file=sys.stderr)
    if not errors:
        print(f"check_profile: {args.file}: {args.ranks} rank(s), {len(regions)} region(s) ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
