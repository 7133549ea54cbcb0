/* bench_openmp.c - what recording OpenMP constructs through OMPT adds
 * (issue 48; docs/openmp.md), against the same program on libomp without
 * the tool, in the same run.
 *
 * usage: bench_openmp [REGIONS [REPS]]
 *   runs itself as a child REPS times with SCOPE_PROFILER_OPENMP=1 and REPS
 *   times without (alternating, so that both see the same machine), each
 *   child timing REGIONS parallel regions of 2 and 4 threads with an empty
 *   body and with a 10 us body, and REGIONS barriers in one region; prints
 *   the medians, the cost added per region and per barrier, and that cost
 *   per recorded callback of the thread that waits longest.
 * bench_openmp --child REGIONS: one child (sp_setup, the timings, one
 *   line per thread count on stdout, sp_finalize into /dev/null).
 * bench_openmp --direct PAIRS: the tool's own part, without the runtime:
 *   the library's sync_region callback (taken from its ompt_start_tool)
 *   called PAIRS times as begin and end of a barrier on one thread, against
 *   PAIRS sp_start/sp_stop pairs by handle in the same run.
 *
 * Built with clang -fopenmp on LLVM's libomp (tests/bench/openmp). Never
 * asserted; a smoke run is in CTest. */
#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"

enum { NT = 2, NCASE = 3, MAXREPS = 64 };
static const int threads[NT] = {2, 4};
static const char *const cases[NCASE] = {"region, empty body", "region, 10 us body", "barrier"};

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of all threads: under OMP_WAIT_POLICY=passive a waiting thread
 * sleeps, so this is the work done, robust to a loaded machine where wall
 * time is not. */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static void spin_us(double us) {
  double t0 = now();
  while (now() - t0 < us * 1e-6) {}
}

/* Wall and CPU ns per region (body_us 0: empty) of t threads. */
static void time_regions(int t, int n, double body_us, double *wall, double *cpu_ns) {
  double t0 = now(), c0 = cpu();
  for (int i = 0; i < n; i++) {
#pragma omp parallel num_threads(t)
    {
      if (body_us > 0) spin_us(body_us);
    }
  }
  *wall = (now() - t0) * 1e9 / n;
  *cpu_ns = (cpu() - c0) * 1e9 / n;
}

/* Wall and CPU ns per barrier of t threads. */
static void time_barriers(int t, int n, double *wall, double *cpu_ns) {
  double t0 = 0, t1 = 0, c0 = 0, c1 = 0;
#pragma omp parallel num_threads(t)
  {
#pragma omp barrier
#pragma omp single
    {
      t0 = now();
      c0 = cpu();
    }
    for (int i = 0; i < n; i++) {
#pragma omp barrier
    }
#pragma omp single
    {
      t1 = now();
      c1 = cpu();
    }
  }
  *wall = (t1 - t0) * 1e9 / n;
  *cpu_ns = (c1 - c0) * 1e9 / n;
}

static int child(int n) {
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = "/dev/null";
  if (sp_setup(&cfg) != 0) return 1;
  for (int k = 0; k < NT; k++) {
    int t = threads[k];
    double f[2 * NCASE], x;
    time_regions(t, n / 10 + 1, 0, &x, &x); /* warm the team and the tool's caches */
    time_regions(t, n, 0, &f[0], &f[1]);
    time_regions(t, n / 10 + 1, 10, &f[2], &f[3]);
    time_barriers(t, n, &f[4], &f[5]);
    printf("%d", t);
    for (int i = 0; i < 2 * NCASE; i++) printf(" %.1f", f[i]);
    printf("\n");
  }
  fflush(stdout);
  return sp_finalize() != 0;
}

/* The library's (omp-tools.h declares its type only). */
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* The tool's callbacks, as the runtime would get them. */
static ompt_callback_sync_region_t sync_cb;
static ompt_set_result_t grab(ompt_callbacks_t which, ompt_callback_t cb) {
  if (which == ompt_callback_sync_region) sync_cb = (ompt_callback_sync_region_t)cb;
  return ompt_set_always;
}
static ompt_interface_fn_t lookup(const char *name) {
  return strcmp(name, "ompt_set_callback") == 0 ? (ompt_interface_fn_t)grab : NULL;
}

static int cmp(const void *a, const void *b);
static double median(double *v, int n);

/* Median of 21 rounds of pairs each, alternating the two, from a warm
 * buffer (the round's events fit the default buffer_limit: no growth, at
 * most one flush a round). */
