/* reader_data.c - accessors and on-demand reading of interval arrays.
 *
 * Arrays are read for one (region, rank) pair at a time, so memory follows
 * what the caller selects rather than the size of the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* Elements per chunk when scanning a dataset without keeping it: 512 KiB
 * (8 MiB made the peak RSS of --export csv grow 1.24 x from 1e6 to 1e7 calls). */
#define SP_SCAN_CHUNK ((hsize_t)1 << 16)
/* Internal status of sp_arrays_read: the region group would not open. */
#define SP_LOAD_NOGROUP (-1000)

int sp_reader_schema(const sp_reader_t *r) { return r ? r->schema : 0; }

int sp_reader_num_ranks(const sp_reader_t *r) { return r ? r->nranks : 0; }

int sp_reader_rank_id(const sp_reader_t *r, int k) {
  return (r && k >= 0 && k < r->nranks) ? r->ranks[k].id : -1;
}

int sp_reader_num_regions(const sp_reader_t *r) { return r ? r->nregions : 0; }

const char *sp_reader_region_name(const sp_reader_t *r, int g) {
  return (r && g >= 0 && g < r->nregions) ? r->regions[g].name : NULL;
}

int64_t sp_reader_region_first_start(const sp_reader_t *r, int g) {
  if (!r || g < 0 || g >= r->nregions) return INT64_MAX;
  return r->clock_raw ? r->regions[g].first_start_raw : r->regions[g].first_start;
}

int sp_reader_info(const sp_reader_t *r, int g, int k, sp_reader_info_t *info) {
  if (!r || !info || k < 0 || k >= r->nranks || g < 0 || g >= r->nregions) return SP_READER_EINVAL;
  memset(info, 0, sizeof *info);
  info->first_start = INT64_MAX;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr) return 0;
  info->present = 1;
  info->has_times = rr->has_times;
  info->has_thread_ids = rr->has_tid;
  info->num_calls = rr->num_calls;
  info->num_intervals = rr->n;
  info->first_start = sp__reader_align_at(r, k, rr->first_start, 0);
  return 0;
}

int sp_reader_aggregate(const sp_reader_t *r, int g, int k, sp_reader_aggregate_t *out) {
  if (!r || !out || k < 0 || k >= r->nranks || g < 0 || g >= r->nregions) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr) return 0;
  out->present = r->aggregate;
  out->calls = rr->num_calls;
  if (!r->aggregate) return 0; /* rr->agg shares its bytes with rr->addr */
  out->have = rr->agg_have;
  out->total = rr->agg[0];
  out->min = rr->agg[1];
  out->max = rr->agg[2];
  out->exclusive = rr->agg[3];
  return 0;
}

hid_t sp__reader_open_region(const sp_reader_t *r, int k, const sp_rank_region_t *rr) {
  hid_t regions = r->ranks[k].regions_gid;
  if (regions == SP_REGIONS_LAZY) { /* never opened (reader_stab.c): by path */
    char *path = malloc(strlen(rr->link) + 48);
    if (!path) return -1;
    sprintf(path, "rank%d/regions/%s", r->ranks[k].id, rr->link);
    hid_t g = H5Gopen2(r->file, path, H5P_DEFAULT);
    free(path);
    return g;
  }
  return regions >= 0 ? H5Gopen2(regions, rr->link, H5P_DEFAULT) : -1;
}

int sp__scan_minmax(hid_t d, int64_t n, int64_t *min, int64_t *max) {
  *min = INT64_MAX;
  *max = INT64_MIN;
  hsize_t chunk = (hsize_t)n < SP_SCAN_CHUNK ? (hsize_t)n : SP_SCAN_CHUNK;
  if (chunk == 0) return 0;
  int64_t *buf = malloc(chunk * sizeof *buf);
  if (!buf) return SP_READER_ENOMEM;
  hid_t fs = H5Dget_space(d);
  int rc = fs < 0 ? SP_READER_EHDF5 : 0;
  for (hsize_t off = 0; rc == 0 && off < (hsize_t)n; off += chunk) {
    hsize_t cnt = (hsize_t)n - off < chunk ? (hsize_t)n - off : chunk;
    hid_t ms = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &cnt, NULL);
    if (H5Dread(d, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, buf) < 0) rc = SP_READER_EHDF5;
    H5Sclose(ms);
    for (hsize_t i = 0; rc == 0 && i < cnt; i++) {
      if (buf[i] < *min) *min = buf[i];
      if (buf[i] > *max) *max = buf[i];
    }
  }
  if (fs >= 0) H5Sclose(fs);
  free(buf);
  return rc;
}

