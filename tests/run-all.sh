#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors and
# runs the whole test suite. Usage: bash tests/run-all.sh [build-dir]
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
bash "$src/tests/install-deps.sh"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPE_PROFILER_WERROR=ON \
  -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON
cmake --build "$build" -j2
cd "$build"
ctest --output-on-failure -j2 --timeout 600