static int direct(long pairs) {
  enum { ROUNDS = 21 };
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.file_path = "/dev/null";
  cfg.openmp = SP_OPENMP_ON;
  if (pairs < 1 || pairs > cfg.buffer_limit) pairs = cfg.buffer_limit;
  if (sp_setup(&cfg) != 0) return 1;
  /* A session with openmp on: the tool takes part. */
  ompt_start_tool_result_t *tool = ompt_start_tool(201611, "bench_openmp");
  if (!tool || !tool->initialize(lookup, 0, &tool->tool_data) || !sync_cb) return 1;
  ompt_data_t par = {0}, task = {0};
  const void *cp = (const void *)direct;
  int h = sp_region("pair");
  double cb[ROUNDS], sp[ROUNDS];
  for (int rep = 0; rep < ROUNDS; rep++) {
    double t0 = now();
    for (long i = 0; i < pairs; i++) {
      sync_cb(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par, &task, cp);
      sync_cb(ompt_sync_region_barrier_explicit, ompt_scope_end, &par, &task, cp);
    }
    double t1 = now();
    for (long i = 0; i < pairs; i++) {
      sp_start(h);
      sp_stop(h);
    }
    double t2 = now();
    cb[rep] = (t1 - t0) * 1e9 / pairs;
    sp[rep] = (t2 - t1) * 1e9 / pairs;
  }
  double c = median(cb, ROUNDS), s = median(sp, ROUNDS);
  printf(
      "direct, %ld pairs x %d rounds, medians: a barrier's begin and end callbacks %.1f ns "
      "(%.1f ns a callback); an sp_start/sp_stop pair by handle %.1f ns; ratio %.2f\n",
      pairs, ROUNDS, c, c / 2, s, c / s);
  return sp_finalize() != 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One child run; its figures into fig[thread count][case, wall then CPU]. */
static int run_child(const char *self, int n, int on, double fig[NT][2 * NCASE]) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "env %s '%s' --child %d",
           on ? "SCOPE_PROFILER_OPENMP=1" : "-u SCOPE_PROFILER_OPENMP", self, n);
  FILE *p = popen(cmd, "r");
  if (!p) return 1;
  int got = 0;
  for (int k = 0; k < NT; k++) {
    int t;
    if (fscanf(p, "%d %lf %lf %lf %lf %lf %lf", &t, &fig[k][0], &fig[k][1], &fig[k][2], &fig[k][3],
               &fig[k][4], &fig[k][5]) == 7)
      got++;
  }
  return (pclose(p) != 0) || got != NT;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--child")) return child(atoi(argv[2]));
  if (argc > 2 && !strcmp(argv[1], "--direct")) return direct(atol(argv[2]));
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (n < 10 || reps < 1 || reps > MAXREPS) {
    fprintf(stderr, "usage: bench_openmp [REGIONS>=10 [REPS 1..%d]]\n", MAXREPS);
    return 2;
  }
  static double v[2][NT][2 * NCASE][MAXREPS];
  for (int r = 0; r < reps; r++)
    for (int on = 0; on < 2; on++) {
      double fig[NT][2 * NCASE];
      if (run_child(argv[0], n, on, fig)) {
        fprintf(stderr, "bench_openmp: a child failed\n");
        return 1;
      }
      for (int k = 0; k < NT; k++)
        for (int c = 0; c < 2 * NCASE; c++) v[on][k][c][r] = fig[k][c];
    }
  /* Recorded starts and stops per region summed over the t threads: the
   * master's implicit task and closing barrier (4), each worker's implicit
   * task (2; it ends at the closing barrier's begin); per barrier 2 a
   * thread. The CPU figures divide by these; the wall figures by the
   * master's 4 (region) or a thread's 2 (barrier), the calls of the thread
   * the others wait for. */
  printf(
      "bench_openmp: %d regions (10 us body: %d), %d barriers, medians of %d runs each, "
      "alternating; OMP_WAIT_POLICY=%s\n",
      n, n / 10 + 1, n, reps, getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)");
  printf("%-7s %-19s %-4s %11s %11s %9s %7s %11s\n", "threads", "case", "time", "libomp ns",
         "+tool ns", "added ns", "ratio", "ns/call");
  for (int k = 0; k < NT; k++)
    for (int c = 0; c < NCASE; c++)
      for (int m = 0; m < 2; m++) {
        double off = median(v[0][k][2 * c + m], reps), on = median(v[1][k][2 * c + m], reps);
        int t = threads[k];
        double calls = c < 2 ? (m ? 4.0 + 2.0 * (t - 1) : 4.0) : (m ? 2.0 * t : 2.0);
        printf("%-7d %-19s %-4s %11.1f %11.1f %9.1f %7.3f %11.1f\n", t, cases[c],
               m ? "cpu" : "wall", off, on, on - off, on / off, (on - off) / calls);
      }
  return 0;
}
