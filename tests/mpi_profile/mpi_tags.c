/* mpi_tags.c - tags and communicators of MPI calls, for check_mpi_tags.py
 * (SCOPE_PROFILER_PROFILE_MPI=1; issue 50 item 1). On 4 ranks:
 * 1. a ring on MPI_COMM_WORLD: ROUNDS rounds, rank r sends to r+1 with
 *    tag 10+k and receives from r-1 (round 1 with MPI_ANY_TAG); even
 *    ranks send first, odd ranks receive first;
 * 2. split A = MPI_Comm_split(world, r % 2, -r) (members in descending
 *    world rank): its rank 0 sends tags 7, 8, 9 to its rank 1, which
 *    receives 7, MPI_ANY_TAG, 9; MPI_Barrier(A); MPI_Comm_free(A);
 * 3. split B = MPI_Comm_split(world, r / 2, r): its rank 0 MPI_Isend's
 *    tag 42 to its rank 1, which MPI_Irecv's it; MPI_Wait both;
 * 4. MPI_Allreduce on world; MPI_Comm_free(B). */
#include <mpi.h>
#include <stdio.h>

#include "scope_profiler.h"

enum { ROUNDS = 3 };

int main(int argc, char **argv) {
  int rank, n, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4) MPI_Abort(MPI_COMM_WORLD, 2);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  int out = rank, in = -1;
  const int left = (rank + n - 1) % n, right = (rank + 1) % n;
  for (int k = 0; k < ROUNDS; k++) {
    const int rtag = k == 1 ? MPI_ANY_TAG : 10 + k;
    if (rank % 2 == 0) MPI_Send(&out, 1, MPI_INT, right, 10 + k, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, left, rtag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank % 2 == 1) MPI_Send(&out, 1, MPI_INT, right, 10 + k, MPI_COMM_WORLD);
    bad += in != left;
  }
  MPI_Comm a, b;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &a);
  int ar;
  MPI_Comm_rank(a, &ar);
  for (int t = 7; t <= 9; t++) {
    if (ar == 0) MPI_Send(&out, 1, MPI_INT, 1, t, a);
    if (ar == 1) MPI_Recv(&in, 1, MPI_INT, 0, t == 8 ? MPI_ANY_TAG : t, a, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(a);
  MPI_Comm_free(&a);
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &b);
  int br;
  MPI_Comm_rank(b, &br);
  MPI_Request rq;
  if (br == 0) MPI_Isend(&out, 1, MPI_INT, 1, 42, b, &rq);
  if (br == 1) MPI_Irecv(&in, 1, MPI_INT, 0, 42, b, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  int sum = 0;
  MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  bad += sum != n * (n - 1) / 2;
  MPI_Comm_free(&b);
  if (bad) fprintf(stderr, "mpi_tags: rank %d received wrong data\n", rank);
  int rc = sp_finalize();
  MPI_Finalize();
  return bad || rc != 0;
}
