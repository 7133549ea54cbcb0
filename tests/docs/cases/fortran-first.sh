# docs/fortran.md, the first program: 10 calls of "compute", one "output".
snippet fortran-first > first.f90
fortran_build first.f90 first
./first | tee out.txt
grep -x "done after 10 steps" out.txt
check_profile profiling_data.h5 --ranks 1 --region compute --region output \
  --count compute=10 --count output=1
