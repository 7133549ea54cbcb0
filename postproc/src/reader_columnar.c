/* reader_columnar.c - the reference tool's columnar layout (schema 2 and 3).
 *
 *   @scope_profiler_schema = 2 | 3, @storage_layout = "columnar"
 *   region_table/names                string[R]
 *   rank_region_index/region_ids      uint32[P]  index into names
 *                     ranks           uint32[P]
 *                     event_offsets   uint64[P]  first event of the pair
 *                     event_counts    uint64[P]
 *   events/start_times, end_times     int64[E]   (schema 2)
 *   events/start_deltas, durations    int64[E]   (schema 3: within a pair,
 *                                     start = cumulative sum of the deltas,
 *                                     end = start + duration)
 *   events/thread_ids                 integer[E] (optional)
 *   events/call_ids, parent_ids       int64[E]   (optional, both or neither:
 *                                     ids unique within a rank, -1 = none;
 *                                     they define the call tree)
 *
 * The aggregate layout (@storage_layout = "aggregate") keeps no events:
 *   rank_region_index/{region_ids, ranks, aggregate_counts}  as above
 *                     aggregate_totals, aggregate_minimums,  int64[P], ns (each
 *                     aggregate_maximums,                    optional): per pair the
 *                     aggregate_exclusives                   sum, shortest, longest
 *                                                            and exclusive time
 * and is read as count-only pairs (calls, no stamps) whose stored figures
 * sp_reader_aggregate() gives; a column that is absent, of another length
 * or unreadable, and a negative value, leave that figure unknown.
 *
 * The pairs become the reader's (region, rank) records, so everything above
 * the reader works unchanged; a pair's arrays are read as hyperslabs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"

int sp__columnar_detect(const sp_reader_t *r, hid_t file) {
  char *layout = sp__attr_string(r, file, "storage_layout");
  int yes = layout && strcmp(layout, "columnar") == 0;
  free(layout);
  return yes || H5Lexists(file, SP_AGG_RANK_PAIRS, H5P_DEFAULT) > 0;
}

/* Opens the dataset path ("group/name") only through links inside the file
 * and checks that its stored bytes back its declared length (reader_guard.c).
 * Returns the dataset with its length in *n; -1 when absent or not 1-D
 * (*err 0), or -1 with *err < 0 and the message set when refused. */
static hid_t sp_col_open(sp_reader_t *r, const char *path, int64_t *n, int *err) {
  char group[64];
  const char *slash = strchr(path, '/');
  size_t glen = slash ? (size_t)(slash - path) : 0;
  *err = 0;
  *n = -1;
  if (!slash || glen >= sizeof group) return -1;
  memcpy(group, path, glen);
  group[glen] = '\0';
  int kg = sp__link_kind(r->file, group);
  int kd = kg == SP_LINK_LOCAL ? sp__link_kind(r->file, path) : SP_LINK_NONE;
  if (kg == SP_LINK_FOREIGN || kd == SP_LINK_FOREIGN) {
    *err = sp__reader_fail(r, SP_READER_ELAYOUT, "%s is a link to another file: not followed",
                           kg == SP_LINK_FOREIGN ? group : path);
    return -1;
  }
  if (kd != SP_LINK_LOCAL) return -1;
  hid_t d = H5Dopen2(r->file, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  hid_t t = H5Dget_type(d);
  hsize_t dims[1] = {0};
  int ok = s >= 0 && t >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, dims, NULL) == 1;
  if (ok) {
    *n = dims[0] > (hsize_t)INT64_MAX ? INT64_MAX : (int64_t)dims[0];
    *err = sp__dataset_size_check(r, d, group, slash + 1, *n, H5Tget_size(t));
  }
  if (s >= 0) H5Sclose(s);
  if (t >= 0) H5Tclose(t);
  if (!ok || *err) {
    H5Dclose(d);
    *n = -1;
    return -1;
  }
  return d;
}

/* Length of the 1-D dataset path: -1 when absent or not 1-D, -2 when
 * refused (the error is in *err and the message). */
static int64_t sp_length(sp_reader_t *r, const char *path, int *err) {
  int64_t n;
  hid_t d = sp_col_open(r, path, &n, err);
  if (d >= 0) H5Dclose(d);
  return *err ? -2 : n;
}

