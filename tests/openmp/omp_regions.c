/* omp_regions.c - OpenMP constructs recorded through OMPT (issue 48),
 * built with clang -fopenmp on LLVM's libomp; check_openmp.py reads the
 * file with h5py.
 *
 * usage: omp_regions CASE THREADS
 *   counts  "outer" around 3 parallel regions of THREADS threads, each a
 *           loop with a reduction, an explicit barrier and a single
 *   sleep   one parallel region: a barrier, then thread 1 sleeps 50 ms
 *           before a second barrier
 *   nested  "outer" around a parallel region of 2 threads, each running a
 *           parallel region of 2 threads (max active levels 2)
 *   tasks   a parallel region of THREADS threads: one thread creates 20
 *           tasks and waits for them (taskwait), then every thread enters a
 *           critical section 3 times
 * Built with SP_OMP_MPI (omp_regions_mpi): MPI_Init_thread first and
 * MPI_Finalize last, each rank running the case.
 * Exit 0 when the program's own results are right and sp_finalize
 * returned 0. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"
#ifdef SP_OMP_MPI
#include <mpi.h>
#endif

enum { ROUNDS = 3 };

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int run_counts(int threads) {
  double sum = 0;
  int singles = 0;
  for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp for reduction(+ : sum)
      for (int i = 0; i < 1000; i++) sum += i;
#pragma omp barrier
#pragma omp single
      singles++;
    }
  }
  if (sum != ROUNDS * 499500.0 || singles != ROUNDS) {
    fprintf(stderr, "omp_regions: sum %g, singles %d\n", sum, singles);
    return 1;
  }
  return 0;
}

static int run_sleep(int threads) {
  int seen = 0;
#pragma omp parallel num_threads(threads) reduction(+ : seen)
  {
#pragma omp barrier
    if (omp_get_thread_num() == 1) sleep_ms(50);
#pragma omp barrier
    seen = 1;
  }
  return seen == threads ? 0 : 1;
}

static int run_nested(void) {
  int n = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : n)
  {
#pragma omp parallel num_threads(2) reduction(+ : n)
    n += omp_get_level() == 2;
  }
  return n == 4 ? 0 : 1;
}

static int run_tasks(int threads) {
  int done = 0, crit = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    {
      for (int i = 0; i < 20; i++) {
#pragma omp task shared(done)
        {
#pragma omp atomic
          done++;
        }
      }
#pragma omp taskwait
    }
    for (int k = 0; k < 3; k++) {
#pragma omp critical
      crit++;
    }
  }
  return done == 20 && crit == 3 * threads ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: omp_regions counts|sleep|nested|tasks THREADS\n");
    return 2;
  }
  int threads = atoi(argv[2]);
  /* The runtime starts here, before sp_setup: SCOPE_PROFILER_OPENMP in the
   * environment lets the tool in (docs/openmp.md). */
  if (omp_get_max_threads() < 1) return 1;
#ifdef SP_OMP_MPI
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#endif
  if (sp_setup(NULL) != 0) return 1;
  int outer = sp_region("outer");
  int rc = 2;
  sp_start(outer);
  if (!strcmp(argv[1], "counts")) rc = run_counts(threads);
  if (!strcmp(argv[1], "sleep")) rc = run_sleep(threads);
  if (!strcmp(argv[1], "nested")) rc = run_nested();
  if (!strcmp(argv[1], "tasks")) rc = run_tasks(threads);
  sp_stop(outer);
  int fin = sp_finalize();
  if (fin != 0) fprintf(stderr, "omp_regions: sp_finalize returned %d\n", fin);
#ifdef SP_OMP_MPI
  MPI_Finalize();
#endif
  return rc != 0 ? rc : fin != 0;
}
