/* aggregate_h5.c - the aggregate file (docs/file-format.md, "Aggregate
 * files"): the reference tool's aggregate layout, then this tool's extra
 * groups of call paths, per-thread rows and histograms.
 *
 *   @scope_profiler_schema = 2, @storage_layout = "aggregate"
 *   metadata/@mpi_size @scope_profiler_version @events_lost, the run metadata (rank 0's)
 *   region_table/names                           string[R]
 *               source_files, source_lines       string[R], int64[R]: sp_region_at's
 *                                                location ("", 0: none)
 *   rank_region_index/region_ids, ranks          uint32[P]
 *                     aggregate_counts           uint64[P]
 *                     aggregate_totals, _minimums, _maximums, _exclusives   int64[P] ns
 *   events/start_times, end_times                int64[0]
 *   thread_region_index/ranks, threads, region_ids, counts, totals,
 *                       minimums, maximums, exclusives          per (rank, thread, region)
 *   call_paths/ranks, threads, region_ids, parents, depths, counts,
 *              inclusives, exclusives, minimums, maximums, sum_squares
 *              @open_calls: calls open at sp_report counted with their time so far
 *   call_path_histograms/rows, buckets, counts   nonzero buckets only
 *   call_path_values/rows, keys, counts, sums, minimums, maximums
 *                                                per (call path, key) set there; only
 *                                                when a value was set (docs/values.md) */
#include <stdlib.h>
#include <string.h>

#include "agg_layout.h"
#include "aggregate_h5.h"
#include "aggregate_h5_reduced.h"
#include "aggregate_snap.h"
#include "h5_attr.h"
#include "par.h"
#include "layout_meta.h"

static int sp_put(hid_t g, const char *name, hid_t mem, hid_t file, int64_t n, const void *data) {
  return sp__h5_dataset_1d(g, name, mem, file, n, data);
}

static hid_t sp_str_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

/* Columns of a table of figures, one entry per row. */
typedef struct sp_cols {
  uint32_t *rank, *thread, *region, *depth;
  int64_t *parent, *incl, *excl, *min, *max;
  uint64_t *calls;
  double *sumsq;
  int64_t n;
} sp_cols_t;

static void sp_cols_free(sp_cols_t *c) {
  free(c->rank), free(c->thread), free(c->region), free(c->depth), free(c->parent);
  free(c->incl), free(c->excl), free(c->min), free(c->max), free(c->calls), free(c->sumsq);
}

static int sp_cols_alloc(sp_cols_t *c, int64_t n) {
  memset(c, 0, sizeof *c);
  size_t m = (size_t)(n ? n : 1);
  c->rank = malloc(m * 4), c->thread = malloc(m * 4), c->region = malloc(m * 4);
  c->depth = malloc(m * 4), c->parent = malloc(m * 8), c->incl = malloc(m * 8);
  c->excl = malloc(m * 8), c->min = malloc(m * 8), c->max = malloc(m * 8);
  c->calls = malloc(m * 8), c->sumsq = malloc(m * 8);
  if (!c->rank || !c->thread || !c->region || !c->depth || !c->parent || !c->incl || !c->excl ||
      !c->min || !c->max || !c->calls || !c->sumsq) {
    sp_cols_free(c);
    return SP_ENOMEM;
  }
  return 0;
}

/* Adds row r's figures into entry i of c (the first one sets them). */
static void sp_cols_add(sp_cols_t *c, int64_t i, const sp_agg_row_t *r, int first) {
  if (first) {
    c->rank[i] = (uint32_t)r->rank, c->thread[i] = (uint32_t)r->thread;
    c->region[i] = (uint32_t)r->region, c->calls[i] = 0, c->incl[i] = 0, c->excl[i] = 0;
    c->min[i] = 0, c->max[i] = 0, c->sumsq[i] = 0.0;
  }
  if (r->calls <= 0) return;
  if (c->calls[i] == 0 || r->min < c->min[i]) c->min[i] = r->min;
  if (c->calls[i] == 0 || r->max > c->max[i]) c->max[i] = r->max;
  c->calls[i] += (uint64_t)r->calls; /* sums of an .aggspill's rows may be damaged */
  c->incl[i] = sp__agg_add_sat(c->incl[i], r->incl);
  c->excl[i] = sp__agg_add_sat(c->excl[i], r->excl);
  c->sumsq[i] += r->sumsq;
}

