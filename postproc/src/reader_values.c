/* reader_values.c - values per call (sp_call_set*; docs/values.md).
 *
 * Trace mode, per-rank layout:
 *   rank<N>/regions/<link>/call_values/<key link>  one value per call, in
 *     the order of start_times: int64 (INT64_MIN: not set), float64 (NaN)
 *     or UTF-8 strings (""); @key the key; @values_lost on call_values.
 * Columnar layout: call_values/<key link> at the root, E values aligned
 *   with events/ columns, a pair's from its event offset.
 * Profile mode: call_path_values/{rows, keys, counts, sums, minimums,
 *   maximums}, one row per (call_paths row, key); a file reduced across
 *   ranks: reduced_path_values/ with paths (rows of reduced_paths).
 *
 * Read on demand, one (region, rank) pair at a time like the intervals, so
 * a program going pair by pair needs memory for the largest pair only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"

#define SP_VAL_GROUP "call_values"
#define SP_VAL_LOST "values_lost"
#define SP_VAL_MAX_KEYS 4096 /* far above the writer's 64 per region */
#define SP_PV_GROUP "call_path_values"
#define SP_PV_MAX_ROWS ((int64_t)1 << 26)

static void sp_val_key_free(sp_reader_value_key_t *c, int64_t n) {
  free(c->key);
  free(c->ints);
  free(c->reals);
  for (int64_t e = 0; c->strings && e < n; e++) free(c->strings[e]);
  free(c->strings);
  memset(c, 0, sizeof *c);
}

void sp_reader_values_free(sp_reader_values_t *v) {
  if (!v) return;
  /* A key whose read failed is counted too (sp_val_group): freed here. */
  for (int i = 0; v->keys && i < v->nkeys; i++) sp_val_key_free(&v->keys[i], v->n);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

/* n values of dataset d from element off as kind into c; 0 or -1. */
static int sp_val_read(hid_t d, int kind, int64_t off, int64_t n, sp_reader_value_key_t *c) {
  hid_t fs = H5Dget_space(d);
  hsize_t start[1] = {(hsize_t)off}, cnt[1] = {(hsize_t)(n ? n : 1)};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  int ok = fs >= 0 && ms >= 0 &&
           (n == 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0);
  size_t cells = (size_t)n + 1;
  if (ok && kind == SP_READER_VALUE_INT) {
    ok = (c->ints = malloc(cells * sizeof *c->ints)) != NULL &&
         (n == 0 || H5Dread(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, c->ints) >= 0);
  } else if (ok && kind == SP_READER_VALUE_REAL) {
    ok = (c->reals = malloc(cells * sizeof *c->reals)) != NULL &&
         (n == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, c->reals) >= 0);
  } else if (ok) {
    hid_t ft = H5Dget_type(d);
    int vlen = ft >= 0 && H5Tis_variable_str(ft) > 0;
    size_t sz = vlen || ft < 0 ? sizeof(char *) : H5Tget_size(ft) + 1;
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, vlen ? H5T_VARIABLE : sz);
    if (ft >= 0) H5Tset_cset(mt, H5Tget_cset(ft));
    char *buf = calloc(cells, sz);
    c->strings = calloc(cells, sizeof *c->strings);
    ok = ft >= 0 && buf && c->strings && (n == 0 || H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf) >= 0);
    for (int64_t e = 0; ok && e < n; e++) {
      const char *s = vlen ? ((char **)(void *)buf)[e] : buf + (size_t)e * sz;
      ok = (c->strings[e] = strdup(s ? s : "")) != NULL;
    }
    if (vlen && buf && ft >= 0 && n > 0)
      for (int64_t e = 0; e < n; e++) H5free_memory(((char **)(void *)buf)[e]);
    free(buf);
    H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
  }
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* SP_READER_VALUE_* of dataset d (1-D integer, float or string), its
 * length in *len; 0 for anything else. */
static int sp_val_kind(hid_t d, int64_t *len) {
  hid_t t = H5Dget_type(d), s = H5Dget_space(d);
  hsize_t n = 0;
  int ok = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &n, NULL) == 1 && sp__dataset_local(d);
  H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  *len = (int64_t)n;
  if (!ok) return 0;
  return cls == H5T_INTEGER  ? SP_READER_VALUE_INT
         : cls == H5T_FLOAT  ? SP_READER_VALUE_REAL
         : cls == H5T_STRING ? SP_READER_VALUE_STRING
                             : 0;
}

