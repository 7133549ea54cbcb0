# docs/fortran.md, errors: stat and errmsg of a blank name, one misuse
# counted and reported once with the prefix, finalize still succeeds.
snippet fortran-errors > errors.f90
fortran_build errors.f90 errors
./errors > out.txt 2> err.txt
cat out.txt err.txt
grep -x "stat -1 SP_EINVAL" out.txt
grep -x "errmsg: .*[a-z].*" out.txt
grep -x "misuse 1" out.txt
grep -x "finalize 0" out.txt
test "$(grep -c '^scope-profiler:' err.txt)" = 1
check_profile errors.h5 --ranks 1
