/* test_misuse.c - the API misuse table, one case per run: test_misuse CASE.
 *
 * Every case checks the library's own stderr output (the default log,
 * prefix "scope-profiler:"), the status returned or counted, that each kind
 * of message comes once however often the misuse repeats, and that the
 * program goes on and still records correct calls: the case writes
 * CASE.h5 and CASE.expect.rank0.json for tests/common/check_profile.py.
 * Counts of single misuses are in tests/core/test_api.c (case misuse);
 * here the messages, repetition and the file are checked. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_test_cases.h"
#include "sp_test_util.h"
#include "scope_profiler.h"

static void setup_file(const char *path) {
  sp_config c;
  sp_config_init(&c);
  c.file_path = path;
  unlink(path);
  ASSERT_EQ(sp_setup(&c), 0);
}

static void pair(int h) {
  sp_start(h);
  sp_stop(h);
}

static void case_stop_without_start(void) {
  setup_file("stop_without_start.h5");
  int a = sp_region("a");
  sp_test_stderr_begin();
  for (int i = 0; i < 1000; i++) sp_stop(a);
  sp_stop_name("never_started");
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "scope-profiler: warning: sp_stop of region 'a' with no open call", 1);
  ASSERT_EQ(sp_test_count(err, "scope-profiler:"), 1); /* once per kind, not 1001 lines */
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 1001);
  pair(a); /* recording goes on normally */
  ASSERT_EQ(sp_finalize(), 0);
  free(err);
  static const char *const n[] = {"a"};
  static const long long c[] = {1};
  sp_test_expect_write_table("stop_without_start", 0, n, c, 1);
}

static void case_stop_mismatch(void) {
  setup_file("stop_mismatch.h5");
  int a = sp_region("a"), b = sp_region("b"), c = sp_region("c");
  sp_test_stderr_begin();
  for (int i = 0; i < 3; i++) {
    sp_start(a);
    sp_start(b);
    sp_start(c);
    sp_stop(a); /* b and c are still open inside a: dropped, a closed */
  }
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err,
                     "sp_stop of region 'a' while 'c' is the innermost open call; the 2 call(s) "
                     "opened inside it are dropped",
                     1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_MISMATCH), 3);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_STOP_WITHOUT_START), 0);
  sp_start(b); /* the stack is sound again */
  pair(c);
  sp_stop(b);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
  free(err);
  static const char *const n[] = {"a", "b", "c"};
  static const long long k[] = {3, 1, 1};
  sp_test_expect_write_table("stop_mismatch", 0, n, k, 3);
}

static void *open_and_leave(void *arg) {
  sp_start(*(int *)arg); /* never stopped; the thread ends */
  return NULL;
}

static void case_unbalanced(void) {
  setup_file("unbalanced.h5");
  int a = sp_region("a"), b = sp_region("b"), t = sp_region("thread_open");
  pair(a);
  sp_start(a);
  sp_start(b);
  pthread_t th;
  sp_test_stderr_begin();
  ASSERT_EQ(pthread_create(&th, NULL, open_and_leave, &t), 0);
  ASSERT_EQ(pthread_join(th, NULL), 0);
  int rc = sp_finalize();
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, 0); /* the profile is written; only the open calls are lost */
  sp_test_expect_msg(
      err, "2 call(s) still open at sp_finalize on thread 0 (innermost: 'b'); dropped", 1);
  /* A thread's open calls are dropped when it ends (the next thread may
   * take over its record), and said then. */
  sp_test_expect_msg(
      err, "1 call(s) still open when thread 1 ended (innermost: 'thread_open'); dropped", 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 3);
  ASSERT(sp_test_file_exists("unbalanced.h5"));
  free(err);
  static const char *const n[] = {"a"};
  static const long long k[] = {1};
  sp_test_expect_write_table("unbalanced", 0, n, k, 1);
}

/* The function forms: the C macros skip the call entirely when no session
 * runs (one load and branch), so only a real call can notice misuse. */
static void call_everything(int h) {
  (sp_start)(h);
  (sp_stop)(h);
  (sp_start_name)("x");
  (sp_stop_name)("x");
  sp_start_name_n("y", 1);
  sp_stop_name_n("y", 1);
  sp_region_add_calls(h, 5);
  SP_BLOCK_H(h) {}
}