typedef struct sp_sort_ctx {
  const sp_agg_row_t *rows;
  int by_thread;
} sp_sort_ctx_t;

static int sp_row_cmp(const void *a, const void *b, void *arg) {
  const sp_sort_ctx_t *c = arg;
  const sp_agg_row_t *x = &c->rows[*(const int64_t *)a], *y = &c->rows[*(const int64_t *)b];
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (c->by_thread && x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->region != y->region) return x->region < y->region ? -1 : 1;
  return 0;
}

/* The rows summed per (rank, region), or per (rank, thread, region) when
 * by_thread; groups without a finished call are left out. */
static int sp_sum_rows(const sp_agg_snap_t *s, int by_thread, sp_cols_t *c) {
  int64_t *ord = malloc((size_t)(s->nrows ? s->nrows : 1) * sizeof *ord);
  if (!ord || sp_cols_alloc(c, s->nrows)) {
    free(ord);
    return SP_ENOMEM;
  }
  int64_t n = 0;
  for (int64_t i = 0; i < s->nrows; i++)
    if (s->rows[i].calls > 0) ord[n++] = i;
  sp_sort_ctx_t ctx = {s->rows, by_thread};
  qsort_r(ord, (size_t)n, sizeof *ord, sp_row_cmp, &ctx);
  c->n = 0;
  for (int64_t k = 0; k < n; k++) {
    int first = k == 0 || sp_row_cmp(&ord[k - 1], &ord[k], &ctx) != 0;
    if (first) c->n++;
    sp_cols_add(c, c->n - 1, &s->rows[ord[k]], first);
  }
  free(ord);
  return 0;
}

static int sp_write_sums(hid_t f, const char *group, const sp_cols_t *c, int reference) {
  hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return SP_EHDF5;
  const char *pre = reference ? SP_AGG_REF_PREFIX : "";
  char nm[64];
  int rc = sp_put(g, SP_AGG_REGION_IDS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c->n, c->region);
  if (!rc) rc = sp_put(g, SP_AGG_RANKS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c->n, c->rank);
  if (!rc && !reference)
    rc = sp_put(g, SP_AGG_THREADS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c->n, c->thread);
  const char *cols[] = {SP_AGG_TOTALS, SP_AGG_MINIMUMS, SP_AGG_MAXIMUMS, SP_AGG_EXCLUSIVES};
  const int64_t *data[] = {c->incl, c->min, c->max, c->excl};
  snprintf(nm, sizeof nm, "%s%s", pre, SP_AGG_COUNTS);
  if (!rc) rc = sp_put(g, nm, H5T_NATIVE_UINT64, H5T_STD_U64LE, c->n, c->calls);
  for (int k = 0; k < 4 && !rc; k++) {
    snprintf(nm, sizeof nm, "%s%s", pre, cols[k]);
    rc = sp_put(g, nm, H5T_NATIVE_INT64, H5T_STD_I64LE, c->n, data[k]);
  }
  H5Gclose(g);
  return rc;
}

