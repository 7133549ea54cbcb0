/* bench_reduce.c - profile mode's file with and without the reduction
 * across ranks (SCOPE_PROFILER_REDUCE), the same work on every rank:
 * REGIONS regions under one "step", each CALLS calls a step, 4 steps, and
 * a recursion of depth 4; the reduction is set by the environment.
 *   mpirun -np N bench_reduce FILE [REGIONS] [CALLS]
 * Rank 0 prints "ranks seconds" (sp_finalize's time, the slowest rank's);
 * run_reduce.sh prints the files' sizes and their ratio between 16 and 64
 * ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_profiler.h"

static volatile double sink;

static void rec(int n) {
  sp_start_name("rec");
  if (n > 0) rec(n - 1);
  sink += n;
  sp_stop_name("rec");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_reduce FILE [REGIONS] [CALLS]\n");
    return 2;
  }
  int regions = argc > 2 ? atoi(argv[2]) : 50, calls = argc > 3 ? atoi(argv[3]) : 10;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.aggregate = 1;
  cfg.time_trace = 0;
  cfg.file_path = argv[1];
  if (sp_setup(&cfg) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int *h = malloc((size_t)regions * sizeof *h);
  char name[64];
  for (int r = 0; r < regions; r++) {
    snprintf(name, sizeof name, "kernel_%03d", r);
    h[r] = sp_region(name);
  }
  for (int step = 0; step < 4; step++) {
    sp_start_name("step");
    for (int r = 0; r < regions; r++)
      for (int c = 0; c < calls; c++) {
        sp_start(h[r]);
        for (int i = 0; i < 200 * (r % 7 + 1); i++) sink += i;
        sp_stop(h[r]);
      }
    rec(4);
    sp_stop_name("step");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc = sp_finalize();
  double dt = MPI_Wtime() - t0, worst = 0;
  MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%d %.3f\n", size, worst);
  free(h);
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
