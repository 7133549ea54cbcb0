/* timeseries_steps.c - a region's steps over the ranks, binned per pixel
 * column as they are read (timeseries_steps.h).
 *
 * A rank's steps are its calls in the old chart's order: by start, ties
 * in the order the pair stores them (it sorted the loaded pair by start
 * with glibc's qsort, a stable merge sort). The reader's merge by start
 * breaks a tie of starts by the longer call first, so a run of calls of
 * one start is gathered and put back in stored order (sp_reader_call_t's
 * index) before it becomes steps: the streamed and the loaded pair give
 * the same steps, hence the same bins. */
#include <math.h>
#include <stdlib.h>

#include "pair_chunks.h"
#include "timeseries_steps.h"

/* The counting pass: a pair's calls of min_d or longer, in slices. */
typedef struct sp_ts_count {
  double min_d;
  int64_t n;
} sp_ts_count_t;

static int sp_ts_count(void *ctx, const int64_t *s, const int64_t *e, const int32_t *t, int64_t at,
                       int64_t n) {
  (void)t, (void)at;
  sp_ts_count_t *c = ctx;
  for (int64_t i = 0; i < n; i++) c->n += !(1e-9 * sp_ns_between(s[i], e[i]) < c->min_d);
  return 0;
}

/* The binning pass over one rank: its next step and that step's column. */
typedef struct sp_ts_feed {
  sp_ts_bins_t *b;
  double min_d;
  int64_t t;   /* the next step */
  int col;     /* its column */
  int64_t end; /* the first step past column col */
} sp_ts_feed_t;

static void sp_ts_step(sp_ts_feed_t *f, int64_t start, int64_t end) {
  double d = 1e-9 * sp_ns_between(start, end);
  sp_ts_bins_t *b = f->b;
  if (d < f->min_d || f->t >= b->n) return; /* (more steps: the file grew since the count) */
  while (f->t >= f->end) f->end = b->n * (++f->col + 1) / b->nb;
  int c = f->col;
  if (d < b->lo[c]) b->lo[c] = d;
  if (d > b->hi[c]) b->hi[c] = d;
  b->sum[c] += d;
  b->cnt[c]++;
  f->t++;
}

typedef struct sp_ts_key {
  int64_t start, at; /* a call's start and its position in the pair */
} sp_ts_key_t;

static int sp_ts_key_cmp(const void *a, const void *b) {
  const sp_ts_key_t *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

/* A pair within the stream bound (or one the slices cannot read), loaded
 * and sorted by start, then stored position. */
static int sp_ts_loaded(sp_reader_t *r, int g, int k, sp_ts_feed_t *f) {
  sp_reader_intervals_t iv;
  int rc = sp_load_intervals(r, g, k, &iv);
  if (rc) return rc;
  sp_ts_key_t *o = malloc((size_t)(iv.n ? iv.n : 1) * sizeof *o);
  if (!o) rc = SP_EXIT_IO;
  for (int64_t i = 0; o && i < iv.n; i++) o[i] = (sp_ts_key_t){iv.start[i], i};
  if (o) qsort(o, (size_t)iv.n, sizeof *o, sp_ts_key_cmp);
  for (int64_t i = 0; o && i < iv.n; i++) sp_ts_step(f, o[i].start, iv.end[o[i].at]);
  free(o);
  sp_reader_intervals_free(&iv);
  return rc;
}

/* Calls of one start from the merge, gathered to be put in stored order. */
typedef struct sp_ts_tie {
  sp_reader_call_t *c;
  size_t n, cap;
} sp_ts_tie_t;

static int sp_ts_call_cmp(const void *a, const void *b) {
  int64_t x = ((const sp_reader_call_t *)a)->index, y = ((const sp_reader_call_t *)b)->index;
  return (x > y) - (x < y);
}

static void sp_ts_tie_flush(sp_ts_tie_t *t, sp_ts_feed_t *f) {
  if (t->n > 1) qsort(t->c, t->n, sizeof *t->c, sp_ts_call_cmp);
  for (size_t i = 0; i < t->n; i++) sp_ts_step(f, t->c[i].start, t->c[i].end);
  t->n = 0;
}

static int sp_ts_tie_add(sp_ts_tie_t *t, const sp_reader_call_t *c, sp_ts_feed_t *f) {
  if (t->n && t->c[0].start != c->start) sp_ts_tie_flush(t, f);
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 16;
    sp_reader_call_t *p = realloc(t->c, cap * sizeof *p);
    if (!p) return SP_EXIT_IO;
    t->c = p;
    t->cap = cap;
  }
  t->c[t->n++] = *c;
  return 0;
}

