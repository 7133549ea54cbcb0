/* mpi_bytes_spill.c - many MPI calls of known sizes on 2 ranks, so that their
 * events and their bytes and peers go through the spill file
 * (check_mpi_bytes_spill.py). Rank 0 sends call i (i % 7) + 1 ints; rank 1
 * receives them from MPI_ANY_SOURCE.
 *
 * usage: mpi_bytes_spill CALLS finalize|exit|kill
 * exit: ends with exit() without sp_finalize or MPI_Finalize, leaving the
 * spill files to scope-profiler-merge; a barrier in an atexit handler
 * registered before sp_setup (so it runs after the library's exit flush)
 * keeps both ranks alive until both have flushed. kill: SIGKILL after the
 * calls (after a barrier), so only what was spilled before survives. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"

static void all_flushed(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, buf[8] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int die = argc > 2 && strcmp(argv[2], "exit") == 0;
  if (die) atexit(all_flushed);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  long n = argc > 1 ? atol(argv[1]) : 10000;
  for (long i = 0; i < n; i++) {
    if (rank == 0) MPI_Send(buf, (int)(i % 7) + 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(buf, 8, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (die) exit(0);
  if (argc > 2 && strcmp(argv[2], "kill") == 0) {
    PMPI_Barrier(MPI_COMM_WORLD);
    raise(SIGKILL);
  }
  if (sp_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