static int sp_write_paths(hid_t f, const sp_agg_snap_t *s) {
  sp_cols_t c;
  if (sp_cols_alloc(&c, s->nrows)) return SP_ENOMEM;
  for (int64_t i = 0; i < s->nrows; i++) {
    const sp_agg_row_t *r = &s->rows[i];
    sp_cols_add(&c, i, r, 1);
    c.parent[i] = r->parent;
    c.depth[i] = (uint32_t)r->depth;
  }
  c.n = s->nrows;
  hid_t g = H5Gcreate2(f, SP_AGG_PATHS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g < 0 ? SP_EHDF5 : 0;
  if (!rc) rc = sp_put(g, SP_AGG_RANKS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c.n, c.rank);
  if (!rc) rc = sp_put(g, SP_AGG_THREADS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c.n, c.thread);
  if (!rc) rc = sp_put(g, SP_AGG_REGION_IDS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c.n, c.region);
  if (!rc) rc = sp_put(g, SP_AGG_PARENTS, H5T_NATIVE_INT64, H5T_STD_I64LE, c.n, c.parent);
  if (!rc) rc = sp_put(g, SP_AGG_DEPTHS, H5T_NATIVE_UINT32, H5T_STD_U32LE, c.n, c.depth);
  if (!rc) rc = sp_put(g, SP_AGG_COUNTS, H5T_NATIVE_UINT64, H5T_STD_U64LE, c.n, c.calls);
  if (!rc) rc = sp_put(g, SP_AGG_INCLUSIVES, H5T_NATIVE_INT64, H5T_STD_I64LE, c.n, c.incl);
  if (!rc) rc = sp_put(g, SP_AGG_EXCLUSIVES, H5T_NATIVE_INT64, H5T_STD_I64LE, c.n, c.excl);
  if (!rc) rc = sp_put(g, SP_AGG_MINIMUMS, H5T_NATIVE_INT64, H5T_STD_I64LE, c.n, c.min);
  if (!rc) rc = sp_put(g, SP_AGG_MAXIMUMS, H5T_NATIVE_INT64, H5T_STD_I64LE, c.n, c.max);
  if (!rc) rc = sp_put(g, SP_AGG_SUM_SQUARES, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, c.n, c.sumsq);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_OPEN_CALLS, H5T_NATIVE_INT64, &s->nopen);
  if (!rc)
    rc = sp__h5_attr_str(g, SP_AGG_OPEN_CALLS_RULE,
                         "a call open when sp_report wrote the file counts as one call lasting "
                         "until then (its exclusive time less its open child's); sp_finalize's "
                         "file drops open calls, as the trace does");
  if (g >= 0) H5Gclose(g);
  sp_cols_free(&c);
  return rc;
}

static int sp_write_hists(hid_t f, const sp_agg_snap_t *s) {
  int64_t n = s->nbks;
  uint64_t *rows = malloc((size_t)(n ? n : 1) * 8), *counts = malloc((size_t)(n ? n : 1) * 8);
  uint32_t *bk = malloc((size_t)(n ? n : 1) * 4);
  int rc = rows && counts && bk ? 0 : SP_ENOMEM;
  for (int64_t i = 0; !rc && i < n; i++) {
    rows[i] = (uint64_t)s->bks[i].row;
    bk[i] = (uint32_t)s->bks[i].bucket;
    counts[i] = (uint64_t)s->bks[i].count;
  }
  hid_t g = rc ? -1 : H5Gcreate2(f, SP_AGG_HISTS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rc && g < 0) rc = SP_EHDF5;
  int32_t sub = SP_AGG_SUB, nb = SP_AGG_NBUCKETS;
  if (!rc) rc = sp_put(g, SP_AGG_HIST_ROWS, H5T_NATIVE_UINT64, H5T_STD_U64LE, n, rows);
  if (!rc) rc = sp_put(g, SP_AGG_HIST_BUCKETS, H5T_NATIVE_UINT32, H5T_STD_U32LE, n, bk);
  if (!rc) rc = sp_put(g, SP_AGG_COUNTS, H5T_NATIVE_UINT64, H5T_STD_U64LE, n, counts);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_HIST_SUB, H5T_NATIVE_INT32, &sub);
  if (!rc) rc = sp__h5_attr(g, SP_AGG_HIST_NBUCKETS, H5T_NATIVE_INT32, &nb);
  if (!rc)
    rc = sp__h5_attr_str(g, SP_AGG_HIST_RULE,
                         "inclusive ns v: bucket v for v < 32; else with e = floor(log2 v), "
                         "32*(e-4) + ((v >> (e-5)) & 31), the last bucket holding all above");
  if (g >= 0) H5Gclose(g);
  free(rows), free(counts), free(bk);
  return rc;
}

