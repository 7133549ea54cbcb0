/* aggregate_open.c - sp_report inside a region: the calls still open on
 * the reporting thread count in the report with their duration so far.
 *
 * A report is typically written from inside a time loop wrapped in a
 * region. Counted only when they end, the open calls would be missing
 * (0 calls, 0 s) above children that already hold seconds: every share of
 * the file's roots would be wrong. So each open call counts as one call
 * lasting until now; its exclusive time is that less what finished inside
 * it and less the open call inside it. Only the reporting thread's stack
 * is read: it is the one thread whose stack does not move meanwhile. The
 * recording is left as it is: the call counts again, whole, when it ends
 * (and in sp_finalize's file, which drops open calls as the trace does). */
#include <stdlib.h>
#include <string.h>

#include "aggregate_open.h"

/* Counts one more call in bucket b of row: in place when the row has the
 * bucket already, else inserted where the buckets stay in row order. */
static int sp_open_bucket(sp_agg_snap_t *s, int64_t row, int b) {
  int64_t at = s->nbks;
  for (int64_t i = 0; i < s->nbks; i++) {
    if (s->bks[i].row == row && s->bks[i].bucket == b) {
      s->bks[i].count++;
      return 0;
    }
    if (s->bks[i].row > row && at == s->nbks) at = i;
  }
  sp_agg_bk_t *nb = realloc(s->bks, (size_t)(s->nbks + 1) * sizeof *nb);
  if (!nb) return SP_ENOMEM;
  s->bks = nb;
  memmove(&s->bks[at + 1], &s->bks[at], (size_t)(s->nbks - at) * sizeof *nb);
  s->bks[at] = (sp_agg_bk_t){row, b, 0, 1};
  s->nbks++;
  return 0;
}

/* Row index of the calling thread's first call path in s, or -1. */
static int64_t sp_open_base(const sp_agg_snap_t *s, int32_t thread) {
  for (int64_t i = 0; i < s->nrows; i++)
    if (s->rows[i].thread == thread) return i;
  return -1;
}

int sp__agg_snap_open_calls(sp_agg_snap_t *s) {
  sp_thread_t *t = sp__tls;
  if (!t || !t->agg || t->depth <= 0) return 0;
  const sp_agg_t *a = t->agg;
  int64_t base = sp_open_base(s, t->index);
  if (base < 0) return 0; /* nothing of this thread in the window (sp_reset, no stop yet) */
  int64_t last = base;    /* rows of one thread are contiguous, one per node */
  while (last + 1 < s->nrows && s->rows[last + 1].thread == t->index) last++;
  double rate = sp__agg_ns_per_tick(0);
  int64_t now = sp__ticks();
  int64_t inner = 0; /* ns of the open call directly inside, 0 at the innermost */
  int32_t depth = t->depth < a->open_cap ? t->depth : a->open_cap;
  for (int32_t d = depth - 1; d >= 0; d--) {
    const sp_agg_open_t *o = &a->open[d];
    int64_t dur = sp__agg_round((double)(now - o->start) * rate);
    if (dur < 0) dur = 0;
    if (o->node < 0 || base + o->node > last) { /* not recorded: its parent's child still is */
      inner = dur;
      continue;
    }
    int64_t excl = dur - sp__agg_round((double)o->child * rate) - inner;
    sp_agg_row_t *r = &s->rows[base + o->node];
    if (r->calls == 0 || dur < r->min) r->min = dur;
    if (r->calls == 0 || dur > r->max) r->max = dur;
    r->calls++;
    r->incl += dur;
    r->excl += excl > 0 ? excl : 0;
    r->sumsq += (double)dur * (double)dur;
    int rc = sp_open_bucket(s, base + o->node, sp__agg_bucket(dur));
    if (rc) return rc;
    s->nopen++;
    inner = dur;
  }
  return 0;
}
