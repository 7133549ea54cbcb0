/* bench_node_leader.c - the columnar finalize's data writes two ways, on
 * the same bytes, in one run (issue 46, item 2: "a node-leader scheme
 * where measured faster"):
 *
 *   mpirun -np P bench_node_leader REGIONS CALLS DIR [REPEATS]
 *
 * The columnar file holds 10 columns (5 per event: start, end, call and
 * parent ids 8 bytes, thread id 4; 5 per index row: region id and rank 4,
 * event offset, count and num_calls 8). Each rank's slice of a column
 * follows the lower ranks' (MPI_Exscan), as columnar_write.c places them.
 *   pwrite: what finalize does (SCOPE_PROFILER_METADATA=root): every rank
 *     pwrites its 10 slices into the file rank 0 created.
 *   leader: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) makes one
 *     communicator per node; its lowest rank gathers (MPI_Gatherv) the
 *     node's slices of each column, contiguous since a node's ranks are
 *     consecutive here, and pwrites one extent per column.
 * Each is the best of REPEATS (default 5), from a barrier to a barrier
 * after the last rank's end, into a file created (O_TRUNC) before. Rank 0
 * prints: ranks nodes regions calls bytes pwrite_s leader_s leader/pwrite */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCOLS 10
static const int col_width[NCOLS] = {8, 8, 8, 8, 4, 4, 4, 8, 8, 8};

typedef struct {
  long long n[NCOLS];  /* this rank's elements per column */
  long long at[NCOLS]; /* its slice's byte offset in the file */
  char *data[NCOLS];   /* its bytes */
} slices_t;

static void slices_make(slices_t *s, int regions, int calls, int rank, int size) {
  long long ev = (long long)regions * calls, base = 0;
  for (int c = 0; c < NCOLS; c++) {
    s->n[c] = c < 5 ? ev : regions;
    long long bytes = s->n[c] * col_width[c], before = 0, total = 0;
    MPI_Exscan(&bytes, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) before = 0;
    MPI_Allreduce(&bytes, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    s->at[c] = base + before;
    base += total;
    s->data[c] = malloc((size_t)bytes);
    memset(s->data[c], (rank + c) & 0xff, (size_t)bytes);
  }
  (void)size;
}

static int open_file(const char *path, int rank, int create) {
  if (create && rank == 0) {
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd >= 0) close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return create ? -1 : open(path, O_WRONLY);
}

static void pwrite_all(int fd, const char *p, long long n, long long at) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, (size_t)n, (off_t)at);
    if (w <= 0) MPI_Abort(MPI_COMM_WORLD, 3);
    p += w;
    n -= w;
    at += w;
  }
}

/* Wall time from the barrier at t0 to the last rank's end (a rank that
 * shares a core is counted while it waits to be scheduled, too). */
static double done(double t0) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0, worst;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double time_pwrite(const char *path, const slices_t *s, int rank) {
  open_file(path, rank, 1);
  double t0 = MPI_Wtime();
  int fd = open(path, O_WRONLY);
  if (fd < 0) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int c = 0; c < NCOLS; c++) pwrite_all(fd, s->data[c], s->n[c] * col_width[c], s->at[c]);
  close(fd);
  return done(t0);
}

static double time_leader(const char *path, const slices_t *s, int rank, MPI_Comm node) {
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  int *counts = malloc((size_t)nsize * sizeof *counts),
      *displs = malloc((size_t)nsize * sizeof *displs);
  open_file(path, rank, 1);
  double t0 = MPI_Wtime();
  int fd = nrank == 0 ? open(path, O_WRONLY) : -1;
  if (nrank == 0 && fd < 0) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int c = 0; c < NCOLS; c++) {
    int bytes = (int)(s->n[c] * col_width[c]);
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, node);
    long long total = 0;
    for (int i = 0; nrank == 0 && i < nsize; i++) {
      displs[i] = (int)total;
      total += counts[i];
    }
    char *buf = nrank == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(s->data[c], bytes, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, node);
    if (nrank == 0) pwrite_all(fd, buf, total, s->at[c]); /* the leader is the node's lowest rank */
    free(buf);
  }
  if (fd >= 0) close(fd);
  free(counts);
  free(displs);
  return done(t0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: bench_node_leader REGIONS CALLS DIR [REPEATS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size, nrank, nodes, leader;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int regions = atoi(argv[1]), calls = atoi(argv[2]), reps = argc > 4 ? atoi(argv[4]) : 5;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &nrank);
  leader = nrank == 0;
  MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char path[4096];
  snprintf(path, sizeof path, "%s/bench_node_leader.bin", argv[3]);
  slices_t s;
  slices_make(&s, regions, calls, rank, size);
  double tp = 1e30, tl = 1e30;
  for (int i = 0; i < reps; i++) { /* alternated, so that both see the same load */
    double a = time_pwrite(path, &s, rank), b = time_leader(path, &s, rank, node);
    tp = a < tp ? a : tp;
    tl = b < tl ? b : tl;
  }
  long long bytes = 0;
  for (int c = 0; c < NCOLS; c++) bytes += s.n[c] * col_width[c];
  long long total = 0;
  MPI_Reduce(&bytes, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%5d %5d %7d %5d %10lld %8.4f %8.4f %8.2f\n", size, nodes, regions, calls, total, tp, tl,
           tl / tp);
    unlink(path);
  }
  for (int c = 0; c < NCOLS; c++) free(s.data[c]);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
