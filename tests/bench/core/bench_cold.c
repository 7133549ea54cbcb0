/* bench_cold.c - the recorder's cold path: what a region costs before its
 * buffers are warm, against the warm cost measured in the same run.
 *
 *   bench_cold [scale]     (default 1; CTest's smoke run uses 0.02)
 *
 * Parts 3b and 4 run pinned to the CPU the program is on (the library's
 * threads too, so their work is paid by the measured loop, as on a rank
 * that owns one core). Each part is compared with a baseline measured in
 * the same run (the VM is shared and noisy: read the ratios):
 *
 *  1. first pair: the first sp_start/sp_stop of each of 64 fresh regions
 *     (handles registered before), inside an open region, against the
 *     next pair of the same region; the first pair on 8 new threads; the
 *     first pair of 64 fresh names by name (registration included).
 *  2. fresh region: ns per pair of a region's first 1e5 pairs (its buffer
 *     grows), against the same region's pairs 2e5..3e5 (steady, one flush
 *     included), for 8 regions; the ratio per region, median.
 *  3. stalls: every pair of a fresh session timed (rdtsc), 2e6 pairs of
 *     one region, then 2e6 of 16 regions in turn: the longest pair and the
 *     pairs above 100 us and 1 ms (the first flushes included), against
 *     the same loop with profiling off (what the machine adds); a: not
 *     pinned, b: pinned.
 *  4. 16 regions used in turn by handle against one region, flush on,
 *     warm, 9 alternating repetitions of 2e6 pairs each: medians, ratio.
 *
 * Targets (issue 38): first pair <= 5 us; fresh/steady <= 1.5; no pair
 * above 1 ms; 16 regions / 1 region <= 1.3. */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"

#if defined(__x86_64__)

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double ns_per_tick;

static void calibrate_ticks(void) {
  int64_t w0 = now_ns(), c0 = (int64_t)__builtin_ia32_rdtsc();
  while (now_ns() - w0 < 50000000) {}
  int64_t w1 = now_ns(), c1 = (int64_t)__builtin_ia32_rdtsc();
  ns_per_tick = (double)(w1 - w0) / (double)(c1 - c0);
}

static inline int64_t ticks(void) { return (int64_t)__builtin_ia32_rdtsc(); }

/* What the calling (recording) thread went through: page faults, and the
 * times it gave up the CPU (waited: for a lock, a condition or I/O). Both
 * do not depend on how busy the machine is, unlike times. */
typedef struct thread_use {
  long faults, waits;
} thread_use_t;

static thread_use_t thread_use(void) {
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  return (thread_use_t){r.ru_minflt + r.ru_majflt, r.ru_nvcsw};
}

static thread_use_t use_since(thread_use_t a) {
  thread_use_t b = thread_use();
  return (thread_use_t){b.faults - a.faults, b.waits - a.waits};
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_dbl);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double maxof(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

static void session(void) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = "/tmp/sp_bench_cold.h5";
  sp_setup(&c);
}

static void end_session(void) {
  sp_finalize();
  remove("/tmp/sp_bench_cold.h5");
}

/* ---- 1. first pair ------------------------------------------------- */

#define NFRESH 64
#define NTHREADS 8

static double thread_first_us[NTHREADS];
static int thread_region;

static void *first_on_thread(void *arg) {
  int i = (int)(intptr_t)arg;
  int64_t t0 = ticks();
  sp_start(thread_region);
  sp_stop(thread_region);
  thread_first_us[i] = (double)(ticks() - t0) * ns_per_tick / 1e3;
  return NULL;
}

