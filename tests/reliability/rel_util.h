/* rel_util.h - helpers shared by the reliability tests: assertions that
 * print both values, capture of the library's real stderr output, files. */
#ifndef SP_REL_UTIL_H
#define SP_REL_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* The exit code CTest's SKIP_RETURN_CODE maps to "skipped". */
#define REL_SKIP 77

#define REL_EQ(a, b)                                                          \
  do {                                                                        \
    long long a_ = (long long)(a), b_ = (long long)(b);                       \
    if (a_ != b_) {                                                           \
      fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_, \
              b_);                                                            \
      exit(1);                                                                \
    }                                                                         \
  } while (0)
#define REL_ASSERT(c)                                                         \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);   \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

/* Sends fd 2 to a temporary file until rel_stderr_end(), which restores
 * it, echoes what was caught (so CTest logs show it) and returns it
 * (malloc'ed, NUL-terminated). The library's default log writes there. */
void rel_stderr_begin(void);
char *rel_stderr_end(void);

/* Number of non-overlapping occurrences of needle in hay. */
int rel_count(const char *hay, const char *needle);

/* Asserts that text holds needle exactly `times` times (times < 0: at
 * least once), printing the text otherwise. */
void rel_expect_msg(const char *text, const char *needle, int times);

int rel_file_exists(const char *path);

/* Writes TAG.expect.rank<R>.json for tests/common/check_profile.py:
 * names[i] -> counts[i]. */
void rel_expect_write(const char *tag, int rank, const char *const *names, const long long *counts,
                      int n);

#endif
