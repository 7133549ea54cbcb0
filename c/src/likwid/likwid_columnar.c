/* likwid_columnar.c - LIKWID's results in the columnar layout: the same
 * records as rank<N>/likwid (likwid_glue.c), every rank's in one set of
 * datasets, so that the file's object count does not grow with ranks.
 *
 *   likwid/ranks          int32[K]  ranks with results (LIKWID measured)
 *   likwid/groups         string[K] their LIKWID group ("" if unknown)
 *   likwid/regions/       one row per (rank, region) LIKWID measured:
 *     ranks               int32[M]
 *     names, tags         string[M] the region's name and LIKWID tag
 *     thread_offsets      int64[M]  first row of likwid/threads/...
 *     thread_counts       int64[M]  T: measured threads
 *     event_offsets       int64[M]  first name in likwid/event_names
 *     event_counts        int64[M]  E: events
 *     value_offsets       int64[M]  first value in likwid/values: the
 *                                   row's T x E matrix, row-major
 *   likwid/event_names    string[sum E]
 *   likwid/threads/{cpus int32, counts int64, times float64}[sum T]
 *   likwid/values         float64[sum T x E]
 *
 * Rank 0 writes it from every rank's packed results (likwid_glue.c's
 * sp_lw_pack_file format) into the finished columnar file, serially. */
#include <stdlib.h>
#include <string.h>

#include "h5_attr.h"
#include "likwid_columnar.h"
#include "serial.h"

/* A growing column of elements of size sz. */
typedef struct sp_lwc_col {
  void *p;
  int64_t n, cap;
  size_t sz;
} sp_lwc_col_t;

enum {
  SP_LWC_RANKS,
  SP_LWC_GROUPS, /* [K] */
  SP_LWC_ROW_RANKS,
  SP_LWC_NAMES,
  SP_LWC_TAGS,
  SP_LWC_THR_OFF,
  SP_LWC_THR_CNT,
  SP_LWC_EV_OFF,
  SP_LWC_EV_CNT,
  SP_LWC_VAL_OFF,     /* [M] */
  SP_LWC_EVENT_NAMES, /* [sum E] */
  SP_LWC_CPUS,
  SP_LWC_COUNTS,
  SP_LWC_TIMES,  /* [sum T] */
  SP_LWC_VALUES, /* [sum T x E] */
  SP_LWC_NCOLS
};

/* Where each column goes, its memory and file types (set in sp_lwc_write). */
static const struct {
  const char *path;
  int kind; /* 0 int32, 1 int64, 2 float64, 3 string */
} sp_lwc_cols[SP_LWC_NCOLS] = {
    {"ranks", 0},
    {"groups", 3},
    {"regions/ranks", 0},
    {"regions/names", 3},
    {"regions/tags", 3},
    {"regions/thread_offsets", 1},
    {"regions/thread_counts", 1},
    {"regions/event_offsets", 1},
    {"regions/event_counts", 1},
    {"regions/value_offsets", 1},
    {"event_names", 3},
    {"threads/cpus", 0},
    {"threads/counts", 1},
    {"threads/times", 2},
    {"values", 2},
};

static size_t sp_lwc_size(int kind) {
  return kind == 0 ? sizeof(int32_t) : kind == 3 ? sizeof(char *) : 8;
}

/* Appends the element at v to column c; 0 or SP_ENOMEM. */
static int sp_lwc_push(sp_lwc_col_t *c, const void *v) {
  if (c->n == c->cap) {
    int64_t cap = c->cap ? 2 * c->cap : 64;
    void *n = realloc(c->p, (size_t)cap * c->sz);
    if (!n) return SP_ENOMEM;
    c->p = n;
    c->cap = cap;
  }
  memcpy((char *)c->p + (size_t)c->n * c->sz, v, c->sz);
  c->n++;
  return 0;
}

static int sp_lwc_i32(sp_lwc_col_t *c, int64_t v) {
  int32_t x = (int32_t)v;
  return sp_lwc_push(c, &x);
}
static int sp_lwc_i64(sp_lwc_col_t *c, int64_t v) { return sp_lwc_push(c, &v); }
static int sp_lwc_f64(sp_lwc_col_t *c, double v) { return sp_lwc_push(c, &v); }
/* Takes s (malloc'd) into the column, or frees it on failure. */
static int sp_lwc_str(sp_lwc_col_t *c, char *s) {
  if (!s) return SP_EIO;
  int rc = sp_lwc_push(c, &s);
  if (rc) free(s);
  return rc;
}

static void sp_lwc_free(sp_lwc_col_t *cols) {
  for (int i = 0; i < SP_LWC_NCOLS; i++) {
    if (sp_lwc_cols[i].kind == 3)
      for (int64_t j = 0; j < cols[i].n; j++) free(((char **)cols[i].p)[j]);
    free(cols[i].p);
  }
}

