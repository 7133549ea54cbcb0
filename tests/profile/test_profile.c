/* test_profile.c - profile mode (sp_config.aggregate) under MPI and OpenMP.
 *
 *   test_profile run TRACE FILE   aggregates (and the trace when TRACE is 1)
 *                                 of nested, recursive and OpenMP calls; an
 *                                 sp_report to mid.h5 after half the steps,
 *                                 then sp_reset; writes the two moments to
 *                                 FILE.times.rank<R> for check_profile_mode.py
 *   test_profile exit TRACE FILE  the same steps, then exit() without
 *                                 sp_finalize or MPI_Finalize (whose hook
 *                                 would finalize): the aggregates must be
 *                                 recoverable with scope-profiler-merge
 *   test_profile term TRACE FILE  the same steps, then SIGTERM to itself
 *                                 (run with SCOPE_PROFILER_FLUSH_SIGNALS=TERM):
 *                                 the flush saves the aggregates; recording
 *                                 goes on until the signal ends the process
 *   test_profile concurrent       4 pthreads record while the main thread
 *                                 reads sp_region_stats and writes reports
 *                                 (for TSan); exact counts once they joined
 *   test_profile api              the calls' answers without profile mode,
 *                                 sp_region_stats against known counts
 *   test_profile mpi FILE         profile mode and trace with MPI calls as
 *                                 regions (run with SCOPE_PROFILER_PROFILE_MPI=1):
 *                                 MPI_STEPS steps of one MPI_Allreduce,
 *                                 MPI_Barrier and MPI_Allgather each, an
 *                                 sp_report to FILE.mid.h5 after MPI_MID steps;
 *                                 the library's own MPI calls in the report
 *                                 and in sp_finalize must not be counted
 *   test_profile add_calls TRACE FILE  sp_region_add_calls in profile mode:
 *                                 3 timed calls of "counted", 7 counted
 *                                 without stamps, which the aggregates and
 *                                 sp_region_stats leave out (the trace's
 *                                 num_calls has them; alone, one message)
 * Exit 0 when every assertion held. */
#define _POSIX_C_SOURCE 200809L /* kill, nanosleep */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "sp_test_util.h"

#define STEPS 8
#define KERNELS 20

static volatile double sink;

static void busy(int n) {
  double x = 0;
  for (int i = 0; i < n; i++) x += (double)i * 1e-9;
  sink = x;
}

static int fib(int n) {
  sp_start_name("fib");
  int r = n < 2 ? n : fib(n - 1) + fib(n - 2);
  busy(50);
  sp_stop_name("fib");
  return r;
}

static void step(int s, int hstep, int hcomp) {
  sp_start(hstep);
  for (int k = 0; k < KERNELS; k++) {
    sp_start(hcomp);
    busy(200 + 37 * ((k * 7 + s) % 11));
    sp_stop(hcomp);
  }
  (void)fib(6);
#pragma omp parallel
  {
    for (int i = 0; i < 10 + omp_get_thread_num(); i++) {
      sp_start_name("omp_work");
      busy(100 * (1 + i % 5));
      sp_start_name("omp_inner");
      busy(30);
      sp_stop_name("omp_inner");
      sp_stop_name("omp_work");
    }
  }
  sp_stop(hstep);
}

/* Profile mode into file, with the trace when trace is 1: sp_setup's code. */
static int profile_setup(int trace, const char *file) {
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = trace;
  c.file_path = file;
  return sp_setup(&c);
}

