/* test_reduce.c - profile mode reduced across ranks (SCOPE_PROFILER_REDUCE).
 *
 *   test_reduce FILE [WORK]   profile mode alone (time_trace 0), the file at
 *                             FILE; the reduction is chosen by the
 *                             environment (SCOPE_PROFILER_REDUCE,
 *                             SCOPE_PROFILER_REDUCE_KEEP). WORK (default 1)
 *                             scales the busy loops.
 *
 * Uneven work per rank, with the same calls in every run of the same size:
 *   step x 4 > compute (busy loop of rank-dependent length)
 *            > fib (recursion, depth 2 + rank % 4: a path per level)
 *            > omp parallel (2 threads): inner, (rank + 1) * (thread + 1) calls
 *            > solo (rank 1 only: a region on one rank)
 *   wait: one sleep of (perm(rank) + 1) * 100 ms, perm(r) = (7 r + 3) mod P:
 *         totals far apart in an order other than the ranks'
 * Before sp_finalize each rank writes FILE.totals.rank<R>: a line "region
 * total_ns" per region from sp_region_stats (the process's live figures,
 * not the file), from which check_reduce.py finds the k ranks of largest
 * and smallest total of the same run.
 * Then sp_report to FILE.report.h5, with nothing recorded after it.
 * Exit 0 when setup, the report and finalize succeed. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_profiler.h"

static volatile double sink;

static void busy(long n) {
  double x = 0;
  for (long i = 0; i < n; i++) x += (double)i * 1e-9;
  sink = x;
}

static int fib(int n) {
  sp_start_name("fib");
  int r = n < 2 ? n : fib(n - 1) + fib(n - 2);
  sp_stop_name("fib");
  return r;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_reduce FILE [WORK]\n");
    return 2;
  }
  long work = argc > 2 ? atol(argv[2]) : 1;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.aggregate = 1;
  cfg.time_trace = 0;
  cfg.file_path = argv[1];
  if (sp_setup(&cfg) != 0) {
    fprintf(stderr, "rank %d: sp_setup failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int step = 0; step < 4; step++) {
    sp_start_name("step");
    sp_start_name("compute");
    busy(work * 20000L * (1 + rank % 5));
    sp_stop_name("compute");
    sink += fib(2 + rank % 4);
#pragma omp parallel num_threads(2)
    {
      int tid = omp_get_thread_num();
      for (int i = 0; i < (rank + 1) * (tid + 1); i++) {
        sp_start_name("inner");
        busy(work * 2000L);
        sp_stop_name("inner");
      }
    }
    if (rank == 1) {
      sp_start_name("solo");
      busy(work * 1000L);
      sp_stop_name("solo");
    }
    sp_stop_name("step");
  }
  int perm = (7 * rank + 3) % size;
  sp_start_name("wait");
  long ns = (long)(perm + 1) * 100000000L;
  struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
  nanosleep(&ts, NULL);
  sp_stop_name("wait");
  char path[4096];
  snprintf(path, sizeof path, "%s.totals.rank%d", argv[1], rank);
  FILE *out = fopen(path, "w");
  static const char *const names[] = {"step", "compute", "fib", "inner", "solo", "wait"};
  for (int i = 0; out && i < 6; i++) {
    sp_region_stats_t s;
    if (sp_region_stats(sp_region(names[i]), &s) == 0 && s.calls > 0)
      fprintf(out, "%s %lld\n", names[i], (long long)s.total_ns);
  }
  if (out) fclose(out);
  /* sp_report of the same figures (nothing recorded after it): the same
   * reduction as sp_finalize's file. */
  snprintf(path, sizeof path, "%s.report.h5", argv[1]);
  int rrc = sp_report(path);
  if (rrc != 0) fprintf(stderr, "rank %d: sp_report: %s\n", rank, sp_strerror(rrc));
  int rc = sp_finalize();
  if (rc != 0) fprintf(stderr, "rank %d: sp_finalize: %s\n", rank, sp_strerror(rc));
  MPI_Finalize();
  return rc == 0 && rrc == 0 ? 0 : 1;
}
