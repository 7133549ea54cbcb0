/* test_trace_window.c - trace windows (sp_trace_pause / sp_trace_resume)
 * and the trace's cap (trace_max_mb): test_trace_window CASE. Each case
 * writes CASE.h5 (and, in mode both, CASE.aggregate.h5); the calls kept,
 * their nesting, the cap and the aggregates are checked by h5py in
 * check_trace_window.py against what this program did, which is said in
 * the comments the checker mirrors.
 *
 *   window, window_both  a time loop of 10,000 steps traced at steps 100
 *                        to 110 only (trace mode; mode both: aggregates
 *                        of every step beside the trace)
 *   threads              4 threads, each with 50 calls paused, 70 traced,
 *                        30 paused, and a call open across each switch
 *   cap, cap_both        200,000 calls under a 1 MB cap with spills
 *   cap_columnar         the same in the columnar layout
 *                        (cap with SP_TEST_KILL_AFTER_CAP set: SIGKILL after the
 *                        calls, before sp_finalize; trace_cap_killed.py merges
 *                        the spill file)
 *   api                  return codes, sp_trace_paused, count mode */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "sp_test_cases.h"
#include "sp_test_util.h"

static void setup_mode(const char *path, int both, int max_mb, int64_t buffer_limit) {
  sp_config c;
  sp_config_init(&c);
  if (strcmp(path, "cap_columnar.h5") == 0) c.layout = SP_LAYOUT_COLUMNAR;
  c.file_path = path;
  c.aggregate = both;
  c.trace_max_mb = max_mb;
  c.buffer_limit = buffer_limit;
  ASSERT_EQ(sp_setup(&c), 0);
}

static void finish(void) {
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 0);
  ASSERT_EQ(sp_finalize(), 0);
}

/* The time loop of the docs: 10,000 steps, each a "step" with two "work"
 * calls inside, traced at steps 100 to 110. "long" opens at step 105 and
 * closes at step 120 (open at the pause: kept whole); "span" opens at step
 * 95 (paused) and closes at step 102 (traced: left out, as its start). */
static void window(const char *name) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", name);
  setup_mode(path, strcmp(name, "window_both") == 0, 0, 1000);
  int step = sp_region("step"), work = sp_region("work");
  int lng = sp_region("long"), span = sp_region("span");
  ASSERT_EQ(sp_trace_pause(), 0);
  ASSERT_EQ(sp_trace_paused(), 1);
  for (int s = 0; s < 10000; s++) {
    if (s == 100) ASSERT_EQ(sp_trace_resume(), 0);
    if (s == 111) ASSERT_EQ(sp_trace_pause(), 0);
    if (s == 95) sp_start(span);
    if (s == 105) sp_start(lng);
    sp_start(step);
    for (int w = 0; w < 2; w++) {
      sp_start(work);
      sp_stop(work);
    }
    sp_stop(step);
    if (s == 102) sp_stop(span);
    if (s == 120) sp_stop(lng);
  }
  ASSERT_EQ(sp_trace_paused(), 1);
  finish();
}

static pthread_barrier_t barrier;
static int tcall, touter;

/* Thread 0 switches the trace between barriers, so every thread's calls
 * fall in a known window: 50 paused, 70 traced, 30 paused. "outer" opens
 * before the resume and closes after it (left out), and opens again
 * before the pause and closes after it (kept whole). */
static void *thread_body(void *arg) {
  const int me = (int)(intptr_t)arg;
  for (int i = 0; i < 50; i++) {
    sp_start(tcall);
    sp_stop(tcall);
  }
  sp_start(touter);
  pthread_barrier_wait(&barrier);
  if (me == 0) ASSERT_EQ(sp_trace_resume(), 0);
  pthread_barrier_wait(&barrier);
  sp_stop(touter);
  for (int i = 0; i < 70; i++) {
    sp_start(tcall);
    sp_stop(tcall);
  }
  sp_start(touter);
  pthread_barrier_wait(&barrier);
  if (me == 0) ASSERT_EQ(sp_trace_pause(), 0);
  pthread_barrier_wait(&barrier);
  sp_stop(touter);
  for (int i = 0; i < 30; i++) {
    sp_start(tcall);
    sp_stop(tcall);
  }
  return NULL;
}

static void case_threads(void) {
  enum { NT = 4 };
  setup_mode("threads.h5", 0, 0, 1000);
  tcall = sp_region("tcall");
  touter = sp_region("outer");
  ASSERT_EQ(sp_trace_pause(), 0);
  pthread_barrier_init(&barrier, NULL, NT);
  pthread_t th[NT];
  for (int i = 0; i < NT; i++)
    ASSERT_EQ(pthread_create(&th[i], NULL, thread_body, (void *)(intptr_t)i), 0);
  for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&barrier);
  finish();
}

/* 200,000 "tick" calls inside one "run" call under a 1 MB cap (65,536
 * stamps' pairs), with buffers of 1,000 events spilled as they fill: the
 * trace ends part way, "run" (open then) is kept whole. */
static void cap(const char *name) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", name);
  setup_mode(path, strcmp(name, "cap_both") == 0, 1, 1000);
  int run = sp_region("run"), tick = sp_region("tick");
  sp_start(run);
  for (int i = 0; i < 200000; i++) {
    sp_start(tick);
    sp_stop(tick);
  }
  ASSERT_EQ(sp_trace_paused(), 1); /* truncated */
  ASSERT_EQ(sp_trace_resume(), 0); /* does not undo a truncation */
  ASSERT_EQ(sp_trace_paused(), 1);
  if (getenv("SP_TEST_KILL_AFTER_CAP")) raise(SIGKILL); /* trace_cap_killed.py */
  sp_stop(run);
  finish();
}

static void case_api(void) {
  ASSERT_EQ(sp_trace_pause(), SP_ENOTSETUP);
  ASSERT_EQ(sp_trace_resume(), SP_ENOTSETUP);
  sp_config c;
  sp_config_init(&c);
  ASSERT_EQ(c.trace_max_mb, 0);
  c.file_path = "api.h5";
  c.time_trace = 0; /* count mode: nothing to pause, calls counted */
  ASSERT_EQ(sp_setup(&c), 0);
  int h = sp_region("counted");
  ASSERT_EQ(sp_trace_pause(), 0);
  for (int i = 0; i < 10; i++) {
    sp_start(h);
    sp_stop(h);
  }
  ASSERT_EQ(sp_trace_resume(), 0);
  ASSERT_EQ(sp_trace_paused(), 0);
  finish();
  c.time_trace = 1;
  c.trace_max_mb = -1;
  ASSERT_EQ(sp_setup(&c), SP_EINVAL);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE_NAMED(window, window),
      SP_TEST_CASE_NAMED(window_both, window),
      SP_TEST_CASE(threads),
      SP_TEST_CASE_NAMED(cap, cap),
      SP_TEST_CASE_NAMED(cap_both, cap),
      SP_TEST_CASE_NAMED(cap_columnar, cap),
      SP_TEST_CASE(api),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  return 0;
}