static int run(int trace, const char *file, int rank) {
  ASSERT_EQ(profile_setup(trace, file), 0);
  int hstep = sp_region("step"), hcomp = sp_region("compute");
  int64_t t_mid = 0, t_reset = 0;
  for (int s = 0; s < STEPS; s++) {
    step(s, hstep, hcomp);
    if (s == STEPS / 2 - 1) {
      sp_region_stats_t st;
      ASSERT_EQ(sp_region_stats(hcomp, &st), 0);
      ASSERT_EQ(st.calls, (s + 1) * KERNELS);
      ASSERT(st.min_ns > 0 && st.min_ns <= st.max_ns && st.total_ns >= st.calls * st.min_ns);
      ASSERT_EQ(st.exclusive_ns, st.total_ns); /* compute has no calls inside */
      t_mid = sp_clock_now_ns();
      ASSERT_EQ(sp_report("mid.h5"), 0);
      t_reset = sp_clock_now_ns();
      ASSERT_EQ(sp_reset(), 0);
      ASSERT_EQ(sp_region_stats(hcomp, &st), 0);
      ASSERT_EQ(st.calls, 0);
    }
  }
  sp_region_stats_t st;
  ASSERT_EQ(sp_region_stats(hstep, &st), 0);
  ASSERT_EQ(st.calls, STEPS - STEPS / 2);
  ASSERT(st.exclusive_ns < st.total_ns);
  ASSERT_EQ(sp_finalize(), 0);
  char name[4200];
  snprintf(name, sizeof name, "%s.times.rank%d", file, rank);
  FILE *f = fopen(name, "w");
  ASSERT(f != NULL);
  fprintf(f, "%lld %lld\n", (long long)t_mid, (long long)t_reset);
  fclose(f);
  return 0;
}

static int run_exit(int trace, const char *file) {
  ASSERT_EQ(profile_setup(trace, file), 0);
  int hstep = sp_region("step"), hcomp = sp_region("compute");
  for (int s = 0; s < STEPS; s++) step(s, hstep, hcomp);
  sp_start(hstep); /* open at exit: not counted */
  exit(0);         /* no sp_finalize, no MPI_Finalize */
}

#define CONC_THREADS 4
#define CONC_CALLS 20000
static int conc_h;

static void *conc_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < CONC_CALLS; i++) {
    sp_start(conc_h);
    sp_start_name("conc inner");
    sp_stop_name("conc inner");
    sp_stop(conc_h);
  }
  return NULL;
}

static int concurrent(void) {
  ASSERT_EQ(profile_setup(0, "concurrent.h5"), 0);
  conc_h = sp_region("conc");
  pthread_t th[CONC_THREADS];
  for (int i = 0; i < CONC_THREADS; i++)
    ASSERT_EQ(pthread_create(&th[i], NULL, conc_worker, NULL), 0);
  sp_region_stats_t st;
  for (int k = 0; k < 20; k++) { /* figures in flight: only bounds hold */
    ASSERT_EQ(sp_region_stats(conc_h, &st), 0);
    ASSERT(st.calls >= 0 && st.calls <= CONC_THREADS * CONC_CALLS);
    ASSERT_EQ(sp_report("concurrent_mid.h5"), 0);
  }
  for (int i = 0; i < CONC_THREADS; i++) ASSERT_EQ(pthread_join(th[i], NULL), 0);
  ASSERT_EQ(sp_region_stats(conc_h, &st), 0);
  ASSERT_EQ(st.calls, CONC_THREADS * CONC_CALLS);
  ASSERT(st.exclusive_ns <= st.total_ns);
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}

