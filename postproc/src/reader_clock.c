/* reader_clock.c - every rank's stamps on rank 0's clock.
 *
 * Stamps are each node's CLOCK_MONOTONIC as recorded. The core measures
 * each rank's offset to rank 0 after setup and at finalize (rank<N>
 * attributes clock_offset_ns, clock_offset_at_ns, clock_offset_error_ns and
 * the same with _end_); the reader maps a stamp t of rank k to rank 0's
 * clock as t - offset(t), the offset interpolated linearly in t between the
 * two measurements (extrapolated beyond them), or constant when only one
 * exists. Files without the attributes (one node, older files, the
 * reference tool's) and ranks on rank 0's host read as recorded. An interval is moved as a whole by
 * the offset at its start, so durations stay exactly as recorded.
 * sp_reader_set_clock_align(r, 0) shows raw stamps. */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static const char *const sp_clock_names[2][3] = {
    {"clock_offset_ns", "clock_offset_at_ns", "clock_offset_error_ns"},
    {"clock_offset_end_ns", "clock_offset_end_at_ns", "clock_offset_end_error_ns"}};

/* An integer attribute as int64: 1 if read, else 0. */
static int sp_clock_attr(hid_t obj, const char *name, int64_t *v) {
  if (H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t t = H5Aget_type(a);
  hid_t s = H5Aget_space(a);
  int ok = t >= 0 && s >= 0 && H5Tget_class(t) == H5T_INTEGER &&
           H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, H5T_NATIVE_INT64, v) >= 0;
  if (s >= 0) H5Sclose(s);
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return ok;
}

void sp__reader_clock_read(const sp_reader_t *r, hid_t rank_group, sp_rank_t *rk) {
  memset(&rk->clock, 0, sizeof rk->clock);
  int n = 0;
  for (int w = 0; w < 2; w++) {
    int64_t v[3];
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) ok = sp_clock_attr(rank_group, sp_clock_names[w][i], &v[i]);
    if (!ok) continue;
    rk->clock.offset_ns[n] = v[0];
    rk->clock.at_ns[n] = v[1];
    rk->clock.error_ns[n] = v[2];
    n++;
  }
  /* Two measurements at the same instant (or out of order: a damaged
   * file) give no slope: the first alone counts. */
  if (n == 2 && rk->clock.at_ns[1] <= rk->clock.at_ns[0]) n = 1;
  rk->clock.n = n;
  free(rk->host);
  rk->host = sp__attr_string(r, rank_group, "hostname");
  /* A rank on rank 0's node reads rank 0's own CLOCK_MONOTONIC: its
   * measured offset is only the measurement's noise (up to its error
   * bound), so it is not applied. Ranks are scanned in id order, rank 0
   * first. */
  const sp_rank_t *r0 = r->nranks > 0 ? &r->ranks[0] : NULL;
  if (r0 && r0 != rk && r0->id == 0 && r0->host && rk->host && strcmp(r0->host, rk->host) == 0)
    rk->clock.n = 0;
}

/* The offset of rank clock c at its stamp t, ns. */
static int64_t sp_clock_offset_at(const sp_reader_clock_t *c, int64_t t) {
  if (c->n == 1) return c->offset_ns[0];
  double span = (double)c->at_ns[1] - (double)c->at_ns[0];
  double slope = ((double)c->offset_ns[1] - (double)c->offset_ns[0]) / span;
  double off = (double)c->offset_ns[0] + slope * ((double)t - (double)c->at_ns[0]);
  /* A hostile file's values must not overflow the conversion. */
  if (!(off > -9.2e18 && off < 9.2e18)) return c->offset_ns[0];
  return (int64_t)(off < 0 ? off - 0.5 : off + 0.5);
}

/* t - off, saturated. */
static int64_t sp_sub_sat(int64_t t, int64_t off) {
  int64_t v;
  if (!__builtin_sub_overflow(t, off, &v)) return v;
  return off > 0 ? INT64_MIN : INT64_MAX;
}

int64_t sp__reader_align_at(const sp_reader_t *r, int k, int64_t t, int force) {
  if (!r || k < 0 || k >= r->nranks || (r->clock_raw && !force) || r->ranks[k].clock.n == 0)
    return t;
  if (t == INT64_MAX || t == INT64_MIN) return t; /* "no interval" markers */
  return sp_sub_sat(t, sp_clock_offset_at(&r->ranks[k].clock, t));
}

int64_t sp_reader_time_align(const sp_reader_t *r, int k, int64_t t) {
  return r && !r->clock_raw ? sp__reader_align_at(r, k, t, 1) : t;
}

void sp__reader_align_intervals(const sp_reader_t *r, int k, sp_reader_intervals_t *iv) {
  if (!r || r->clock_raw || k < 0 || k >= r->nranks || r->ranks[k].clock.n == 0) return;
  const sp_reader_clock_t *c = &r->ranks[k].clock;
  if (c->n == 1) { /* one offset: no drift to follow per stamp */
    const int64_t off = c->offset_ns[0];
    if (off == 0) return; /* rank 0, or a rank on its clock: nothing to move */
    for (int64_t i = 0; i < iv->n; i++) {
      iv->start[i] = sp_sub_sat(iv->start[i], off);
      iv->end[i] = sp_sub_sat(iv->end[i], off);
    }
    return;
  }
  for (int64_t i = 0; i < iv->n; i++) {
    int64_t off = sp_clock_offset_at(c, iv->start[i]);
    iv->start[i] = sp_sub_sat(iv->start[i], off);
    iv->end[i] = sp_sub_sat(iv->end[i], off);
  }
}

int sp_reader_set_clock_align(sp_reader_t *r, int on) {
  if (!r) return SP_READER_EINVAL;
  r->clock_raw = !on;
  return 0;
}

int sp_reader_clock_aligned(const sp_reader_t *r) {
  if (!r || r->clock_raw) return 0;
  for (int k = 0; k < r->nranks; k++)
    if (r->ranks[k].clock.n > 0) return 1;
  return 0;
}

int sp_reader_rank_clock(const sp_reader_t *r, int k, sp_reader_clock_t *out) {
  if (!r || !out || k < 0 || k >= r->nranks) return SP_READER_EINVAL;
  *out = r->ranks[k].clock;
  return 0;
}

const char *sp_reader_rank_host(const sp_reader_t *r, int k) {
  return (r && k >= 0 && k < r->nranks) ? r->ranks[k].host : NULL;
}

static int sp_str_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sp__reader_hosts_count(sp_reader_t *r) {
  r->nhosts = 0;
  const char **h = malloc((size_t)(r->nranks ? r->nranks : 1) * sizeof *h);
  if (!h) return SP_READER_ENOMEM;
  int n = 0;
  for (int k = 0; k < r->nranks; k++)
    if (r->ranks[k].host) h[n++] = r->ranks[k].host;
  if (n > 1) qsort(h, (size_t)n, sizeof *h, sp_str_cmp);
  for (int i = 0; i < n; i++) r->nhosts += i == 0 || strcmp(h[i], h[i - 1]) != 0;
  free(h);
  return 0;
}

int sp_reader_num_hosts(const sp_reader_t *r) { return r ? r->nhosts : 0; }
