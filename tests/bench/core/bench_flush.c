/* bench_flush.c - what flushing full buffers costs the recording thread.
 *
 *   bench_flush [pairs]     (default 4,000,000 timed pairs per row)
 *
 * Default configuration: a flush every buffer_limit (100,000) events of a
 * region, by the background writer thread. Every start/stop pair is timed
 * with rdtsc around it, so the pairs that hit a flush make the tail. A row's
 * amortised flush cost is the time its pairs spent above 1 us (minus p50),
 * per pair, less the same figure of the "profiling off" row with the same
 * work: what the machine (interrupts, other processes) adds to any pair.
 * (mean - p50 is printed too, but the TSC here ticks in ~10 ns steps, so
 * it mixes in how the ordinary pairs fall between two steps.)
 *
 * The first flushes of a session also grow the buffer and fill the pool
 * of recycled arrays (page faults: a one-time cost, printed apart); the
 * table is the steady state after WARMUP pairs in the same session.
 *
 * Two event rates: back to back (16 bytes every ~25 ns, faster than the
 * page cache of the CI VM takes them: the bounded queue then makes the
 * recording thread wait, which is the price of bounded memory), and with
 * ~300 ns of work between pairs, a fast but realistic region. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
static uint64_t spin_state = 1;
static long spin_iters; /* calibrated to ~300 ns */

/* A dependent chain the compiler cannot shorten: the "work" of a region. */
static void work(long iters) {
  uint64_t x = spin_state;
  for (long i = 0; i < iters; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  spin_state = x;
}

static long calibrate_work(double target_ns) {
  long iters = 1000;
  int64_t t0 = now_ns();
  for (int i = 0; i < 10000; i++) work(iters);
  double per = (double)(now_ns() - t0) / 10000.0 / (double)iters;
  return (long)(target_ns / per);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

typedef struct row {
  double mean, p50, p99, p999, max;
  long slow;          /* pairs above 1 us */
  double slow_excess; /* their time above p50, per pair of the row */
} row_t;

#define WARMUP 1000000L /* pairs: 10 flushes at the default buffer_limit */

/* Times n pairs, with `iters` of work before each, in a fresh session,
 * after WARMUP pairs; *warm_ms: their time above the steady p50. */
static row_t timed_pairs(int activated, const char *async, long iters, long n, int64_t *d,
                         double *warm_ms) {
  if (async) setenv("SCOPE_PROFILER_ASYNC_FLUSH", async, 1);
  sp_config c;
  sp_config_init(&c);
  c.profiling_activated = activated;
  c.file_path = "/tmp/sp_bench_flush.h5";
  sp_setup(&c);
  unsetenv("SCOPE_PROFILER_ASYNC_FLUSH");
  const int h = sp_region("compute");
  int64_t warm_ticks = 0;
  for (long i = 0; i < WARMUP; i++) {
    work(iters);
    int64_t t0 = (int64_t)__builtin_ia32_rdtsc();
    sp_start(h);
    sp_stop(h);
    warm_ticks += (int64_t)__builtin_ia32_rdtsc() - t0;
  }
  int64_t w0 = now_ns(), c0 = (int64_t)__builtin_ia32_rdtsc();
  for (long i = 0; i < n; i++) {
    work(iters);
    int64_t t0 = (int64_t)__builtin_ia32_rdtsc();
    sp_start(h);
    sp_stop(h);
    d[i] = (int64_t)__builtin_ia32_rdtsc() - t0;
  }
  int64_t w1 = now_ns(), c1 = (int64_t)__builtin_ia32_rdtsc();
  sp_finalize();
  remove("/tmp/sp_bench_flush.h5");
  double ns_per_tick = (double)(w1 - w0) / (double)(c1 - c0);
  double sum = 0;
  for (long i = 0; i < n; i++) sum += (double)d[i];
  qsort(d, (size_t)n, sizeof *d, cmp_i64);
  row_t r = {sum / (double)n * ns_per_tick,
             (double)d[n / 2] * ns_per_tick,
             (double)d[n * 99 / 100] * ns_per_tick,
             (double)d[n - n / 1000 - 1] * ns_per_tick,
             (double)d[n - 1] * ns_per_tick,
             0,
             0.0};
  double excess = 0;
  for (long i = n - 1; i >= 0 && (double)d[i] * ns_per_tick > 1000.0; i--) {
    r.slow++;
    excess += (double)(d[i] - d[n / 2]) * ns_per_tick;
  }
  r.slow_excess = excess / (double)n;
  /* Warm-up time beyond the steady state's median pair. */
  *warm_ms = ((double)warm_ticks * ns_per_tick - (double)WARMUP * r.p50) / 1e6;
  return r;
}

static void print_row(const char *name, row_t r, row_t off, double warm_ms) {
  printf("%-34s %7.1f %7.1f %7.1f %8.1f %11.1f %8.2f %6ld %10.3f %9.2f\n", name, r.mean, r.p50,
         r.p99, r.p999, r.max, r.mean - r.p50, r.slow, r.slow_excess - off.slow_excess, warm_ms);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  if (n < 1000) n = 1000;
  int64_t *d = malloc((size_t)n * sizeof *d);
  if (!d) return 1;
  memset(d, 0, (size_t)n * sizeof *d); /* pre-fault */
  spin_iters = calibrate_work(300.0);
  printf("flush cost on the recording thread: %ld timed pairs per row, buffer_limit 100000\n", n);
  printf(
      "(ns per pair, after %ld warm-up pairs; >1us: pairs above 1 us; amortised: their time\n"
      " above p50 per pair, less that of profiling off with the same work; warm-up ms: time of\n"
      " the warm-up pairs above the steady p50: buffer growth and the first flushes)\n",
      WARMUP);
  printf("%-34s %7s %7s %7s %8s %11s %8s %6s %10s %9s\n", "", "mean", "p50", "p99", "p99.9", "max",
         "mean-p50", ">1us", "amortised", "warmup_ms");
  for (int rate = 0; rate < 2; rate++) {
    long iters = rate ? spin_iters : 0;
    printf("%s\n", rate ? "~300 ns of work between pairs:" : "back to back:");
    double warm;
    row_t off = timed_pairs(0, NULL, iters, n, d, &warm);
    print_row("  profiling off", off, off, warm);
    row_t r = timed_pairs(1, "1", iters, n, d, &warm);
    print_row("  flush by writer thread (default)", r, off, warm);
    r = timed_pairs(1, "0", iters, n, d, &warm);
    print_row("  flush by recording thread", r, off, warm);
  }
  free(d);
  return 0;
}
#else
int main(void) {
  printf("bench_flush: needs x86-64 (rdtsc)\n");
  return 0;
}
#endif
