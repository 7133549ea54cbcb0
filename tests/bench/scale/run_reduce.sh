#!/usr/bin/env bash
# Profile mode's file size with and without the reduction across ranks
# (issue 46 item 3's target: reduced, 64 ranks against 16 with the same
# work per rank, at most 1.2x), and sp_finalize's time, in one run.
#   bash tests/bench/scale/run_reduce.sh BUILD_DIR [REGIONS] [CALLS] [OUT_DIR]
set -euo pipefail
build=${1:?build directory (configured with -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON)}
regions=${2:-50}
calls=${3:-10}
out=${4:-$(mktemp -d)}
mkdir -p "$out"
exe=$build/tests/bench/scale/bench_reduce
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
declare -A size
printf "%6s %6s %12s %10s\n" reduce ranks bytes finalize_s
for reduce in 0 1; do
  for np in 16 64; do
    f=$out/reduce${reduce}_np$np.h5
    rm -f "$f"
    row=$(SCOPE_PROFILER_REDUCE=$reduce mpirun -np "$np" "$exe" "$f" "$regions" "$calls")
    size[$reduce.$np]=$(stat -c %s "$f")
    printf "%6s %6s %12s %10s\n" "$reduce" "$np" "${size[$reduce.$np]}" "${row#* }"
  done
done
for reduce in 0 1; do
  awk -v a="${size[$reduce.64]}" -v b="${size[$reduce.16]}" -v r="$reduce" \
    'BEGIN { printf "reduce=%s: 64 ranks / 16 ranks = %d / %d bytes = %.3fx\n", r, a, b, a / b }'
done
awk -v a="${size[1.64]}" -v b="${size[1.16]}" \
  'BEGIN { if (a / b > 1.2) { print "ABOVE the 1.2x target"; exit 1 } print "within the 1.2x target" }'
