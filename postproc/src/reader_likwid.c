/* reader_likwid.c - optional LIKWID results of a (region, rank) pair.
 *
 * Read on demand like the interval arrays: only the group name of each
 * rank is read at open time. Absent results are not an error (most files
 * have none); present ones are checked for shapes before anything is
 * allocated, so a damaged file cannot ask for absurd amounts of memory.
 *
 * A columnar file holds every rank's in likwid/ (the core's
 * likwid_columnar.c): the groups are read at open, a pair's row is found
 * by rank and region name (a pass over likwid/regions per pair: what a
 * summary of many ranks x regions with LIKWID costs is not measured). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Bounds on T and E: far above any machine or LIKWID group. */
#define SP_LW_MAX_THREADS (1 << 20)
#define SP_LW_MAX_EVENTS (1 << 12)

int sp_reader_likwid_num_ranks(const sp_reader_t *r) {
  int n = 0;
  for (int k = 0; r && k < r->nranks; k++) n += r->ranks[k].likwid_group != NULL;
  return n;
}

const char *sp_reader_likwid_group(const sp_reader_t *r, int k) {
  return (r && k >= 0 && k < r->nranks) ? r->ranks[k].likwid_group : NULL;
}

void sp_reader_likwid_free(sp_reader_likwid_t *lw) {
  if (!lw) return;
  for (int e = 0; lw->event_names && e < lw->nevents; e++) free(lw->event_names[e]);
  free(lw->event_names);
  free(lw->cpus);
  free(lw->counts);
  free(lw->times);
  free(lw->events);
  memset(lw, 0, sizeof *lw);
}

/* Shape of dataset name in g: rank and dims (up to 2); class in *cls.
 * Returns the rank, or -1 when missing or unreadable, -2 when it holds
 * variable-length data and the file's global heap is damaged
 * (sp__gheap_guard says why): every string read here goes through this. */
static int sp_lw_shape(const sp_reader_t *r, hid_t g, const char *name, hsize_t dims[2],
                       H5T_class_t *cls) {
  dims[0] = dims[1] = 0;
  /* Data in another file (external link or storage, virtual) is not read. */
  if (sp__link_kind(g, name) != SP_LINK_LOCAL) return -1;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t ft = H5Dget_type(d);
  int heap = ft < 0 || sp__gheap_vl_type(ft);
  if (ft >= 0) H5Tclose(ft);
  if (heap && sp__gheap_sound(r) != 0) {
    H5Dclose(d);
    return -2;
  }
  if (!sp__dataset_local(d)) {
    H5Dclose(d);
    return -1;
  }
  hid_t t = H5Dget_type(d), s = H5Dget_space(d);
  int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
  if (nd < 0 || nd > 2 || t < 0 || H5Sget_simple_extent_dims(s, dims, NULL) < 0) nd = -1;
  *cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (t >= 0) H5Tclose(t);
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return nd;
}

/* Checks the five datasets and sets T and E. */
static int sp_lw_check(sp_reader_t *r, hid_t g, const char *where, sp_reader_likwid_t *out) {
  static const struct {
    const char *name;
    int ndims;
    H5T_class_t cls;
  } want[] = {{"cpus", 1, H5T_INTEGER},
              {"counts", 1, H5T_INTEGER},
              {"times", 1, H5T_FLOAT},
              {"events", 2, H5T_FLOAT},
              {"event_names", 1, H5T_STRING}};
  hsize_t dims[5][2];
  for (int i = 0; i < 5; i++) {
    H5T_class_t cls = H5T_NO_CLASS;
    int nd = sp_lw_shape(r, g, want[i].name, dims[i], &cls);
    if (nd == -2) return sp__gheap_guard(r);
    if (nd != want[i].ndims || cls != want[i].cls)
      return sp__reader_fail(r, SP_READER_ELAYOUT,
                             "%s/%s: missing, in another file, or not a %d-D %s dataset", where,
                             want[i].name, want[i].ndims,
                             want[i].cls == H5T_INTEGER ? "integer"
                             : want[i].cls == H5T_FLOAT ? "float"
                                                        : "string");
  }
  hsize_t t = dims[0][0], e = dims[4][0];
  if (dims[1][0] != t || dims[2][0] != t || dims[3][0] != t || dims[3][1] != e)
    return sp__reader_fail(r, SP_READER_ELAYOUT,
                           "%s: shapes disagree (cpus %llu, counts %llu, times %llu, events "
                           "%llux%llu, event_names %llu)",
                           where, (unsigned long long)t, (unsigned long long)dims[1][0],
                           (unsigned long long)dims[2][0], (unsigned long long)dims[3][0],
                           (unsigned long long)dims[3][1], (unsigned long long)e);
  if (t > SP_LW_MAX_THREADS || e > SP_LW_MAX_EVENTS)
    return sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %llu threads x %llu events is too large",
                           where, (unsigned long long)t, (unsigned long long)e);
  out->nthreads = (int)t;
  out->nevents = (int)e;
  return 0;
}

