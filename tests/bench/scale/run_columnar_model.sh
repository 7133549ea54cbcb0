#!/usr/bin/env bash
# The columnar finalize's cost model (issue 46, docs/performance.md): the
# default columnar finalize and the MPI_File_write_at_all baseline of the
# same bytes (bench_columnar ... columnar) at 1, 2, 4, ..., MAX_RANKS
# oversubscribed ranks, each at three shapes per rank (regions x calls) so
# that pairs and bytes vary apart; one row per run, then
# fit_columnar_model.py fits and projects them.
#   bash tests/bench/scale/run_columnar_model.sh BUILD_DIR [MAX_RANKS] [OUT_DIR] > rows.txt
set -euo pipefail
build=${1:?build directory (configured with -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON)}
max=${2:-256}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
exe=$build/tests/bench/scale/bench_columnar
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
echo "# ranks regions calls pairs bytes ranks_s columnar_s coll_s base_s ranks_us/pair columnar_us/pair beyond_us/pair coll_us/pair columnar/base ranks/columnar columnar_cpu_ms base_cpu_ms"
np=1
while [ "$np" -le "$max" ]; do
  reps=2
  [ "$np" -ge 128 ] && reps=1
  for shape in "200 10" "200 100" "1000 10"; do
    # shellcheck disable=SC2086
    mpirun -np "$np" "$exe" $shape "$out" "$reps" columnar
  done
  np=$((np * 2))
done
rm -f "$out"/bench_*.h5
