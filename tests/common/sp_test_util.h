/* sp_test_util.h - helpers shared by the C test programs (core, likwid,
 * reliability): assertions that print both values, the expectation files
 * that tests/common/check_profile.py --expect compares with a profile, and
 * capture of the library's real stderr output.
 *
 * A failed assertion prints "FILE:LINE: [rank R: ]what" on stderr and ends
 * the program through the failure handler: exit(1) by default; an MPI
 * program installs one that calls MPI_Abort, so that the other ranks do
 * not wait for it forever. No MPI here: the serial tests link it too. */
#ifndef SP_TEST_UTIL_H
#define SP_TEST_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* The exit code CTest's SKIP_RETURN_CODE maps to "skipped". */
#define SP_TEST_SKIP 77

/* ASSERT(cond), ASSERT_EQ(a, b): the models are libuv's test/task.h. Both
 * values of ASSERT_EQ are compared and printed as long long. */
#define ASSERT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) sp_test_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
  } while (0)
#define ASSERT_EQ(a, b)                                                                  \
  do {                                                                                   \
    long long a_ = (long long)(a), b_ = (long long)(b);                                  \
    if (a_ != b_)                                                                        \
      sp_test_fail(__FILE__, __LINE__, "%s == %s failed: %lld != %lld", #a, #b, a_, b_); \
  } while (0)

/* Prints "file:line: [rank R: ]" and the message, then calls the failure
 * handler with 1 and, should it return, exit(1). */
void sp_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* The rank named in failure messages (none until set, or when < 0). */
void sp_test_set_rank(int rank);

/* handler(code) replaces exit(code) on failure (NULL: back to exit). */
void sp_test_on_failure(void (*handler)(int code));

/* ---- expectations for check_profile.py --expect ------------------------ */

#define SP_TEST_EXPECT_MAX 64

/* Calls per region, in the order first added. Names are not copied. */
typedef struct sp_test_expect {
  const char *names[SP_TEST_EXPECT_MAX];
  long long counts[SP_TEST_EXPECT_MAX];
  int n;
} sp_test_expect_t;

/* Adds `calls` calls of `name` (to its earlier count, if any). */
void sp_test_expect_add(sp_test_expect_t *e, const char *name, long long calls);

/* Writes TAG.expect.rank<RANK>.json: {"name": calls, ...}. */
void sp_test_expect_write(const char *tag, int rank, const sp_test_expect_t *e);

/* The same from two arrays: names[i] -> counts[i], i < n. */
void sp_test_expect_write_table(const char *tag, int rank, const char *const *names,
                                const long long *counts, int n);

/* ---- stderr and files -------------------------------------------------- */

/* Sends fd 2 to a temporary file until sp_test_stderr_end(), which
 * restores it, echoes what was caught (so CTest logs show it) and returns
 * it (malloc'ed, NUL-terminated). The library's default log writes there. */
void sp_test_stderr_begin(void);
char *sp_test_stderr_end(void);

/* Number of non-overlapping occurrences of needle in hay. */
int sp_test_count(const char *hay, const char *needle);

/* Asserts that text holds needle exactly `times` times (times < 0: at
 * least once), printing the text otherwise. */
void sp_test_expect_msg(const char *text, const char *needle, int times);

int sp_test_file_exists(const char *path);
/* How many temporary files of `file` (FILE.partial*) are in its directory. */
int sp_test_partial_count(const char *file);

#endif
