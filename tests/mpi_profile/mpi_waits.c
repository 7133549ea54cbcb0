/* mpi_waits.c - receives of known sizes between 2 ranks completed by each
 * kind of wait and test that has no other test, for check_mpi_waits.py
 * (SCOPE_PROFILER_PROFILE_MPI=1): MPI_Sendrecv_replace, MPI_Waitany with
 * MPI_STATUS_IGNORE, MPI_Testany, MPI_Testall (sends and receives mixed),
 * MPI_Waitsome with MPI_STATUSES_IGNORE and MPI_Testsome. The tests loop
 * until done, so how many calls find nothing is not fixed; the script's
 * table says what the calls that complete receives must store. */
#include <mpi.h>
#include <stdio.h>

#include "scope_profiler.h"

/* Posts receives of the other rank's messages (tags tag, tag+1), then sends
 * it n0 and n1 ints under those tags. */
static void exchange(int other, int tag, int n0, int n1, int *in, int *out, MPI_Request rq[4]) {
  MPI_Irecv(in, 32, MPI_INT, other, tag, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(in + 32, 32, MPI_INT, other, tag + 1, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(out, n0, MPI_INT, other, tag, MPI_COMM_WORLD, &rq[2]);
  MPI_Isend(out + 32, n1, MPI_INT, other, tag + 1, MPI_COMM_WORLD, &rq[3]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 2) {
    if (rank == 0) fprintf(stderr, "mpi_waits: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int other = 1 - rank, in[64] = {0}, out[64] = {0}, flag = 0, idx, cnt, ids[4];
  MPI_Request rq[4];
  MPI_Sendrecv_replace(in, 6, MPI_INT, other, 1, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* Waitany over the two receives, then Waitall over the two sends */
  exchange(other, 10, 3, 5, in, out, rq);
  for (int i = 0; i < 2; i++) MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
  MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
  /* Testany until one receive is done, then Waitall over the rest */
  exchange(other, 20, 7, 7, in, out, rq);
  MPI_Status st;
  for (flag = 0; !flag;) MPI_Testany(1, rq, &idx, &flag, &st);
  MPI_Waitall(3, rq + 1, MPI_STATUSES_IGNORE);
  /* Testall over receives and sends together */
  exchange(other, 30, 2, 4, in, out, rq);
  MPI_Status sts[4];
  for (flag = 0; !flag;) MPI_Testall(4, rq, &flag, sts);
  /* Waitsome until both receives are done, then the sends */
  exchange(other, 40, 1, 9, in, out, rq);
  for (int done = 0; done < 2; done += cnt) MPI_Waitsome(2, rq, &cnt, ids, MPI_STATUSES_IGNORE);
  MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
  /* Testsome likewise */
  exchange(other, 50, 2, 3, in, out, rq);
  for (int done = 0; done < 2; done += cnt) MPI_Testsome(2, rq, &cnt, ids, sts);
  MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
  if (sp_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
