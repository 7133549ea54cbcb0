/* mpi_calls.c - MPI calls recorded as regions (SCOPE_PROFILER_PROFILE_MPI=1).
 * Every rank makes the calls of check_mpi_calls.py's table; with
 * "off" as argument the same calls are made with profile_mpi off. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "scope_profiler.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int x = rank, y = 0, all[64], sums[64];
  MPI_Status st;
  MPI_Request rq[2];
  for (int i = 0; i < 2; i++) MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 3; i++) MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 4; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) sums[i] = i;
  MPI_Alltoall(sums, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < 2; i++)
    MPI_Sendrecv(&x, 1, MPI_INT, right, 1, &y, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  /* ring with nonblocking calls: one Waitall, then two Waits */
  MPI_Irecv(&y, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&x, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  MPI_Irecv(&y, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&x, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Wait(&rq[0], &st);
  MPI_Wait(&rq[1], &st);
  /* rank 0 sends to the last rank: Send on 0 only, Recv on size-1 only */
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, size - 1, 4, MPI_COMM_WORLD);
  if (rank == size - 1) MPI_Recv(&y, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
  SP_BLOCK("user region") { MPI_Barrier(MPI_COMM_WORLD); }
  if (sp_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
