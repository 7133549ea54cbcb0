/* reader_reduced.c - profile-mode files reduced across ranks
 * (docs/profile-mode.md, "Reduced across ranks"): reduced_paths/ as
 * sp_reader_reduced_t. Every column is read at the length of region_ids
 * and refused whole when one is missing, of another length or out of
 * range (a damaged file says so instead of showing wrong figures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"

#define SP_RED_MAX_PATHS ((int64_t)1 << 31)

static const char *const sp_figs[3] = {SP_AGG_COUNTS, SP_AGG_INCLUSIVES, SP_AGG_EXCLUSIVES};

void sp_reader_reduced_free(sp_reader_reduced_t *o) {
  if (!o) return;
  free(o->region), free(o->parent), free(o->depth), free(o->rank_counts);
  for (int f = 0; f < 3; f++) {
    free(o->min[f]), free(o->max[f]), free(o->sum[f]), free(o->mean[f]), free(o->std[f]);
    free(o->min_rank[f]), free(o->max_rank[f]);
  }
  memset(o, 0, sizeof *o);
}

/* reduced_paths/<name><suffix> as mem (elem bytes), n values; NULL when it
 * is not there at that length. */
static void *sp_red_col(hid_t file, const char *name, const char *suffix, hid_t mem, size_t elem,
                        int64_t n) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s%s", SP_AGG_RED_PATHS, name, suffix);
  if (sp__agg_col_len(file, path, SP_RED_MAX_PATHS) != n) return NULL;
  return sp__agg_col_read_as(file, path, mem, elem, n);
}

/* 1 when every index of o is in range: regions, parents before children,
 * ranks of the job, rank counts. */
static int sp_red_holds(const sp_reader_reduced_t *o, int nregions) {
  for (int64_t i = 0; i < o->npaths; i++) {
    if (o->region[i] < 0 || o->region[i] >= nregions || o->parent[i] < -1 || o->parent[i] >= i ||
        o->rank_counts[i] < 0 || o->rank_counts[i] > o->mpi_size)
      return 0;
    for (int f = 0; f < 3; f++)
      if (o->min_rank[f][i] < -1 || o->min_rank[f][i] >= o->mpi_size || o->max_rank[f][i] < -1 ||
          o->max_rank[f][i] >= o->mpi_size)
        return 0;
  }
  return 1;
}

/* The file's region ids (region_table's rows) as the reader's: the reader
 * orders its regions its own way and keeps each one's row in old. */
static int sp_red_ids(const sp_reader_t *r, sp_reader_reduced_t *o) {
  int *g_of = malloc((size_t)(r->nregions ? r->nregions : 1) * sizeof *g_of);
  if (!g_of) return -1;
  for (int g = 0; g < r->nregions; g++) g_of[g] = -1;
  for (int g = 0; g < r->nregions; g++)
    if (r->regions[g].old >= 0 && r->regions[g].old < r->nregions) g_of[r->regions[g].old] = g;
  int bad = 0;
  for (int64_t i = 0; i < o->npaths && !bad; i++) bad = (o->region[i] = g_of[o->region[i]]) < 0;
  free(g_of);
  return bad ? -1 : 0;
}

static int64_t sp_meta_i64(hid_t file, const char *name) {
  int64_t v = -1;
  if (H5Aexists_by_name(file, SP_AGG_META, name, H5P_DEFAULT) <= 0) return -1;
  hid_t a = H5Aopen_by_name(file, SP_AGG_META, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return -1;
  if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0) v = -1;
  H5Aclose(a);
  return v;
}

int sp_reader_reduced(sp_reader_t *r, sp_reader_reduced_t *o) {
  if (!o) return SP_READER_EINVAL;
  memset(o, 0, sizeof *o);
  if (!r) return SP_READER_EINVAL;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int reduced =
      H5Lexists(r->file, SP_AGG_META, H5P_DEFAULT) > 0 && sp_meta_i64(r->file, SP_AGG_REDUCED) == 1;
  int64_t n =
      reduced ? sp__agg_col_len(r->file, SP_AGG_RED_PATHS "/" SP_AGG_REGION_IDS, SP_RED_MAX_PATHS)
              : 0;
  int ok = reduced && n >= 0;
  if (ok) {
    hid_t f = r->file;
    o->npaths = n;
    o->mpi_size = sp_meta_i64(f, SP_AGG_MPI_SIZE);
    o->keep = sp_meta_i64(f, SP_AGG_REDUCE_KEEP);
    o->region = sp_red_col(f, SP_AGG_REGION_IDS, "", H5T_NATIVE_INT32, 4, n);
    o->parent = sp_red_col(f, SP_AGG_PARENTS, "", H5T_NATIVE_INT64, 8, n);
    o->depth = sp_red_col(f, SP_AGG_DEPTHS, "", H5T_NATIVE_INT32, 4, n);
    o->rank_counts = sp_red_col(f, SP_AGG_RED_NRANKS, "", H5T_NATIVE_INT32, 4, n);
    ok = o->region && o->parent && o->depth && o->rank_counts;
    for (int k = 0; k < 3 && ok; k++) {
      o->min[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_MIN, H5T_NATIVE_INT64, 8, n);
      o->max[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_MAX, H5T_NATIVE_INT64, 8, n);
      o->sum[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_SUM, H5T_NATIVE_INT64, 8, n);
      o->mean[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_MEAN, H5T_NATIVE_DOUBLE, 8, n);
      o->std[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_STD, H5T_NATIVE_DOUBLE, 8, n);
      o->min_rank[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_MIN_RANK, H5T_NATIVE_INT32, 4, n);
      o->max_rank[k] = sp_red_col(f, sp_figs[k], SP_AGG_RED_MAX_RANK, H5T_NATIVE_INT32, 4, n);
      ok = o->min[k] && o->max[k] && o->sum[k] && o->mean[k] && o->std[k] && o->min_rank[k] &&
           o->max_rank[k];
    }
    ok = ok && o->mpi_size > 0 && sp_red_holds(o, r->nregions) && sp_red_ids(r, o) == 0;
  }
  sp__h5_quiet_end(&q);
  if (!reduced) return 0;
  if (ok) return 1;
  sp_reader_reduced_free(o);
  return sp__reader_fail(r, SP_READER_ELAYOUT,
                         "metadata/@%s = 1 but %s/ does not hold together (a column missing, "
                         "of another length or out of range)",
                         SP_AGG_REDUCED, SP_AGG_RED_PATHS);
}
