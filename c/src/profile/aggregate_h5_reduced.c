/* aggregate_h5_reduced.c - the groups of an aggregate file reduced across
 * ranks (docs/profile-mode.md, "Reduced across ranks"), beside the head
 * and the kept pairs' rank_region_index and thread_region_index that
 * aggregate_h5.c writes:
 *
 *   metadata/@reduced = 1, @reduce_keep = k
 *   reduced_paths/region_ids, parents, depths, rank_counts     per call path
 *                 {counts,inclusives,exclusives}_{min,max,sum}  int64
 *                 ..._{mean,std}                                float64
 *                 ..._{min_rank,max_rank}                       int32 (-1: no rank)
 *   reduced_path_histograms/paths, buckets, counts             merged, nonzero
 *   kept_ranks/region_ids, ranks, kinds, totals                per region its k
 *                                   largest (kind 0), then smallest (kind 1)
 *   kept_paths/ranks, threads, paths, counts, inclusives, exclusives,
 *              minimums, maximums, sum_squares                the kept pairs' rows
 *   kept_path_histograms/rows, buckets, counts
 *   reduced_path_values/paths, keys, counts, sums, minimums, maximums
 *                         per (reduced path, key): counts and sums summed over
 *                         the ranks, min of mins, max of maxes (when a value was set) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "agg_layout.h"
#include "aggregate_h5.h"
#include "aggregate_h5_reduced.h"
#include "h5_attr.h"

#define SP_PUT_I64(g, name, n, d) sp__h5_dataset_1d(g, name, H5T_NATIVE_INT64, H5T_STD_I64LE, n, d)
#define SP_PUT_I32(g, name, n, d) sp__h5_dataset_1d(g, name, H5T_NATIVE_INT32, H5T_STD_I32LE, n, d)
#define SP_PUT_F64(g, name, n, d) sp__h5_dataset_1d(g, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, d)

static const char *const sp_fig_names[SP_RED_NFIGS] = {SP_AGG_COUNTS, SP_AGG_INCLUSIVES,
                                                       SP_AGG_EXCLUSIVES};

/* The seven columns of figure f over the n paths; i64/f64/i32: scratch of n. */
static int sp_put_fig(hid_t g, const sp_red_t *t, int f, int64_t *i64, double *f64, int32_t *i32) {
  int64_t n = t->npaths;
  char nm[64];
  int rc = 0;
  for (int col = 0; col < 7 && !rc; col++) {
    static const char *const suffix[7] = {SP_AGG_RED_MIN,     SP_AGG_RED_MAX, SP_AGG_RED_SUM,
                                          SP_AGG_RED_MEAN,    SP_AGG_RED_STD, SP_AGG_RED_MIN_RANK,
                                          SP_AGG_RED_MAX_RANK};
    snprintf(nm, sizeof nm, "%s%s", sp_fig_names[f], suffix[col]);
    for (int64_t i = 0; i < n; i++) {
      const sp_red_path_t *p = &t->paths[i];
      const sp_red_fig_t *x = &p->f[f];
      int some = p->n > 0;
      if (col == 0) i64[i] = some ? x->min : 0;
      if (col == 1) i64[i] = some ? x->max : 0;
      if (col == 2) i64[i] = some ? x->sum : 0;
      if (col == 3) f64[i] = some ? (double)x->sum / p->n : 0.0;
      if (col == 4) f64[i] = some && x->m2 > 0 ? sqrt(x->m2 / p->n) : 0.0; /* population */
      if (col == 5) i32[i] = some ? x->min_rank : -1;
      if (col == 6) i32[i] = some ? x->max_rank : -1;
    }
    rc = col < 3   ? SP_PUT_I64(g, nm, n, i64)
         : col < 5 ? SP_PUT_F64(g, nm, n, f64)
                   : SP_PUT_I32(g, nm, n, i32);
  }
  return rc;
}

