#!/usr/bin/python3
"""Checks with h5py that FILE holds exactly the given region names on rank0,
byte for byte: check_raw_names.py FILE HEX...

h5py returns a name attribute that is not UTF-8 with surrogate escapes;
encoding it back with "surrogateescape" gives the bytes in the file."""
import sys

import h5py

with h5py.File(sys.argv[1], "r") as f:
    got = sorted(g.attrs["name"].encode("utf-8", "surrogateescape")
                 for g in f["rank0/regions"].values())
want = sorted(bytes.fromhex(h) for h in sys.argv[2:])
print("names in the file:", got)
if got != want:
    print("FAIL: expected", want)
    sys.exit(1)
print("ok")
