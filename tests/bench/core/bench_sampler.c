/* bench_sampler.c - what SCOPE_PROFILER_SAMPLE_MS costs (issue 35, item 4).
 *
 *   bench_sampler [seconds]      (default 3 s per period)
 *
 * 1. The sampler thread's CPU time per second of run, at 10 ms and 1 ms,
 *    against the run's own (the main thread spins on start/stop pairs, so
 *    the run uses about one core): read from the kernel's accounting of
 *    the thread named "sp-sampler" (/proc/self/task/TID/schedstat, ns on
 *    a CPU) just before sp_finalize ends it.
 * 2. A start/stop pair with the sampler at 1 ms against without, in the
 *    same run: sessions alternate, 31 repetitions each, the best of each
 *    (as bench_overhead). The sampler never touches the recording threads'
 *    data, so the two should only differ by noise.
 * The machine is shared: compare ratios from one run, repeat the run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scope_profiler.h"

static int64_t ns_of(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ns on a CPU of this process's thread named name, or -1. */
static int64_t thread_cpu_ns(const char *name) {
  DIR *d = opendir("/proc/self/task");
  int64_t found = -1;
  for (struct dirent *e; d && found < 0 && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, name) != 0) continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    f = fopen(path, "r");
    long long ns = -1;
    if (f && fscanf(f, "%lld", &ns) != 1) ns = -1;
    if (f) fclose(f);
    found = ns;
  }
  if (d) closedir(d);
  return found;
}

static void setup(int sample_ms) {
  sp_config c;
  sp_config_init(&c);
  c.sample_ms = sample_ms;
  c.file_path = "/tmp/sp_bench_sampler.h5";
  sp_setup(&c);
}

static void pairs(int h, long n) {
  for (long i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

/* Part 1 at one period. */
static void thread_cost(int ms, double seconds) {
  setup(ms);
  int h = sp_region("work");
  int64_t w0 = ns_of(CLOCK_MONOTONIC), c0 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
  while (ns_of(CLOCK_MONOTONIC) - w0 < (int64_t)(seconds * 1e9)) pairs(h, 10000);
  int64_t sampler = thread_cpu_ns("sp-sampler");
  double wall = (double)(ns_of(CLOCK_MONOTONIC) - w0) / 1e9;
  double run = (double)(ns_of(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e9;
  sp_finalize();
  if (sampler < 0) {
    printf("%5d ms: sampler thread not found (no schedstat?)\n", ms);
    return;
  }
  double s = (double)sampler / 1e9;
  printf("%5d ms  %8.1f s  %10.3f s  %10.1f us  %8.4f %%  %9.4f %%\n", ms, wall, run,
         1e6 * s / wall, 100.0 * s / wall, 100.0 * s / run);
}

#define REPS 31
static double best_pair_ns(int h, long n) {
  double best = 1e30;
  for (int r = 0; r < REPS; r++) {
    int64_t t0 = ns_of(CLOCK_MONOTONIC);
    pairs(h, n);
    double ns = (double)(ns_of(CLOCK_MONOTONIC) - t0) / (double)n;
    if (ns < best) best = ns;
  }
  return best;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 3.0;
  printf("sampler thread CPU time (part 1): main thread spinning on start/stop pairs\n");
  printf("period      wall     run CPU   sampler/s of run  of a core  of the run\n");
  thread_cost(10, seconds);
  thread_cost(1, seconds);
  printf(
      "\nstart/stop pair, sampler at 1 ms vs off (part 2), best of %d x 100000 pairs,\n"
      "sessions alternating 5 times:\n",
      REPS);
  double off = 1e30, on = 1e30;
  for (int k = 0; k < 5; k++) {
    for (int with = 0; with < 2; with++) {
      setup(with ? 1 : 0);
      double ns = best_pair_ns(sp_region("compute"), 100000);
      sp_finalize();
      if (with && ns < on) on = ns;
      if (!with && ns < off) off = ns;
    }
  }
  printf("off %.2f ns/pair, on %.2f ns/pair, on/off %.3f\n", off, on, on / off);
  return 0;
}
