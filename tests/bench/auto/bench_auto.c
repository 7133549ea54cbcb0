/* bench_auto.c - per-call overhead of automatic regions:
 *   - an instrumented function (-finstrument-functions + scope-profiler::
 *     instrument) vs the same function built without instrumentation,
 *     with profiling off, traced, and past the per-function cap (counted);
 *   - an MPI call (0-byte MPI_Allreduce on MPI_COMM_SELF) made through
 *     PMPI directly, through the wrapper with profile_mpi off, and on.
 * usage: bench_auto [N]   (best of 7 repetitions of N calls; not a test) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "leaf.h"
#include "scope_profiler.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef int (*leaf_fn)(int);

static double time_leaf(leaf_fn f, long n) {
  double best = 1e300;
  for (int rep = 0; rep < 7; rep++) {
    volatile int x = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) x = f(x);
    double t = (now_ns() - t0) / (double)n;
    if (t < best) best = t;
  }
  return best;
}

typedef enum { VIA_PMPI, VIA_MPI } via_t;

static double time_allreduce(via_t via, long n) {
  double best = 1e300;
  int x = 0, y = 0;
  for (int rep = 0; rep < 7; rep++) {
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
      if (via == VIA_PMPI)
        PMPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_SELF);
      else
        MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    }
    double t = (now_ns() - t0) / (double)n;
    if (t < best) best = t;
  }
  return best;
}

static void session(const char *max_calls, const char *profile_mpi) {
  setenv("SCOPE_PROFILER_INSTRUMENT_MAX_CALLS", max_calls, 1);
  setenv("SCOPE_PROFILER_PROFILE_MPI", profile_mpi, 1);
  sp_config cfg;
  sp_config_init(&cfg);
  cfg.flush_to_disk = 0;
  cfg.buffer_limit = 1 << 20;
  cfg.file_path = "bench_auto_unused.h5"; /* never written: sessions are discarded */
  sp_setup(&cfg);
}

/* Drops the "sp_setup called again" notes; keeps warnings and errors. */
static void quiet_log(int level, const char *msg, void *user) {
  (void)user;
  if (level < 2) fprintf(stderr, "scope-profiler: %s\n", msg);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  MPI_Init(&argc, &argv);
  sp_log_set(quiet_log, NULL);

  double plain = time_leaf(leaf_plain, n);
  sp_finalize(); /* the instrument library's automatic session, if any */
  double off = time_leaf(leaf_instr, n);
  session("0", "0"); /* no cap: every call traced */
  double traced = time_leaf(leaf_instr, n);
  session("1", "0"); /* cap of 1: calls counted only */
  double counted = time_leaf(leaf_instr, n);

  long m = n / 5 > 0 ? n / 5 : 1;
  session("0", "0");
  double pmpi = time_allreduce(VIA_PMPI, m);
  double mpi_off = time_allreduce(VIA_MPI, m);
  session("0", "1");
  double mpi_on = time_allreduce(VIA_MPI, m);
  sp_setup(NULL); /* discard, then end without writing */
  sp_config c;
  sp_config_init(&c);
  c.profiling_activated = 0;
  sp_setup(&c);
  sp_finalize();

  printf("instrumented function, ns per call (best of 7 x %ld calls):\n", n);
  printf("  uninstrumented            %7.2f\n", plain);
  printf("  instrumented, no session  %7.2f  (+%.2f, x%.1f)\n", off, off - plain, off / plain);
  printf("  instrumented, traced      %7.2f  (+%.2f, x%.1f)\n", traced, traced - plain,
         traced / plain);
  printf("  instrumented, past cap    %7.2f  (+%.2f, x%.1f)\n", counted, counted - plain,
         counted / plain);
  printf("MPI_Allreduce of 0 bytes on MPI_COMM_SELF, ns per call (best of 7 x %ld):\n", m);
  printf("  PMPI_Allreduce directly   %7.2f\n", pmpi);
  printf("  wrapper, profile_mpi off  %7.2f  (+%.2f, x%.2f)\n", mpi_off, mpi_off - pmpi,
         mpi_off / pmpi);
  printf("  wrapper, profile_mpi on   %7.2f  (+%.2f, x%.2f)\n", mpi_on, mpi_on - pmpi,
         mpi_on / pmpi);
  MPI_Finalize();
  return 0;
}
