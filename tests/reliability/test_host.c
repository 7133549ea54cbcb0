/* test_host.c - harm to the host program (issue 36, items 11-17), one case
 * per run: test_host CASE. Each case does what a real host does (blocks a
 * signal for sigwait, closes its stderr, ...) and checks that the program
 * goes on as it would without the library, and that CASE.h5 holds every
 * call (CASE.expect.rank0.json, checked with h5py by check_profile.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static void setup_small(const char *path, int64_t limit) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  c.buffer_limit = limit;
  unlink(path);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void pairs(int h, int n) {
  for (int i = 0; i < n; i++) {
    sp_start(h);
    sp_stop(h);
  }
}

static void expect_one(const char *tag, const char *name, long long calls) {
  const char *const n[] = {name};
  const long long k[] = {calls};
  sp_test_expect_write_table(tag, 0, n, k, 1);
}

/* ---- item 11: library threads never take the host's signals ----------- */

static void *sp_waiter(void *arg) {
  sigset_t *set = arg;
  int sig = 0;
  if (sigwait(set, &sig) != 0) return NULL;
  return (void *)(intptr_t)sig;
}

/* The host blocks SIGTERM in its threads and waits for it with sigwait() in
 * one of them: a library thread that left it unblocked (the background
 * writer, the flush signals' watcher) took it and the process died. */
static void host_sigwait(const char *tag) {
  char path[64];
  snprintf(path, sizeof path, "%s.h5", tag);
  setup_small(path, 1000);
  int h = sp_region("work");
  pairs(h, 5000); /* full buffers: the background writer thread runs */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
  pthread_t w;
  ASSERT_EQ(pthread_create(&w, NULL, sp_waiter, &set), 0);
  pairs(h, 5000);
  for (int i = 0; i < 20; i++) { /* several times: any thread may be picked */
    ASSERT_EQ(kill(getpid(), SIGTERM), 0);
    usleep(1000);
  }
  void *got = NULL;
  ASSERT_EQ(pthread_join(w, &got), 0);
  ASSERT_EQ((intptr_t)got, SIGTERM);
  pairs(h, 1000);
  ASSERT_EQ(sp_finalize(), 0);
  expect_one(tag, "work", 11000);
}

static void case_sigwait_writer(void) { host_sigwait("sigwait_writer"); }

/* The same with the flush signals' watcher thread running as well. */
static void case_sigwait_watcher(void) {
  setenv("SCOPE_PROFILER_FLUSH_SIGNALS", "USR2", 1);
  host_sigwait("sigwait_watcher");
}

/* ---- item 12: no library descriptor is 0, 1 or 2 ---------------------- */

/* `prog 2>&-`: the spill file became descriptor 2, the library's own
 * warnings went into it and finalize failed. */
static void case_stderr_closed(void) {
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1); /* the spill file opens in sp_stop */
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 10);
  ASSERT(saved >= 0);
  close(2);
  setup_small("stderr_closed.h5", 1000);
  int h = sp_region("work");
  pairs(h, 3000); /* the spill file opens */
  for (int i = 0; i < 3; i++) sp_stop(h); /* warnings written to "stderr" */
  sp_stop_name("never_started");
  pairs(h, 3000);
  int rc = sp_finalize();
  int fd2_closed = fcntl(2, F_GETFD) < 0 && errno == EBADF;
  dup2(saved, 2); /* our own messages from here on */
  ASSERT_EQ(rc, 0);
  ASSERT(fd2_closed); /* given back as the host left it */
  expect_one("stderr_closed", "work", 6000);
}

/* The host closes its stderr after sp_setup (a daemon): the spill file
 * opened later must not become descriptor 2 either. */
static void case_stderr_closed_later(void) {
  setenv("SCOPE_PROFILER_ASYNC_FLUSH", "0", 1);
  setup_small("stderr_closed_later.h5", 1000);
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 10);
  ASSERT(saved >= 0);
  close(2);
  int h = sp_region("work");
  pairs(h, 3000);
  for (int i = 0; i < 3; i++) sp_stop(h);
  pairs(h, 3000);
  int fd2_open = fcntl(2, F_GETFD) >= 0;
  int rc = sp_finalize();
  dup2(saved, 2);
  ASSERT_EQ(rc, 0);
  ASSERT(!fd2_open);
  expect_one("stderr_closed_later", "work", 6000);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(sigwait_writer),
      SP_TEST_CASE(sigwait_watcher),
      SP_TEST_CASE(stderr_closed),
      SP_TEST_CASE(stderr_closed_later),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok, the program went on\n", c->name);
  return 0;
}
