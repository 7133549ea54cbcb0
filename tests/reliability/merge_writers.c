/* merge_writers.c - the real runs behind tests/reliability/merge_cases.py:
 *
 *   merge_writers source [EXTRA]    (mpirun -n 3) records known calls with
 *       buffer_limit 10 into source.h5's spill files, then SIGKILLs itself:
 *       rank r flushed 40+10r+EXTRA calls of "step" and twice as many of
 *       "solver/inner" (EXTRA: a multiple of 10, default 0).
 *   merge_writers serial PATH NAME  records 5 calls of NAME into PATH, prints
 *       "ready", waits for a line on stdin, finalizes and prints "rc N".
 *   merge_writers split PATH        (mpirun -n 4) even and odd ranks write
 *       PATH over their own communicator, regions "half<color>" (3 calls
 *       per rank), and print "rank R half C rc N"; both halves set up
 *       before either writes.
 *   merge_writers split_ordered PATH  the same, the odd half setting up
 *       only after the even half has written (issue 43 item 17).
 *   merge_writers split_race PATH   the same, each half at its own pace.
 *   merge_writers plain PATH        5 calls of "plain" into PATH; exit 0
 *       when sp_finalize returned 0.
 *   merge_writers killed PATH N     without MPI (no MPI_Init: no rank)
 *       flushes N calls of "step" (a multiple of 10; buffer_limit 10) into
 *       PATH's spill file, then SIGKILLs itself.
 *   merge_writers early exit|abort  (mpirun -n 4) every rank records 5 calls
 *       of "work" (nothing flushed), then rank 1 calls exit(3) without
 *       sp_finalize (exit: its calls are drained at exit) or rank 2 calls
 *       MPI_Abort (abort); the others wait until mpirun kills them.
 *   merge_writers profile_exit PATH N   without MPI, profile mode alone
 *       (aggregate 1, time_trace 0): N calls of "step", then exit(0) without
 *       sp_finalize (the aggregates are saved in PATH's spill directory).
 *
 * Environment: SCOPE_PROFILER_ASYNC_FLUSH=0 for "source" (flushed means
 * written when the process dies). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "scope_profiler_mpi.h"

static int setup(const char *path, long limit) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = limit;
  return sp_setup(&c);
}

static void calls(const char *name, long n) {
  int h = sp_region(name);
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static int source(long extra) {
  int rank;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (setup("source.h5", 10) != 0) return 1;
  int step = sp_region("step"), inner = sp_region("solver/inner");
  for (long i = 0; i < 41 + 10 * rank + extra; i++) { /* the 41st start flushes the 40th call */
    sp_start(step);
    for (int j = 0; j < 2; j++) {
      sp_start(inner);
      sp_stop(inner);
    }
    sp_stop(step);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  raise(SIGKILL);
  return 1;
}

static int serial(const char *path, const char *name) {
  if (setup(path, 100000) != 0) return 1;
  calls(name, 5);
  printf("ready\n");
  fflush(stdout);
  char line[16];
  if (!fgets(line, sizeof line, stdin)) return 1;
  printf("rc %d\n", sp_finalize());
  return 0;
}

/* MPI_Barrier that sleeps between tests: a half waiting for the other
 * must not take the cores from it (2 cores, 4 ranks here). */
static void polite_barrier(void) {
  MPI_Request r;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  while (!done) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    struct timespec two_ms = {0, 2000000};
    if (!done) nanosleep(&two_ms, NULL);
  }
}

/* order 0: both halves set up, then both write; 1: the odd half sets up
 * after the even one has written; 2: no order. */
static int split(const char *path, int order) {
  int rank;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  if (order == 1 && rank % 2) polite_barrier(); /* the even half has written */
  int rc = setup(path, 100000);
  if (rc == 0) rc = sp_mpi_set_comm(half);
  char name[16];
  snprintf(name, sizeof name, "half%d", rank % 2);
  calls(name, 3);
  if (order == 0) MPI_Barrier(MPI_COMM_WORLD); /* both halves have set up before either writes */
  if (rc == 0) rc = sp_finalize();
  if (order == 1 && rank % 2 == 0) polite_barrier();
  printf("rank %d half %d rc %d\n", rank, rank % 2, rc);
  fflush(stdout);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

static int plain(const char *path) {
  if (setup(path, 100000) != 0) return 1;
  calls("plain", 5);
  return sp_finalize() == 0 ? 0 : 1;
}

/* N + 1 starts: the last one flushes the buffer that holds call N. */
static int killed(const char *path, long n) {
  if (setup(path, 10) != 0) return 1;
  int step = sp_region("step");
  for (long i = 0; i < n + 1; i++) {
    sp_start(step);
    sp_stop(step);
  }
  raise(SIGKILL);
  return 1;
}

static int early(const char *how) {
  int rank;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (setup("early.h5", 1000000) != 0) return 1;
  calls("work", 5);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(how, "exit") && rank == 1) exit(3);
  if (!strcmp(how, "abort") && rank == 2) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int i = 0; i < 600; i++) sleep(1); /* until mpirun ends this rank */
  return 1;
}

static int profile_exit(const char *path, long n) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.aggregate = 1;
  c.time_trace = 0;
  if (sp_setup(&c) != 0) return 1;
  calls("step", n);
  exit(0);
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  if (!strcmp(c, "source")) return source(argc > 2 ? atol(argv[2]) : 0);
  if (!strcmp(c, "serial") && argc == 4) return serial(argv[2], argv[3]);
  if (!strcmp(c, "split") && argc == 3) return split(argv[2], 0);
  if (!strcmp(c, "split_ordered") && argc == 3) return split(argv[2], 1);
  if (!strcmp(c, "split_race") && argc == 3) return split(argv[2], 2);
  if (!strcmp(c, "plain") && argc == 3) return plain(argv[2]);
  if (!strcmp(c, "killed") && argc == 4) return killed(argv[2], atol(argv[3]));
  if (!strcmp(c, "profile_exit") && argc == 4) return profile_exit(argv[2], atol(argv[3]));
  if (!strcmp(c, "early") && argc == 3) return early(argv[2]);
  fprintf(stderr,
          "usage: merge_writers source [EXTRA] | serial PATH NAME | split[_ordered|_race] PATH | "
          "plain PATH | killed PATH N | profile_exit PATH N | early exit|abort\n");
  return 2;
}
