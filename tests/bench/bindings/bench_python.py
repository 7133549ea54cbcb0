"""Cost per region of the Python binding, next to the C cost in the same process.

Usage: python3 bench_python.py <libsp_bench_c_loop.so> [calls] [output.h5]

Each figure is ns per region call (enter + exit), the best of 5 repetitions,
with the cost of the bare loop or call subtracted. The reference pure-Python
package publishes ~300-700 ns per call for its timestamp mode. Nothing is
asserted.
"""

import ctypes
import sys
import time

import scope_profiler_native as spn

REPS = 5


def best(measure, n):
    return min(measure(n) for _ in range(REPS))


def per_call(body, n):
    t0 = time.perf_counter_ns()
    body(n)
    return (time.perf_counter_ns() - t0) / n


def loop_empty(n):
    for _ in range(n):
        pass


def plain(x):
    return x


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    c_loop = ctypes.CDLL(argv[1])
    c_loop.sp_bench_c_pairs.restype = ctypes.c_double
    c_loop.sp_bench_c_pairs.argtypes = [ctypes.c_int, ctypes.c_long]
    n = int(argv[2]) if len(argv) > 2 else 200_000
    path = argv[3] if len(argv) > 3 else "bench_bindings_python.h5"

    results = {}

    def measure_all(label):
        region = spn.profile_region("py_with_region")

        def with_prefetched(k):
            for _ in range(k):
                with region:
                    pass

        def with_lookup(k):
            for _ in range(k):
                with spn.profile_region("py_with_lookup"):
                    pass

        decorated = spn.profile("py_decorated")(plain)

        def call_decorated(k):
            for i in range(k):
                decorated(i)

        def call_plain(k):
            for i in range(k):
                plain(i)

        start, stop = spn._lib.sp_start, spn._lib.sp_stop
        raw = region.handle

        def raw_ctypes(k):
            for _ in range(k):
                start(raw)
                stop(raw)

        base_loop = best(lambda k: per_call(loop_empty, k), n)
        base_call = best(lambda k: per_call(call_plain, k), n)
        results[label] = [
            ("with region (Region kept)", best(lambda k: per_call(with_prefetched, k), n) - base_loop),
            ("with profile_region(name)", best(lambda k: per_call(with_lookup, k), n) - base_loop),
            ("@profile decorated call", best(lambda k: per_call(call_decorated, k), n) - base_call),
            ("raw ctypes start+stop", best(lambda k: per_call(raw_ctypes, k), n) - base_loop),
        ]

    spn.setup(file_path=path)
    measure_all("warm-up")  # the first pass runs slower (caches, clock speed)
    measure_all("profiling on")
    h = spn.profile_region("c_handle").handle
    c_pair = min(c_loop.sp_bench_c_pairs(h, n) for _ in range(REPS))
    rc = spn.finalize()

    spn.setup(file_path=path, profiling_activated=False)
    measure_all("profiling off")
    spn.finalize()

    print(f"scope-profiler Python binding: ns per region call (best of {REPS} x {n}, "
          f"python {sys.version.split()[0]}, clock {spn._lib.sp_clock_name().decode()})")
    for label in ("profiling on", "profiling off"):
        print(f"  {label}:")
        for name, ns in results[label]:
            print(f"    {name:<28} {ns:8.1f} ns")
    print(f"  C handle sp_start/sp_stop (same process): {c_pair:.1f} ns")
    print("  reference pure-Python scope_profiler: ~300-700 ns per call (published)")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
