#!/usr/bin/env bash
# The scaling table of README "Performance": finalize time, bytes, bandwidth
# against a same-run MPI-IO baseline, and memory, for ranks x regions x events.
#   bash tests/bench/scale/run_scale.sh BUILD_DIR [MAX_RANKS] [OUT_DIR]
set -euo pipefail
build=${1:?build directory (configured with -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON)}
max=${2:-64}
out=${3:-$(mktemp -d)}
exe=$build/tests/bench/scale/bench_scale
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
printf "%5s %7s %11s %10s %12s %9s %9s %6s %8s %8s\n" ranks regions events/rank finalize_s \
  bytes MB/s base_MB/s ratio rss0_MiB rss_MiB
for np in 1 2 4 8 16 32 64 128 256; do
  [ "$np" -le "$max" ] || break
  for regions in 10 200; do
    for events in 1000 10000 100000 1000000; do
      mpirun -np "$np" "$exe" "$regions" "$events" "$out/scale.h5" 2>/dev/null || echo "np=$np failed"
    done
  done
done

# The postprocessor on the largest file of the table: 64 ranks x 200 regions
# x 1e5 events per rank (6.4 million intervals).
if [ "$max" -ge 64 ] && [ -x "$build/postproc/scope-profiler-pproc" ]; then
  mpirun -np 64 "$exe" 200 100000 "$out/pproc.h5" keep >/dev/null 2>&1
  for args in "--summary" "-o $out/fig" ; do
    /usr/bin/time -f "pproc $args: %e s, peak RSS %M KiB" \
      "$build/postproc/scope-profiler-pproc" "$out/pproc.h5" $args -q >/dev/null
  done
  rm -rf "$out/pproc.h5" "$out/fig"
fi