/* One region record of rank's blob (likwid_glue.c's format) as a row. */
static int sp_lwc_region(sp_lwc_col_t *c, sp_rd_t *r, int rank) {
  int rc = sp_lwc_i32(&c[SP_LWC_ROW_RANKS], rank);
  if (rc == 0) rc = sp_lwc_str(&c[SP_LWC_NAMES], sp__rd_bytes(r, NULL));
  if (rc == 0) rc = sp_lwc_str(&c[SP_LWC_TAGS], sp__rd_bytes(r, NULL));
  int64_t nev = rc == 0 ? sp__rd_i64(r) : 0;
  if (rc == 0 && (r->failed || nev < 0 || nev > 64)) rc = SP_EIO;
  if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_EV_OFF], c[SP_LWC_EVENT_NAMES].n);
  if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_EV_CNT], nev);
  for (int64_t e = 0; rc == 0 && e < nev; e++)
    rc = sp_lwc_str(&c[SP_LWC_EVENT_NAMES], sp__rd_bytes(r, NULL));
  int64_t t = rc == 0 ? sp__rd_i64(r) : 0;
  if (rc == 0 && (r->failed || t < 0 || t > (r->end - r->p))) rc = SP_EIO;
  if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_THR_OFF], c[SP_LWC_CPUS].n);
  if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_THR_CNT], t);
  if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_VAL_OFF], c[SP_LWC_VALUES].n);
  for (int64_t i = 0; rc == 0 && i < t; i++) {
    rc = sp_lwc_i32(&c[SP_LWC_CPUS], sp__rd_i64(r));
    if (rc == 0) rc = sp_lwc_i64(&c[SP_LWC_COUNTS], sp__rd_i64(r));
    if (rc == 0) rc = sp_lwc_f64(&c[SP_LWC_TIMES], sp__rd_f64(r));
    for (int64_t e = 0; rc == 0 && e < nev; e++) rc = sp_lwc_f64(&c[SP_LWC_VALUES], sp__rd_f64(r));
  }
  if (rc == 0 && r->failed) rc = SP_EIO;
  return rc;
}

/* Rank's results (blob of len bytes; none when LIKWID was not measuring). */
static int sp_lwc_rank(sp_lwc_col_t *c, int rank, const char *blob, int64_t len) {
  if (len == 0) return 0;
  sp_rd_t r = {.p = blob, .end = blob + len};
  int rc = sp_lwc_i32(&c[SP_LWC_RANKS], rank);
  if (rc == 0) rc = sp_lwc_str(&c[SP_LWC_GROUPS], sp__rd_bytes(&r, NULL));
  while (rc == 0 && r.p < r.end) rc = sp_lwc_region(c, &r, rank);
  return rc;
}

static int sp_lwc_write(hid_t file, sp_lwc_col_t *c) {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, H5T_VARIABLE);
  H5Tset_cset(st, H5T_CSET_UTF8);
  int rc = 0;
  const char *groups[] = {"likwid", "likwid/regions", "likwid/threads"};
  for (int i = 0; i < 3 && rc == 0; i++) {
    hid_t g = H5Gcreate2(file, groups[i], lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
      rc = SP_EHDF5;
    else
      H5Gclose(g);
  }
  hid_t lw = rc == 0 ? H5Gopen2(file, "likwid", H5P_DEFAULT) : -1;
  if (rc == 0 && lw < 0) rc = SP_EHDF5;
  for (int i = 0; i < SP_LWC_NCOLS && rc == 0; i++) {
    int kind = sp_lwc_cols[i].kind;
    hid_t mem = kind == 0   ? H5T_NATIVE_INT32
                : kind == 1 ? H5T_NATIVE_INT64
                : kind == 2 ? H5T_NATIVE_DOUBLE
                            : st;
    hid_t ft = kind == 0   ? H5T_STD_I32LE
               : kind == 1 ? H5T_STD_I64LE
               : kind == 2 ? H5T_IEEE_F64LE
                           : st;
    rc = sp__h5_dataset_1d(lw, sp_lwc_cols[i].path, mem, ft, c[i].n, c[i].p);
  }
  if (lw >= 0) H5Gclose(lw);
  H5Tclose(st);
  H5Pclose(lcpl);
  return rc;
}

int sp__likwid_columnar_write(const char *path, int nranks, const char *all, const int64_t *offs) {
  sp_lwc_col_t cols[SP_LWC_NCOLS];
  memset(cols, 0, sizeof cols);
  for (int i = 0; i < SP_LWC_NCOLS; i++) cols[i].sz = sp_lwc_size(sp_lwc_cols[i].kind);
  int rc = 0;
  for (int r = 0; r < nranks && rc == 0; r++)
    rc = sp_lwc_rank(cols, r, all + offs[r], offs[r + 1] - offs[r]);
  if (rc == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    rc = f >= 0 ? sp_lwc_write(f, cols) : SP_EHDF5;
    if (f >= 0 && H5Fclose(f) < 0 && rc == 0) rc = SP_EHDF5;
  }
  sp_lwc_free(cols);
  return rc;
}