/* A pair past the stream bound from the reader's merge by start: a chunk
 * per sorted run (a core-written pair's threads), not the pair. */
static int sp_ts_merged(const sp_selection_t *sel, int g, int k, sp_ts_feed_t *f) {
  enum { BATCH = 4096 };
  sp_reader_merge_t *m = NULL;
  int err = sp_reader_merge_open_by_start(sel->reader, k, &g, NULL, 1, &m);
  sp_reader_call_t *c = err ? NULL : malloc(BATCH * sizeof *c);
  sp_ts_tie_t tie = {NULL, 0, 0};
  int64_t got = 0;
  int rc = err || c ? 0 : SP_EXIT_IO;
  while (c && rc == 0 && (got = sp_reader_merge_next_n(m, c, BATCH)) > 0)
    for (int64_t i = 0; rc == 0 && i < got; i++) rc = sp_ts_tie_add(&tie, &c[i], f);
  if (rc == 0 && !err && got == 0) sp_ts_tie_flush(&tie, f);
  sp_reader_merge_close(m);
  free(c);
  free(tie.c);
  if (rc == 0 && (err || got < 0)) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    rc = sp_exit_for_reader(err ? err : (int)got);
  }
  return rc;
}

static int sp_ts_rank(const sp_selection_t *sel, int g, int k, sp_ts_feed_t *f) {
  sp_reader_info_t info;
  if (sp_reader_info(sel->reader, g, k, &info) == 0 && info.present && info.has_times &&
      info.num_intervals > sp_reader_stream_calls())
    return sp_ts_merged(sel, g, k, f);
  return sp_ts_loaded(sel->reader, g, k, f);
}

int sp_ts_bins_build(const sp_selection_t *sel, int g, double min_d, int ncols, sp_ts_bins_t *b) {
  b->n = 0;
  b->nb = 0;
  b->lo = b->hi = b->sum = NULL;
  b->cnt = NULL;
  int rc = 0;
  for (int k = 0; rc == 0 && k < sel->nranks; k++) {
    sp_ts_count_t c = {min_d, 0};
    rc = sp_pair_chunks(sel->reader, sel->file, g, sel->ranks[k], sp_ts_count, &c);
    if (c.n > b->n) b->n = c.n;
  }
  int64_t nb = b->n < ncols ? b->n : ncols;
  if (rc || nb <= 0) return rc;
  b->nb = (int)nb;
  b->lo = malloc((size_t)nb * sizeof *b->lo);
  b->hi = calloc((size_t)nb, sizeof *b->hi);
  b->sum = calloc((size_t)nb, sizeof *b->sum);
  b->cnt = calloc((size_t)nb, sizeof *b->cnt);
  if (!b->lo || !b->hi || !b->sum || !b->cnt) return SP_EXIT_IO;
  for (int64_t i = 0; i < nb; i++) b->lo[i] = INFINITY;
  for (int k = 0; rc == 0 && k < sel->nranks; k++) {
    sp_ts_feed_t f = {b, min_d, 0, 0, b->n / b->nb};
    rc = sp_ts_rank(sel, g, sel->ranks[k], &f);
  }
  return rc;
}

void sp_ts_bins_free(sp_ts_bins_t *b) {
  free(b->lo);
  free(b->hi);
  free(b->sum);
  free(b->cnt);
  b->lo = b->hi = b->sum = NULL;
  b->cnt = NULL;
}
