# docs/fortran.md, MPI: two ranks write one file; both have "exchange".
snippet fortran-mpi > ranks.f90
fortran_build ranks.f90 ranks
"$MPIEXEC" -n 2 ./ranks | tee out.txt
grep -x "sp_finalize: 0" out.txt
check_profile ranks.h5 --ranks 2 --region exchange --count exchange=1
