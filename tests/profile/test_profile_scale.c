/* test_profile_scale.c - profile mode with many regions and call paths,
 * one case per run (serial, no MPI); check_profile_scale.py reads the files
 * with h5py afterwards.
 *
 *   test_profile_scale regions FILE N  N flat regions r0 .. r<N-1>, region
 *                                      i called 1 + i % 3 times (issue 43,
 *                                      item 9: sp_finalize and the
 *                                      postprocessor were quadratic in them)
 *   test_profile_scale cap FILE        520 regions, each called at the top
 *                                      and inside it every region once:
 *                                      270,920 paths on one thread, 8,776
 *                                      past the cap of 262,144; sp_report
 *                                      to FILE.mid.h5, sp_reset, then 11
 *                                      calls past the cap and 5 recorded:
 *                                      sp_finalize must say SP_ELOST and
 *                                      "11 call(s)", each file hold its
 *                                      window's loss in metadata/events_lost
 *                                      (item 10), and the paths must not
 *                                      take gigabytes (10.5 KiB of histogram
 *                                      each before: 2.7 GB; items 10, 15)
 *   test_profile_scale cap_exit FILE   the 270,920 paths, then exit()
 *                                      without sp_finalize: the loss must
 *                                      reach the .aggspill file and the
 *                                      merged file
 *   test_profile_scale exclusive FILE  a tree of 8 regions 3 deep with
 *                                      varied durations, profile mode alone
 *                                      (the TSC where there is one): every
 *                                      path's exclusive must be its inclusive
 *                                      less its children's to the ns (item 14)
 * Exit 0 when every assertion held. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_test_util.h"

#define CAP_REGIONS 520 /* 520 + 520 * 520 = 270,920 paths */

static volatile double sink;

static void busy(unsigned n) {
  double x = 0;
  for (unsigned i = 0; i < n; i++) x += (double)i * 0.5;
  sink = x;
}

static void setup(const char *file) {
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = 0;
  c.file_path = file;
  unlink(file);
  ASSERT_EQ(sp_setup(&c), 0);
}

static int *regions(int n) {
  int *h = malloc((size_t)n * sizeof *h);
  ASSERT(h != NULL);
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "r%d", i);
    h[i] = sp_region(name);
    ASSERT(h[i] >= 0);
  }
  return h;
}

static int case_regions(const char *file, int n) {
  setup(file);
  int *h = regions(n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 1 + i % 3; k++) {
      sp_start(h[i]);
      sp_stop(h[i]);
    }
  ASSERT_EQ(sp_finalize(), 0);
  free(h);
  return 0;
}

static long max_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Every region at the top, every region once inside each. */
static void cap_paths(const int *h) {
  for (int i = 0; i < CAP_REGIONS; i++) {
    sp_start(h[i]);
    for (int j = 0; j < CAP_REGIONS; j++) {
      sp_start(h[j]);
      sp_stop(h[j]);
    }
    sp_stop(h[i]);
  }
}

static int case_cap(const char *file) {
  char mid[4200];
  snprintf(mid, sizeof mid, "%s.mid.h5", file);
  unlink(mid);
  long rss0 = max_rss_kib();
  setup(file);
  int *h = regions(CAP_REGIONS);
  sp_test_stderr_begin();
  cap_paths(h);
  ASSERT_EQ(sp_report(mid), 0);
  long grown = max_rss_kib() - rss0;
  printf("max RSS grew by %ld MiB for 262,144 paths\n", grown / 1024);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) /* their shadow would count */
  /* 4 KiB a path at most (a path with one power of two of durations
   * takes under 1 KiB); 10.5 KiB a path before. */
  ASSERT(grown < 262144L * 4);
#endif
  ASSERT_EQ(sp_reset(), 0);
  /* The last top region's paths were never recorded (the cap came first):
   * it and its 10 calls inside are lost; r0 > r0 is a recorded path. */
  sp_start(h[CAP_REGIONS - 1]);
  for (int j = 0; j < 10; j++) {
    sp_start(h[j]);
    sp_stop(h[j]);
  }
  sp_stop(h[CAP_REGIONS - 1]);
  for (int k = 0; k < 5; k++) {
    sp_start(h[0]);
    sp_start(h[0]);
    sp_stop(h[0]);
    sp_stop(h[0]);
  }
  ASSERT_EQ(sp_finalize(), SP_ELOST);
  char *err = sp_test_stderr_end();
  fputs(err, stderr);
  sp_test_expect_msg(err, "profile mode: 11 call(s) could not be recorded", 1);
  sp_test_expect_msg(err, "more than 262144 call paths on one thread", 1);
  free(err);
  free(h);
  return 0;
}

static int case_cap_exit(const char *file) {
  setup(file);
  int *h = regions(CAP_REGIONS);
  cap_paths(h);
  free(h);
  exit(0); /* without sp_finalize: the aggregates go to the spill directory */
}

static int case_exclusive(const char *file) {
  setup(file);
  printf("clock: %s\n", sp_clock_name());
  int h[8];
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof name, "e%d", i);
    h[i] = sp_region(name);
  }
  unsigned s = 1;
#define NEXT() (s = s * 1103515245u + 12345u, s >> 16)
  for (int it = 0; it < 300; it++)
    for (int a = 0; a < 8; a++) {
      sp_start(h[a]);
      busy(NEXT() % 97);
      for (int b = 0; b < 8; b++) {
        if (NEXT() % 3 == 0) continue;
        sp_start(h[b]);
        busy(NEXT() % 50);
        for (int d = 0; d < 8; d += 3) {
          sp_start(h[d]);
          busy(NEXT() % 30);
          sp_stop(h[d]);
        }
        sp_stop(h[b]);
      }
      sp_stop(h[a]);
    }
#undef NEXT
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}

int main(int argc, char **argv) {
  int rc = 2;
  if (argc == 4 && strcmp(argv[1], "regions") == 0) rc = case_regions(argv[2], atoi(argv[3]));
  if (argc == 3 && strcmp(argv[1], "cap") == 0) rc = case_cap(argv[2]);
  if (argc == 3 && strcmp(argv[1], "cap_exit") == 0) rc = case_cap_exit(argv[2]);
  if (argc == 3 && strcmp(argv[1], "exclusive") == 0) rc = case_exclusive(argv[2]);
  if (rc == 2)
    fprintf(stderr, "usage: test_profile_scale regions|cap|cap_exit|exclusive FILE [N]\n");
  return rc;
}
