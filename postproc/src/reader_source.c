/* reader_source.c - where in the source a region is: the region groups'
 * attributes source_file (string) and source_lineno (integer), as the core
 * (sp_region_at) and the reference tool write them; in profile mode's
 * aggregate files, region_table/source_files and source_lines ("" and 0:
 * none), one entry per region of region_table/names. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"

/* The source of region g on rank index k: 1 found, 0 none. */
static int sp_source_on(const sp_reader_t *r, int g, int k, char *file, size_t cap, int64_t *line) {
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr) return 0;
  hid_t grp = sp__reader_open_region(r, k, rr);
  if (grp < 0) return 0;
  int found = 0;
  char *f = sp__attr_string(r, grp, "source_file");
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

/* A columnar file's region_table/source_files and source_lines (profile
 * mode's aggregate files) into the cache, every region at once; the
 * reference tool's columnar files have neither: no source. */
static void sp_source_table(sp_reader_t *r) {
  struct sp_src_cache *c = r->src;
  for (int g = 0; g < r->nregions; g++) c->done[g] = 1;
  if (H5Lexists(r->file, SP_AGG_REGION_TABLE "/" SP_AGG_SOURCE_FILES, H5P_DEFAULT) <= 0 ||
      H5Lexists(r->file, SP_AGG_REGION_TABLE "/" SP_AGG_SOURCE_LINES, H5P_DEFAULT) <= 0)
    return;
  hid_t df = H5Dopen2(r->file, SP_AGG_REGION_TABLE "/" SP_AGG_SOURCE_FILES, H5P_DEFAULT);
  hid_t dl = H5Dopen2(r->file, SP_AGG_REGION_TABLE "/" SP_AGG_SOURCE_LINES, H5P_DEFAULT);
  hid_t sf = df >= 0 ? H5Dget_space(df) : -1, sl = dl >= 0 ? H5Dget_space(dl) : -1;
  hid_t tf = df >= 0 ? H5Dget_type(df) : -1;
  hssize_t n = sf >= 0 ? H5Sget_simple_extent_npoints(sf) : -1;
  /* One entry per name in the file: the regions' old indices point in. */
  int ok = n > 0 && sl >= 0 && H5Sget_simple_extent_npoints(sl) == n && tf >= 0 &&
           H5Tget_class(tf) == H5T_STRING && H5Tis_variable_str(tf) > 0 &&
           sp__gheap_sound(r) == 0; /* the open's read of the names made the scan */
  for (int g = 0; ok && g < r->nregions; g++) ok = r->regions[g].old < n;
  char **files = ok ? calloc((size_t)n, sizeof *files) : NULL;
  int64_t *lines = ok ? calloc((size_t)n, sizeof *lines) : NULL;
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, H5T_VARIABLE);
  if (tf >= 0) H5Tset_cset(mt, H5Tget_cset(tf));
  if (files && lines && H5Dread(df, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, files) >= 0) {
    if (H5Dread(dl, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, lines) >= 0)
      for (int g = 0; g < r->nregions; g++) {
        const char *f = files[r->regions[g].old];
        if (f && *f && (c->file[g] = strdup(f)) != NULL)
          c->line[g] = lines[r->regions[g].old] > 0 ? lines[r->regions[g].old] : 0;
      }
    for (hssize_t i = 0; i < n; i++)
      if (files[i]) H5free_memory(files[i]);
  }
  free(files);
  free(lines);
  H5Tclose(mt);
  if (tf >= 0) H5Tclose(tf);
  if (sf >= 0) H5Sclose(sf);
  if (sl >= 0) H5Sclose(sl);
  if (df >= 0) H5Dclose(df);
  if (dl >= 0) H5Dclose(dl);
}

/* Reads region g's source from the first rank that has the region (the
 * same code registers it on every rank): one group open per region. */
static void sp_source_read(sp_reader_t *r, int g) {
  struct sp_src_cache *c = r->src;
  c->done[g] = 1;
  if (r->columnar) { /* no per-region groups: a table of them, or none */
    sp_h5_quiet_t q;
    sp__h5_quiet_begin(&q);
    sp_source_table(r);
    sp__h5_quiet_end(&q);
    return;
  }
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