static void case_before_setup(void) {
  int pre = sp_region("registered_before_setup"); /* allowed: kept for the session */
  ASSERT(pre >= 0);
  sp_test_stderr_begin();
  call_everything(pre);
  call_everything(12345);
  ASSERT_EQ(sp_finalize(), 0); /* no session: nothing to do */
  char *err = sp_test_stderr_end();
  ASSERT_EQ(sp_is_active(), 0);
  /* header: SP_MISUSE_NOT_ACTIVE counts start/stop before setup */
  ASSERT(sp_misuse_count(SP_MISUSE_NOT_ACTIVE) > 0);
  sp_test_expect_msg(err, "scope-profiler:", -1);
  free(err);
  setup_file("before_setup.h5");
  ASSERT_EQ(sp_region("registered_before_setup"), pre);
  pair(pre);
  ASSERT_EQ(sp_finalize(), 0);
  static const char *const n[] = {"registered_before_setup"};
  static const long long k[] = {1};
  sp_test_expect_write_table("before_setup", 0, n, k, 1);
}

static void case_after_finalize(void) {
  setup_file("after_finalize.h5");
  int a = sp_region("a");
  pair(a);
  ASSERT_EQ(sp_finalize(), 0);
  sp_test_stderr_begin();
  for (int i = 0; i < 100; i++) call_everything(a); /* a stale handle */
  ASSERT_EQ(sp_finalize(), 0);                      /* twice: harmless, the file stays as written */
  ASSERT_EQ(sp_finalize(), 0);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(sp_is_active(), 0);
  ASSERT_EQ(sp_test_partial_count("after_finalize.h5"), 0);
  /* header: SP_MISUSE_NOT_ACTIVE counts start/stop after finalize */
  ASSERT(sp_misuse_count(SP_MISUSE_NOT_ACTIVE) > 0);
  sp_test_expect_msg(err, "scope-profiler:", 1); /* once, not 800 times */
  free(err);
  static const char *const n[] = {"a"};
  static const long long k[] = {1};
  sp_test_expect_write_table("after_finalize", 0, n, k, 1);
}

static void case_double_setup(void) {
  setup_file("double_setup_first.h5");
  int a = sp_region("discarded");
  for (int i = 0; i < 10; i++) pair(a);
  sp_start(a); /* open across the second setup */
  sp_test_stderr_begin();
  sp_config c;
  sp_config_init(&c);
  c.file_path = "double_setup.h5";
  unlink(c.file_path);
  int rc = sp_setup(&c);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, 0);
  sp_test_expect_msg(err, "scope-profiler: info: sp_setup called again", 1);
  sp_stop(a); /* the handle of the discarded session: no crash */
  int k = sp_region("kept");
  for (int i = 0; i < 4; i++) pair(k);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(!sp_test_file_exists("double_setup_first.h5"));
  free(err);
  static const char *const n[] = {"kept"};
  static const long long cnt[] = {4};
  sp_test_expect_write_table("double_setup", 0, n, cnt, 1);
}

static void case_invalid_handle(void) {
  setup_file("invalid_handle.h5");
  int ok = sp_region("valid");
  static const int bad[] = {12345, -1, INT_MIN, INT_MAX, SP_EINVAL};
  sp_test_stderr_begin();
  for (int r = 0; r < 10; r++)
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      sp_start(bad[i]);
      sp_stop(bad[i]);
      sp_region_add_calls(bad[i], 3);
      SP_BLOCK_H(bad[i]) {}
    }
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(
      err, "scope-profiler: warning: sp_start(12345): not a handle from sp_region; ignored", 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_INVALID_HANDLE), 2 * 10 * 5); /* sp_start and SP_BLOCK_H */
  ASSERT_EQ(sp_region_rename(12345, "x"), SP_EINVAL);
  ASSERT_EQ(sp_region_rename(-1, "x"), SP_EINVAL);
  pair(ok);
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_UNBALANCED), 0);
  free(err);
  static const char *const n[] = {"valid"};
  static const long long k[] = {1};
  sp_test_expect_write_table("invalid_handle", 0, n, k, 1);
}

