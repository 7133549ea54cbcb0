"""check_clock_attrs.py FILE NRANKS: every rank<N> of FILE has both clock
measurements (docs/design.md "Clock alignment"): the one after sp_setup and the one
at sp_finalize. A Fortran program starts MPI through MPI_INIT, which Open
MPI's bindings run without the C MPI_Init: the setup measurement was
missing from every Fortran program's file. All ranks run on this one
machine, so every offset is 0 with an error of 0: a rank on rank 0's node
shares its CLOCK_MONOTONIC and is told so by the first answer of either
measurement (clock_offset.c)."""
import sys

import h5py

NAMES = ["clock_offset_ns", "clock_offset_at_ns", "clock_offset_error_ns",
         "clock_offset_end_ns", "clock_offset_end_at_ns", "clock_offset_end_error_ns"]


def main():
    path, nranks = sys.argv[1], int(sys.argv[2])
    fails = []
    with h5py.File(path, "r") as f:
        for r in range(nranks):
            attrs = f["rank%d" % r].attrs
            missing = [n for n in NAMES if n not in attrs]
            if missing:
                fails.append("rank%d lacks %s" % (r, ", ".join(missing)))
            elif r == 0 and (attrs["clock_offset_ns"] != 0 or attrs["clock_offset_end_ns"] != 0):
                fails.append("rank0's offset to itself is not 0")
            else:
                for n in ("clock_offset_ns", "clock_offset_error_ns", "clock_offset_end_ns",
                          "clock_offset_end_error_ns"):
                    if attrs[n] != 0:
                        fails.append("rank%d on rank 0's node: %s = %d, not 0" % (r, n, attrs[n]))
    for line in fails:
        print("FAIL: " + line)
    if not fails:
        print("ok: %d ranks with both clock measurements" % nranks)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