/* Reads the integer dataset path (n elements) as int64. */
static int sp_read_i64(sp_reader_t *r, const char *path, int64_t n, int64_t **out) {
  *out = NULL;
  if (sp__memory_check(n, sizeof **out) != 0) return SP_READER_ENOMEM;
  *out = malloc((size_t)(n ? n : 1) * sizeof **out);
  if (!*out) return SP_READER_ENOMEM;
  int64_t len;
  int err;
  hid_t d = sp_col_open(r, path, &len, &err);
  hid_t t = d >= 0 ? H5Dget_type(d) : -1;
  int rc =
      t >= 0 && len == n && H5Tget_class(t) == H5T_INTEGER &&
              (n == 0 || H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) >= 0)
          ? 0
          : SP_READER_ELAYOUT;
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return err ? err : rc;
}

/* region_table/names as malloc'd strings (variable or fixed length). */
static int sp_read_names(sp_reader_t *r, int64_t n, char ***out) {
  *out = NULL;
  if (sp__memory_check(n, sizeof(char *)) != 0) return SP_READER_ENOMEM;
  *out = calloc((size_t)(n ? n : 1), sizeof **out);
  if (!*out) return SP_READER_ENOMEM;
  int64_t len;
  int err;
  hid_t d = sp_col_open(r, SP_AGG_REGION_TABLE "/" SP_AGG_NAMES, &len, &err);
  if (err) return err;
  hid_t t = d >= 0 ? H5Dget_type(d) : -1;
  int rc = t >= 0 && H5Tget_class(t) == H5T_STRING ? 0 : SP_READER_ELAYOUT;
  hid_t mt = H5Tcopy(H5T_C_S1);
  if (rc == 0 && H5Tis_variable_str(t) > 0) rc = sp__gheap_guard(r); /* strings: the heap */
  if (rc == 0 && H5Tis_variable_str(t) > 0) {
    char **v = calloc((size_t)(n ? n : 1), sizeof *v);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(t));
    if (!v || (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)) rc = SP_READER_ELAYOUT;
    for (int64_t i = 0; v && i < n; i++) {
      if (rc == 0) (*out)[i] = strdup(v[i] ? v[i] : "");
      if (rc == 0 && !(*out)[i]) rc = SP_READER_ENOMEM;
      if (v[i]) H5free_memory(v[i]);
    }
    free(v);
  } else if (rc == 0) {
    size_t sz = H5Tget_size(t);
    char *buf = sp__memory_check(n, sz + 1) != 0 ? NULL : calloc((size_t)(n ? n : 1), sz + 1);
    H5Tset_size(mt, sz + 1);
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    H5Tset_cset(mt, H5Tget_cset(t)); /* no conversion between ASCII and UTF-8 */
    if (!buf || (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0))
      rc = SP_READER_ELAYOUT;
    for (int64_t i = 0; rc == 0 && i < n; i++)
      if (!((*out)[i] = strdup(buf + (size_t)i * (sz + 1)))) rc = SP_READER_ENOMEM;
    free(buf);
  }
  H5Tclose(mt);
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* The index of one file: four columns of P pairs. */
typedef struct sp_index {
  int64_t *region, *rank, *offset, *count;
  int64_t *agg[4]; /* aggregate layout: totals, minimums, maximums, exclusives; NULL if absent */
  int64_t npairs, nevents, nnames;
  char **names;
} sp_index_t;

static void sp_index_free(sp_index_t *x) {
  free(x->region);
  free(x->rank);
  free(x->offset);
  free(x->count);
  for (int c = 0; c < 4; c++) free(x->agg[c]);
  for (int64_t i = 0; x->names && i < x->nnames; i++) free(x->names[i]);
  free(x->names);
}

/* The aggregate layout's optional figures: a column that is absent, of
 * another length than the index or unreadable stays unknown (NULL). */
static void sp_agg_read(sp_reader_t *r, sp_index_t *x) {
  static const char *const cols[4] = {SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_TOTALS,
                                      SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_MINIMUMS,
                                      SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_MAXIMUMS,
                                      SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_EXCLUSIVES};
  for (int c = 0; c < 4; c++) {
    int err = 0;
    if (sp_length(r, cols[c], &err) != x->npairs || err ||
        sp_read_i64(r, cols[c], x->npairs, &x->agg[c]) != 0) {
      free(x->agg[c]);
      x->agg[c] = NULL;
    }
  }
  r->errmsg[0] = '\0'; /* an unknown figure is not an error */
}

