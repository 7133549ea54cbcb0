/* reader_agg_hist.c - the duration histograms of this tool's aggregate
 * files (docs/profile-mode.md, "The file"): call_paths/{ranks, region_ids}
 * and call_path_histograms/{rows, buckets, counts}, summed per (region,
 * rank) for percentiles; and call_paths/{counts, inclusives, sum_squares}
 * summed the same way for the standard deviation. Absent groups (the reference tool's own aggregate
 * files) give nothing; a group whose columns disagree in length, or whose
 * rows point outside the tables, is ignored as a whole. */
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"

#define SP_AGG_SUB 32
#define SP_AGG_MAX_ROWS ((hsize_t)1 << 22) /* past this a file is not ours */

int64_t sp__agg_col_len(hid_t file, const char *path, int64_t max) {
  /* The group first: H5Lexists through a group that is not there (the
   * reference tool's aggregate files have no call_paths) prints an error
   * stack where HDF5's errors are on (the Python reader). */
  const char *slash = strchr(path, '/');
  char group[64];
  if (slash && (size_t)(slash - path) < sizeof group) {
    memcpy(group, path, (size_t)(slash - path));
    group[slash - path] = '\0';
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0) return -1;
  }
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  hsize_t n = 0;
  int ok = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &n, NULL) == 1 && n <= (hsize_t)max;
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return ok ? (int64_t)n : -1;
}

static int64_t sp_len(hid_t file, const char *path) {
  return sp__agg_col_len(file, path, (int64_t)SP_AGG_MAX_ROWS);
}

/* The n values of the 1-D dataset path as mem (elem bytes each), in a
 * malloc'd array; NULL when it cannot be read. */
void *sp__agg_col_read_as(hid_t file, const char *path, hid_t mem, size_t elem, int64_t n) {
  void *v = malloc((size_t)(n ? n : 1) * elem);
  hid_t d = v ? H5Dopen2(file, path, H5P_DEFAULT) : -1;
  herr_t rc = d >= 0 && n > 0 ? H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0;
  if (d >= 0) H5Dclose(d);
  if (d < 0 || rc < 0) {
    free(v);
    return NULL;
  }
  return v;
}

int64_t *sp__agg_col_read(hid_t file, const char *path, int64_t n) {
  return sp__agg_col_read_as(file, path, H5T_NATIVE_INT64, sizeof(int64_t), n);
}

/* The index of name in region_table/names, or -1. */
static int64_t sp_name_index(const sp_reader_t *r, const char *name) {
  hid_t file = r->file;
  int64_t n = sp_len(file, SP_AGG_REGION_TABLE "/" SP_AGG_NAMES);
  if (n <= 0) return -1;
  hid_t d = H5Dopen2(file, SP_AGG_REGION_TABLE "/" SP_AGG_NAMES, H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char **v = calloc((size_t)n, sizeof *v);
  hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
  int vlen = ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0;
  int64_t found = -1;
  /* The open's read of these names (reader_columnar.c) made the scan. */
  if (v && vlen && sp__gheap_sound(r) == 0 &&
      H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
    for (int64_t i = 0; i < n && found < 0; i++)
      if (v[i] && strcmp(v[i], name) == 0) found = i;
    hid_t s = H5Dget_space(d);
    H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
    H5Sclose(s);
  }
  free(v);
  if (ft >= 0) H5Tclose(ft);
  H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return found;
}

/* Which of the np rows of call_paths (np: the length of its ranks) are
 * region g's on rank index k (1) or not (0), for the histograms and the
 * moments; NULL when region_ids is not as long, the region is not in the
 * file's name table or a column cannot be read. */
static unsigned char *sp_agg_rows_of(const sp_reader_t *r, int g, int k, int64_t np) {
  int64_t want = sp_name_index(r, r->regions[g].name);
  if (want < 0 || sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_REGION_IDS) != np) return NULL;
  int64_t *ranks = sp__agg_col_read(r->file, SP_AGG_PATHS "/" SP_AGG_RANKS, np);
  int64_t *regs = sp__agg_col_read(r->file, SP_AGG_PATHS "/" SP_AGG_REGION_IDS, np);
  unsigned char *mine = ranks && regs ? malloc((size_t)np) : NULL;
  for (int64_t i = 0; mine && i < np; i++) mine[i] = regs[i] == want && ranks[i] == r->ranks[k].id;
  free(ranks), free(regs);
  return mine;
}