static int sp_put_paths(hid_t f, const sp_red_t *t) {
  int64_t n = t->npaths;
  size_t m = (size_t)(n ? n : 1);
  int64_t *i64 = malloc(m * 8);
  double *f64 = malloc(m * 8);
  int32_t *i32 = malloc(m * 4);
  hid_t g = H5Gcreate2(f, SP_AGG_RED_PATHS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = !i64 || !f64 || !i32 ? SP_ENOMEM : g < 0 ? SP_EHDF5 : 0;
  for (int64_t i = 0; !rc && i < n; i++) i32[i] = t->paths[i].name;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_REGION_IDS, n, i32);
  for (int64_t i = 0; !rc && i < n; i++) i64[i] = t->paths[i].parent;
  if (!rc) rc = SP_PUT_I64(g, SP_AGG_PARENTS, n, i64);
  for (int64_t i = 0; !rc && i < n; i++) i32[i] = t->paths[i].depth;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_DEPTHS, n, i32);
  for (int64_t i = 0; !rc && i < n; i++) i32[i] = t->paths[i].n;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_RED_NRANKS, n, i32);
  for (int fig = 0; fig < SP_RED_NFIGS && !rc; fig++) rc = sp_put_fig(g, t, fig, i64, f64, i32);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_OPEN_CALLS, H5T_NATIVE_INT64, &t->nopen);
  if (g >= 0) H5Gclose(g);
  free(i64), free(f64), free(i32);
  return rc;
}

/* A histogram group: rows (named rowname), buckets, counts of n entries. */
static int sp_put_hist(hid_t f, const char *group, const char *rowname, const sp_agg_bk_t *b,
                       int64_t n) {
  size_t m = (size_t)(n ? n : 1);
  int64_t *rows = malloc(m * 8), *counts = malloc(m * 8);
  int32_t *bk = malloc(m * 4);
  hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = !rows || !counts || !bk ? SP_ENOMEM : g < 0 ? SP_EHDF5 : 0;
  for (int64_t i = 0; !rc && i < n; i++)
    rows[i] = b[i].row, bk[i] = b[i].bucket, counts[i] = b[i].count;
  if (!rc) rc = SP_PUT_I64(g, rowname, n, rows);
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_HIST_BUCKETS, n, bk);
  if (!rc) rc = SP_PUT_I64(g, SP_AGG_COUNTS, n, counts);
  int32_t sub = SP_AGG_SUB, nb = SP_AGG_NBUCKETS;
  if (!rc) rc = sp__h5_attr(g, SP_AGG_HIST_SUB, H5T_NATIVE_INT32, &sub);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_HIST_NBUCKETS, H5T_NATIVE_INT32, &nb);
  if (g >= 0) H5Gclose(g);
  free(rows), free(counts), free(bk);
  return rc;
}

static int sp_put_kept(hid_t f, const sp_red_t *t) {
  int64_t n = t->ntops;
  size_t m = (size_t)(n ? n : 1);
  int32_t *reg = malloc(m * 4), *rank = malloc(m * 4), *kind = malloc(m * 4);
  int64_t *tot = malloc(m * 8);
  hid_t g = H5Gcreate2(f, SP_AGG_KEPT, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = !reg || !rank || !kind || !tot ? SP_ENOMEM : g < 0 ? SP_EHDF5 : 0;
  for (int64_t i = 0; !rc && i < n; i++)
    reg[i] = t->tops[i].name, rank[i] = t->tops[i].rank, kind[i] = t->tops[i].kind,
    tot[i] = t->tops[i].total;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_REGION_IDS, n, reg);
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_RANKS, n, rank);
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_KEPT_KINDS, n, kind);
  if (!rc) rc = SP_PUT_I64(g, SP_AGG_TOTALS, n, tot);
  if (g >= 0) H5Gclose(g);
  free(reg), free(rank), free(kind), free(tot);
  return rc;
}

