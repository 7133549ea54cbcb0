/* reader_mpi_done.c - the requests a rank's waits and tests completed
 * (docs/automatic-regions.md "Completions"): rank<N>/mpi/completions in
 * the per-rank layout, the rank's rows of mpi_completions/ in the
 * columnar one. Each row names the completing call and the posting call
 * by region and index among the region's calls on a thread. The per-rank
 * layout names regions by the recording rank's handle (the attribute
 * region_names); the columnar one by region_table index (the reader's
 * region before it sorted them: sp_region_t.old). Both are given
 * as the reader's region index here, -1 where the name is not a region
 * of the file. Absent in files recorded before them: not an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

void sp_reader_mpi_done_free(sp_reader_mpi_done_t *d) {
  if (!d) return;
  free(d->wait_call);
  free(d->post_call);
  free(d->bytes);
  free(d->i32);
  memset(d, 0, sizeof *d);
}

/* The columns, in the file's names; int32 ones into i32[c * n ..). */
static const char *const sp_done_i32[] = {"wait_region", "post_region", "thread", "post_thread",
                                          "peer",        "tag",         "comm",   "send"};
enum { SP_DONE_NI32 = 8 };

/* Reads rows [first, first + n) of every column of g into out. */
static int sp_done_rows(sp_reader_t *r, hid_t g, int64_t first, int64_t n,
                        sp_reader_mpi_done_t *out, int bytes) {
  if (sp__memory_check(n, 24 + 4 * SP_DONE_NI32) != 0)
    return sp__reader_fail(r, SP_READER_ENOMEM, "completions: too many");
  size_t m = (size_t)(n > 0 ? n : 1);
  out->wait_call = malloc(m * sizeof *out->wait_call);
  out->post_call = malloc(m * sizeof *out->post_call);
  out->bytes = bytes ? malloc(m * sizeof *out->bytes) : NULL;
  out->i32 = malloc(m * SP_DONE_NI32 * sizeof *out->i32);
  if (!out->wait_call || !out->post_call || (bytes && !out->bytes) || !out->i32)
    return sp__reader_fail(r, SP_READER_ENOMEM, "completions: out of memory");
  out->n = n;
  int32_t **col[SP_DONE_NI32] = {&out->wait_region, &out->post_region, &out->thread,
                                 &out->post_thread, &out->peer,        &out->tag,
                                 &out->comm,        &out->send};
  for (int c = 0; c < SP_DONE_NI32; c++) *col[c] = out->i32 + (size_t)c * m;
  int rc = 0;
  for (int c = 0; rc == 0 && c < SP_DONE_NI32; c++)
    rc =
        sp__read_int_rows(r, g, "completions", sp_done_i32[c], first, n, H5T_NATIVE_INT32, *col[c]);
  if (rc == 0)
    rc = sp__read_int_rows(r, g, "completions", "wait_call", first, n, H5T_NATIVE_INT64,
                           out->wait_call);
  if (rc == 0)
    rc = sp__read_int_rows(r, g, "completions", "post_call", first, n, H5T_NATIVE_INT64,
                           out->post_call);
  if (rc == 0 && bytes)
    rc = sp__read_int_rows(r, g, "completions", "bytes", first, n, H5T_NATIVE_INT64, out->bytes);
  return rc;
}

/* The reader's index of region name, -1 when none. */
static int32_t sp_done_region(const sp_reader_t *r, const char *name) {
  for (int g = 0; g < r->nregions; g++)
    if (strcmp(r->regions[g].name, name) == 0) return g;
  return -1;
}

/* Per-rank layout: handles through region_names to the reader's indices. */
static int sp_done_handles(sp_reader_t *r, hid_t g, sp_reader_mpi_done_t *out) {
  hid_t a = H5Aexists(g, "region_names") > 0 ? H5Aopen(g, "region_names", H5P_DEFAULT) : -1;
  if (a < 0) return sp__reader_fail(r, SP_READER_ELAYOUT, "completions: no region_names");
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  hssize_t nn = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
  size_t len =
      t >= 0 && H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t) ? H5Tget_size(t) : 0;
  int rc = nn >= 0 && len > 0 && len < 4096 && nn < (1 << 24)
               ? 0
               : sp__reader_fail(r, SP_READER_ELAYOUT, "completions: region_names not strings");
  char *names = rc == 0 ? calloc((size_t)(nn > 0 ? nn : 1), len + 1) : NULL;
  int32_t *map = rc == 0 ? malloc((size_t)(nn > 0 ? nn : 1) * sizeof *map) : NULL;
  if (rc == 0 && (!names || !map)) rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  char *raw = rc == 0 ? calloc((size_t)(nn > 0 ? nn : 1), len) : NULL;
  if (rc == 0 && !raw) rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  if (rc == 0 && nn > 0 && H5Aread(a, t, raw) < 0)
    rc = sp__reader_fail(r, SP_READER_EHDF5, "completions: region_names: read failed");
  for (hssize_t i = 0; rc == 0 && i < nn; i++) {
    char *nm = names + (size_t)i * (len + 1);
    memcpy(nm, raw + (size_t)i * len, len);
    map[i] = nm[0] ? sp_done_region(r, nm) : -1;
  }
  for (int64_t i = 0; rc == 0 && i < out->n; i++) {
    int32_t *w = &out->wait_region[i], *p = &out->post_region[i];
    *w = *w >= 0 && *w < nn ? map[*w] : -1;
    *p = *p >= 0 && *p < nn ? map[*p] : -1;
  }
  free(raw);
  free(names);
  free(map);
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Aclose(a);
  return rc;
}

