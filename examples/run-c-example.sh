#!/usr/bin/env bash
# Installs what is missing, builds scope-profiler and runs the C stencil
# example on 4 MPI ranks; leaves profiling_data.h5 in the current directory.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$src/build
bash "$src/tests/install-deps.sh"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target stencil
# Open MPI refuses root and more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun -np 4 "$build/examples/c/stencil"
echo "wrote $(pwd)/profiling_data.h5"
