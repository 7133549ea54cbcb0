/* reader_source.c - where in the source a region is: the region groups'
 * attributes source_file (string) and source_lineno (integer), as the core
 * (sp_region_at) and the reference tool write them. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* The source of region g on rank index k: 1 found, 0 none. */
static int sp_source_on(const sp_reader_t *r, int g, int k, char *file, size_t cap, int64_t *line) {
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr) return 0;
  hid_t grp = sp__reader_open_region(r, k, rr);
  if (grp < 0) return 0;
  int found = 0;
  char *f = sp__attr_string(grp, "source_file");
  if (f) {
    found = 1;
    snprintf(file, cap, "%s", f);
    free(f);
    *line = 0;
    if (H5Aexists(grp, "source_lineno") > 0) {
      hid_t a = H5Aopen(grp, "source_lineno", H5P_DEFAULT);
      hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
      long long v = 0;
      if (t >= 0 && H5Tget_class(t) == H5T_INTEGER && s >= 0 &&
          H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0 && v >= 0)
        *line = v;
      if (t >= 0) H5Tclose(t);
      if (s >= 0) H5Sclose(s);
      if (a >= 0) H5Aclose(a);
    }
  }
  H5Gclose(grp);
  return found;
}

/* Each region's source once read: a tree or a table asks per node or row. */
struct sp_src_cache {
  char **file; /* by region; NULL: none */
  int64_t *line;
  unsigned char *done;
};

void sp__source_cache_free(sp_reader_t *r) {
  if (!r->src) return;
  for (int g = 0; g < r->nregions; g++) free(r->src->file[g]);
  free(r->src->file);
  free(r->src->line);
  free(r->src->done);
  free(r->src);
  r->src = NULL;
}

/* Reads region g's source from the first rank that has the region (the
 * same code registers it on every rank): one group open per region. */
static void sp_source_read(sp_reader_t *r, int g) {
  struct sp_src_cache *c = r->src;
  c->done[g] = 1;
  if (r->columnar) return; /* the columnar layouts keep no per-region groups */
  char file[4096];
  int64_t line = 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int found = 0, tried = 0;
  for (int k = 0; !tried && k < r->nranks; k++) {
    tried = sp__reader_find(r, g, k) != NULL;
    if (tried) found = sp_source_on(r, g, k, file, sizeof file, &line);
  }
  sp__h5_quiet_end(&q);
  if (found && (c->file[g] = strdup(file)) != NULL) c->line[g] = line;
}

int sp_reader_region_source(sp_reader_t *r, int g, char *file, size_t cap, int64_t *line) {
  if (!r || g < 0 || g >= r->nregions || !file || cap == 0 || !line) return SP_READER_EINVAL;
  file[0] = '\0';
  *line = 0;
  if (!r->src) {
    size_t n = (size_t)(r->nregions > 0 ? r->nregions : 1);
    r->src = calloc(1, sizeof *r->src);
    if (r->src) {
      r->src->file = calloc(n, sizeof *r->src->file);
      r->src->line = calloc(n, sizeof *r->src->line);
      r->src->done = calloc(n, 1);
    }
    if (!r->src || !r->src->file || !r->src->line || !r->src->done) {
      if (r->src) {
        free(r->src->file);
        free(r->src->line);
        free(r->src->done);
        free(r->src);
        r->src = NULL;
      }
      return SP_READER_ENOMEM;
    }
  }
  if (!r->src->done[g]) sp_source_read(r, g);
  if (!r->src->file[g]) return 0;
  snprintf(file, cap, "%s", r->src->file[g]);
  *line = r->src->line[g];
  return 1;
}
