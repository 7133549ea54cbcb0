/* write_names.c - writes FILE through the C API with region names that are
 * not UTF-8, as the API allows: write_names FILE.
 *
 * Regions, one call each, in this order: "\xff\xfe" (never UTF-8),
 * "caf\xc3\xa9" (valid UTF-8, kept as is) and "a\xc0\xafb" (an overlong
 * '/': invalid, and not a separator). The postprocessor must draw them and
 * write them as valid UTF-8 (reliability.pproc.hostile.capi_names.*). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "sp_test_util.h"
#include "scope_profiler.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: write_names FILE\n");
    return 2;
  }
  sp_config c;
  sp_config_init(&c);
  c.file_path = argv[1];
  ASSERT_EQ(sp_setup(&c), 0);
  static const char *const names[] = {"\xff\xfe", "caf\xc3\xa9",
                                      "a\xc0\xaf"
                                      "b"};
  for (int i = 0; i < 3; i++) {
    int h = sp_region(names[i]);
    ASSERT(h >= 0);
    sp_start(h);
    struct timespec ts = {0, 1000000}; /* 1 ms: distinct, visible bars */
    nanosleep(&ts, NULL);
    sp_stop(h);
  }
  ASSERT_EQ(sp_finalize(), 0);
  return 0;
}
