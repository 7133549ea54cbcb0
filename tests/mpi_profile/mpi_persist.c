/* mpi_persist.c - persistent requests on a ring of 3 ranks, for
 * check_mpi_persist.py (SCOPE_PROFILER_PROFILE_MPI=1; issue 43 item 13).
 * Rank r sends 3(r+1) ints to its right through MPI_Send_init and receives
 * from MPI_ANY_SOURCE through MPI_Recv_init (its left sends): ROUNDS rounds
 * of MPI_Startall + MPI_Waitall, then ROUNDS of MPI_Start (receive, send) +
 * MPI_Wait (receive, send), then once more with MPI_Ssend_init. */
#include <mpi.h>
#include <stdio.h>

#include "scope_profiler.h"

enum { ROUNDS = 5 };

int main(int argc, char **argv) {
  int rank, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  int out[64], in[64], bad = 0;
  for (int i = 0; i < 64; i++) out[i] = rank * 100 + i;
  MPI_Request rq[2];
  MPI_Recv_init(in, 64, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &rq[0]);
  MPI_Send_init(out, 3 * (rank + 1), MPI_INT, (rank + 1) % n, 5, MPI_COMM_WORLD, &rq[1]);
  int left = (rank + n - 1) % n;
  for (int k = 0; k < ROUNDS; k++) {
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad += in[0] != left * 100;
  }
  for (int k = 0; k < ROUNDS; k++) {
    MPI_Start(&rq[0]);
    MPI_Start(&rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    bad += in[0] != left * 100;
  }
  MPI_Request_free(&rq[1]);
  MPI_Ssend_init(out, 2, MPI_INT, (rank + 1) % n, 5, MPI_COMM_WORLD, &rq[1]);
  MPI_Startall(2, rq);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  if (bad) fprintf(stderr, "mpi_persist: rank %d received wrong data\n", rank);
  int rc = sp_finalize();
  MPI_Finalize();
  return bad || rc != 0;
}