/* 1 when call e of c holds a value. */
int sp_reader_value_set(const sp_reader_value_key_t *c, int64_t e) {
  if (!c || e < 0) return 0;
  if (c->kind == SP_READER_VALUE_INT) return c->ints[e] != INT64_MIN;
  if (c->kind == SP_READER_VALUE_REAL) return !isnan(c->reals[e]);
  return c->strings[e] && c->strings[e][0] != '\0';
}

/* Reads every key dataset of group cv (n calls from element off; len: the
 * length each must have) into out. Keys no call of the slice sets are
 * dropped (the columnar layout has every key's column for every pair). */
static int sp_val_group(sp_reader_t *r, hid_t cv, const char *where, int64_t off, int64_t n,
                        int64_t len, sp_reader_values_t *out) {
  H5G_info_t gi;
  if (H5Gget_info(cv, &gi) < 0) return sp__reader_fail(r, SP_READER_EHDF5, "%s: unreadable", where);
  if (gi.nlinks > SP_VAL_MAX_KEYS)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %llu keys is too many", where,
                           (unsigned long long)gi.nlinks);
  hsize_t got = 0;
  char **names = gi.nlinks ? sp__link_names(cv, gi.nlinks, &got) : NULL;
  out->keys = calloc((size_t)got + 1, sizeof *out->keys);
  if (!out->keys) {
    sp__names_free(names, got);
    return sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  }
  out->n = n;
  int rc = 0;
  for (hsize_t i = 0; rc == 0 && i < got; i++) {
    if (sp__link_kind(cv, names[i]) != SP_LINK_LOCAL) continue;
    hid_t d = H5Dopen2(cv, names[i], H5P_DEFAULT);
    if (d < 0) continue; /* a group or other object: not a key */
    /* Strings (or a type holding heap IDs): the global heap's check first. */
    if ((rc = sp__gheap_dataset_guard(r, d)) != 0) {
      H5Dclose(d);
      break;
    }
    int64_t dlen = 0;
    int kind = sp_val_kind(d, &dlen);
    sp_reader_value_key_t *c = &out->keys[out->nkeys];
    if (kind && dlen != len)
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s: %lld values for %lld calls", where,
                           names[i], (long long)dlen, (long long)len);
    else if (kind) {
      c->kind = kind;
      c->key = sp__attr_string(r, d, "key");
      if (!c->key && (c->key = malloc(strlen(names[i]) + 1)) != NULL)
        sp_reader_name_decode(names[i], c->key, strlen(names[i]) + 1);
      if (!c->key || sp_val_read(d, kind, off, n, c) < 0)
        rc = sp__reader_fail(r, SP_READER_EHDF5, "%s/%s: read failed", where, names[i]);
      int any = 0;
      for (int64_t e = 0; rc == 0 && e < n && !any; e++) any = sp_reader_value_set(c, e);
      out->nkeys++;
      if (rc == 0 && !any) { /* set by no call of the slice: dropped */
        sp_val_key_free(c, n);
        out->nkeys--;
      }
    }
    H5Dclose(d);
  }
  sp__names_free(names, got);
  return rc;
}

static int sp_val_rows(sp_reader_t *r, int k, const sp_rank_region_t *rr, sp_reader_values_t *out) {
  char where[600];
  snprintf(where, sizeof where, "rank%d/regions/%s/" SP_VAL_GROUP, r->ranks[k].id, rr->link);
  hid_t g = sp__reader_open_region(r, k, rr);
  if (g < 0) return 0;
  int kind = sp__link_kind(g, SP_VAL_GROUP), rc = 0;
  if (kind == SP_LINK_FOREIGN)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s is a link to another file: not followed", where);
  hid_t cv = kind == SP_LINK_LOCAL ? H5Gopen2(g, SP_VAL_GROUP, H5P_DEFAULT) : -1;
  if (cv >= 0) {
    out->present = 1;
    if (H5Aexists(cv, SP_VAL_LOST) > 0) {
      hid_t a = H5Aopen(cv, SP_VAL_LOST, H5P_DEFAULT);
      if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &out->lost) < 0) out->lost = 0;
      if (a >= 0) H5Aclose(a);
    }
    rc = sp_val_group(r, cv, where, 0, rr->n, rr->n, out);
    H5Gclose(cv);
  }
  H5Gclose(g);
  return rc;
}

