/* exit_mpi.c - ranks that record and call exit() without sp_finalize or
 * MPI_Finalize (test_lifecycle run_merge checks the spill files).
 *
 * mpirun kills the remaining ranks as soon as one has ended without
 * MPI_Finalize; a barrier in an atexit handler registered before sp_setup
 * (so it runs after the library's own exit flush) keeps every rank alive
 * until all have flushed. Without it the test would measure mpirun's race,
 * not the library. */
#include <mpi.h>
#include <stdlib.h>

#include "scope_profiler.h"

static void all_flushed(void) { MPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  atexit(all_flushed);
  if (sp_setup(NULL) != 0) return 1;
  int h = sp_region("r");
  long long n = argc > 1 ? atoll(argv[1]) : 10000;
  for (long long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  exit(0);
}
