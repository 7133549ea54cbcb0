#!/bin/sh
# profile_exit.sh EXE MERGE PYTHON CHECK [PPROC]
# Profile mode's values per call path through an exit without sp_finalize:
# test_values_profile exit leaves an .aggspill file, scope-profiler-merge
# rebuilds the aggregate file, check_values_profile.py holds it (h5py, and
# --values when PPROC is given) to the program's oracle.
set -e
exe=$1 merge=$2 python=$3 check=$4 pproc=${5:-}
rm -rf exit.h5 exit.h5.spill exit.h5.oracle.* recovered.h5
"$exe" exit.h5 exit
test ! -e exit.h5 # nothing written without sp_finalize
ls exit.h5.spill/*.aggspill
"$merge" -o recovered.h5 exit.h5.spill
if [ -n "$pproc" ]; then
  "$python" "$check" exit.h5.oracle 1 recovered.h5 --pproc "$pproc"
else
  "$python" "$check" exit.h5.oracle 1 recovered.h5
fi