static int sp_index_read(sp_reader_t *r, const char *path, sp_index_t *x) {
  static const char *const cols[4] = {
      SP_AGG_RANK_PAIRS "/" SP_AGG_REGION_IDS, SP_AGG_RANK_PAIRS "/" SP_AGG_RANKS,
      SP_AGG_RANK_PAIRS "/" SP_AGG_EVENT_OFFSETS, SP_AGG_RANK_PAIRS "/" SP_AGG_EVENT_COUNTS};
  static const char *const agg[4] = {SP_AGG_RANK_PAIRS "/" SP_AGG_REGION_IDS,
                                     SP_AGG_RANK_PAIRS "/" SP_AGG_RANKS,
                                     SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_COUNTS,
                                     SP_AGG_RANK_PAIRS "/" SP_AGG_REF_PREFIX SP_AGG_COUNTS};
  const char *const *col = r->aggregate ? agg : cols;
  int64_t **dst[4] = {&x->region, &x->rank, &x->offset, &x->count};
  int err = 0;
  x->npairs = sp_length(r, col[0], &err);
  if (!err) x->nnames = sp_length(r, SP_AGG_REGION_TABLE "/" SP_AGG_NAMES, &err);
  if (!err && !r->aggregate)
    x->nevents = sp_length(r, r->deltas ? "events/start_deltas" : "events/start_times", &err);
  int64_t ne2 = err || r->aggregate
                    ? x->nevents
                    : sp_length(r, r->deltas ? "events/durations" : "events/end_times", &err);
  if (err) return err;
  if (x->npairs < 0 || x->nnames < 0 || x->nevents < 0 || ne2 != x->nevents)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s: columnar layout (schema %d) without a consistent region_table, "
                           "rank_region_index and events group",
                           path, r->schema);
  for (int c = 0; c < 4; c++) {
    int64_t len = sp_length(r, col[c], &err);
    if (err) return err;
    if (len != x->npairs)
      return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %s missing or of another length", path,
                             col[c]);
    int rc = sp_read_i64(r, col[c], x->npairs, dst[c]);
    if (rc && rc != SP_READER_ENOMEM && rc != SP_READER_ELAYOUT) return rc;
    if (rc) return sp__reader_fail(r, rc, "%s: %s: cannot read as integers", path, col[c]);
  }
  if (r->aggregate) /* counts, no events: every row points at nothing */
    for (int64_t p = 0; p < x->npairs; p++) x->offset[p] = 0;
  if (r->aggregate) sp_agg_read(r, x);
  int rc = sp_read_names(r, x->nnames, &x->names);
  if (rc) return sp__reader_fail(r, rc, "%s: region_table/names: cannot read as strings", path);
  for (int64_t p = 0; p < x->npairs; p++)
    if (x->region[p] < 0 || x->region[p] >= x->nnames || x->rank[p] < 0 || x->rank[p] > 999999999 ||
        x->offset[p] < 0 || x->count[p] < 0 ||
        (!r->aggregate && x->offset[p] > x->nevents - x->count[p]))
      return sp__reader_fail(r, SP_READER_ELAYOUT,
                             "%s: rank_region_index row %lld points outside the tables", path,
                             (long long)p);
  return 0;
}

static int sp_id_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The ranks: the distinct rank ids of the index, ascending; in files of
 * ours, which keep a row per rank in rank_info (c/src/write/columnar_write.c),
 * 0 to that length - 1 when it covers them all, so that a rank that
 * recorded nothing (no index row) is still a rank, as its empty rank<N>
 * group is in the per-rank layout. */
static int sp_columnar_ranks(sp_reader_t *r, const sp_index_t *x) {
  int err = 0;
  int64_t size = sp__link_kind(r->file, "rank_info") == SP_LINK_LOCAL
                     ? sp_length(r, "rank_info/hostnames", &err)
                     : 0;
  if (err) return err;
  if (size < 1 || size > 999999999) size = 0;
  for (int64_t p = 0; size > 0 && p < x->npairs; p++)
    if (x->rank[p] >= size) size = 0;
  if (size > 0 && sp__memory_check(size, sizeof *r->ranks) != 0) size = 0;
  int *ids = malloc((size_t)(x->npairs ? x->npairs : 1) * sizeof *ids);
  r->ranks = calloc((size_t)(x->npairs > size ? x->npairs : size ? size : 1), sizeof *r->ranks);
  if (!ids || !r->ranks) {
    free(ids);
    return SP_READER_ENOMEM;
  }
  int sorted = 1;
  for (int64_t p = 0; p < x->npairs; p++) {
    ids[p] = (int)x->rank[p];
    sorted &= p == 0 || ids[p] >= ids[p - 1];
  }
  if (!sorted) /* the reference tool writes rank after rank: no sort then */
    qsort(ids, (size_t)x->npairs, sizeof *ids, sp_id_cmp);
  for (int64_t p = 0; size == 0 && p < x->npairs; p++)
    if (p == 0 || ids[p] != ids[p - 1]) {
      r->ranks[r->nranks].id = ids[p];
      r->ranks[r->nranks++].regions_gid = -1;
    }
  for (int64_t k = 0; k < size; k++) {
    r->ranks[r->nranks].id = (int)k;
    r->ranks[r->nranks++].regions_gid = -1;
  }
  free(ids);
  return 0;
}

