/* bench_overhead.c - cost of a start/stop pair, against a floor measured in
 * the same run (these VMs are noisy: compare ratios, not absolute ns).
 *
 *   bench_overhead [pairs]     (default 2,000,000 pairs per measurement)
 *
 * Floor: two reads of the fastest correct clock (rdtsc when invariant) and
 * two int64 stores into a pre-faulted array: what any tracer must do. Each
 * figure is the best of 7 repetitions. Default configuration (flushes to
 * the spill file every 100,000 events per region are included). */
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

#define REPS 7
static long pairs;
static int64_t *floor_buf;
static int handles[16];
static char names[16][16];

typedef void (*body_fn)(long n);

static double best_ns_per_pair(body_fn fn) {
  double best = 1e30;
  for (int r = 0; r < REPS; r++) {
    int64_t t0 = now_ns();
    fn(pairs);
    int64_t t1 = now_ns();
    double per = (double)(t1 - t0) / (double)pairs;
    if (per < best) best = per;
  }
  return best;
}

static void body_floor_rdtsc(long n) {
  for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
    floor_buf[2 * (i & 0xffff)] = (int64_t)__builtin_ia32_rdtsc();
    floor_buf[2 * (i & 0xffff) + 1] = (int64_t)__builtin_ia32_rdtsc();
#endif
  }
  __asm__ volatile("" ::: "memory");
}

static void body_floor_clock_gettime(long n) {
  for (long i = 0; i < n; i++) {
    floor_buf[2 * (i & 0xffff)] = now_ns();
    floor_buf[2 * (i & 0xffff) + 1] = now_ns();
  }
  __asm__ volatile("" ::: "memory");
}

static void body_handle(long n) {
  const int h = handles[0];
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

/* The real functions, as Fortran and function pointers call them. */
static void body_handle_call(long n) {
  const int h = handles[0];
  for (long i = 0; i < n; i++) {
    (sp_start)(h);
    (sp_stop)(h);
  }
}

static void body_name(long n) {
  for (long i = 0; i < n; i++) {
    sp_start_name("compute");
    sp_stop_name("compute");
  }
}

static void body_nested(long n) {
  const int a = handles[0], b = handles[1];
  for (long i = 0; i < n; i += 2) {
    sp_start(a);
    sp_start(b);
    sp_stop(b);
    sp_stop(a);
  }
}

static void body_16_names(long n) {
  for (long i = 0; i < n; i++) {
    const char *nm = names[i & 15];
    sp_start_name(nm);
    sp_stop_name(nm);
  }
}

static void session(int activated, int time_trace) {
  sp_config c;
  sp_config_init(&c);
  c.profiling_activated = activated;
  c.time_trace = time_trace;
  c.file_path = "/tmp/sp_bench_overhead.h5";
  sp_setup(&c);
  for (int i = 0; i < 16; i++) {
    snprintf(names[i], sizeof names[i], "region_%02d", i);
    handles[i] = sp_region(i == 0 ? "compute" : names[i]);
  }
}

int main(int argc, char **argv) {
  pairs = argc > 1 ? atol(argv[1]) : 2000000;
  floor_buf = malloc(2 * 65536 * sizeof *floor_buf);
  memset(floor_buf, 1, 2 * 65536 * sizeof *floor_buf); /* pre-fault */

  double fl = best_ns_per_pair(body_floor_rdtsc);
  double fl_cg = best_ns_per_pair(body_floor_clock_gettime);

  session(0, 1);
  double disabled = best_ns_per_pair(body_handle);
  double disabled_call = best_ns_per_pair(body_handle_call);
  sp_finalize();

  session(1, 0);
  double counts = best_ns_per_pair(body_handle);
  sp_finalize();

  session(1, 1);
  const char *clock = sp_clock_name();
  double handle = best_ns_per_pair(body_handle);
  double handle_call = best_ns_per_pair(body_handle_call);
  double name = best_ns_per_pair(body_name);
  double nested = best_ns_per_pair(body_nested);
  double alt16 = best_ns_per_pair(body_16_names);
  int64_t t0 = now_ns();
  int rc = sp_finalize();
  double fin_s = (double)(now_ns() - t0) / 1e9;
  remove("/tmp/sp_bench_overhead.h5");

  printf("scope-profiler overhead benchmark: %ld pairs x %d reps, best rep, clock %s\n", pairs,
         REPS, clock);
  printf("%-40s %9s %9s\n", "case", "ns/pair", "x floor");
  printf("%-40s %9.2f %9.2f\n", "floor: 2 rdtsc + 2 stores", fl, 1.0);
  printf("%-40s %9.2f %9.2f\n", "floor: 2 clock_gettime + 2 stores", fl_cg, fl_cg / fl);
  printf("%-40s %9.2f %9s\n", "disabled (C macros)", disabled, "-");
  printf("%-40s %9.2f %9s\n", "disabled (function calls)", disabled_call, "-");
  printf("%-40s %9.2f %9.2f\n", "counts only (handle)", counts, counts / fl);
  printf("%-40s %9.2f %9.2f\n", "time trace by handle", handle, handle / fl);
  printf("%-40s %9.2f %9.2f\n", "time trace by handle (function calls)", handle_call,
         handle_call / fl);
  printf("%-40s %9.2f %9.2f  (floor + %.2f ns)\n", "time trace by name", name, name / fl,
         name - fl);
  printf("%-40s %9.2f %9.2f\n", "nested, 2 levels (per pair)", nested, nested / fl);
  printf("%-40s %9.2f %9.2f  (floor + %.2f ns)\n", "16 alternating names", alt16, alt16 / fl,
         alt16 - fl);
  printf("targets: by handle <= 1.15x floor, by name <= floor + 10 ns, disabled <= 1 ns\n");
  printf("finalize of %ld events: %.3f s (rc %d)\n", pairs * REPS * 4, fin_s, rc);
  return 0;
}
