/* mpi_threads.c - MPI_THREAD_MULTIPLE: THREADS threads per rank, each
 * ROUNDS (argument, default 300) rounds of MPI_Irecv + MPI_Isend + MPI_Waitall with the other rank
 * (2 ranks) on its own tag, the message of round i 16 + i % 13 bytes. The
 * threads reuse one another's freed request handles all the time: a
 * receive's key removed from the request table after another thread's
 * MPI_Irecv got the same handle lost that receive's bytes (issue 43 item
 * 7). check_mpi_threads.py sums the bytes with h5py. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_profiler.h"

enum { THREADS = 4 };

static int peer, failed, nrounds = 300;

static void *rounds(void *arg) {
  int tag = (int)(size_t)arg;
  char out[64], in[64];
  for (int i = 0; i < nrounds; i++) {
    int n = 16 + i % 13;
    for (int k = 0; k < n; k++) out[k] = (char)(tag * 31 + i + k);
    MPI_Request rq[2];
    MPI_Irecv(in, 64, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < n; k++)
      if (in[k] != (char)(tag * 31 + i + k)) __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE || size != 2) {
    fprintf(stderr, "mpi_threads: needs MPI_THREAD_MULTIPLE (got %d) and 2 ranks (got %d)\n",
            provided, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  peer = 1 - rank;
  if (argc > 1) nrounds = atoi(argv[1]);
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, rounds, (void *)(size_t)(i + 1));
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  if (failed) fprintf(stderr, "mpi_threads: rank %d received wrong data\n", rank);
  int rc = sp_finalize();
  MPI_Finalize();
  return failed || rc != 0;
}