/* Reads the whole dataset name of g (n elements) as mem_type into a new buffer. */
static int sp_read_all(hid_t g, const char *name, hid_t mem_type, size_t elem, int64_t n,
                       void **out) {
  /* n was checked against the stored bytes at open; this guards size_t. */
  *out = sp__memory_check(n, elem) == 0 ? malloc((size_t)n * elem) : NULL;
  if (!*out) return SP_READER_ENOMEM;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  int rc = (d < 0 || H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
               ? SP_READER_EHDF5
               : 0;
  if (d >= 0) H5Dclose(d);
  if (rc) {
    free(*out);
    *out = NULL;
  }
  return rc;
}

/* One array of rr: at its offset in the file when noted at open
 * (reader_direct.c), else through HDF5 from the group *grp (opened here on
 * first need; -1 until then). */
static int sp_array_read(const sp_reader_t *r, int k, const sp_rank_region_t *rr, int i, hid_t *grp,
                         void **out) {
  static const char *const names[3] = {"start_times", "end_times", "thread_ids"};
  size_t elem = i == 2 ? 4 : 8;
  if (rr->addr[i] > 0) {
    *out = sp__direct_alloc(r, rr->n, elem);
    if (!*out) return SP_READER_ENOMEM;
    return sp__direct_read(r, rr->addr[i], *out, (size_t)rr->n * elem);
  }
  if (*grp < 0 && (*grp = sp__reader_open_region(r, k, rr)) < 0) return SP_LOAD_NOGROUP;
  return sp_read_all(*grp, names[i], i == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, elem, rr->n,
                     out);
}

/* The start, end and (when recorded) thread id arrays of rr. */
static int sp_arrays_read(const sp_reader_t *r, int k, const sp_rank_region_t *rr, void **s,
                          void **e, void **t) {
  hid_t grp = -1;
  int rc = sp_array_read(r, k, rr, 0, &grp, s);
  if (rc == 0) rc = sp_array_read(r, k, rr, 1, &grp, e);
  if (rc == 0 && rr->has_tid) rc = sp_array_read(r, k, rr, 2, &grp, t);
  if (grp >= 0) H5Gclose(grp);
  return rc;
}

/* 1 if an interval ends before its start: branch-free, so that it
 * vectorises (SP_STAMP_LOOP); the check below finds which. */
SP_STAMP_LOOP static int sp_any_backwards(const int64_t *st, const int64_t *en, int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) bad |= en[i] < st[i];
  return bad;
}

/* Every interval must end at or after its start. */
static int sp_load_check(sp_reader_t *r, int g, int k, sp_reader_intervals_t *out) {
  if (!sp_any_backwards(out->start, out->end, out->n)) return 0;
  for (int64_t i = 0; i < out->n; i++)
    if (out->end[i] < out->start[i]) {
      int rc = sp__reader_fail(r, SP_READER_EDATA,
                               "region '%s' on rank %d: interval %lld ends before it starts "
                               "(start %lld ns, end %lld ns)",
                               r->regions[g].name, r->ranks[k].id, (long long)i,
                               (long long)out->start[i], (long long)out->end[i]);
      sp_reader_intervals_free(out);
      return rc;
    }
  return 0;
}

static int sp_load_quiet(sp_reader_t *r, int g, int k, const sp_rank_region_t *rr,
                         sp_reader_intervals_t *out, int check) {
  if (r->columnar) {
    int rc = sp__columnar_read(r, rr, out);
    if (rc == SP_READER_ENOMEM)
      return sp__reader_fail(r, rc, "out of memory loading %lld intervals of region '%s'",
                             (long long)rr->n, r->regions[g].name);
    if (rc)
      return sp__reader_fail(r, rc,
                             "events of region '%s' on rank %d: read failed "
                             "(truncated or damaged file)",
                             r->regions[g].name, r->ranks[k].id);
    return check ? sp_load_check(r, g, k, out) : 0;
  }
  void *s = NULL, *e = NULL, *t = NULL;
  int rc = sp_arrays_read(r, k, rr, &s, &e, &t);
  if (rc) {
    free(s);
    free(e);
    free(t);
    if (rc == SP_LOAD_NOGROUP)
      return sp__reader_fail(r, SP_READER_EHDF5, "rank%d/regions/%s: cannot open group",
                             r->ranks[k].id, rr->link);
    if (rc == SP_READER_ENOMEM)
      return sp__reader_fail(r, rc, "out of memory loading %lld intervals of region '%s'",
                             (long long)rr->n, r->regions[g].name);
    return sp__reader_fail(r, rc, "rank%d/regions/%s: read failed (truncated or damaged file)",
                           r->ranks[k].id, rr->link);
  }
  out->start = s;
  out->end = e;
  out->thread_ids = t;
  out->n = rr->n;
  return check ? sp_load_check(r, g, k, out) : 0;
}

int sp__reader_load(sp_reader_t *r, int g, int k, sp_reader_intervals_t *out, int check) {
  if (!out) return SP_READER_EINVAL;
  memset(out, 0, sizeof *out);
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  r->errmsg[0] = '\0';
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr) return 0;
  out->num_calls = rr->num_calls;
  if (!rr->has_times || rr->n == 0) return 0;
  /* The columnar layout's reads are quiet where they call HDF5, on a page
   * (reader_colcache.c): setting the error handler twice per pair cost 4%
   * of --summary on 5 million pairs. */
  sp_h5_quiet_t q;
  if (!r->columnar) sp__h5_quiet_begin(&q);
  int rc = sp_load_quiet(r, g, k, rr, out, check);
  if (!r->columnar) sp__h5_quiet_end(&q);
  if (rc == 0) sp__reader_align_intervals(r, k, out);
  out->num_calls = rr->num_calls;
  return rc;
}

