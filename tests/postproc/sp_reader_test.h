/* sp_reader_test.h - what the reader's C tests share (test_reader.c,
 * test_reader_direct.c, test_reader_tree.c): the failure count, the
 * checks that print both values, opening a file, a region by name. */
#ifndef SP_READER_TEST_H
#define SP_READER_TEST_H

#include <stdio.h>
#include <string.h>

#include "scope_profiler_reader.h"

/* Checks that failed so far; a test's exit status is 1 when it is not 0. */
extern int sp_test_failures;

#define CHECK_INT(a, b)                                                                            \
  do {                                                                                             \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                          \
    if (va_ != vb_) {                                                                              \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, va_, #b, \
              vb_);                                                                                \
      sp_test_failures++;                                                                          \
    }                                                                                              \
  } while (0)

#define CHECK_STR(a, b)                                                                 \
  do {                                                                                  \
    const char *sa_ = (a), *sb_ = (b);                                                  \
    if (!sa_ || strcmp(sa_, sb_) != 0) {                                                \
      fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
              sa_ ? sa_ : "(null)", sb_);                                               \
      sp_test_failures++;                                                               \
    }                                                                                   \
  } while (0)

/* Opens dir/name (dir NULL: name is the path); on failure prints why and
 * exits 1 (the case cannot go on). */
sp_reader_t *sp_test_open(const char *dir, const char *name);

/* Reader index of the region called name; prints and exits 1 if none. */
int sp_test_region(sp_reader_t *r, const char *name);

#endif
