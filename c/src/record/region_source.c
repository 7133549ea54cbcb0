/* region_source.c - where in the source a region is (sp_region_at,
 * region_at.c).
 *
 * The first location given for a region is kept (a region entered from
 * two places keeps the first it was registered at); a location that is no
 * file name (NULL, "", not UTF-8, longer than SP_PATH_MAX) or a negative
 * line is reported once and ignored, the region is still registered. Kept
 * by handle beside the region table and forgotten with it. */
#include <stdlib.h>
#include <string.h>

#include "region_source.h"
#include "run_meta.h"
#include "spill_format.h"

typedef struct sp_source {
  char *file; /* NULL: none given */
  int64_t line;
  int32_t spilled; /* its SOURCE record is in the spill file */
  int32_t unused;
} sp_source_t;

static sp_source_t *sp_src; /* by handle, under sp__state.lock */
static int32_t sp_src_cap;

int sp__source_get(int32_t h, const char **file, int64_t *line) {
  pthread_mutex_lock(&sp__state.lock);
  int ok = h >= 0 && h < sp_src_cap && sp_src[h].file;
  if (ok) {
    *file = sp_src[h].file;
    *line = sp_src[h].line;
  }
  pthread_mutex_unlock(&sp__state.lock);
  return ok;
}

int sp__source_set(int32_t h, const char *file, size_t flen, int64_t line) {
  int rc = 0;
  pthread_mutex_lock(&sp__state.lock);
  if (h >= sp_src_cap) {
    int32_t ncap = sp_src_cap ? sp_src_cap : 64;
    while (ncap <= h) ncap *= 2;
    sp_source_t *ns = realloc(sp_src, (size_t)ncap * sizeof *ns);
    if (ns) {
      memset(ns + sp_src_cap, 0, (size_t)(ncap - sp_src_cap) * sizeof *ns);
      sp_src = ns;
      sp_src_cap = ncap;
    } else {
      rc = SP_ENOMEM;
    }
  }
  if (rc == 0 && !sp_src[h].file) {
    char *f = malloc(flen + 1);
    if (f) {
      memcpy(f, file, flen);
      f[flen] = '\0';
      sp_src[h].file = f;
      sp_src[h].line = line;
    } else {
      rc = SP_ENOMEM;
    }
  }
  pthread_mutex_unlock(&sp__state.lock);
  return rc;
}

void sp__source_reset(void) {
  for (int32_t h = 0; h < sp_src_cap; h++) free(sp_src[h].file);
  free(sp_src);
  sp_src = NULL;
  sp_src_cap = 0;
}

/* SOURCE payload: this head, then the file name's bytes. */
typedef struct sp_source_rec {
  int32_t region;
  uint32_t flen;
  int64_t line;
} sp_source_rec_t;

int sp__source_spill(int32_t h, int (*rec)(uint32_t type, const void *p, size_t n)) {
  if (h < 0 || h >= sp_src_cap || !sp_src[h].file || sp_src[h].spilled) return 0;
  size_t flen = strlen(sp_src[h].file), n = sizeof(sp_source_rec_t) + flen;
  char *p = malloc(n);
  if (!p) return SP_ENOMEM;
  sp_source_rec_t r = {h, (uint32_t)flen, sp_src[h].line};
  memcpy(p, &r, sizeof r);
  memcpy(p + sizeof r, sp_src[h].file, flen);
  int rc = rec(SP_SPILL_SOURCE, p, n);
  free(p);
  if (rc == 0) sp_src[h].spilled = 1;
  return rc;
}

int sp__source_from_spill(const char *p, size_t n, int32_t *h, int64_t *line, const char **file,
                          size_t *flen) {
  sp_source_rec_t r;
  if (n < sizeof r) return SP_ESPILL;
  memcpy(&r, p, sizeof r);
  if (r.region < 0 || r.flen == 0 || r.flen > SP_PATH_MAX || r.line < 0 ||
      n != sizeof r + (size_t)r.flen || !sp__utf8_ok(p + sizeof r, r.flen))
    return SP_ESPILL;
  *h = r.region;
  *line = r.line;
  *file = p + sizeof r;
  *flen = r.flen;
  return 0;
}