static int sp_lw_read(hid_t g, const char *name, hid_t mem_type, void *buf) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  herr_t w = d >= 0 ? H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
  if (d >= 0) H5Dclose(d);
  return w < 0 ? -1 : 0;
}

/* n strings of dataset name in g from element off, as malloc'd strings into
 * out, from variable- or fixed-length strings. */
static int sp_lw_read_strs(hid_t g, const char *name, int64_t off, int64_t n, char **out) {
  int rc = 0;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
  if (ft < 0) rc = -1;
  int vlen = rc == 0 ? H5Tis_variable_str(ft) > 0 : 0;
  size_t sz = vlen || ft < 0 ? sizeof(char *) : H5Tget_size(ft) + 1;
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, vlen ? H5T_VARIABLE : sz);
  if (ft >= 0) H5Tset_cset(mt, H5Tget_cset(ft));
  char *buf = rc == 0 ? calloc((size_t)n + 1, sz) : NULL;
  hid_t fs = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t start[1] = {(hsize_t)off}, cnt[1] = {(hsize_t)n};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  if (fs < 0 || (n > 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0))
    rc = -1;
  if (rc != 0 || !buf || (n > 0 && H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf) < 0)) {
    rc = -1;
    vlen = 0; /* nothing was allocated by HDF5 */
  }
  for (int64_t e = 0; rc == 0 && e < n; e++) {
    const char *s = vlen ? ((char **)(void *)buf)[e] : buf + (size_t)e * sz;
    out[e] = strdup(s ? s : "");
    if (!out[e]) rc = -1;
  }
  for (int64_t e = 0; vlen && e < n; e++)
    if (((char **)(void *)buf)[e]) H5free_memory(((char **)(void *)buf)[e]);
  free(buf);
  if (fs >= 0) H5Sclose(fs);
  H5Sclose(ms);
  H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (d >= 0) H5Dclose(d);
  return rc;
}

static int sp_lw_load_group(sp_reader_t *r, hid_t g, const char *where, sp_reader_likwid_t *out) {
  int rc = sp_lw_check(r, g, where, out);
  if (rc) return rc;
  size_t t = (size_t)out->nthreads + 1, e = (size_t)out->nevents + 1;
  out->event_names = calloc(e, sizeof *out->event_names);
  out->cpus = calloc(t, sizeof *out->cpus);
  out->counts = calloc(t, sizeof *out->counts);
  out->times = calloc(t, sizeof *out->times);
  out->events = calloc(t * e, sizeof *out->events);
  if (!out->event_names || !out->cpus || !out->counts || !out->times || !out->events)
    return sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  if (sp_lw_read(g, "cpus", H5T_NATIVE_INT32, out->cpus) < 0 ||
      sp_lw_read(g, "counts", H5T_NATIVE_INT64, out->counts) < 0 ||
      sp_lw_read(g, "times", H5T_NATIVE_DOUBLE, out->times) < 0 ||
      (out->nthreads && out->nevents &&
       sp_lw_read(g, "events", H5T_NATIVE_DOUBLE, out->events) < 0) ||
      sp_lw_read_strs(g, "event_names", 0, out->nevents, out->event_names) < 0)
    return sp__reader_fail(r, SP_READER_EHDF5, "%s: read failed (truncated file?)", where);
  out->present = 1;
  return 0;
}

/* ---- the columnar layout's likwid/ (the core's likwid_columnar.c) ---- */

