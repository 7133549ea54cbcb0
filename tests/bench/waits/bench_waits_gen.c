/* bench_waits_gen.c - a file for the --waits benchmark (run_waits_bench.py):
 * on 4 ranks, N messages per rank around a ring (even ranks send first,
 * odd ranks receive first; tags cycle through 7), inside a region "step"
 * every 100 messages, with an MPI_Allreduce per step. Every other message
 * is nonblocking: MPI_Irecv and MPI_Isend completed by one MPI_Waitall
 * (two rows of the completion table, which --waits pairs through).
 * Recorded with SCOPE_PROFILER_PROFILE_MPI=1 (the driver sets it).
 * usage: mpirun -np 4 bench_waits_gen N */
#include <mpi.h>
#include <stdlib.h>

#include "scope_profiler.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  long msgs = argc > 1 ? atol(argv[1]) : 100000;
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  int right = (rank + 1) % n, left = (rank + n - 1) % n, x = rank, y = 0, s = 0;
  for (long i = 0; i < msgs; i++) {
    if (i % 100 == 0) sp_start_name("step");
    int tag = (int)(i % 7);
    if (i % 2 == 1) {
      MPI_Request rq[2];
      MPI_Irecv(&y, 1, MPI_INT, left, tag, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(&x, 1, MPI_INT, right, tag, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
      if (rank % 2 == 0) MPI_Send(&x, 1, MPI_INT, right, tag, MPI_COMM_WORLD);
      MPI_Recv(&y, 1, MPI_INT, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank % 2 == 1) MPI_Send(&x, 1, MPI_INT, right, tag, MPI_COMM_WORLD);
    }
    if (i % 100 == 99 || i == msgs - 1) {
      MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      sp_stop_name("step");
    }
  }
  int rc = sp_finalize();
  MPI_Finalize();
  return rc != 0;
}
