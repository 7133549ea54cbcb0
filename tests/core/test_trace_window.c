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
 *   misnested            stops that do not match while calls started in a
 *                        pause are open: one message each, never a
 *                        broken trace (trace-only session)
 *   recursion, recursion_both  a region recursing across pauses and
 *                        resumes, by handle and by name, with a value set
 *                        in a paused call (mode both: the aggregates)
 *   api                  return codes, sp_trace_paused, count mode
 *   sessions             calls left out and open when a session ends
 *                        (sp_finalize, or a second sp_setup) on this
 *                        thread and a worker: counted as open then, and
 *                        not in the next session (their stops there are
 *                        stops without a start) */
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

/* Misnested stops while the trace is paused in a trace-only session,
 * where calls started in the pause are counted without their regions
 * (docs/trace-windows.md): a stop ends the innermost open call whatever
 * region it names, and a stop that matches no open call is said once and
 * counted. check_trace_window.py checks the trace kept whole. */
static void case_misnested(void) {
  setup_mode("misnested.h5", 0, 0, 1000);
  int outer = sp_region("outer"), a = sp_region("a"), c = sp_region("c"), w = sp_region("w");
  sp_start(outer); /* traced */
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_start(a);     /* left out */
  sp_stop(outer);  /* misnested: ends a, the innermost */
  sp_stop(a);      /* no open call of a: stop without start (1) */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
  sp_start(a);     /* left out, open across the resume */
  ASSERT_EQ(sp_trace_resume(), 0);
  sp_start(c);     /* traced, inside a */
  sp_stop(a);      /* misnested: c is the innermost; c dropped, a ended */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 1);
  sp_stop(c);      /* dropped already: stop without start (2) */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 2);
  sp_start(w);     /* traced, whole */
  sp_stop(w);
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_stop(w);      /* nothing open but outer: stop without start (3) */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 3);
  ASSERT_EQ(sp_trace_resume(), 0);
  sp_stop(outer);  /* traced, whole: holds w */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
  ASSERT_EQ(sp_finalize(), 0);
}

/* "rec" recursing to depth 6: depth 1 traced, 2-3 paused, 4 traced
 * (resumed inside 3), 5 paused again, 6 by name, paused; a value set in
 * depth 5 goes to no traced call. Then the stops unwind: depth 4 is
 * stopped while the trace is paused, depth 1 after the resume. The trace
 * keeps depths 1 and 4, nested, each whole, and a third call (below); the
 * aggregates (mode both) count all 8. */
static void recursion(const char *name) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", name);
  setup_mode(path, strcmp(name, "recursion_both") == 0, 0, 1000);
  int rec = sp_region("rec");
  sp_start(rec); /* 1: traced */
  ASSERT_EQ(sp_call_set_int("depth", 1), 0);
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_start(rec); /* 2 */
  sp_start(rec); /* 3 */
  ASSERT_EQ(sp_trace_resume(), 0);
  sp_start(rec); /* 4: traced */
  ASSERT_EQ(sp_call_set_int("depth", 4), 0);
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_start(rec); /* 5 */
  ASSERT_EQ(sp_call_set_int("depth", 5), 0); /* not in the trace: kept by no call */
  sp_start_name("rec"); /* 6 */
  sp_stop_name("rec");  /* 6 */
  sp_stop(rec);         /* 5 */
  sp_stop(rec);         /* 4: traced, stopped while paused */
  sp_stop(rec);         /* 3 */
  ASSERT_EQ(sp_trace_resume(), 0);
  sp_stop(rec); /* 2 */
  sp_stop(rec); /* 1 */
  /* Then a call of rec left out in a pause is stopped after the resume:
   * its stop ends it, not the traced call of rec around it, which holds
   * "mark" started after that stop. */
  int mark = sp_region("mark");
  sp_start(rec); /* traced */
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_start(rec); /* left out */
  ASSERT_EQ(sp_trace_resume(), 0);
  sp_stop(rec); /* the one left out */
  sp_start(mark);
  sp_stop(mark);
  sp_stop(rec); /* the traced one */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
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

/* A call left out of the trace is counted in its thread's count, without
 * a frame (docs/design.md, "A paused trace"). The count belongs to the
 * session: sp_finalize says such calls still open and drops them, on this
 * thread and on a worker, and the next session has none of them, so that
 * their stops there are stops without a start (a count kept would end
 * them silently). A second sp_setup drops them too. */
static int sa;

static void *sessions_worker(void *arg) {
  (void)arg;
  sp_start(sa); /* left out: the worker's first call */
  pthread_barrier_wait(&barrier);
  pthread_barrier_wait(&barrier); /* sp_finalize and sp_setup again */
  sp_stop(sa);                    /* no call of sa open in this session */
  return NULL;
}

static void case_sessions(void) {
  setup_mode("sessions.h5", 0, 0, 1000);
  sa = sp_region("a");
  ASSERT_EQ(sp_trace_pause(), 0);
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, NULL, sessions_worker, NULL), 0);
  sp_start(sa); /* left out */
  pthread_barrier_wait(&barrier);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 2); /* both said open */
  setup_mode("sessions.h5", 0, 0, 1000);
  sa = sp_region("a");
  int b = sp_region("b");
  pthread_barrier_wait(&barrier);
  pthread_join(th, NULL);
  pthread_barrier_destroy(&barrier);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1); /* the worker's */
  sp_stop(sa);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 2);
  /* A session replaced by sp_setup, a call left out open in it */
  ASSERT_EQ(sp_trace_pause(), 0);
  sp_start(sa);
  setup_mode("sessions.h5", 0, 0, 1000);
  sa = sp_region("a");
  b = sp_region("b");
  sp_start(b); /* traced, then the stop of the dropped call */
  sp_stop(b);
  sp_stop(sa);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 0);
  ASSERT_EQ(sp_finalize(), 0);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE_NAMED(window, window),
      SP_TEST_CASE_NAMED(window_both, window),
      SP_TEST_CASE(threads),
      SP_TEST_CASE_NAMED(cap, cap),
      SP_TEST_CASE_NAMED(cap_both, cap),
      SP_TEST_CASE_NAMED(cap_columnar, cap),
      SP_TEST_CASE(misnested),
      SP_TEST_CASE_NAMED(recursion, recursion),
      SP_TEST_CASE_NAMED(recursion_both, recursion),
      SP_TEST_CASE(api),
      SP_TEST_CASE(sessions),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  return 0;
}
