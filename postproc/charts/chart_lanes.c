/* chart_lanes.c - lanes per (region, rank, thread) and the span they cover.
 *
 * Pairs without thread ids are one lane, their span read by the chunked
 * sp_reader_extent; pairs with thread ids are read once in slices to
 * find their distinct threads and span. */
#include <stdlib.h>
#include <string.h>

#include "chart_lanes.h"
#include "pair_chunks.h"

static int sp_lanes_push(sp_chart_lanes_t *l, int *cap, const sp_chart_lane_t *ln) {
  if (l->n == *cap) {
    int nc = *cap ? 2 * *cap : 64;
    sp_chart_lane_t *p = realloc(l->lane, (size_t)nc * sizeof *p);
    if (!p) return -1;
    l->lane = p;
    *cap = nc;
  }
  l->lane[l->n++] = *ln;
  return 0;
}

static void sp_span_widen(sp_chart_lanes_t *l, int64_t a, int64_t b) {
  if (a < l->t0) l->t0 = a;
  if (b > l->t1) l->t1 = b;
  l->any = 1;
}

/* The distinct threads of a pair (ascending) and its span, slice by slice. */
typedef struct sp_threads_pass {
  sp_chart_lanes_t *l;
  int32_t *t;
  int64_t nd, cap;
} sp_threads_pass_t;

static int sp_threads_slice(void *ctx, const int64_t *s, const int64_t *e, const int32_t *t,
                            int64_t at, int64_t n) {
  sp_threads_pass_t *p = ctx;
  (void)at;
  for (int64_t i = 0; i < n; i++) {
    sp_span_widen(p->l, s[i], e[i]);
    if (!t) continue;
    int64_t lo = 0, hi = p->nd; /* binary search: a rank's few threads */
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      if (p->t[mid] < t[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < p->nd && p->t[lo] == t[i]) continue;
    if (p->nd == p->cap) {
      int64_t nc = p->cap ? 2 * p->cap : 16;
      int32_t *q = realloc(p->t, (size_t)nc * sizeof *q);
      if (!q) return SP_EXIT_IO;
      p->t = q;
      p->cap = nc;
    }
    memmove(p->t + lo + 1, p->t + lo, (size_t)(p->nd - lo) * sizeof *p->t);
    p->t[lo] = t[i];
    p->nd++;
  }
  return 0;
}

/* One pair with thread ids: a lane per distinct thread (one lane if one),
 * read in slices (pair_chunks.h). */
static int sp_pair_threads(const sp_selection_t *sel, sp_chart_lane_t ln, sp_chart_lanes_t *l,
                           int *cap) {
  sp_threads_pass_t p = {l, NULL, 0, 0};
  int rc = sp_pair_chunks(sel->reader, sel->file, ln.region, ln.rank, sp_threads_slice, &p);
  if (rc == 0 && p.nd <= 1) rc = sp_lanes_push(l, cap, &ln) ? SP_EXIT_IO : 0;
  for (int64_t k = 0; rc == 0 && p.nd > 1 && k < p.nd; k++) {
    ln.thread = p.t[k];
    if (sp_lanes_push(l, cap, &ln)) rc = SP_EXIT_IO;
  }
  free(p.t);
  return rc;
}

static int sp_cmp_lane(const void *pa, const void *pb) {
  const sp_chart_lane_t *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Lanes in call-tree order of their regions, rank and thread kept. */
static int sp_lanes_tree_order(const sp_selection_t *sel, sp_chart_lanes_t *l) {
  int n = sel->nregions;
  int *pos = malloc((size_t)(n ? n : 1) * sizeof *pos);
  int *depth = malloc((size_t)(n ? n : 1) * sizeof *depth);
  int rc = pos && depth ? sp_tree_region_order(sel, pos, depth) : SP_EXIT_IO;
  for (int i = 0; rc == 0 && i < l->n; i++) {
    l->lane[i].key = pos[l->lane[i].colour];
    l->lane[i].depth = depth[l->lane[i].colour];
    l->lane[i].seq = i;
  }
  if (rc == 0 && l->n > 1) qsort(l->lane, (size_t)l->n, sizeof *l->lane, sp_cmp_lane);
  free(pos);
  free(depth);
  return rc;
}

int sp_chart_lanes_build(const sp_selection_t *sel, sp_chart_lanes_t *l) {
  memset(l, 0, sizeof *l);
  l->t0 = INT64_MAX;
  l->t1 = INT64_MIN;
  int cap = 0, gi = 0, rc = 0;
  for (int i = 0; rc == 0 && i < sel->nlanes; i++) {
    sp_chart_lane_t ln = {sel->lanes[i].region, sel->lanes[i].rank, -1, 0, 0, 0, 0};
    while (sel->regions[gi] != ln.region) gi++;
    ln.colour = gi;
    sp_progress("scanning lane", i, sel->nlanes);
    sp_reader_info_t info;
    sp_reader_info(sel->reader, ln.region, ln.rank, &info);
    if (info.has_thread_ids && info.num_intervals > 0) {
      rc = sp_pair_threads(sel, ln, l, &cap);
      continue;
    }
    int64_t a, b;
    int err = sp_reader_extent(sel->reader, ln.region, ln.rank, &a, &b);
    if (err < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      rc = sp_exit_for_reader(err);
      break;
    }
    if (info.num_intervals > 0) sp_span_widen(l, a, b);
    if (sp_lanes_push(l, &cap, &ln)) rc = SP_EXIT_IO;
  }
  sp_progress_done();
  if (rc == 0) rc = sp_lanes_tree_order(sel, l);
  return rc;
}

void sp_chart_lanes_free(sp_chart_lanes_t *l) {
  free(l->lane);
  memset(l, 0, sizeof *l);
}
