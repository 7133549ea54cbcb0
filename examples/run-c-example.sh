#!/usr/bin/env bash
# Installs what is missing, builds scope-profiler and its postprocessor, runs
# the C stencil example on 4 MPI ranks, then prints the profile's summary and
# draws its Gantt chart. Leaves, in the current directory, profiling_data.h5
# and figures/gantt_plot.png.
# Usage: bash examples/run-c-example.sh [build-dir]
# (default <source>/build; a build directory configured already is built as
# it was configured)
set -euo pipefail
src=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
bash "$src/tests/install-deps.sh"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target stencil scope-profiler-pproc >/dev/null
# Open MPI refuses root and more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun -np 4 "$build/examples/c/stencil"
echo "wrote $(pwd)/profiling_data.h5"
pproc=$build/postproc/scope-profiler-pproc
"$pproc" profiling_data.h5 --summary
"$pproc" profiling_data.h5 -o figures -q
echo "Gantt chart: $(pwd)/figures/gantt_plot.png"