/* First start of pair p: its first stored start (the first delta in schema
 * 3), through the page cache: the pairs are visited in file order. */
static int sp_pair_first(sp_reader_t *r, int64_t offset, int64_t count, int64_t *first) {
  *first = INT64_MAX;
  return count == 0 ? 0 : sp__colcache_read(r, 0, offset, 1, first);
}

typedef struct sp_pair_key {
  int64_t rank, region, p;
} sp_pair_key_t;

static int sp_pair_key_cmp(const void *a, const void *b) {
  const sp_pair_key_t *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->region != y->region) return x->region < y->region ? -1 : 1;
  return (x->p > y->p) - (x->p < y->p);
}

/* The first index row (in file order) whose (rank, region) an earlier row
 * has: -1 when none, -2 without memory. Sorted, so that a file of many
 * regions is checked in P log P, not P x regions per rank. */
static int64_t sp_pair_twice(const sp_index_t *x) {
  int64_t q = 1; /* rows in strictly increasing (rank, region) order have no pair twice */
  while (q < x->npairs && (x->rank[q] > x->rank[q - 1] ||
                           (x->rank[q] == x->rank[q - 1] && x->region[q] > x->region[q - 1])))
    q++;
  if (q >= x->npairs) return -1;
  sp_pair_key_t *k = malloc((size_t)(x->npairs ? x->npairs : 1) * sizeof *k);
  if (!k) return -2;
  for (int64_t p = 0; p < x->npairs; p++) k[p] = (sp_pair_key_t){x->rank[p], x->region[p], p};
  qsort(k, (size_t)x->npairs, sizeof *k, sp_pair_key_cmp);
  int64_t first = -1;
  for (int64_t i = 1; i < x->npairs; i++)
    if (k[i].rank == k[i - 1].rank && k[i].region == k[i - 1].region &&
        (i < 2 || k[i - 2].rank != k[i].rank || k[i - 2].region != k[i].region) &&
        (first < 0 || k[i].p < first))
      first = k[i].p; /* the second of its group in file order */
  free(k);
  return first;
}

/* The rank index of row p: the previous row's when it is of the same rank
 * (rows come rank after rank), else a search. */
static int sp_rank_of(const sp_reader_t *r, const sp_index_t *x, int64_t p, int *last) {
  if (*last >= 0 && r->ranks[*last].id == (int)x->rank[p]) return *last;
  return *last = sp_reader_rank_index(r, (int)x->rank[p]);
}

