/* reader_range.c - a slice of one pair's interval arrays into the caller's
 * buffers, so that a program can stream a pair of any length in memory of
 * its choosing (the OTF2 export merges pairs chunk by chunk this way). */
#include <string.h>

#include "reader_internal.h"

/* Elements [first, first + n) of the 1-D dataset name of grp as mem_type. */
static int sp_slab_read(hid_t grp, const char *name, hid_t mem_type, int64_t first, int64_t n,
                        void *buf) {
  hid_t d = H5Dopen2(grp, name, H5P_DEFAULT);
  if (d < 0) return SP_READER_EHDF5;
  hid_t fs = H5Dget_space(d);
  hsize_t off = (hsize_t)first, cnt = (hsize_t)n;
  hid_t ms = H5Screate_simple(1, &cnt, NULL);
  int rc = fs < 0 || ms < 0 ||
                   H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &cnt, NULL) < 0 ||
                   H5Dread(d, mem_type, ms, fs, H5P_DEFAULT, buf) < 0
               ? SP_READER_EHDF5
               : 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return rc;
}

/* The per-rank layout: each array at its offset (pread) or through HDF5. */
static int sp_range_groups(const sp_reader_t *r, int k, const sp_rank_region_t *rr, int64_t first,
                           int64_t n, void *bufs[3]) {
  static const char *const names[3] = {"start_times", "end_times", "thread_ids"};
  hid_t grp = -1;
  int rc = 0;
  for (int i = 0; rc == 0 && i < 3; i++) {
    if (!bufs[i]) continue;
    size_t elem = i == 2 ? 4 : 8;
    if (rr->addr[i] > 0) {
      rc = sp__direct_read(r, rr->addr[i] + first * (int64_t)elem, bufs[i], (size_t)n * elem);
      continue;
    }
    if (grp < 0 && (grp = sp__reader_open_region(r, k, rr)) < 0) rc = SP_READER_EHDF5;
    if (rc == 0)
      rc = sp_slab_read(grp, names[i], i == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, first, n,
                        bufs[i]);
  }
  if (grp >= 0) H5Gclose(grp);
  return rc;
}

/* The columnar layout (not delta-encoded): the pair's slice of the columns. */
static int sp_range_columns(const sp_reader_t *r, const sp_rank_region_t *rr, int64_t first,
                            int64_t n, void *bufs[3]) {
  int rc = 0;
  for (int i = 0; rc == 0 && i < 3; i++) {
    if (!bufs[i] || r->col[i] < 0) continue;
    hsize_t off = (hsize_t)(rr->offset + first), cnt = (hsize_t)n;
    hid_t fs = H5Dget_space(r->col[i]), ms = H5Screate_simple(1, &cnt, NULL);
    if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &cnt, NULL) < 0 ||
        H5Dread(r->col[i], i == 2 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT,
                bufs[i]) < 0)
      rc = SP_READER_EHDF5;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
  }
  return rc;
}

int64_t sp_reader_read_range(sp_reader_t *r, int g, int k, int64_t first, int64_t count,
                             int64_t *start, int64_t *end, int32_t *thread_ids) {
  int bad = sp__reader_check_pair(r, g, k);
  if (bad) return bad;
  if (!start || !end || first < 0 || count < 0)
    return sp__reader_fail(r, SP_READER_EINVAL, "sp_reader_read_range: bad arguments");
  r->errmsg[0] = '\0';
  const sp_rank_region_t *rr = sp__reader_find(r, g, k);
  if (!rr || !rr->has_times || first >= rr->n) return 0;
  if (r->columnar && r->deltas)
    return sp__reader_fail(r, SP_READER_EINVAL,
                           "region '%s': delta-encoded columns are read whole (sp_reader_load)",
                           r->regions[g].name);
  int64_t n = rr->n - first < count ? rr->n - first : count;
  if (n == 0) return 0;
  int tids = thread_ids && (r->columnar ? r->col[2] >= 0 : rr->has_tid);
  void *bufs[3] = {start, end, tids ? thread_ids : NULL};
  sp_h5_quiet_t q;
  sp__h5_quiet_begin(&q);
  int rc = r->columnar ? sp_range_columns(r, rr, first, n, bufs)
                       : sp_range_groups(r, k, rr, first, n, bufs);
  sp__h5_quiet_end(&q);
  if (rc)
    return sp__reader_fail(r, rc, "region '%s' on rank %d: read failed (truncated or damaged file)",
                           r->regions[g].name, r->ranks[k].id);
  if (thread_ids && !tids) memset(thread_ids, 0, (size_t)n * sizeof *thread_ids);
  int wrong = 0; /* tested over the slice first (a loop that vectorises), then found */
  for (int64_t i = 0; i < n; i++) wrong |= end[i] < start[i];
  for (int64_t i = 0; wrong && i < n; i++)
    if (end[i] < start[i])
      return sp__reader_fail(r, SP_READER_EDATA,
                             "region '%s' on rank %d: interval %lld ends before it starts "
                             "(start %lld ns, end %lld ns)",
                             r->regions[g].name, r->ranks[k].id, (long long)(first + i),
                             (long long)start[i], (long long)end[i]);
  sp_reader_intervals_t iv = {.n = n, .start = start, .end = end};
  sp__reader_align_intervals(r, k, &iv);
  return n;
}
