/* sp_reader_test.c - the reader tests' shared helpers (sp_reader_test.h). */
#include "sp_reader_test.h"

#include <stdlib.h>

int sp_test_failures;

sp_reader_t *sp_test_open(const char *dir, const char *name) {
  char path[4096], msg[512];
  snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
  sp_reader_t *r = NULL;
  int rc = sp_reader_open(path, &r, msg, sizeof msg);
  if (rc != 0) {
    fprintf(stderr, "open %s: %s (%s)\n", path, msg, sp_reader_err_name(rc));
    exit(1);
  }
  return r;
}

int sp_test_region(sp_reader_t *r, const char *name) {
  for (int g = 0; g < sp_reader_num_regions(r); g++)
    if (strcmp(sp_reader_region_name(r, g), name) == 0) return g;
  fprintf(stderr, "no region '%s'\n", name);
  exit(1);
}