static int sp_val_columnar(sp_reader_t *r, const sp_rank_region_t *rr, sp_reader_values_t *out) {
  if (sp__link_kind(r->file, SP_VAL_GROUP) != SP_LINK_LOCAL) return 0;
  hid_t cv = H5Gopen2(r->file, SP_VAL_GROUP, H5P_DEFAULT);
  if (cv < 0) return 0;
  int rc = sp_val_group(r, cv, SP_VAL_GROUP, rr->offset, rr->n, r->col_len[0], out);
  out->present = rc == 0 && out->nkeys > 0;
  H5Gclose(cv);
  return rc;
}

int sp_reader_values_load(sp_reader_t *r, int g, int k, sp_reader_values_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || r->aggregate) return 0;
  if (sp__memory_check(rr->n, sizeof(char *) + 16) < 0)
    return sp__reader_fail(r, SP_READER_ENOMEM, "values of %lld calls: out of memory",
                           (long long)rr->n);
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = r->columnar ? sp_val_columnar(r, rr, out) : sp_val_rows(r, k, rr, out);
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_values_free(out);
  return rc;
}

/* ---- profile mode: call_path_values ---- */

void sp_reader_path_values_free(sp_reader_path_values_t *pv) {
  if (!pv) return;
  for (int64_t i = 0; pv->keys && i < pv->n; i++) free(pv->keys[i]);
  free(pv->keys);
  free(pv->region);
  free(pv->rank);
  free(pv->thread);
  free(pv->row);
  free(pv->counts);
  free(pv->sums);
  free(pv->mins);
  free(pv->maxs);
  free(pv->path_parent);
  free(pv->path_region);
  memset(pv, 0, sizeof *pv);
}

/* n strings of the 1-D string dataset path, malloc'd; NULL on failure. */
static char **sp_pv_strings(hid_t file, const char *path, int64_t n) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return NULL;
  sp_reader_value_key_t c = {0};
  int kind = 0;
  int64_t len = 0;
  kind = sp_val_kind(d, &len);
  int ok = kind == SP_READER_VALUE_STRING && len == n && sp_val_read(d, kind, 0, n, &c) == 0;
  H5Dclose(d);
  if (!ok) {
    for (int64_t e = 0; c.strings && e < n; e++) free(c.strings[e]);
    free(c.strings);
    return NULL;
  }
  return c.strings;
}

/* The reader's region index of each region_table row (-1: none). */
static int32_t *sp_pv_region_map(sp_reader_t *r, int64_t *nnames) {
  const char *path = SP_AGG_REGION_TABLE "/" SP_AGG_NAMES;
  int64_t n = sp__agg_col_len(r->file, path, SP_PV_MAX_ROWS);
  char **names = n > 0 ? sp_pv_strings(r->file, path, n) : NULL;
  int32_t *map = names ? malloc((size_t)n * sizeof *map) : NULL;
  for (int64_t i = 0; map && i < n; i++) {
    map[i] = -1;
    for (int g = 0; g < r->nregions && map[i] < 0; g++)
      if (!strcmp(r->regions[g].name, names[i])) map[i] = g;
  }
  for (int64_t i = 0; names && i < n; i++) free(names[i]);
  free(names);
  *nnames = map ? n : 0;
  return map;
}

/* The call path table of out's group: region and parent of each row
 * (call_paths/ or reduced_paths/), and for call_paths/ its rank and thread
 * (pr, pt: NULL for reduced_paths/, whose paths are over every rank). */
static int sp_pv_paths(sp_reader_t *r, const char *table, sp_reader_path_values_t *out,
                       int64_t **pr, int64_t **pt) {
  char path[96];
  snprintf(path, sizeof path, "%s/%s", table, SP_AGG_REGION_IDS);
  int64_t n = sp__agg_col_len(r->file, path, SP_PV_MAX_ROWS);
  if (n < 0) return -1;
  int64_t nnames = 0;
  int32_t *map = sp_pv_region_map(r, &nnames);
  int64_t *pg = sp__agg_col_read(r->file, path, n);
  snprintf(path, sizeof path, "%s/%s", table, SP_AGG_PARENTS);
  out->path_parent = sp__agg_col_len(r->file, path, SP_PV_MAX_ROWS) == n
                         ? sp__agg_col_read(r->file, path, n)
                         : NULL;
  out->path_region = malloc((size_t)(n ? n : 1) * sizeof *out->path_region);
  out->npaths = n;
  int ok = map && pg && out->path_parent && out->path_region;
  for (int64_t p = 0; ok && p < n; p++) {
    ok = pg[p] >= 0 && pg[p] < nnames && out->path_parent[p] >= -1 && out->path_parent[p] < n;
    if (ok) out->path_region[p] = map[pg[p]];
  }
  if (ok && pr) {
    snprintf(path, sizeof path, "%s/%s", table, SP_AGG_RANKS);
    *pr = sp__agg_col_len(r->file, path, SP_PV_MAX_ROWS) == n ? sp__agg_col_read(r->file, path, n)
                                                              : NULL;
    snprintf(path, sizeof path, "%s/%s", table, SP_AGG_THREADS);
    *pt = sp__agg_col_len(r->file, path, SP_PV_MAX_ROWS) == n ? sp__agg_col_read(r->file, path, n)
                                                              : NULL;
    ok = *pr != NULL;
  }
  free(map);
  free(pg);
  return ok ? 0 : -1;
}