static int run_term(int trace, const char *file) {
  ASSERT_EQ(profile_setup(trace, file), 0);
  int hstep = sp_region("step"), hcomp = sp_region("compute");
  for (int s = 0; s < STEPS; s++) step(s, hstep, hcomp);
  kill(getpid(), SIGTERM);
  for (;;) { /* the next calls flush; then the watcher re-raises the signal */
    sp_start_name("after signal");
    sp_stop_name("after signal");
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

static int api(void) {
  sp_region_stats_t st;
  ASSERT_EQ(sp_report("x.h5"), SP_ENOTSETUP);
  ASSERT_EQ(sp_reset(), SP_ENOTSETUP);
  sp_config c;
  sp_config_init(&c);
  c.file_path = "api_trace.h5";
  ASSERT_EQ(sp_setup(&c), 0);
  ASSERT_EQ(sp_report("x.h5"), SP_EINVAL); /* profile mode off */
  ASSERT_EQ(sp_reset(), SP_EINVAL);
  ASSERT_EQ(sp_region_stats(0, &st), SP_EINVAL);
  ASSERT_EQ(sp_finalize(), 0);
  c.aggregate = 1;
  c.time_trace = 0;
  c.file_path = "api_agg.h5";
  ASSERT_EQ(sp_setup(&c), 0);
  int h = sp_region("r");
  ASSERT_EQ(sp_region_stats(h + 1, &st), SP_EINVAL);
  ASSERT_EQ(sp_region_stats(h, NULL), SP_EINVAL);
  ASSERT_EQ(sp_report(NULL), SP_EINVAL);
  ASSERT_EQ(sp_region_stats(h, &st), 0);
  ASSERT_EQ(st.calls, 0);
  for (int i = 0; i < 1000; i++) {
    sp_start(h);
    sp_start(h); /* recursion: its own call path */
    sp_stop(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_region_stats(h, &st), 0);
  ASSERT_EQ(st.calls, 2000);
  ASSERT(st.total_ns > st.exclusive_ns);
  /* Profile mode alone may count in TSC ticks: the ns it gives lie between
   * the spin inside the call and the clock reads around it. */
  int hs = sp_region("spin");
  int64_t t0 = sp_clock_now_ns();
  sp_start(hs);
  int64_t s0 = sp_clock_now_ns(), s1 = s0;
  while (s1 - s0 < 3000000) s1 = sp_clock_now_ns();
  sp_stop(hs);
  int64_t t1 = sp_clock_now_ns();
  ASSERT_EQ(sp_region_stats(hs, &st), 0);
  ASSERT_EQ(st.calls, 1);
  ASSERT(st.total_ns >= (s1 - s0) * 999 / 1000);
  ASSERT(st.total_ns <= (t1 - t0) * 1001 / 1000);
  ASSERT(st.min_ns == st.total_ns && st.max_ns == st.total_ns);
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}

#define MPI_STEPS 6
#define MPI_MID 3

static int run_mpi(const char *file) {
  ASSERT_EQ(profile_setup(1, file), 0);
  int hstep = sp_region("mpi step");
  char mid[4200];
  snprintf(mid, sizeof mid, "%s.mid.h5", file);
  for (int s = 0; s < MPI_STEPS; s++) {
    sp_start(hstep);
    int one = 1, sum = 0, size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *all = calloc((size_t)size, sizeof *all);
    ASSERT(all != NULL);
    ASSERT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    ASSERT_EQ(sum, size);
    ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    ASSERT_EQ(MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    free(all);
    sp_stop(hstep);
    if (s == MPI_MID - 1) ASSERT_EQ(sp_report(mid), 0);
  }
  sp_region_stats_t st;
  int hred = sp_region("MPI_Allreduce");
  ASSERT_EQ(sp_region_stats(hred, &st), 0);
  ASSERT_EQ(st.calls, MPI_STEPS); /* the report's own MPI calls are not among them */
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}

static int run_add_calls(int trace, const char *file) {
  ASSERT_EQ(profile_setup(trace, file), 0);
  int h = sp_region("counted");
  for (int i = 0; i < 3; i++) {
    sp_start(h);
    sp_stop(h);
  }
  sp_test_stderr_begin();
  sp_region_add_calls(h, 5);
  sp_region_add_calls(h, 2);
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "sp_region_add_calls: profile mode alone", trace ? 0 : 1);
  free(err);
  sp_region_stats_t st;
  ASSERT_EQ(sp_region_stats(h, &st), 0);
  ASSERT_EQ(st.calls, 3);
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}

static void on_fail(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  sp_test_set_rank(rank);
  sp_test_on_failure(on_fail);
  int rc = 2;
  if (argc == 4 && strcmp(argv[1], "run") == 0) rc = run(atoi(argv[2]), argv[3], rank);
  if (argc == 4 && strcmp(argv[1], "exit") == 0) rc = run_exit(atoi(argv[2]), argv[3]);
  if (argc == 2 && strcmp(argv[1], "api") == 0) rc = api();
  if (argc == 2 && strcmp(argv[1], "concurrent") == 0) rc = concurrent();
  if (argc == 3 && strcmp(argv[1], "mpi") == 0) rc = run_mpi(argv[2]);
  if (argc == 4 && strcmp(argv[1], "add_calls") == 0) rc = run_add_calls(atoi(argv[2]), argv[3]);
  if (argc == 4 && strcmp(argv[1], "term") == 0) rc = run_term(atoi(argv[2]), argv[3]);
  MPI_Finalize();
  return rc;
}