/* region_table/source_files and source_lines: where sp_region_at put each
 * region ("" and 0 where no location was given), as the trace's region
 * groups hold them in @source_file and @source_lineno. */
static int sp_write_sources(hid_t g, const sp_agg_snap_t *s, hid_t str) {
  size_t m = (size_t)(s->nnames ? s->nnames : 1);
  const char **files = malloc(m * sizeof *files);
  int64_t *lines = malloc(m * sizeof *lines);
  int rc = files && lines ? 0 : SP_ENOMEM;
  for (int64_t i = 0; !rc && i < s->nnames; i++) {
    int have = i < s->nsrcs && s->srcs[i].file;
    files[i] = have ? s->srcs[i].file : "";
    lines[i] = have ? s->srcs[i].line : 0;
  }
  if (!rc) rc = sp_put(g, SP_AGG_SOURCE_FILES, str, str, s->nnames, files);
  if (!rc) rc = sp_put(g, SP_AGG_SOURCE_LINES, H5T_NATIVE_INT64, H5T_STD_I64LE, s->nnames, lines);
  free(files);
  free(lines);
  return rc;
}

static int sp_write_head(hid_t f, const sp_agg_snap_t *s, int mpi_size) {
  int64_t schema = 2, size = mpi_size;
  int rc = sp__h5_attr(f, SP_AGG_SCHEMA_ATTR, H5T_NATIVE_INT64, &schema);
  if (!rc) rc = sp__h5_attr_str(f, SP_AGG_LAYOUT_ATTR, SP_AGG_LAYOUT_NAME);
  hid_t g = rc ? -1 : H5Gcreate2(f, SP_AGG_META, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rc && g < 0) rc = SP_EHDF5;
  if (!rc) rc = sp__h5_attr(g, SP_AGG_MPI_SIZE, H5T_NATIVE_INT64, &size);
  if (!rc) rc = sp__h5_attr_str(g, SP_AGG_VERSION, SP_VERSION_STRING);
  /* The calls left out (path cap, memory), summed over the ranks: the
   * trace's attribute for its losses. */
  int64_t lost = s->lost;
  if (!rc) rc = sp__h5_attr(g, SP_AGG_EVENTS_LOST, H5T_NATIVE_INT64, &lost);
  /* The run metadata of this process (rank 0's in a run; none in a merge). */
  sp_meta_list_t meta;
  if (!rc && sp__meta_snapshot(&meta) == 0) {
    rc = sp__layout_meta_list(g, &meta);
    sp__meta_list_free(&meta);
  }
  if (g >= 0) H5Gclose(g);
  hid_t t = sp_str_type();
  g = rc ? -1 : H5Gcreate2(f, SP_AGG_REGION_TABLE, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rc && g < 0) rc = SP_EHDF5;
  if (!rc) rc = sp_put(g, SP_AGG_NAMES, t, t, s->nnames, s->names);
  if (!rc) rc = sp_write_sources(g, s, t);
  if (g >= 0) H5Gclose(g);
  H5Tclose(t);
  g = rc ? -1 : H5Gcreate2(f, SP_AGG_EVENTS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!rc && g < 0) rc = SP_EHDF5;
  if (!rc) rc = sp_put(g, SP_AGG_START_TIMES, H5T_NATIVE_INT64, H5T_STD_I64LE, 0, NULL);
  if (!rc) rc = sp_put(g, SP_AGG_END_TIMES, H5T_NATIVE_INT64, H5T_STD_I64LE, 0, NULL);
  if (g >= 0) H5Gclose(g);
  return rc;
}