static void part_first_pair(void) {
  session();
  const int outer = sp_region("outer");
  for (int i = 0; i < 1000; i++) {
    sp_start(outer);
    sp_stop(outer);
  }
  int h[NFRESH];
  char names[NFRESH][32];
  for (int i = 0; i < NFRESH; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "fresh_%02d", i);
    h[i] = sp_region(nm);
    snprintf(names[i], sizeof names[i], "by_name_%02d", i);
  }
  double first[NFRESH], warm[NFRESH], named[NFRESH];
  thread_use_t u0 = thread_use();
  for (int i = 0; i < NFRESH; i++) {
    sp_start(outer);
    int64_t t0 = ticks();
    sp_start(h[i]);
    sp_stop(h[i]);
    int64_t t1 = ticks();
    sp_start(h[i]);
    sp_stop(h[i]);
    int64_t t2 = ticks();
    sp_start_name(names[i]);
    sp_stop_name(names[i]);
    int64_t t3 = ticks();
    sp_stop(outer);
    first[i] = (double)(t1 - t0) * ns_per_tick / 1e3;
    warm[i] = (double)(t2 - t1) * ns_per_tick / 1e3;
    named[i] = (double)(t3 - t2) * ns_per_tick / 1e3;
  }
  thread_use_t u = use_since(u0);
  thread_region = h[0];
  for (int i = 0; i < NTHREADS; i++) {
    pthread_t tid;
    pthread_create(&tid, NULL, first_on_thread, (void *)(intptr_t)i);
    pthread_join(tid, NULL);
  }
  end_session();
  double fmax = maxof(first, NFRESH), nmax = maxof(named, NFRESH);
  double tmax = maxof(thread_first_us, NTHREADS);
  double fmed = median(first, NFRESH), wmed = median(warm, NFRESH);
  printf("1. first start/stop pair of a region (us; target <= 5)\n");
  printf("   %-44s %9s %9s\n", "", "median", "max");
  printf("   %-44s %9.2f %9.2f\n", "first pair, 64 fresh handles (in a region)", fmed, fmax);
  printf("   %-44s %9.2f %9.2f\n", "first pair, 64 fresh names (registers)", median(named, NFRESH),
         nmax);
  printf("   %-44s %9.2f %9.2f\n", "first pair on 8 new threads", median(thread_first_us, NTHREADS),
         tmax);
  printf("   %-44s %9.3f %9.3f\n", "baseline: the next pair of the same region", wmed,
         maxof(warm, NFRESH));
  printf("   first / next pair: x%.0f (median); the recording thread's page faults in those "
         "192 pairs: %ld, waits: %ld\n",
         wmed > 0 ? fmed / wmed : 0.0, u.faults, u.waits);
}

/* ---- 2. a fresh region's first 1e5 pairs ---------------------------- */

#define NREGIONS 8

static double window_ns(int h, long n) {
  int64_t t0 = ticks();
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  return (double)(ticks() - t0) * ns_per_tick / (double)n;
}

static void part_fresh_region(double scale) {
  const long n = (long)(100000 * (scale < 1 ? scale : 1));
  session();
  const int warmup = sp_region("warmup");
  window_ns(warmup, 3 * n); /* the thread and the writer exist */
  double fresh[NREGIONS], second[NREGIONS], steady[NREGIONS], ratio[NREGIONS];
  thread_use_t uf = {0, 0}, us = {0, 0};
  for (int r = 0; r < NREGIONS; r++) {
    char nm[32];
    snprintf(nm, sizeof nm, "fresh_%d", r);
    const int h = sp_region(nm);
    thread_use_t u0 = thread_use();
    fresh[r] = window_ns(h, n);
    thread_use_t d = use_since(u0);
    uf.faults += d.faults;
    uf.waits += d.waits;
    second[r] = window_ns(h, n);
    u0 = thread_use();
    steady[r] = window_ns(h, n);
    d = use_since(u0);
    us.faults += d.faults;
    us.waits += d.waits;
    ratio[r] = fresh[r] / steady[r];
  }
  end_session();
  double rmax = maxof(ratio, NREGIONS);
  printf(
      "2. a fresh region's first %ld pairs against its pairs %ld..%ld (ns/pair; target <= 1.5x)\n",
      n, 2 * n, 3 * n);
  printf(
      "   first %ld: %.1f, next %ld (first flush): %.1f, steady: %.1f; fresh/steady x%.2f "
      "(median of %d regions, max x%.2f)\n",
      n, median(fresh, NREGIONS), n, median(second, NREGIONS), median(steady, NREGIONS),
      median(ratio, NREGIONS), NREGIONS, rmax);
}

/* ---- 3. stalls at flushes ------------------------------------------ */

typedef struct stall {
  double max_us;
  long at; /* pair of the longest */
  long over_100us, over_1ms;
  thread_use_t use;
} stall_t;

static stall_t timed_pairs(const int *h, int nh, long n) {
  stall_t s = {0, 0, 0, 0, {0, 0}};
  thread_use_t u0 = thread_use();
  for (long i = 0; i < n; i++) {
    const int r = h[i % nh];
    int64_t t0 = ticks();
    sp_start(r);
    sp_stop(r);
    double us = (double)(ticks() - t0) * ns_per_tick / 1e3;
    if (us > s.max_us) {
      s.max_us = us;
      s.at = i;
    }
    s.over_100us += us > 100;
    s.over_1ms += us > 1000;
  }
  s.use = use_since(u0);
  return s;
}

