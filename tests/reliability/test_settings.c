/* test_settings.c - settings and counts at their limits (issue 36, item
 * 18), one case per run: test_settings CASE. Each case checks the message
 * at sp_setup, that finalize writes the file, and CASE.h5's counts
 * (CASE.expect.rank0.json, checked with h5py by check_profile.py). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

/* sp_setup of TAG.h5 with VAR=VALUE; returns the log it wrote. */
static char *setup_with(const char *tag, const char *var, const char *value) {
  if (var) setenv(var, value, 1);
  char path[64];
  snprintf(path, sizeof path, "%s.h5", tag);
  unlink(path);
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  sp_test_stderr_begin();
  int rc = sp_setup(&c);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, 0);
  return err;
}

static void record_and_check(const char *tag, int calls) {
  int h = sp_region("work");
  for (int i = 0; i < calls; i++) {
    sp_start(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_finalize(), 0);
  const char *const n[] = {"work"};
  const long long k[] = {calls};
  sp_test_expect_write_table(tag, 0, n, k, 1);
}

/* 9999999999 s overflowed finalize's deadline (timeout x 10^9 ns): every
 * multi-rank finalize timed out at once, "within -9223372036854775804 s". */
static void case_finalize_timeout_huge(void) {
  char *err = setup_with("finalize_timeout_huge", "SCOPE_PROFILER_FINALIZE_TIMEOUT", "9999999999");
  sp_test_expect_msg(err,
                     "SCOPE_PROFILER_FINALIZE_TIMEOUT=9999999999 is more than 31536000 s "
                     "(a year): clamped to 31536000",
                     1);
  free(err);
  record_and_check("finalize_timeout_huge", 100);
}

/* 64 GiB was accepted, then finalize failed with SP_ENOMEM for 480 KB. */
static void case_round_bytes_huge(void) {
  char *err = setup_with("round_bytes_huge", "SCOPE_PROFILER_ROUND_BYTES", "68719476736");
  sp_test_expect_msg(err,
                     "SCOPE_PROFILER_ROUND_BYTES=68719476736 is more than 1073741824 "
                     "bytes: clamped to 1073741824",
                     1);
  free(err);
  record_and_check("round_bytes_huge", 60000);
}

/* sp_region_add_calls(h, INT64_MAX) twice wrote num_calls = -1. Count-only
 * mode, where num_calls is all a region has (check_profile.py wants as
 * many stamps as calls in trace mode). */
static void case_add_calls_saturate(void) {
  free(setup_with("add_calls_saturate", "SCOPE_PROFILER_TIME_TRACE", "0"));
  int h = sp_region("counted");
  sp_region_add_calls(h, INT64_MAX);
  sp_region_add_calls(h, INT64_MAX);
  int t = sp_region("then_called");
  sp_region_add_calls(t, INT64_MAX - 1);
  for (int i = 0; i < 3; i++) { /* calls on top of a saturated count */
    sp_start(t);
    sp_stop(t);
  }
  int f = sp_region("fits");
  sp_region_add_calls(f, INT64_MAX / 2);
  sp_region_add_calls(f, 5);
  ASSERT_EQ(sp_finalize(), 0);
  const char *const n[] = {"counted", "then_called", "fits"};
  const long long k[] = {INT64_MAX, INT64_MAX, INT64_MAX / 2 + 5};
  sp_test_expect_write_table("add_calls_saturate", 0, n, k, 3);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(finalize_timeout_huge),
      SP_TEST_CASE(round_bytes_huge),
      SP_TEST_CASE(add_calls_saturate),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok\n", c->name);
  return 0;
}
