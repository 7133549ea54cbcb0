/* test_profile_pair.c - one serial run that writes the trace and the
 * aggregates of the same calls (profile mode with time_trace), for the
 * checks of issue 52 (check_profile_pair.py): every output of
 * scope-profiler-pproc and the Python reader over both files against an
 * h5py/numpy oracle.
 *
 *   test_profile_pair FILE    FILE (trace), FILE's .aggregate twin, and
 *                             open.h5: an sp_report written while
 *                             "time_loop" (and "outer") are open
 *
 * The run: RSS samples start before the first region call (run it with
 * SCOPE_PROFILER_SAMPLE_MS); "never_called" is registered and never
 * entered; "time_loop" (sp_region_at) holds 10 calls of "outer"
 * (SP_REGION_HERE), each holding 10 of "inner"; "two" has 2 calls of about
 * 1.100 and 1.110 ms, in one histogram bucket whose midpoint is below both.
 * Exit 0 when every call returned what it should. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include <stdio.h>
#include <time.h>

#include "scope_profiler.h"
#include "sp_test_util.h"

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Busy for ns nanoseconds of CLOCK_MONOTONIC (the clock profile mode reads). */
static void spin(long long ns) {
  long long t0 = now_ns();
  while (now_ns() - t0 < ns) {}
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_profile_pair FILE\n");
    return 2;
  }
  sp_config c;
  sp_config_init(&c);
  c.aggregate = 1;
  c.time_trace = 1;
  c.file_path = argv[1];
  ASSERT_EQ(sp_setup(&c), 0);
  struct timespec pause = {0, 60 * 1000 * 1000}; /* samples before the first call */
  nanosleep(&pause, NULL);
  int never = sp_region("never_called");
  ASSERT(never >= 0);
  int loop = sp_region_at("time_loop", "pair_loop.c", 42);
  int hinner = sp_region("inner");
  sp_start(loop);
  for (int s = 0; s < 10; s++) {
    int houter = SP_REGION_HERE("outer");
    sp_start(houter);
    for (int k = 0; k < 10; k++) {
      sp_start(hinner);
      spin(200000 + 20000 * k);
      sp_stop(hinner);
    }
    spin(100000);
    if (s == 4) ASSERT_EQ(sp_report("open.h5"), 0); /* inside time_loop and outer */
    sp_stop(houter);
  }
  int two = sp_region("two");
  sp_start(two);
  spin(1100000);
  sp_stop(two);
  sp_start(two);
  spin(1110000);
  sp_stop(two);
  sp_stop(loop);
  nanosleep(&pause, NULL);
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}
