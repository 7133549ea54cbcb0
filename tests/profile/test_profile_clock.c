/* test_profile_clock.c - profile mode alone converts its TSC ticks to ns
 * at each report with the calibration of that moment (sp_report: setup's
 * two points 2 ms apart; sp_finalize: a point more). Are both files' ns
 * right? The oracle is CLOCK_MONOTONIC read by this program around each
 * call: outside sp_start/sp_stop and inside them, so each call's true
 * duration lies between the two (check_profile_clock.py).
 *
 *   test_profile_clock FILE   NAPS calls of "nap" (a 30 ms nanosleep) in
 *                             each of two windows: sp_report to FILE.mid.h5
 *                             after the first, then sp_reset; sp_finalize
 *                             writes FILE's aggregate file after the second.
 *                             FILE.naps: the clock's name, then per call
 *                             "window inner_ns outer_ns".
 * Exit 0 when every call returned what it should. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include <stdio.h>
#include <time.h>

#include "scope_profiler.h"
#include "sp_test_util.h"

#define NAPS 3

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_profile_clock FILE\n");
    return 2;
  }
  char mid[4200], naps[4200];
  snprintf(mid, sizeof mid, "%s.mid.h5", argv[1]);
  snprintf(naps, sizeof naps, "%s.naps", argv[1]);
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = 0; /* profile mode alone reads the TSC where it is invariant */
  c.file_path = argv[1];
  ASSERT_EQ(sp_setup(&c), 0);
  FILE *f = fopen(naps, "w");
  ASSERT(f != NULL);
  fprintf(f, "%s\n", sp_clock_name());
  int h = sp_region("nap");
  for (int w = 0; w < 2; w++) {
    for (int i = 0; i < NAPS; i++) {
      struct timespec nap = {0, 30 * 1000 * 1000};
      long long t0 = now_ns();
      sp_start(h);
      long long a = now_ns();
      nanosleep(&nap, NULL);
      long long b = now_ns();
      sp_stop(h);
      long long t1 = now_ns();
      fprintf(f, "%d %lld %lld\n", w, b - a, t1 - t0);
    }
    if (w == 0) {
      ASSERT_EQ(sp_report(mid), 0);
      ASSERT_EQ(sp_reset(), 0);
    }
  }
  fclose(f);
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}
