/* bench_profile_scale.c - profile mode (sp_config.aggregate, time_trace = 0)
 * over many regions and call paths (issue 43, items 9 and 15).
 *
 *   bench_profile_scale [max_regions [PPROC]]
 *
 * Part 1: the cost of a call into a new call path against a call into a
 * known one, in the same run: max_regions / 5 paths top > r<i> entered
 * once each (every pair a new path), then the same pairs again (every
 * path known). Each new pair is timed on its own (CLOCK_MONOTONIC, its
 * ~20 ns read included): median, 99th percentile, maximum, mean; the known
 * pairs as one loop (mean ns a pair).
 * Part 2: flat regions with 1 to 3 calls each, at max_regions / 10,
 * 3 max_regions / 10 and max_regions (default 100,000): sp_finalize's time,
 * each in a child process of its own, then `PPROC FILE --summary` when
 * PPROC is given; the ratio of the largest to the smallest is 10 when both
 * are linear in the regions (100 when quadratic). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"

extern char **environ;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void setup(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = 0;
  c.file_path = path;
  unlink(path);
  if (sp_setup(&c) != 0) exit(1);
}

static int *regions(int n) {
  int *h = malloc((size_t)n * sizeof *h);
  if (!h) exit(1);
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "r%d", i);
    h[i] = sp_region(name);
  }
  return h;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void new_paths(int n) {
  setup("bench_profile_scale_paths.h5");
  int *h = regions(n), top = sp_region("top");
  double *us = malloc((size_t)n * sizeof *us);
  if (!us) exit(1);
  sp_start(top);
  sp_stop(top); /* the thread's record and the top path exist before */
  double sum = 0;
  for (int i = 0; i < n; i++) {
    double t0 = now_s();
    sp_start(top);
    sp_start(h[i]);
    sp_stop(h[i]);
    sp_stop(top);
    us[i] = (now_s() - t0) * 1e6;
    sum += us[i];
  }
  double t0 = now_s();
  for (int i = 0; i < n; i++) {
    sp_start(top);
    sp_start(h[i]);
    sp_stop(h[i]);
    sp_stop(top);
  }
  double known_ns = (now_s() - t0) * 1e9 / n;
  qsort(us, (size_t)n, sizeof *us, cmp_double);
  printf(
      "new call path (%d, one pair top > r<i> each): median %.2f us, p99 %.2f us, max %.1f us, "
      "mean %.2f us\n",
      n, us[n / 2], us[n * 99 / 100], us[n - 1], sum / n);
  printf("known call path (the same pairs again): %.0f ns a pair; new / known (means) = %.0f\n",
         known_ns, sum / n * 1e3 / known_ns);
  sp_finalize();
  unlink("bench_profile_scale_paths.h5");
  free(us);
  free(h);
}

/* Child mode (--finalize N PATH): records n flat regions, prints
 * sp_finalize's seconds. A process of its own per size: a child of fork()
 * after a session would name its file after its pid (fork_guard.c). */
static int finalize_child(int n, const char *path) {
  setup(path);
  int *h = regions(n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 1 + i % 3; k++) {
      sp_start(h[i]);
      sp_stop(h[i]);
    }
  double t0 = now_s();
  int rc = sp_finalize();
  printf("%.6f\n", now_s() - t0);
  free(h);
  return rc != 0;
}

/* Runs argv (stdout to out, or /dev/null): its seconds, -1 when it failed. */
static double run_timed(char **argv, const char *out) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  double t0 = now_s();
  pid_t pid;
  int st = 0, rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1.0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? now_s() - t0 : -1.0;
}

/* sp_finalize's seconds for n flat regions, in a child process. */
static double finalize_time(const char *self, int n, const char *path) {
  char num[32], out[96];
  snprintf(num, sizeof num, "%d", n);
  snprintf(out, sizeof out, "%s.time", path);
  char *argv[] = {(char *)self, "--finalize", num, (char *)path, NULL};
  double t = -1.0;
  if (run_timed(argv, out) >= 0) {
    FILE *f = fopen(out, "r");
    if (!f || fscanf(f, "%lf", &t) != 1) t = -1.0;
    if (f) fclose(f);
  }
  unlink(out);
  return t;
}

/* Seconds of `pproc path --summary`, its output to /dev/null. */
static double pproc_time(const char *pproc, const char *path) {
  char *argv[] = {(char *)pproc, (char *)path, "--summary", NULL};
  return run_timed(argv, NULL);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--finalize") == 0)
    return finalize_child(atoi(argv[2]), argv[3]);
  int max = argc > 1 ? atoi(argv[1]) : 100000;
  const char *pproc = argc > 2 ? argv[2] : NULL;
  if (max < 10) max = 10;
  new_paths(max / 5);
  int sizes[3] = {max / 10, max * 3 / 10, max};
  double fin[3], pp[3];
  printf("%10s %14s %14s\n", "regions", "sp_finalize_s", "summary_s");
  for (int k = 0; k < 3; k++) {
    char path[64];
    snprintf(path, sizeof path, "bench_profile_scale_%d.h5", sizes[k]);
    fin[k] = finalize_time("/proc/self/exe", sizes[k], path);
    pp[k] = pproc ? pproc_time(pproc, path) : 0.0;
    printf("%10d %14.3f %14.3f\n", sizes[k], fin[k], pp[k]);
    unlink(path);
  }
  printf("ratio %d / %d regions (10: linear, 100: quadratic): sp_finalize %.1f", sizes[2], sizes[0],
         fin[2] / fin[0]);
  if (pproc) printf(", --summary %.1f", pp[2] / pp[0]);
  printf("\n");
  return fin[0] < 0 || fin[2] < 0 || (pproc && (pp[0] < 0 || pp[2] < 0));
}
