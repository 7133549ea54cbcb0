# docs/c-api.md, MPI: two ranks, one file, built with scope-profiler.pc
# (which brings MPI's flags).
PKG_CONFIG_PATH=$SP_LIBDIR/pkgconfig
export PKG_CONFIG_PATH
snippet c-api-mpi > mpi.c
"$CC" -std=c11 -Wall -Werror mpi.c -o mpi $(pkg-config --cflags --libs scope-profiler) \
  -Wl,-rpath,"$SP_LIBDIR"
"$MPIEXEC" -n 2 ./mpi | tee out.txt
grep -x "rc 0" out.txt
check_profile c_api_mpi.h5 --ranks 2 --region barrier --count barrier=1
