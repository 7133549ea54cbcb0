#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors and
# runs the whole test suite; then the postprocessor built without PLplot
# and its tests; then the suite under ASan+UBSan, the threaded
# tests under TSan, valgrind on the serial cases, and a 60-s fuzz run
# (SCOPE_PROFILER_QUICK=1 skips those four).
# Usage: bash tests/run-all.sh [build-dir]
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
bash "$src/tests/install-deps.sh"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPE_PROFILER_WERROR=ON \
  -DSCOPE_PROFILER_BUILD_BENCHMARKS=ON
cmake --build "$build" -j2
(cd "$build" && ctest --output-on-failure -j2 --timeout 600)
# The postprocessor without PLplot (SCOPE_PROFILER_ENABLE_PLPLOT=OFF): a second, smaller
# build (no Fortran or bindings) and the postprocessor's tests, where every chart case
# expects the refusal (tests/postproc/noplplot.cmake).
cmake -S "$src" -B "$build-noplplot" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPE_PROFILER_WERROR=ON \
  -DSCOPE_PROFILER_ENABLE_PLPLOT=OFF -DSCOPE_PROFILER_ENABLE_FORTRAN=OFF \
  -DSCOPE_PROFILER_ENABLE_BINDINGS=OFF
cmake --build "$build-noplplot" -j2
(cd "$build-noplplot" && ctest --output-on-failure -j2 --timeout 600 -R '^(postproc|house)\.')
if [ "${SCOPE_PROFILER_QUICK:-0}" != 1 ]; then
  bash "$src/tests/run-sanitizers.sh" "$build-san"
  bash "$src/tests/fuzz/run.sh" 60 "$build-fuzz"
fi