/* The regions that have a call path, renumbered in order: a region
 * registered but never entered is not in the file, as it is not in the
 * trace, so that both layouts of one run name the same regions. v shares
 * s's strings; sp_used_free frees what it allocated. */
static int sp_used_regions(const sp_agg_snap_t *s, sp_agg_snap_t *v) {
  *v = *s;
  size_t m = (size_t)(s->nnames ? s->nnames : 1);
  int64_t *map = malloc(m * sizeof *map);
  v->names = malloc(m * sizeof *v->names);
  v->srcs = malloc(m * sizeof *v->srcs);
  v->rows = malloc((size_t)(s->nrows ? s->nrows : 1) * sizeof *v->rows);
  if (!map || !v->names || !v->srcs || !v->rows) {
    free(map), free(v->names), free(v->srcs), free(v->rows);
    return SP_ENOMEM;
  }
  for (int64_t g = 0; g < s->nnames; g++) map[g] = -1;
  for (int64_t i = 0; i < s->nrows; i++) map[s->rows[i].region] = 0;
  v->nnames = 0;
  for (int64_t g = 0; g < s->nnames; g++) {
    if (map[g] < 0) continue;
    map[g] = v->nnames;
    v->names[v->nnames] = s->names[g];
    v->srcs[v->nnames] = g < s->nsrcs ? s->srcs[g] : (sp_agg_src_t){NULL, 0};
    v->nnames++;
  }
  v->nsrcs = v->nnames;
  for (int64_t i = 0; i < s->nrows; i++) {
    v->rows[i] = s->rows[i];
    v->rows[i].region = (int32_t)map[s->rows[i].region];
  }
  free(map);
  return 0;
}

static void sp_used_free(sp_agg_snap_t *v) { free(v->names), free(v->srcs), free(v->rows); }

/* The head and the two sum tables of s into the new file f. */
static int sp_write_common(hid_t f, const sp_agg_snap_t *s, int mpi_size) {
  sp_cols_t pairs, threads;
  int rc = sp_write_head(f, s, mpi_size);
  if (!rc && (rc = sp_sum_rows(s, 0, &pairs)) == 0) {
    rc = sp_write_sums(f, SP_AGG_RANK_PAIRS, &pairs, 1);
    sp_cols_free(&pairs);
  }
  if (!rc && (rc = sp_sum_rows(s, 1, &threads)) == 0) {
    rc = sp_write_sums(f, SP_AGG_THREAD_PAIRS, &threads, 0);
    sp_cols_free(&threads);
  }
  return rc;
}

int sp__agg_h5_write(const char *path, const sp_agg_snap_t *all, int mpi_size) {
  sp_agg_snap_t used;
  if (sp_used_regions(all, &used) != 0) return SP_ENOMEM;
  const sp_agg_snap_t *s = &used;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) {
    sp_used_free(&used);
    return SP_EHDF5;
  }
  int rc = sp_write_common(f, s, mpi_size);
  if (!rc) rc = sp_write_paths(f, s);
  if (!rc) rc = sp_write_hists(f, s);
  if (!rc && s->nvals)
    rc = sp__agg_h5_values(f, SP_AGG_PATH_VALUES, SP_AGG_HIST_ROWS, s->vals, s->nvals);
  if (H5Fclose(f) < 0 && !rc) rc = SP_EHDF5;
  sp_used_free(&used);
  return rc;
}

/* Reduced across ranks: the kept rows' sums, no call_paths (the kept rows
 * go into kept_paths, under the reduced paths: aggregate_h5_reduced.c). */
int sp__agg_h5_write_reduced(const char *path, const sp_agg_snap_t *view, int mpi_size,
                             const sp_red_t *t, const int64_t *paths, int k) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return SP_EHDF5;
  int rc = sp_write_common(f, view, mpi_size);
  if (!rc) rc = sp__agg_h5_reduced(f, t, view, paths, k);
  if (H5Fclose(f) < 0 && !rc) rc = SP_EHDF5;
  return rc;
}
