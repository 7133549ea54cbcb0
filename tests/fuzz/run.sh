#!/usr/bin/env bash
# Bounded fuzzing of the reader library, the pproc command line and the
# .aggspill parser of scope-profiler-merge and the reduction's table parser:
#   bash tests/fuzz/run.sh SECONDS [build-dir]
# Builds the libFuzzer harnesses with clang, ASan and UBSan in build-dir
# (default <src>/build-fuzz; MPI off: the reader needs none), runs both
# harnesses side by side for SECONDS each from a copy of the seed corpus,
# and classifies every crash, leak, timeout and out-of-memory input:
#  - "known HDF5": the fault is inside libhdf5 (first frame that is not
#    libc or a sanitizer interceptor) and the memory involved was not
#    allocated by our code. HDF5 1.10 is not hardened against malformed
#    files; these are listed and kept, but do not fail the run.
#  - anything else is a finding: the script exits 1 and names the input;
#    replay it with build-fuzz/tests/fuzz/fuzz_reader FILE.
# Leaks inside HDF5's metadata cache are suppressed by hdf5_known.supp.
set -euo pipefail
secs=${1:?usage: run.sh SECONDS [build-dir]}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$src/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: clang not found (libFuzzer needs it)" >&2; exit 2; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSCOPE_PROFILER_SANITIZE=address -DSCOPE_PROFILER_BUILD_FUZZERS=ON \
    -DSCOPE_PROFILER_ENABLE_MPI=OFF -DSCOPE_PROFILER_ENABLE_FORTRAN=OFF \
    -DSCOPE_PROFILER_ENABLE_BINDINGS=OFF >/dev/null
fi
cmake --build "$build" -j2 --target fuzz_reader fuzz_args fuzz_aggspill fuzz_redtable >/dev/null

export ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=40
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/hdf5_known.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=$build/fuzz-run
rm -rf "$work"
mkdir -p "$work/tmp"
# The harnesses' temporary files: one left by an input that crashed stays
# here, not in /tmp.
export TMPDIR=$work/tmp

run_one() { # name max_len [seconds]
  local name=$1 max_len=$2 dir=$work/$1 time=${3:-$secs}
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp "$src/tests/fuzz/corpus/$name/"* "$dir/corpus/"
  # -fork keeps fuzzing after a crash so that known HDF5 faults do not end
  # the run; every faulting input lands in artifacts/.
  (cd "$dir" && "$build/tests/fuzz/fuzz_$name" -fork=1 -ignore_crashes=1 -ignore_ooms=1 \
    -ignore_timeouts=1 -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -close_fd_mask=3 -artifact_prefix="$dir/artifacts/" \
    corpus >"$dir/log.txt" 2>&1) || true
}

run_one reader 65536 &
run_one args 512 &
wait
# The two small parsers after the two above (2 cores): a third of the time.
run_one aggspill 16384 "$(( (secs + 2) / 3 ))" &
run_one redtable 16384 "$(( (secs + 2) / 3 ))" &
wait

# First frame of the fault's stack that is not libc or a sanitizer. The
# sanitizer runtime is linked into the harness, so its interceptors show as
# "in strdup (/path/fuzz_reader+0x...)": a frame of the harness binary with
# no source line; our own code always has one (built with -g).
fault_frame() {
  awk '/^ *#[0-9]+ /{ if ($0 !~ /libc\.so|sysdeps|__interceptor_|sanitizer|libclang_rt|compiler-rt|fuzzer::|in (malloc|calloc|realloc|free|abort|raise) |\/fuzz_[a-z]+\+0x[0-9a-f]+\)/) { print; exit } }' "$1"
}
# First allocation frame (after the allocator) of a heap fault, if any.
alloc_frame() {
  awk '/allocated by thread|freed by thread/{f=1; next} f && /^ *#[0-9]+ /{ if ($0 !~ /in (malloc|calloc|realloc|free|__interceptor_)/) { print; exit } }' "$1"
}

status=0
for name in reader args aggspill redtable; do
  dir=$work/$name
  execs=$(grep -oE '#[0-9]+: cov' "$dir/log.txt" | tail -1 | tr -dc 0-9 || true)
  rate=$(grep -oE 'exec/s:? [0-9]+' "$dir/log.txt" | tail -1 | tr -dc 0-9 || true)
  echo "fuzz_$name: ${execs:-0} executions (${rate:-?} exec/s), corpus $(ls "$dir/corpus" | wc -l) files"
  for a in "$dir"/artifacts/*; do
    [ -e "$a" ] || continue
    report=$a.report
    "$build/tests/fuzz/fuzz_$name" -timeout=10 -rss_limit_mb=2048 "$a" >"$report" 2>&1 || true
    frame=$(fault_frame "$report" || true)
    alloc=$(alloc_frame "$report" || true)
    if ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error|ERROR: libFuzzer' "$report"; then
      echo "  $(basename "$a"): does not reproduce alone (see $report)"
    elif [[ $frame == *libhdf5* ]] && [[ -z $alloc || $alloc == *libhdf5* ]]; then
      echo "  known HDF5: $(basename "$a"): $(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+' "$report") at ${frame##* in }"
    else
      echo "  FINDING: $(basename "$a"): $(grep -m1 -E 'ERROR|runtime error' "$report")"
      echo "           at: ${frame:-?}"
      status=1
    fi
  done
done
exit $status