/* Loads group (its rows naming rows of table in column rowname) into out:
 * call_path_values/ of call_paths/, or a reduced file's
 * reduced_path_values/ of reduced_paths/. */
static int sp_pv_group(sp_reader_t *r, const char *group, const char *rowname, const char *table,
                       int reduced, sp_reader_path_values_t *out) {
  const char *names[6] = {rowname,         SP_AGG_VAL_KEYS, SP_AGG_COUNTS,
                          SP_AGG_VAL_SUMS, SP_AGG_MINIMUMS, SP_AGG_MAXIMUMS};
  char cols[6][96];
  for (int c = 0; c < 6; c++) snprintf(cols[c], sizeof cols[c], "%s/%s", group, names[c]);
  int64_t n = sp__agg_col_len(r->file, cols[0], SP_PV_MAX_ROWS);
  for (int c = 1; n >= 0 && c < 6; c++)
    if (sp__agg_col_len(r->file, cols[c], SP_PV_MAX_ROWS) != n) n = -2;
  if (n == -2)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: columns missing or unequal", group);
  if (n <= 0) return 0;
  int64_t *pr = NULL, *pt = NULL;
  int rc = 0;
  out->reduced = reduced;
  if (sp_pv_paths(r, table, out, reduced ? NULL : &pr, reduced ? NULL : &pt) != 0)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %s/ missing or out of range", group, table);
  out->row = sp__agg_col_read(r->file, cols[0], n);
  out->counts = sp__agg_col_read(r->file, cols[2], n);
  out->sums = sp__agg_col_read_as(r->file, cols[3], H5T_NATIVE_DOUBLE, sizeof(double), n);
  out->mins = sp__agg_col_read_as(r->file, cols[4], H5T_NATIVE_DOUBLE, sizeof(double), n);
  out->maxs = sp__agg_col_read_as(r->file, cols[5], H5T_NATIVE_DOUBLE, sizeof(double), n);
  out->keys = sp_pv_strings(r->file, cols[1], n);
  out->region = malloc((size_t)n * sizeof *out->region);
  out->rank = malloc((size_t)n * sizeof *out->rank);
  out->thread = malloc((size_t)n * sizeof *out->thread);
  out->n = n;
  if (!rc && (!out->row || !out->counts || !out->sums || !out->mins || !out->maxs || !out->keys ||
              !out->region || !out->rank || !out->thread))
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: read failed", group);
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    int64_t p = out->row[i];
    if (p < 0 || p >= out->npaths) {
      rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s/%s[%lld] = %lld: no such path", group, rowname,
                           (long long)i, (long long)p);
    } else {
      out->region[i] = out->path_region[p];
      out->rank[i] = pr ? (int32_t)pr[p] : -1;
      out->thread[i] = reduced ? -1 : pt ? (int32_t)pt[p] : 0;
    }
  }
  if (!out->keys) out->n = 0;
  free(pr);
  free(pt);
  return rc;
}

int sp_reader_path_values_load(sp_reader_t *r, sp_reader_path_values_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  if (!r) return SP_READER_EINVAL;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  /* A file reduced across ranks (SCOPE_PROFILER_REDUCE=1) has no
   * call_path_values/: its values are per reduced path, over every rank. */
  int rc = H5Lexists(r->file, SP_PV_GROUP, H5P_DEFAULT) > 0
               ? sp_pv_group(r, SP_PV_GROUP, "rows", SP_AGG_PATHS, 0, out)
           : H5Lexists(r->file, SP_AGG_RED_PATH_VALUES, H5P_DEFAULT) > 0
               ? sp_pv_group(r, SP_AGG_RED_PATH_VALUES, SP_AGG_RED_PATH, SP_AGG_RED_PATHS, 1, out)
               : 0;
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_path_values_free(out);
  return rc ? rc : out->n > 0;
}
