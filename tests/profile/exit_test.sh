#!/bin/sh
# exit_test.sh EXE MERGE PYTHON CHECK TRACE [term]
# Profile mode, a process (an MPI singleton) ends with exit() without
# sp_finalize, or (term) by a SIGTERM it flushes on: the aggregates saved
# then are recovered by scope-profiler-merge and checked with h5py.
set -e
exe=$1 merge=$2 python=$3 check=$4 trace=$5 how=${6:-exit} np=1
out=${how}_t$trace.h5
rm -rf "$out" "$out.spill" "${how}_t$trace.aggregate.h5" recovered_${how}_t$trace*.h5
if [ "$how" = term ]; then
  if SCOPE_PROFILER_FLUSH_SIGNALS=TERM "$exe" term "$trace" "$out"; then exit 1; fi
else
  "$exe" exit "$trace" "$out" 2> exit_t$trace.err || { cat exit_t$trace.err >&2; exit 1; }
  cat exit_t$trace.err >&2
  # Profile mode alone names its aggregates, not a missing event spill file.
  if [ "$trace" = 0 ] && grep -q "no event reached a spill file" exit_t$trace.err; then exit 1; fi
  grep -q "the aggregates of this process are in" exit_t$trace.err
fi
test ! -e "$out"  # nothing written without sp_finalize
ls "$out.spill"/*.aggspill
rec=recovered_${how}_t$trace
"$merge" -o $rec.h5 "$out.spill"
agg=$rec.h5
if [ "$trace" = 1 ]; then agg=$rec.aggregate.h5; "$python" -c "import h5py,sys; f=h5py.File('$rec.h5'); sys.exit(0 if 'rank0' in f else 1)"; fi
"$python" "$check" "$agg" "$np" step=8 compute=160 fib=200
if [ "$trace" = 1 ] && [ "$how" = exit ]; then
  # A file already at the aggregates' path beside OUT.h5 is not replaced without -f.
  rm -f other_t1.h5 other_t1.aggregate.h5 other_t1.aggregate.h5.*
  echo "keep me" > other_t1.aggregate.h5
  if "$merge" -o other_t1.h5 "$out.spill" 2> other_t1.err; then cat other_t1.err >&2; exit 1; fi
  cat other_t1.err >&2
  test "$(cat other_t1.aggregate.h5)" = "keep me"
  grep -q "not replaced" other_t1.err
  "$merge" -f -o other_t1.h5 "$out.spill"
  "$python" "$check" other_t1.aggregate.h5 "$np" step=8 compute=160 fib=200
fi
