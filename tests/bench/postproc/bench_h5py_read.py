#!/usr/bin/env python3
"""bench_h5py_read.py FILE - the yardstick of issue 26: h5py reading every dataset.

Opens FILE with h5py, walks rank*/regions/*/{start,end}_times and reads each
dataset in full (ds[()]), as a Python user of the file would. The
postprocessor's --summary and --tree are compared with this process's time
(run_pproc_bench.sh pairs them). Prints the datasets, elements and bytes
read, so the run proves it read everything; asserts nothing."""
import sys

import h5py


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: bench_h5py_read.py FILE\n")
        return 2
    nsets = nelem = nbytes = 0
    with h5py.File(sys.argv[1], "r") as f:
        for rank in f:
            if not rank.startswith("rank") or "regions" not in f[rank]:
                continue
            regions = f[rank]["regions"]
            for name in regions:
                g = regions[name]
                for ds in ("start_times", "end_times"):
                    if ds in g:
                        a = g[ds][()]
                        nsets += 1
                        nelem += a.size
                        nbytes += a.nbytes
    print(f"h5py read {nsets} datasets, {nelem} elements, {nbytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