/* n elements of the 1-D dataset name in g from element off into buf. */
static int sp_lw_slab(hid_t g, const char *name, hid_t mem, int64_t off, int64_t n, void *buf) {
  if (n == 0) return 0;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  hid_t fs = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t start[1] = {(hsize_t)off}, cnt[1] = {(hsize_t)n}, len[1] = {0};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  int ok = fs >= 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
           H5Sget_simple_extent_dims(fs, len, NULL) >= 0 && off >= 0 &&
           (hsize_t)off + (hsize_t)n <= len[0] &&
           H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
           H5Dread(d, mem, ms, fs, H5P_DEFAULT, buf) >= 0;
  H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  return ok ? 0 : -1;
}

/* Length of the 1-D dataset name in g, or -1. */
static int64_t sp_lw_len(const sp_reader_t *r, hid_t g, const char *name) {
  hsize_t dims[2];
  H5T_class_t cls;
  return sp_lw_shape(r, g, name, dims, &cls) == 1 ? (int64_t)dims[0] : -1;
}

int sp__likwid_columnar_open(sp_reader_t *r) {
  if (sp__link_kind(r->file, "likwid") != SP_LINK_LOCAL) return 0;
  hid_t lw = H5Gopen2(r->file, "likwid", H5P_DEFAULT);
  if (lw < 0) return 0;
  int64_t n = sp_lw_len(r, lw, "ranks");
  int rc = 0;
  if (n < 0 || sp_lw_len(r, lw, "groups") != n || n > r->nranks)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "likwid/ranks, likwid/groups: missing or unequal");
  int32_t *ids = rc == 0 ? calloc((size_t)n + 1, sizeof *ids) : NULL;
  char **groups = rc == 0 ? calloc((size_t)n + 1, sizeof *groups) : NULL;
  if (rc == 0 && (!ids || !groups)) rc = SP_READER_ENOMEM;
  if (rc == 0 && (sp_lw_slab(lw, "ranks", H5T_NATIVE_INT32, 0, n, ids) < 0 ||
                  sp_lw_read_strs(lw, "groups", 0, n, groups) < 0))
    rc = sp__reader_fail(r, SP_READER_EHDF5, "likwid/ranks, likwid/groups: read failed");
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    int k = sp_reader_rank_index(r, ids[i]);
    if (k >= 0 && !r->ranks[k].likwid_group) {
      r->ranks[k].likwid_group = groups[i];
      groups[i] = NULL;
    }
  }
  for (int64_t i = 0; groups && i < n; i++) free(groups[i]);
  free(groups);
  free(ids);
  H5Gclose(lw);
  return rc;
}

/* The row of likwid/regions for rank id and region name, or -1; its
 * offsets and counts in o[5] (thread, event, value offsets; T, E). */
static int64_t sp_lw_col_row(const sp_reader_t *r, hid_t lw, int id, const char *name,
                             int64_t o[5]) {
  int64_t m = sp_lw_len(r, lw, "regions/ranks"), row = -1;
  if (m <= 0 || sp_lw_len(r, lw, "regions/names") != m) return -1;
  int32_t *ids = calloc((size_t)m, sizeof *ids);
  if (!ids || sp_lw_slab(lw, "regions/ranks", H5T_NATIVE_INT32, 0, m, ids) < 0) m = 0;
  for (int64_t i = 0; i < m && row < 0; i++) {
    char *nm = NULL;
    if (ids[i] == id && sp_lw_read_strs(lw, "regions/names", i, 1, &nm) == 0 && !strcmp(nm, name))
      row = i;
    free(nm);
  }
  free(ids);
  static const char *cols[5] = {"regions/thread_offsets", "regions/event_offsets",
                                "regions/value_offsets", "regions/thread_counts",
                                "regions/event_counts"};
  for (int c = 0; row >= 0 && c < 5; c++)
    if (sp_lw_len(r, lw, cols[c]) != sp_lw_len(r, lw, "regions/ranks") ||
        sp_lw_slab(lw, cols[c], H5T_NATIVE_INT64, row, 1, &o[c]) < 0)
      row = -2;
  return row;
}