static void print_stall(const char *label, stall_t s) {
  printf("   %-34s %9.1f %10ld %7ld %7ld %7ld %7ld\n", label, s.max_us, s.at, s.over_100us,
         s.over_1ms, s.use.faults, s.use.waits);
}

static void part_stalls(double scale, int pinned) {
  const long n = (long)(2000000 * scale);
  sp_config off;
  sp_config_init(&off);
  off.profiling_activated = 0;
  sp_setup(&off);
  int quiet[16];
  for (int i = 0; i < 16; i++) quiet[i] = i;
  stall_t base = timed_pairs(quiet, 16, n); /* what the machine adds: profiling off */
  sp_finalize();
  session();
  int one = sp_region("one");
  int many[16];
  for (int i = 0; i < 16; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "turn_%02d", i);
    many[i] = sp_region(nm);
  }
  stall_t a = timed_pairs(&one, 1, n);
  stall_t b = timed_pairs(many, 16, n);
  end_session();
  printf(
      "3%s. the longest pair from a fresh session, flushes included, %s (target: none above "
      "1 ms)\n",
      pinned ? "b" : "a", pinned ? "pinned to one CPU" : "not pinned");
  printf("   %-34s %9s %10s %7s %7s %7s %7s\n", "", "max us", "at pair", ">100us", ">1ms",
         "faults", "waits");
  print_stall("baseline: profiling off, 2e6 pairs", base);
  print_stall("one region, 2e6 pairs", a);
  print_stall("then 16 regions in turn, 2e6 pairs", b);
}

/* ---- 4. 16 regions in turn ----------------------------------------- */

static int turn[16];

static double loop_one(long n) {
  const int h = turn[0];
  int64_t t0 = ticks();
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
  return (double)(ticks() - t0) * ns_per_tick / (double)n;
}

static double loop_16(long n) {
  int64_t t0 = ticks();
  for (long i = 0; i < n; i += 16) {
    for (int k = 0; k < 16; k++) {
      sp_start(turn[k]);
      sp_stop(turn[k]);
    }
  }
  return (double)(ticks() - t0) * ns_per_tick / (double)n;
}

#define REPS 9

static void part_turns(double scale) {
  const long n = (long)(2000000 * scale) / 16 * 16;
  session();
  for (int i = 0; i < 16; i++) {
    char nm[32];
    snprintf(nm, sizeof nm, "turn_%02d", i);
    turn[i] = sp_region(nm);
  }
  int single = sp_region("single");
  loop_16(2 * n); /* warm: buffers grown, pool filled */
  int keep = turn[0];
  turn[0] = single;
  loop_one(2 * n);
  double one[REPS], many[REPS], ratio[REPS];
  for (int r = 0; r < REPS; r++) {
    turn[0] = single;
    one[r] = loop_one(n);
    turn[0] = keep;
    many[r] = loop_16(n);
    ratio[r] = many[r] / one[r];
  }
  end_session();
  printf(
      "4. 16 regions in turn by handle against one region, flush on, warm (ns/pair; target "
      "<= 1.3x)\n");
  printf(
      "   one region %.1f, 16 in turn %.1f: x%.2f (medians of %d alternating reps of %ld pairs; "
      "ratio of each rep's pair: median x%.2f, max x%.2f)\n",
      median(one, REPS), median(many, REPS), median(many, REPS) / median(one, REPS), REPS, n,
      median(ratio, REPS), maxof(ratio, REPS));
}

static void pin_here(void) {
  int cpu = sched_getcpu();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu >= 0) CPU_SET(cpu, &set);
  if (cpu < 0 || sched_setaffinity(0, sizeof set, &set) != 0) {
    printf("(not pinned)\n");
    return;
  }
  printf("(parts 3b and 4 pinned to CPU %d, with the library's threads)\n", cpu);
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (scale <= 0) scale = 1.0;
  calibrate_ticks();
  printf(
      "scope-profiler cold path benchmark, scale %g, default configuration (flush on, "
      "buffer_limit 100000, writer thread)\n",
      scale);
  part_first_pair();
  part_fresh_region(scale);
  part_stalls(scale, 0);
  pin_here();
  part_stalls(scale, 1);
  part_turns(scale);
  return 0;
}

#else
int main(void) {
  printf("bench_cold: needs x86-64 (rdtsc)\n");
  return 0;
}
#endif