/* One record per index row, on its rank; names interned by region id. */
static int sp_columnar_pairs(sp_reader_t *r, const char *path, sp_index_t *x) {
  r->regions = calloc((size_t)(x->nnames ? x->nnames : 1), sizeof *r->regions);
  if (!r->regions) return SP_READER_ENOMEM;
  for (int64_t g = 0; g < x->nnames; g++) {
    r->regions[g].name = x->names[g];
    x->names[g] = NULL;
    r->regions[g].first_start = INT64_MAX;
    r->regions[g].first_start_raw = INT64_MAX; /* no clock offsets in this layout */
    r->regions[g].old = (int)g;
  }
  r->nregions = (int)x->nnames;
  /* Records per rank: counted first, so memory follows the index. */
  int *per = calloc((size_t)(r->nranks ? r->nranks : 1), sizeof *per), last = -1;
  if (!per) return SP_READER_ENOMEM;
  for (int64_t p = 0; p < x->npairs; p++) per[sp_rank_of(r, x, p, &last)]++;
  for (int k = 0; k < r->nranks; k++) {
    r->ranks[k].regions = calloc((size_t)(per[k] ? per[k] : 1), sizeof(sp_rank_region_t));
    if (!r->ranks[k].regions) {
      free(per);
      return SP_READER_ENOMEM;
    }
  }
  free(per);
  int64_t twice = sp_pair_twice(x);
  if (twice == -2) return SP_READER_ENOMEM;
  if (twice >= 0)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: region '%s' listed twice for rank %d", path,
                           r->regions[x->region[twice]].name, (int)x->rank[twice]);
  for (int64_t p = 0; p < x->npairs; p++) {
    sp_rank_t *rk = &r->ranks[sp_rank_of(r, x, p, &last)];
    sp_rank_region_t *rr = &rk->regions[rk->nregions++];
    rr->region = (int)x->region[p];
    rr->link = NULL; /* no group per pair: 5 million strdup'd names were 5% of the memory */
    rr->has_times = !r->aggregate;
    rr->has_tid = r->col[2] >= 0;
    rr->num_calls = x->count[p];
    rr->n = r->aggregate ? 0 : x->count[p];
    rr->offset = x->offset[p];
    for (int c = 0; r->aggregate && c < 4; c++) {
      /* min and max of no call mean nothing; a negative time is damage */
      int known = x->agg[c] && x->agg[c][p] >= 0 && (x->count[p] > 0 || c == 0 || c == 3);
      rr->agg[c] = known ? x->agg[c][p] : 0;
      rr->agg_have |= known ? 1u << c : 0u;
    }
    if (sp_pair_first(r, rr->offset, rr->n, &rr->first_start) < 0)
      return sp__reader_fail(r, SP_READER_EHDF5, "%s: events: read failed (truncated file?)", path);
    if (rr->first_start < r->regions[rr->region].first_start)
      r->regions[rr->region].first_start = r->regions[rr->region].first_start_raw = rr->first_start;
  }
  return 0;
}

/* Opens events/call_ids and events/parent_ids when both hold one id per event. */
static int sp_ids_open(sp_reader_t *r, int64_t nevents) {
  int64_t n3 = -1, n4 = -1;
  int e3 = 0, e4 = 0;
  r->col[3] = sp_col_open(r, "events/call_ids", &n3, &e3);
  r->col[4] = e3 ? -1 : sp_col_open(r, "events/parent_ids", &n4, &e4);
  if (r->col[3] < 0 || r->col[4] < 0 || n3 != nevents || n4 != nevents) {
    for (int c = 3; c < 5; c++)
      if (r->col[c] >= 0) H5Dclose(r->col[c]);
    r->col[3] = r->col[4] = -1;
  }
  return e3 ? e3 : e4;
}

/* Notes column c's length and, when plain, its offset for pread
 * (reader_direct.c), for the page cache (reader_colcache.c). */
static void sp_col_note(sp_reader_t *r, int c, int64_t nevents) {
  r->col_len[c] = r->col[c] >= 0 ? nevents : 0;
  r->col_addr[c] = 0;
  hid_t t = r->col[c] >= 0 ? H5Dget_type(r->col[c]) : -1;
  if (t >= 0)
    r->col_addr[c] = sp__direct_addr(r, r->col[c], t, c == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64,
                                     nevents, c == 2 ? 4 : 8);
  if (t >= 0) H5Tclose(t);
}

int sp__columnar_open(sp_reader_t *r, const char *path) {
  r->columnar = 1;
  char *layout = sp__attr_string(r, r->file, "storage_layout");
  r->aggregate = layout && strcmp(layout, "aggregate") == 0;
  free(layout);
  r->deltas = sp__link_kind(r->file, "events") == SP_LINK_LOCAL &&
              sp__link_kind(r->file, "events/start_deltas") != SP_LINK_NONE;
  const char *a = r->deltas ? "events/start_deltas" : "events/start_times";
  const char *b = r->deltas ? "events/durations" : "events/end_times";
  r->col[0] = r->col[1] = r->col[2] = -1;
  sp_index_t x;
  memset(&x, 0, sizeof x);
  int rc = sp_index_read(r, path, &x);
  if (rc == 0 && !r->aggregate) {
    int64_t n0, n1, n2;
    int e0, e1, e2;
    r->col[0] = sp_col_open(r, a, &n0, &e0);
    r->col[1] = e0 ? -1 : sp_col_open(r, b, &n1, &e1);
    r->col[2] = e0 || e1 ? -1 : sp_col_open(r, "events/thread_ids", &n2, &e2);
    if (r->col[2] >= 0 && n2 != x.nevents) {
      H5Dclose(r->col[2]);
      r->col[2] = -1;
    }
    int e3 = e0 || e1 || e2 ? 0 : sp_ids_open(r, x.nevents);
    for (int c = 0; c < 5; c++) sp_col_note(r, c, x.nevents);
    if (e0 || e1 || e2 || e3)
      rc = e0 ? e0 : e1 ? e1 : e2 ? e2 : e3;
    else if (r->col[0] < 0 || r->col[1] < 0)
      rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: cannot open the events columns", path);
  }
  if (rc == 0) rc = sp_columnar_ranks(r, &x);
  if (rc == 0 && r->nranks == 0)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: columnar layout with no rank_region_index rows",
                         path);
  if (rc == 0) rc = sp_columnar_pairs(r, path, &x);
  if (rc == 0) rc = sp__likwid_columnar_open(r);
  sp_index_free(&x);
  return rc;
}