static int sp_done_per_rank(sp_reader_t *r, int id, sp_reader_mpi_done_t *out, int bytes) {
  char path[64];
  snprintf(path, sizeof path, "rank%d/mpi/completions", id);
  if (H5Lexists(r->file, path, H5P_DEFAULT) <= 0) return 0; /* the parents too (quiet) */
  hid_t g = H5Gopen2(r->file, path, H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t n = sp__dataset_len(g, "wait_region");
  int rc = n >= 0 ? sp_done_rows(r, g, 0, n, out, bytes)
                  : sp__reader_fail(r, SP_READER_ELAYOUT, "%s: no wait_region", path);
  if (rc == 0) rc = sp_done_handles(r, g, out);
  out->present = rc == 0;
  H5Gclose(g);
  return rc;
}

/* Columnar: the rank's rows of mpi_completions/ (ranks ascending); their
 * regions are region_table indices, the reader's own. */
static int sp_done_columnar(sp_reader_t *r, int id, sp_reader_mpi_done_t *out, int bytes) {
  if (sp__link_kind(r->file, "mpi_completions") != SP_LINK_LOCAL) return 0;
  hid_t g = H5Gopen2(r->file, "mpi_completions", H5P_DEFAULT);
  if (g < 0) return 0;
  int64_t total = sp__dataset_len(g, "ranks");
  int64_t lo = total >= 0 ? sp__ranks_lower(r, g, "completions", total, id) : -1;
  int64_t hi = lo >= 0 ? sp__ranks_lower(r, g, "completions", total, id + 1) : -1;
  int rc = lo >= 0 && hi >= lo
               ? 0
               : sp__reader_fail(r, SP_READER_ELAYOUT, "mpi_completions/ranks: unreadable");
  if (rc == 0 && hi > lo) rc = sp_done_rows(r, g, lo, hi - lo, out, bytes);
  /* region_table index -> the reader's (its regions are sorted by first start) */
  int32_t *g_of = rc == 0 ? malloc((size_t)(r->nregions + 1) * sizeof *g_of) : NULL;
  if (rc == 0 && !g_of) rc = sp__reader_fail(r, SP_READER_ENOMEM, "out of memory");
  for (int q = 0; rc == 0 && q < r->nregions; q++) g_of[q] = -1;
  for (int q = 0; rc == 0 && q < r->nregions; q++)
    if (r->regions[q].old >= 0 && r->regions[q].old < r->nregions) g_of[r->regions[q].old] = q;
  for (int64_t i = 0; rc == 0 && i < out->n; i++) {
    int32_t *w = &out->wait_region[i], *p = &out->post_region[i];
    *w = *w >= 0 && *w < r->nregions ? g_of[*w] : -1;
    *p = *p >= 0 && *p < r->nregions ? g_of[*p] : -1;
  }
  free(g_of);
  out->present = rc == 0 && hi > lo;
  H5Gclose(g);
  return rc;
}

static int sp_done_load(sp_reader_t *r, int k, sp_reader_mpi_done_t *out, int bytes) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r || k < 0 || k >= r->nranks) return r ? 0 : SP_READER_EINVAL;
  if (r->aggregate) return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int id = r->ranks[k].id;
  int rc = r->columnar ? sp_done_columnar(r, id, out, bytes) : sp_done_per_rank(r, id, out, bytes);
  sp__h5_quiet_end(&q);
  if (rc || !out->present) {
    sp_reader_mpi_done_free(out);
    out->present = 0;
  }
  return rc;
}

int sp_reader_mpi_done(sp_reader_t *r, int k, sp_reader_mpi_done_t *out) {
  return sp_done_load(r, k, out, 1);
}

int sp_reader_mpi_done_ids(sp_reader_t *r, int k, sp_reader_mpi_done_t *out) {
  return sp_done_load(r, k, out, 0);
}
