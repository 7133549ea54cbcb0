/* gantt_bins.c - per-lane busy fraction of each pixel column.
 *
 * Intervals are added as the union of the lane's intervals: when the
 * starts come sorted (one thread's calls as recorded) a running maximum
 * of the ends removes overlaps in one pass; otherwise the lane's
 * intervals are copied, sorted by start and passed the same way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gantt_bins.h"
#include "pproc.h"

int sp_bins_init(sp_bins_t *b, int ncols, int64_t w0, int64_t w1) {
  memset(b, 0, sizeof *b);
  b->ncols = ncols > 0 ? ncols : 1;
  b->w0 = w0;
  b->w1 = w1 > w0 ? w1 : w0;
  double span = sp_ns_between(b->w0, b->w1);
  b->col_ns = span > 0 ? span / b->ncols : 1.0;
  b->part = calloc((size_t)b->ncols, sizeof *b->part);
  b->full = calloc((size_t)b->ncols + 1, sizeof *b->full);
  b->frac = calloc((size_t)b->ncols, sizeof *b->frac);
  return b->part && b->full && b->frac ? 0 : -1;
}

void sp_bins_free(sp_bins_t *b) {
  free(b->part);
  free(b->full);
  free(b->frac);
  free(b->scratch);
  memset(b, 0, sizeof *b);
}

void sp_bins_reset(sp_bins_t *b) {
  memset(b->part, 0, (size_t)b->ncols * sizeof *b->part);
  memset(b->full, 0, ((size_t)b->ncols + 1) * sizeof *b->full);
}

/* Adds [s, e] (ns, s <= e), clipped to the window, in O(1). */
static void sp_bins_span(sp_bins_t *b, int64_t s, int64_t e) {
  if (e <= b->w0 || s >= b->w1 || e <= s) return;
  double x0 = s <= b->w0 ? 0.0 : sp_ns_between(b->w0, s) / b->col_ns;
  double x1 = e >= b->w1 ? b->ncols : sp_ns_between(b->w0, e) / b->col_ns;
  if (x1 > b->ncols) x1 = b->ncols;
  int c0 = (int)x0, c1 = (int)x1;
  if (c0 >= b->ncols) return;
  if (c0 == c1) {
    b->part[c0] += x1 - x0;
    return;
  }
  b->part[c0] += (c0 + 1) - x0;
  if (c1 < b->ncols) b->part[c1] += x1 - c1;
  b->full[c0 + 1]++;
  b->full[c1]--;
}

static int sp_cmp_start(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Union pass over (start, end) pairs sorted by start. */
static void sp_bins_union(sp_bins_t *b, const int64_t *pairs, int64_t n) {
  int64_t reach = INT64_MIN; /* latest end added so far */
  for (int64_t i = 0; i < n; i++) {
    int64_t s = pairs[2 * i], e = pairs[2 * i + 1];
    if (e <= reach) continue;
    sp_bins_span(b, s > reach ? s : reach, e);
    reach = e;
  }
}

int sp_bins_add(sp_bins_t *b, const int64_t *start, const int64_t *end, const int32_t *tids,
                int64_t thread, int64_t n) {
  int all = !tids || thread < 0;
  int64_t reach = INT64_MIN, last = INT64_MIN, m = 0;
  int sorted = 1;
  for (int64_t i = 0; i < n; i++) {
    if (!all && tids[i] != thread) continue;
    m++;
    if (start[i] < last) {
      sorted = 0;
      break;
    }
    last = start[i];
    if (end[i] <= reach) continue;
    sp_bins_span(b, start[i] > reach ? start[i] : reach, end[i]);
    reach = end[i];
  }
  if (sorted) return 0;
  /* Starts out of order: start again from the copy, sorted. The spans
   * added so far are undone by clearing: this lane is binned alone. */
  sp_bins_reset(b);
  if (b->cap < n) {
    int64_t *p = realloc(b->scratch, (size_t)n * 2 * sizeof *p);
    if (!p) return -1;
    b->scratch = p;
    b->cap = n;
  }
  m = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!all && tids[i] != thread) continue;
    b->scratch[2 * m] = start[i];
    b->scratch[2 * m + 1] = end[i];
    m++;
  }
  qsort(b->scratch, (size_t)m, 2 * sizeof *b->scratch, sp_cmp_start);
  sp_bins_union(b, b->scratch, m);
  return 0;
}

int sp_bins_feed(sp_bins_t *b, sp_bins_feed_t *st, const int64_t *start, const int64_t *end,
                 const int32_t *tids, int64_t thread, int64_t n) {
  int all = !tids || thread < 0;
  for (int64_t i = 0; !st->unsorted && i < n; i++) {
    if (!all && tids[i] != thread) continue;
    if (start[i] < st->last) {
      st->unsorted = 1;
      break;
    }
    st->last = start[i];
    if (end[i] <= st->reach) continue;
    sp_bins_span(b, start[i] > st->reach ? start[i] : st->reach, end[i]);
    st->reach = end[i];
  }
  return st->unsorted;
}

double sp_bins_finish(sp_bins_t *b) {
  int64_t cover = 0;
  double sum = 0;
  for (int c = 0; c < b->ncols; c++) {
    cover += b->full[c];
    double f = (cover > 0 ? 1.0 : 0.0) + b->part[c];
    b->frac[c] = f > 1.0 ? 1.0 : f;
    sum += b->frac[c];
  }
  return sum;
}
