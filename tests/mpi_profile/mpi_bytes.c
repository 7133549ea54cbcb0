/* mpi_bytes.c - messages of known sizes and partners on 4 ranks, for
 * check_mpi_bytes.py (SCOPE_PROFILER_PROFILE_MPI=1): wildcard receives with
 * MPI_STATUS_IGNORE, nonblocking receives from MPI_ANY_SOURCE completed by
 * MPI_Waitall, derived datatypes, v collectives with uneven counts, a
 * nonblocking collective, a probe, one-sided calls and MPI-IO. The script's
 * table says what each call must store. Argument: a file for MPI-IO. */
#include <mpi.h>
#include <stdio.h>

#include "scope_profiler.h"

static void p2p(int rank, int n) {
  int buf[64] = {0}, right = (rank + 1) % n, left = (rank + n - 1) % n;
  /* rank r > 0 sends r+1 ints to rank 0, which takes them in any order */
  if (rank == 0) {
    for (int i = 1; i < n; i++)
      MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(buf, rank + 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  }
  /* ring: r+2 ints to the right, received from MPI_ANY_SOURCE */
  MPI_Request rq[2];
  MPI_Irecv(buf + 32, 32, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(buf, rank + 2, MPI_INT, right, 2, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  /* a vector type of 2 blocks of 2 ints (16 bytes, extent 7 ints), twice */
  MPI_Datatype vec, trip;
  MPI_Type_vector(2, 2, 5, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Sendrecv(buf, 2, vec, right, 3, buf + 32, 2, vec, left, 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Type_contiguous(3, MPI_DOUBLE, &trip); /* 24 bytes */
  MPI_Type_commit(&trip);
  double d[12] = {0};
  MPI_Bcast(d, 2, trip, 0, MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  MPI_Type_free(&trip);
  /* rank 1 sends 5 ints to rank 3, which probes for any source first */
  if (rank == 1) MPI_Send(buf, 5, MPI_INT, 3, 4, MPI_COMM_WORLD);
  if (rank == 3) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st);
    MPI_Recv(buf, 5, MPI_INT, st.MPI_SOURCE, 4, MPI_COMM_WORLD, &st);
  }
}

static void collectives(int rank, int n) {
  int s[64] = {0}, r[64] = {0}, counts[4], displs[4], ones[4], rdispls[4];
  double x[16] = {0}, y[16] = {0};
  for (int i = 0; i < 4; i++) {
    counts[i] = i + 1; /* uneven: 1, 2, 3, 4 */
    displs[i] = i * (i + 1) / 2;
    ones[i] = rank + 1;
    rdispls[i] = i * (rank + 1);
  }
  MPI_Gatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatterv(s, counts, displs, MPI_INT, r, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
  /* rank r sends j+1 ints to rank j, so receives r+1 from each */
  MPI_Alltoallv(s, counts, displs, MPI_INT, r, ones, rdispls, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(s, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(x, y, 4, MPI_DOUBLE, MPI_MAX, 2, MPI_COMM_WORLD);
  MPI_Scan(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Request rq;
  MPI_Iallreduce(x, y, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  (void)n;
}

static void one_sided(int rank, int n) {
  int mem[16] = {0}, buf[4] = {1, 2, 3, 4};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int right = (rank + 1) % n, left = (rank + n - 1) % n;
  MPI_Win_fence(0, win);
  MPI_Put(buf, 2, MPI_INT, right, 0, 2, MPI_INT, win);
  MPI_Get(buf + 2, 2, MPI_SHORT, left, 4, 2, MPI_SHORT, win);
  MPI_Accumulate(buf, 1, MPI_INT, 0, 8 + rank, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, win);
  MPI_Put(buf, 3, MPI_INT, left, 12, 3, MPI_INT, win);
  MPI_Win_unlock(left, win);
  MPI_Win_free(&win);
}

static void file_io(int rank, const char *path) {
  int buf[10] = {0};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, rank * 40, buf, 10, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_write_at_all(fh, 160 + rank * 24, buf, 3, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_read_at(fh, rank * 40, buf, 10, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, rank * 40, buf, 5, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4 || argc < 2) {
    if (rank == 0) fprintf(stderr, "mpi_bytes: needs 4 ranks and a file for MPI-IO\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (sp_setup(NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  p2p(rank, n);
  collectives(rank, n);
  one_sided(rank, n);
  file_io(rank, argv[1]);
  if (sp_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