int sp_reader_load(sp_reader_t *r, int g, int k, sp_reader_intervals_t *out) {
  return sp__reader_load(r, g, k, out, 1);
}

void sp_reader_intervals_free(sp_reader_intervals_t *iv) {
  if (!iv) return;
  free(iv->start);
  free(iv->end);
  free(iv->thread_ids);
  free(iv->call_ids);
  free(iv->parent_ids);
  memset(iv, 0, sizeof *iv);
}

static int sp_extent_quiet(sp_reader_t *r, int k, const sp_rank_region_t *rr, int64_t *first,
                           int64_t *last) {
  *first = rr->first_start;
  int64_t dummy;
  if (rr->addr[1] > 0) return sp__direct_minmax(r, rr->addr[1], rr->n, &dummy, last);
  hid_t grp = sp__reader_open_region(r, k, rr);
  if (grp < 0) return SP_READER_EHDF5;
  hid_t d = H5Dopen2(grp, "end_times", H5P_DEFAULT);
  int rc = d < 0 ? SP_READER_EHDF5 : sp__scan_minmax(d, rr->n, &dummy, last);
  if (d >= 0) H5Dclose(d);
  H5Gclose(grp);
  return rc;
}

int sp_reader_extent(sp_reader_t *r, int g, int k, int64_t *first_start, int64_t *last_end) {
  if (!r || !first_start || !last_end) return SP_READER_EINVAL;
  *first_start = INT64_MAX;
  *last_end = INT64_MIN;
  if (k < 0 || k >= r->nranks || g < 0 || g >= r->nregions) return SP_READER_EINVAL;
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || rr->n == 0) return 0;
  if (r->columnar) {
    /* One pair's columns: read them, the stamps are needed anyway. */
    sp_reader_intervals_t iv;
    int rc = sp_reader_load(r, g, k, &iv);
    for (int64_t i = 0; rc == 0 && i < iv.n; i++) {
      if (iv.start[i] < *first_start) *first_start = iv.start[i];
      if (iv.end[i] > *last_end) *last_end = iv.end[i];
    }
    sp_reader_intervals_free(&iv);
    return rc;
  }
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = sp_extent_quiet(r, k, rr, first_start, last_end);
  sp__h5_quiet_end(&q);
  if (rc)
    return sp__reader_fail(r, rc, "rank%d/regions/%s/end_times: read failed (truncated file?)",
                           r->ranks[k].id, rr->link);
  *first_start = sp__reader_align_at(r, k, *first_start, 0);
  *last_end = sp__reader_align_at(r, k, *last_end, 0);
  return 0;
}

int sp_reader_stats_compute(const sp_reader_intervals_t *iv, sp_reader_stats_t *st) {
  if (!iv || !st) return SP_READER_EINVAL;
  memset(st, 0, sizeof *st);
  st->num_calls = iv->num_calls;
  st->n = iv->n;
  if (iv->n == 0) return 0;
  int64_t total = 0, mn = INT64_MAX, mx = 0;
  for (int64_t i = 0; i < iv->n; i++) {
    int64_t d = sp_duration(iv->start[i], iv->end[i]); /* saturates (found by fuzz_reader) */
    total = total > INT64_MAX - d ? INT64_MAX : total + d;
    if (d < mn) mn = d;
    if (d > mx) mx = d;
  }
  st->total = total;
  st->min = mn;
  st->max = mx;
  st->mean = (double)total / (double)iv->n;
  return 0;
}

int sp_reader_region_sums(sp_reader_t *r, int64_t *pairs, int64_t *calls, int64_t *intervals,
                          int64_t *total) {
  if (!r) return SP_READER_EINVAL;
  int64_t *cols[4] = {pairs, calls, intervals, total};
  for (int c = 0; c < 4; c++)
    if (cols[c]) memset(cols[c], 0, (size_t)r->nregions * sizeof *cols[c]);
  for (int k = 0; k < r->nranks; k++)
    for (int i = 0; i < r->ranks[k].nregions; i++) {
      const sp_rank_region_t *rr = &r->ranks[k].regions[i];
      int g = rr->region;
      if (pairs) pairs[g]++;
      if (calls) calls[g] += rr->num_calls;
      if (!rr->has_times || rr->n == 0 || (!intervals && !total)) continue;
      sp_reader_intervals_t iv;
      int rc = sp_reader_load(r, g, k, &iv);
      if (rc < 0) return rc;
      sp_reader_stats_t st;
      sp_reader_stats_compute(&iv, &st);
      sp_reader_intervals_free(&iv);
      if (intervals) intervals[g] += st.n;
      if (total) total[g] = total[g] > INT64_MAX - st.total ? INT64_MAX : total[g] + st.total;
    }
  return 0;
}