static int sp_put_kept_rows(hid_t f, const sp_agg_snap_t *k, const int64_t *paths) {
  int64_t n = k->nrows;
  size_t m = (size_t)(n ? n : 1);
  int64_t *i64 = malloc(m * 8);
  int32_t *i32 = malloc(m * 4);
  double *f64 = malloc(m * 8);
  hid_t g = H5Gcreate2(f, SP_AGG_KEPT_PATHS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = !i64 || !i32 || !f64 ? SP_ENOMEM : g < 0 ? SP_EHDF5 : 0;
  for (int64_t i = 0; !rc && i < n; i++) i32[i] = k->rows[i].rank;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_RANKS, n, i32);
  for (int64_t i = 0; !rc && i < n; i++) i32[i] = k->rows[i].thread;
  if (!rc) rc = SP_PUT_I32(g, SP_AGG_THREADS, n, i32);
  if (!rc) rc = SP_PUT_I64(g, SP_AGG_RED_PATH, n, paths);
  static const char *const cols[6] = {SP_AGG_COUNTS,   SP_AGG_INCLUSIVES, SP_AGG_EXCLUSIVES,
                                      SP_AGG_MINIMUMS, SP_AGG_MAXIMUMS,   SP_AGG_SUM_SQUARES};
  for (int c = 0; c < 6 && !rc; c++) {
    for (int64_t i = 0; i < n; i++) {
      const sp_agg_row_t *r = &k->rows[i];
      i64[i] = c == 0 ? r->calls : c == 1 ? r->incl : c == 2 ? r->excl : c == 3 ? r->min : r->max;
      f64[i] = r->sumsq;
    }
    rc = c < 5 ? SP_PUT_I64(g, cols[c], n, i64) : SP_PUT_F64(g, cols[c], n, f64);
  }
  if (g >= 0) H5Gclose(g);
  free(i64), free(i32), free(f64);
  return rc;
}

/* Also the full file's call_path_values/ (aggregate_h5.c). */
int sp__agg_h5_values(hid_t f, const char *group, const char *rowname, const sp_agg_val_t *v,
                      int64_t n) {
  size_t m = (size_t)(n ? n : 1);
  uint64_t *rows = malloc(m * 8), *counts = malloc(m * 8);
  double *d = malloc(m * 3 * sizeof *d);
  const char **keys = malloc(m * sizeof *keys);
  int rc = rows && counts && d && keys ? 0 : SP_ENOMEM;
  for (int64_t i = 0; !rc && i < n; i++) {
    rows[i] = (uint64_t)v[i].row, counts[i] = (uint64_t)v[i].count, keys[i] = v[i].key;
    d[i] = v[i].sum, d[n + i] = v[i].min, d[2 * n + i] = v[i].max;
  }
  hid_t g = rc ? -1 : H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rc && g < 0) rc = SP_EHDF5;
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  if (!rc) rc = sp__h5_dataset_1d(g, rowname, H5T_NATIVE_UINT64, H5T_STD_U64LE, n, rows);
  if (!rc) rc = sp__h5_dataset_1d(g, SP_AGG_VAL_KEYS, t, t, n, keys);
  if (!rc) rc = sp__h5_dataset_1d(g, SP_AGG_COUNTS, H5T_NATIVE_UINT64, H5T_STD_U64LE, n, counts);
  if (!rc) rc = sp__h5_dataset_1d(g, SP_AGG_VAL_SUMS, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, d);
  if (!rc) rc = sp__h5_dataset_1d(g, SP_AGG_MINIMUMS, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, d + n);
  if (!rc)
    rc = sp__h5_dataset_1d(g, SP_AGG_MAXIMUMS, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, d + 2 * n);
  H5Tclose(t);
  if (g >= 0) H5Gclose(g);
  free(rows), free(counts), free(d), free(keys);
  return rc;
}

int sp__agg_h5_reduced(hid_t f, const sp_red_t *t, const sp_agg_snap_t *kept, const int64_t *paths,
                       int k) {
  hid_t g = H5Gopen2(f, SP_AGG_META, H5P_DEFAULT);
  int64_t one = 1, keep = k;
  int rc = g < 0 ? SP_EHDF5 : sp__h5_attr(g, SP_AGG_REDUCED, H5T_NATIVE_INT64, &one);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_REDUCE_KEEP, H5T_NATIVE_INT64, &keep);
  if (g >= 0) H5Gclose(g);
  if (!rc) rc = sp_put_paths(f, t);
  if (!rc) rc = sp_put_hist(f, SP_AGG_RED_HISTS, SP_AGG_RED_PATH, t->bks, t->nbks);
  if (!rc) rc = sp_put_kept(f, t);
  if (!rc) rc = sp_put_kept_rows(f, kept, paths);
  if (!rc) rc = sp_put_hist(f, SP_AGG_KEPT_HISTS, SP_AGG_HIST_ROWS, kept->bks, kept->nbks);
  if (!rc && t->nvals)
    rc = sp__agg_h5_values(f, SP_AGG_RED_PATH_VALUES, SP_AGG_RED_PATH, t->vals, t->nvals);
  return rc;
}