static void case_bad_names(void) {
  setup_file("bad_names.h5");
  size_t huge_len = (size_t)1 << 20;
  char *huge = malloc(huge_len + 1);
  ASSERT(huge != NULL);
  memset(huge, 'h', huge_len);
  huge[huge_len] = '\0';
  char *max = malloc(SP_NAME_MAX + 1);
  ASSERT(max != NULL);
  memset(max, 'h', SP_NAME_MAX); /* the first SP_NAME_MAX bytes of huge */
  max[SP_NAME_MAX] = '\0';
  sp_test_stderr_begin();
  for (int r = 0; r < 3; r++) {
    sp_start_name(NULL);
    sp_stop_name(NULL);
    sp_start_name("");
    sp_stop_name("");
    sp_start_name_n(NULL, 5);
    sp_start_name_n("abc", 0);
    sp_start_name(huge);
    sp_stop_name(huge);
    sp_start_name_n(huge, SP_NAME_MAX + 1);
  }
  char *err = sp_test_stderr_end();
  sp_test_expect_msg(err, "scope-profiler: warning: region name is NULL; ignored", 1);
  ASSERT_EQ(sp_test_count(err, "scope-profiler:"), 1);
  ASSERT_EQ(sp_misuse_count(SP_MISUSE_BAD_NAME), 3 * 9);
  ASSERT_EQ(sp_region(NULL), SP_EINVAL);
  ASSERT_EQ(sp_region(""), SP_EINVAL);
  ASSERT_EQ(sp_region_n(NULL, 3), SP_EINVAL);
  ASSERT_EQ(sp_region_n("abc", 0), SP_EINVAL);
  ASSERT_EQ(sp_region(huge), SP_ENAMETOOLONG);
  ASSERT_EQ(sp_region_n(huge, SP_NAME_MAX + 1), SP_ENAMETOOLONG);
  ASSERT_EQ(sp_region_n(huge, SIZE_MAX - 1), SP_ENAMETOOLONG);
  int h = sp_region_n(huge, SP_NAME_MAX); /* exactly the limit: accepted */
  ASSERT(h >= 0);
  ASSERT_EQ(sp_region(max), h);
  pair(h);
  sp_start_name(max);
  sp_stop_name(max);
  ASSERT_EQ(sp_region_rename(h, huge), SP_ENAMETOOLONG);
  ASSERT_EQ(sp_region_rename(h, ""), SP_EINVAL);
  ASSERT_EQ(sp_region_rename(h, NULL), SP_EINVAL);
  ASSERT_EQ(sp_finalize(), 0);
  free(err);
  free(huge);
  const char *n[] = {max};
  static const long long k[] = {2};
  sp_test_expect_write_table("bad_names", 0, n, k, 1);
  free(max);
}

/* A file name within NAME_MAX (255 here) whose derived names
 * ("<name>.partial", "<name>.spill") are not: sp_finalize failed after the
 * whole run ("output path not writable", no events saved). Refused at
 * sp_setup now, with the limit; a name 32 bytes shorter than the limit
 * works end to end. */
static void case_long_file_name(void) {
  char name[256];
  memset(name, 'n', 250);
  memcpy(name + 247, ".h5", 4);
  sp_config c;
  sp_config_init(&c);
  c.file_path = name;
  sp_test_stderr_begin();
  int rc = sp_setup(&c);
  char *err = sp_test_stderr_end();
  ASSERT_EQ(rc, SP_EINVAL);
  ASSERT_EQ(sp_is_active(), 0);
  sp_test_expect_msg(err, "too long: 250 bytes, at most 223 here", 1);
  free(err);
  memcpy(name + 220, ".h5", 4); /* 223 bytes */
  unlink(name);
  c.file_path = name;
  ASSERT_EQ(sp_setup(&c), 0);
  sp_start_name("long");
  sp_stop_name("long");
  ASSERT_EQ(sp_finalize(), 0);
  ASSERT(sp_test_file_exists(name));
  unlink(name);
  setup_file("long_file_name.h5");
  pair(sp_region("after"));
  ASSERT_EQ(sp_finalize(), 0);
  static const char *const n[] = {"after"};
  static const long long k[] = {1};
  sp_test_expect_write_table("long_file_name", 0, n, k, 1);
}

int main(int argc, char **argv) {
  static const sp_test_case cases[] = {
      SP_TEST_CASE(stop_without_start), SP_TEST_CASE(stop_mismatch),  SP_TEST_CASE(unbalanced),
      SP_TEST_CASE(before_setup),       SP_TEST_CASE(after_finalize), SP_TEST_CASE(double_setup),
      SP_TEST_CASE(invalid_handle),     SP_TEST_CASE(bad_names),      SP_TEST_CASE(long_file_name),
  };
  int status;
  const sp_test_case *c = SP_TEST_CASE_PICK(cases, argc, argv, &status);
  if (!c) return status;
  sp_test_case_run(c);
  printf("%s: ok, the program went on\n", c->name);
  return 0;
}