int64_t sp_reader_aggregate_hist(const sp_reader_t *r, int g, int k, uint64_t *counts) {
  if (!r || !counts || g < 0 || g >= r->nregions || k < 0 || k >= r->nranks)
    return SP_READER_EINVAL;
  if (!r->aggregate) return 0;
  int64_t np = sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_RANKS);
  int64_t nb = sp_len(r->file, SP_AGG_HISTS "/" SP_AGG_HIST_ROWS);
  if (np <= 0 || nb <= 0 || sp_len(r->file, SP_AGG_HISTS "/" SP_AGG_HIST_BUCKETS) != nb ||
      sp_len(r->file, SP_AGG_HISTS "/" SP_AGG_COUNTS) != nb)
    return 0;
  unsigned char *mine = sp_agg_rows_of(r, g, k, np);
  if (!mine) return 0;
  int64_t *rows = sp__agg_col_read(r->file, SP_AGG_HISTS "/" SP_AGG_HIST_ROWS, nb);
  int64_t *bks = sp__agg_col_read(r->file, SP_AGG_HISTS "/" SP_AGG_HIST_BUCKETS, nb);
  int64_t *cnt = sp__agg_col_read(r->file, SP_AGG_HISTS "/" SP_AGG_COUNTS, nb);
  int64_t added = 0;
  int ok = rows && bks && cnt;
  for (int64_t i = 0; ok && i < nb; i++)
    ok = rows[i] >= 0 && rows[i] < np && bks[i] >= 0 && bks[i] < SP_READER_AGG_NBUCKETS &&
         cnt[i] >= 0;
  for (int64_t i = 0; ok && i < nb; i++) {
    if (!mine[rows[i]]) continue;
    counts[bks[i]] += (uint64_t)cnt[i];
    added += cnt[i];
  }
  free(mine), free(rows), free(bks), free(cnt);
  return ok ? added : 0;
}

int64_t sp_reader_aggregate_bucket_mid(int b) {
  if (b < 0 || b >= SP_READER_AGG_NBUCKETS) return -1;
  if (b < SP_AGG_SUB) return b;
  int e = b / SP_AGG_SUB + 4;
  int64_t lo = (int64_t)(SP_AGG_SUB + b % SP_AGG_SUB) << (e - 5);
  return lo + (((int64_t)1 << (e - 5)) - 1) / 2;
}

int64_t sp_reader_aggregate_percentile(const uint64_t *counts, double p) {
  uint64_t n = 0;
  for (int b = 0; b < SP_READER_AGG_NBUCKETS; b++) n += counts[b];
  if (n == 0 || !(p >= 0 && p <= 100)) return -1;
  double need_d = p / 100.0 * (double)n;
  uint64_t need = (uint64_t)need_d;
  if ((double)need < need_d) need++;
  if (need == 0) need = 1;
  uint64_t acc = 0;
  for (int b = 0; b < SP_READER_AGG_NBUCKETS; b++) {
    acc += counts[b];
    if (acc >= need) return sp_reader_aggregate_bucket_mid(b);
  }
  return -1;
}

int sp_reader_aggregate_moments(const sp_reader_t *r, int g, int k, sp_reader_moments_t *out) {
  if (!r || !out || g < 0 || g >= r->nregions || k < 0 || k >= r->nranks) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r->aggregate) return 0;
  int64_t np = sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_RANKS);
  if (np <= 0 || sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_COUNTS) != np ||
      sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_INCLUSIVES) != np ||
      sp_len(r->file, SP_AGG_PATHS "/" SP_AGG_SUM_SQUARES) != np)
    return 0;
  unsigned char *mine = sp_agg_rows_of(r, g, k, np);
  if (!mine) return 0;
  int64_t *cnt = sp__agg_col_read(r->file, SP_AGG_PATHS "/" SP_AGG_COUNTS, np);
  int64_t *incl = sp__agg_col_read(r->file, SP_AGG_PATHS "/" SP_AGG_INCLUSIVES, np);
  double *sq = sp__agg_col_read_as(r->file, SP_AGG_PATHS "/" SP_AGG_SUM_SQUARES, H5T_NATIVE_DOUBLE,
                                   sizeof(double), np);
  int ok = cnt && incl && sq;
  /* Every call path of the region on the rank (all its threads): the
   * calls, the sums and the sums of squares add up. */
  for (int64_t i = 0; ok && i < np; i++) {
    if (!mine[i]) continue;
    ok = cnt[i] >= 0 && incl[i] >= 0 && sq[i] >= 0;
    out->calls += cnt[i];
    out->sum += (double)incl[i];
    out->sum_squares += sq[i];
  }
  free(mine), free(cnt), free(incl), free(sq);
  if (!ok) memset(out, 0, sizeof *out);
  return ok && out->calls > 0;
}
