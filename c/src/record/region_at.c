/* region_at.c - sp_region_at: a region (hot_path.c) with where in the
 * source it is (region_source.c). Above both, so that calls run one way:
 * the region table forgets the locations with the regions, and the
 * locations never call back into the hot path. */
#include <string.h>

#include "region_source.h"

int sp_region_at(const char *name, const char *file, int line) {
  int h = sp_region(name);
  if (h < 0) return h;
  size_t flen = file ? strnlen(file, SP_PATH_MAX + 1) : 0;
  if (!file || flen == 0 || flen > SP_PATH_MAX || line < 0 || !sp__utf8_ok(file, flen)) {
    SP_KEEP_ERRNO(sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
                          "sp_region_at('%s'): the source location is not a file name of at "
                          "most %d bytes of UTF-8 and a line >= 0; the region has none",
                          name, SP_PATH_MAX));
    return h;
  }
  int rc;
  SP_KEEP_ERRNO(rc = sp__source_set(h, file, flen, line));
  (void)rc; /* out of memory: the region has no location, the handle is good */
  return h;
}

int sp__region_at_f(const char *name, size_t len, const char *file, size_t flen, int line) {
  int h = sp_region_n(name, len);
  if (h < 0 || !file || flen == 0) return h;
  if (flen > SP_PATH_MAX || line < 0 || !sp__utf8_ok(file, flen)) {
    SP_KEEP_ERRNO(sp__log(SP_LOG_WARNING, SP_LOG_ALWAYS,
                          "sp_region: the source location is not a file name of at most %d "
                          "bytes of UTF-8 and a line >= 0; the region has none",
                          SP_PATH_MAX));
    return h;
  }
  SP_KEEP_ERRNO(sp__source_set(h, file, flen, line));
  return h;
}
