/* aggregate_snap.c - one rank's aggregates as a flat snapshot (aggregate_snap.h);
 * packing it into a blob and reading one back is aggregate_blob.c's. */
#include <stdlib.h>
#include <string.h>

#include "aggregate_snap.h"
#include "aggregate_blob.h"

#define SP_LOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)

/* Appends the rows and nonzero buckets of thread t's figures. */
static int sp_snap_thread(sp_agg_snap_t *s, const sp_thread_t *t, int32_t rank, double rate,
                          int64_t *rcap, int64_t *bcap) {
  int32_t n;
  const sp_agg_t *a = sp__agg_current(t, &n);
  if (!a || n == 0) return 0;
  int64_t base = s->nrows;
  if (sp__agg_grow((void **)&s->rows, rcap, base + n, sizeof *s->rows)) return SP_ENOMEM;
  for (int32_t i = 0; i < n; i++) {
    const sp_agg_node_t *x = sp__agg_node(a, i);
    sp_agg_row_t *r = &s->rows[base + i];
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->thread = t->index;
    r->region = x->region;
    r->parent = x->parent < 0 ? -1 : (int32_t)(base + x->parent);
    r->depth = x->depth;
    r->calls = __atomic_load_n(&x->calls, __ATOMIC_ACQUIRE);
    r->incl = sp__agg_round((double)SP_LOAD(&x->incl) * rate); /* ticks to ns */
    r->excl = sp__agg_round((double)SP_LOAD(&x->excl) * rate);
    r->min = sp__agg_round((double)SP_LOAD(&x->min) * rate);
    r->max = sp__agg_round((double)SP_LOAD(&x->max) * rate);
    __atomic_load(&x->sumsq, &r->sumsq, __ATOMIC_RELAXED);
    r->sumsq *= rate * rate;
    for (int b = 0; b < SP_AGG_NBUCKETS; b++) {
      uint64_t c = SP_LOAD(&x->hist[b]);
      if (!c) continue;
      if (sp__agg_grow((void **)&s->bks, bcap, s->nbks + 1, sizeof *s->bks)) return SP_ENOMEM;
      s->bks[s->nbks++] = (sp_agg_bk_t){base + i, b, 0, (int64_t)c};
    }
  }
  s->nrows = base + n;
  return 0;
}

int sp__agg_snap_take(sp_agg_snap_t *s, int32_t rank) {
  memset(s, 0, sizeof *s);
  int64_t rcap = 0, bcap = 0;
  int rc = 0;
  double rate = sp__agg_ns_per_tick(1);
  pthread_mutex_lock(&sp__state.lock);
  for (const sp_thread_t *t = sp__state.threads; t && rc == 0; t = t->next)
    rc = sp_snap_thread(s, t, rank, rate, &rcap, &bcap);
  pthread_mutex_unlock(&sp__state.lock);
  /* The names after the rows: every region of a row was registered by then. */
  int32_t nreg = sp__region_count();
  s->names = rc ? NULL : calloc((size_t)(nreg ? nreg : 1), sizeof *s->names);
  if (!rc && !s->names) rc = SP_ENOMEM;
  for (int32_t h = 0; rc == 0 && h < nreg; h++) {
    s->names[h] = strdup(sp__region_get(h)->name);
    if (!s->names[h]) rc = SP_ENOMEM;
    s->nnames = h + 1;
  }
  if (rc) sp__agg_snap_free(s);
  return rc;
}
