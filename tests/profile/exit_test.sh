#!/bin/sh
# exit_test.sh EXE MERGE PYTHON CHECK TRACE
# Profile mode, a process (an MPI singleton) ends with exit() without
# sp_finalize: the aggregates saved at exit are recovered by
# scope-profiler-merge and checked with h5py.
set -e
exe=$1 merge=$2 python=$3 check=$4 trace=$5 np=1
out=exit_t$trace.h5
rm -rf "$out" "$out.spill" "exit_t$trace.aggregate.h5" recovered_t$trace*.h5
"$exe" exit "$trace" "$out"
test ! -e "$out"  # nothing written without sp_finalize
ls "$out.spill"/*.aggspill
"$merge" -o recovered_t$trace.h5 "$out.spill"
agg=recovered_t$trace.h5
if [ "$trace" = 1 ]; then agg=recovered_t$trace.aggregate.h5; "$python" -c "import h5py,sys; f=h5py.File('recovered_t1.h5'); sys.exit(0 if 'rank0' in f else 1)"; fi
"$python" "$check" "$agg" "$np" step=8 compute=160 fib=200