/* Reads n elements from offset of column c into a new buffer (int64, or
 * int32 for the thread ids), through the page cache. */
static int sp_read_slab(sp_reader_t *r, int c, int64_t offset, int64_t n, void **out) {
  size_t elem = c == 2 ? 4 : 8;
  /* A pair's few calls need no check against physical memory (a system
   * call each: 15% of --summary on 500,000 pairs). */
  *out = n < ((int64_t)1 << 16) || sp__memory_check(n, elem) == 0
             ? malloc((size_t)(n ? n : 1) * elem)
             : NULL;
  if (!*out) return SP_READER_ENOMEM;
  return sp__colcache_read(r, c, offset, n, *out) < 0 ? SP_READER_EHDF5 : 0;
}

int sp__columnar_read(sp_reader_t *r, const sp_rank_region_t *rr, sp_reader_intervals_t *out) {
  void *a = NULL, *b = NULL, *t = NULL, *ci = NULL, *pi = NULL;
  int rc = sp_read_slab(r, 0, rr->offset, rr->n, &a);
  if (rc == 0) rc = sp_read_slab(r, 1, rr->offset, rr->n, &b);
  if (rc == 0 && r->col[2] >= 0) rc = sp_read_slab(r, 2, rr->offset, rr->n, &t);
  if (rc == 0 && r->col[3] >= 0) rc = sp_read_slab(r, 3, rr->offset, rr->n, &ci);
  if (rc == 0 && r->col[4] >= 0) rc = sp_read_slab(r, 4, rr->offset, rr->n, &pi);
  if (rc) {
    free(a);
    free(b);
    free(t);
    free(ci);
    free(pi);
    return rc;
  }
  out->call_ids = ci;
  out->parent_ids = pi;
  int64_t *s = a, *e = b;
  if (r->deltas) {
    /* Wrapping unsigned sums: a damaged file gives wrong stamps, never UB. */
    uint64_t acc = 0;
    for (int64_t i = 0; i < rr->n; i++) {
      acc += (uint64_t)s[i];
      s[i] = (int64_t)acc;
      e[i] = (int64_t)(acc + (uint64_t)e[i]);
    }
  }
  out->start = s;
  out->end = e;
  out->thread_ids = t;
  out->n = rr->n;
  return 0;
}

int sp__columnar_read_ids(sp_reader_t *r, int g, int k, int64_t *n, int64_t **call_ids,
                          int64_t **parent_ids) {
  *n = 0;
  *call_ids = NULL;
  if (parent_ids) *parent_ids = NULL;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!r->columnar || r->col[3] < 0 || r->col[4] < 0 || !rr || !rr->has_times || rr->n == 0)
    return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  void *ci = NULL, *pi = NULL;
  int rc = sp_read_slab(r, 3, rr->offset, rr->n, &ci);
  if (rc == 0 && parent_ids) rc = sp_read_slab(r, 4, rr->offset, rr->n, &pi);
  sp__h5_quiet_end(&q);
  if (rc) {
    free(ci);
    free(pi);
    return rc;
  }
  *n = rr->n;
  *call_ids = ci;
  if (parent_ids) *parent_ids = pi;
  return 0;
}

void sp__columnar_close(sp_reader_t *r) {
  sp__colcache_free(r);
  for (int c = 0; r->columnar && c < 5; c++)
    if (r->col[c] >= 0) H5Dclose(r->col[c]);
}
