#!/usr/bin/env bash
# The table of docs/performance.md "finalize at scale": finalize time, bytes, bandwidth
# against same-run MPI-IO baselines (see bench_scale.c for the three), and
# memory, for ranks x regions x events; then the layout alone (bench_layout)
# for the same rank counts.
#   bash tests/bench/scale/run_scale.sh BUILD_DIR [MAX_RANKS] [OUT_DIR]
set -euo pipefail
build=${1:?build directory (configured with -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON)}
max=${2:-64}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
exe=$build/tests/bench/scale/bench_scale
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
printf "%5s %7s %11s %10s %12s %9s %9s %6s %9s %6s %7s %7s %6s %8s %8s\n" ranks regions \
  events/rank finalize_s bytes MB/s base_MB/s ratio warm_MB/s w_ratio disk_s base_s d_ratio \
  rss0_MiB rss_MiB
for np in 1 2 4 8 16 32 64 128 256 512; do
  [ "$np" -le "$max" ] || break
  for regions in 10 200; do
    for events in 1000 10000 100000 1000000; do
      # Past 64 ranks on one 24 GiB machine, 1e6 events per rank would
      # hold more than memory in page cache and buffers: stop at 1e5, and
      # past 128 ranks (1.5 minutes per point at 256, 8 at 512, mostly
      # starting the ranks) at 1e3.
      [ "$np" -gt 64 ] && [ "$events" -gt 100000 ] && continue
      [ "$np" -gt 128 ] && [ "$events" -gt 1000 ] && continue
      rc=0
      row=$(mpirun -np "$np" "$exe" "$regions" "$events" "$out/scale.h5" 2>/dev/null) || rc=$?
      [ -z "$row" ] || echo "$row"
      # From 256 ranks up, Open MPI here sometimes reports a rank "exiting
      # improperly" after every rank has finished, also for a program that
      # only initialises, reduces and finalises: the row is then complete.
      if [ "$rc" -ne 0 ] && [ -n "$row" ]; then
        echo "  (np=$np: mpirun exited with $rc after the run printed the row above)"
      elif [ "$rc" -ne 0 ]; then
        echo "np=$np regions=$regions events=$events failed (mpirun exited with $rc)"
      fi
    done
  done
done

# The layout alone (bench_layout): rank 0's metadata work for the same rank
# counts in one process, without other ranks taking the CPUs. x_first at
# or under 1.00 is time linear in ranks x regions.
layout_exe=$build/tests/bench/scale/bench_layout
if [ -x "$layout_exe" ]; then
  counts=()
  for np in 1 2 4 8 16 32 64 128 256 512 1024; do
    [ "$np" -le "$max" ] && counts+=("$np")
  done
  echo
  echo "the layout alone:"
  "$layout_exe" 10 "${counts[@]}" -o "$out/layout.h5"
  "$layout_exe" 200 "${counts[@]}" -o "$out/layout.h5" | tail -n +2
fi

# The designs side by side at one size: who creates the layout
# (SCOPE_PROFILER_METADATA) and how the raw data is written
# (SCOPE_PROFILER_RAW_WRITE). "auto" is root and posix.
np=$(( max < 32 ? max : 32 ))
echo
echo "designs at $np ranks (finalize_s):"
for args in "200 1000" "10 1000000" "200 1000000"; do
  for meta in collective root; do
    for raw in posix mpiio collective; do
      printf "%-12s %-11s regions x events %-11s " "$meta" "$raw" "$args"
      SCOPE_PROFILER_METADATA=$meta SCOPE_PROFILER_RAW_WRITE=$raw \
        mpirun -x SCOPE_PROFILER_METADATA -x SCOPE_PROFILER_RAW_WRITE -np "$np" "$exe" $args \
        "$out/scale.h5" 2>/dev/null | awk '{print $4, "s, ratio", $8, ", disk ratio", $13}'
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