static int sp_lw_load_columnar(sp_reader_t *r, int g, int k, sp_reader_likwid_t *out) {
  char where[64];
  snprintf(where, sizeof where, "likwid/regions (rank %d)", r->ranks[k].id);
  hid_t lw = H5Gopen2(r->file, "likwid", H5P_DEFAULT);
  if (lw < 0) return 0;
  int64_t o[5] = {0}, row = sp_lw_col_row(r, lw, r->ranks[k].id, r->regions[g].name, o);
  int rc = 0;
  if (row == -2)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: offset columns missing or short", where);
  if (rc == 0 && row >= 0 &&
      (o[3] < 0 || o[4] < 0 || o[3] > SP_LW_MAX_THREADS || o[4] > SP_LW_MAX_EVENTS))
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s: %lld threads x %lld events is out of range",
                         where, (long long)o[3], (long long)o[4]);
  /* The row's extents must lie in the columns before anything is allocated:
   * its counts come from the file, not from a dataset's shape. */
  if (rc == 0 && row >= 0 &&
      (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[0] + o[3] > sp_lw_len(r, lw, "threads/cpus") ||
       o[1] + o[4] > sp_lw_len(r, lw, "event_names") ||
       o[2] + o[3] * o[4] > sp_lw_len(r, lw, "values")))
    rc =
        sp__reader_fail(r, SP_READER_ELAYOUT, "%s: offsets past the end of likwid/ columns", where);
  if (rc == 0 && row >= 0) {
    size_t t = (size_t)o[3] + 1, e = (size_t)o[4] + 1;
    out->nthreads = (int)o[3];
    out->nevents = (int)o[4];
    out->event_names = calloc(e, sizeof *out->event_names);
    out->cpus = calloc(t, sizeof *out->cpus);
    out->counts = calloc(t, sizeof *out->counts);
    out->times = calloc(t, sizeof *out->times);
    out->events = calloc(t * e, sizeof *out->events);
    if (!out->event_names || !out->cpus || !out->counts || !out->times || !out->events)
      rc = sp__reader_fail(r, SP_READER_ENOMEM, "%s: out of memory", where);
  }
  if (rc == 0 && row >= 0 &&
      (sp_lw_slab(lw, "threads/cpus", H5T_NATIVE_INT32, o[0], o[3], out->cpus) < 0 ||
       sp_lw_slab(lw, "threads/counts", H5T_NATIVE_INT64, o[0], o[3], out->counts) < 0 ||
       sp_lw_slab(lw, "threads/times", H5T_NATIVE_DOUBLE, o[0], o[3], out->times) < 0 ||
       sp_lw_slab(lw, "values", H5T_NATIVE_DOUBLE, o[2], o[3] * o[4], out->events) < 0 ||
       sp_lw_read_strs(lw, "event_names", o[1], o[4], out->event_names) < 0))
    rc = sp__reader_fail(r, SP_READER_EHDF5, "%s: read failed (short or truncated?)", where);
  if (rc == 0 && row >= 0) out->present = 1;
  H5Gclose(lw);
  return rc;
}

static int sp_lw_load_quiet(sp_reader_t *r, int k, const sp_rank_region_t *rr,
                            sp_reader_likwid_t *out) {
  char path[64], where[512];
  snprintf(path, sizeof path, "rank%d/likwid", r->ranks[k].id);
  snprintf(where, sizeof where, "%s/regions/%s", path, rr->link);
  hid_t lw = H5Gopen2(r->file, path, H5P_DEFAULT);
  int local = lw >= 0 && sp__link_kind(lw, "regions") == SP_LINK_LOCAL;
  hid_t regions = local ? H5Gopen2(lw, "regions", H5P_DEFAULT) : -1;
  if (lw >= 0) H5Gclose(lw);
  if (regions < 0) return 0; /* a group attribute but no region measured */
  int rc = 0;
  int kind = sp__link_kind(regions, rr->link);
  if (kind == SP_LINK_FOREIGN)
    rc = sp__reader_fail(r, SP_READER_ELAYOUT, "%s is a link to another file: not followed", where);
  if (kind == SP_LINK_LOCAL) {
    hid_t g = H5Gopen2(regions, rr->link, H5P_DEFAULT);
    rc = g >= 0 ? sp_lw_load_group(r, g, where, out)
                : sp__reader_fail(r, SP_READER_ELAYOUT, "%s is not a group", where);
    if (g >= 0) H5Gclose(g);
  }
  H5Gclose(regions);
  return rc;
}

int sp_reader_likwid_load(sp_reader_t *r, int g, int k, sp_reader_likwid_t *out) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!r->ranks[k].likwid_group || !rr) return 0;
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = r->columnar ? sp_lw_load_columnar(r, g, k, out) : sp_lw_load_quiet(r, k, rr, out);
  sp__h5_quiet_end(&q);
  if (rc) sp_reader_likwid_free(out);
  return rc;
}
