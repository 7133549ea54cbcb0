/* bench_profile.c - profile mode (sp_config.aggregate) against trace mode,
 * in the same run (these VMs are noisy: compare ratios, not absolute ns).
 *
 *   bench_profile [pairs] [max_calls]
 *
 * Part 1: cost of a start/stop pair (by handle, and a pair nested in an
 * open region) in trace mode, count mode, profile mode alone
 * (time_trace = 0) and both, each against the floor measured next to it
 * (two rdtsc and two stores, as bench_overhead) and the CLOCK_MONOTONIC
 * floor (profile mode reads that clock). Best of 31 repetitions
 * (bench_pairs.c, shared with bench_overhead).
 * Part 2: profile mode alone from 1e6 calls up to max_calls (default 1e8),
 * tenfold steps: the process's resident memory growth and the size of the
 * file sp_finalize writes must stay flat. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_pairs.h"
#include "scope_profiler.h"

static int h0, h1;

static void body_handle(long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h0);
    sp_stop(h0);
  }
}

static void body_nested(long n) {
  sp_start(h1);
  for (long i = 0; i < n; i++) {
    sp_start(h0);
    sp_stop(h0);
  }
  sp_stop(h1);
}

static sp_bench_figure_t measure(sp_bench_body_fn fn) { return sp_bench_measure(fn, 1); }

static void session(int trace, int aggregate, const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.time_trace = trace;
  c.aggregate = aggregate;
  c.file_path = path;
  if (sp_setup(&c) != 0) exit(1);
  h0 = sp_region("pair");
  h1 = sp_region("outer");
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    fclose(f);
  }
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void part1(void) {
  static const struct {
    const char *label;
    int trace, aggregate;
  } modes[] = {{"trace", 1, 0},
               {"count (time_trace=0)", 0, 0},
               {"profile (aggregate=1)", 0, 1},
               {"profile + trace", 1, 1}};
  printf("%-34s %9s %9s %9s %10s %10s\n", "case", "ns/pair", "floor", "floor_gt", "- floor",
         "- floor_gt");
  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
    for (int nested = 0; nested < 2; nested++) {
      session(modes[m].trace, modes[m].aggregate, "bench_profile_part1.h5");
      sp_bench_figure_t f = measure(nested ? body_nested : body_handle);
      sp_finalize();
      char label[64];
      snprintf(label, sizeof label, "%s%s", modes[m].label, nested ? ", nested" : "");
      printf("%-34s %9.2f %9.2f %9.2f %+10.2f %+10.2f\n", label, f.ns, f.floor, f.floor_gt,
             f.ns - f.floor, f.ns - f.floor_gt);
    }
  }
  remove("bench_profile_part1.h5");
  remove("bench_profile_part1.aggregate.h5");
}

static void part2(long max_calls) {
  printf("\n%-12s %14s %14s %12s\n", "calls", "RSS growth KiB", "file bytes", "ns/pair");
  for (long calls = 1000000; calls <= max_calls; calls *= 10) {
    const char *path = "bench_profile_flat.h5";
    remove(path);
    long before = rss_kib();
    session(0, 1, path);
    int64_t t0 = sp_bench_now_ns();
    sp_start(h1);
    for (long i = 0; i < calls; i++) {
      sp_start(h0);
      sp_stop(h0);
    }
    sp_stop(h1);
    double ns = (double)(sp_bench_now_ns() - t0) / (double)calls;
    long during = rss_kib();
    sp_finalize();
    struct stat sb;
    long long bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
    printf("%-12ld %14ld %14lld %12.2f\n", calls, during - before, bytes, ns);
    remove(path);
  }
}

int main(int argc, char **argv) {
  long max_calls = argc > 2 ? atol(argv[2]) : 100000000;
  if (sp_bench_init(argc > 1 ? atol(argv[1]) : 100000) != 0) return 1;
  part1();
  part2(max_calls);
  sp_bench_end();
  return 0;
}
