/* aggregate_snap.c - one rank's aggregates as a flat snapshot (aggregate_snap.h);
 * packing it into a blob and reading one back is aggregate_blob.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_blob.h"
#include "aggregate_snap.h"
#include "aggregate_vals.h"
#include "region_source.h"
#include "spill_format.h"

#define SP_LOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)

/* Appends the nonzero buckets of node x, row row. */
static int sp_snap_buckets(sp_agg_snap_t *s, const sp_agg_node_t *x, int64_t row, int64_t *bcap) {
  for (int g = 0; g < SP_AGG_GROUPS; g++) {
    const uint64_t *blk = __atomic_load_n(&x->hist[g], __ATOMIC_ACQUIRE);
    for (int k = 0; blk && k < SP_AGG_SUB; k++) {
      uint64_t c = sp__agg_hist_count(x, g * SP_AGG_SUB + k);
      if (!c) continue;
      if (sp__agg_grow((void **)&s->bks, bcap, s->nbks + 1, sizeof *s->bks)) return SP_ENOMEM;
      s->bks[s->nbks++] = (sp_agg_bk_t){row, g * SP_AGG_SUB + k, 0, (int64_t)c};
    }
  }
  return 0;
}

/* Exclusive ns of the n rows at r, whose ticks are tk[2i] (inclusive) and
 * tk[2i + 1] (exclusive). Converted one by one, exclusive and the
 * inclusives would each round on their own and miss inclusive minus the
 * children's inclusives by a ns; so where the ticks a path's calls left
 * out are its children's inclusive ticks (every finished call, no
 * unrecorded child), its exclusive is its inclusive less its children's
 * inclusives in ns; elsewhere its own ticks converted. kid: 2n scratch. */
static void sp_snap_exclusive(sp_agg_row_t *r, int64_t base, int32_t n, const int64_t *tk,
                              int64_t *kid, double rate) {
  memset(kid, 0, (size_t)n * 2 * sizeof *kid);
  for (int32_t i = 0; i < n; i++) {
    if (r[i].parent < 0) continue;
    int64_t p = r[i].parent - base;
    kid[2 * p] += tk[2 * i];
    kid[2 * p + 1] += r[i].incl;
  }
  for (int32_t i = 0; i < n; i++)
    r[i].excl = tk[2 * i] - tk[2 * i + 1] == kid[2 * i]
                    ? r[i].incl - kid[2 * i + 1]
                    : sp__agg_round((double)tk[2 * i + 1] * rate);
}

/* Appends the values per key of the n paths of a (rows from base), their
 * keys named later (sp_snap_keys: not under the state lock). */
static int sp_snap_vals(sp_agg_snap_t *s, const sp_agg_t *a, int32_t n, int64_t base) {
  const sp_agg_vals_t *v = __atomic_load_n(&a->vals, __ATOMIC_ACQUIRE);
  if (!v ||
      __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE) != __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE))
    return 0;
  for (int32_t i = 0; i < n; i++) {
    const sp_agg_vstat_t *b = sp__agg_vblock(v, i);
    for (int32_t k = 0; b && k < SP_AGG_VKEYS; k++) {
      const sp_agg_vstat_t *x = &b[k];
      const int64_t has = __atomic_load_n(&x->has, __ATOMIC_ACQUIRE);
      sp_agg_val_t o = {base + i, SP_LOAD(&x->count), 0.0, 0.0, 0.0, 0, k, NULL};
      if (!has && o.count == 0) continue;
      __atomic_load(&x->sum, &o.sum, __ATOMIC_RELAXED);
      __atomic_load(&x->min, &o.min, __ATOMIC_RELAXED);
      __atomic_load(&x->max, &o.max, __ATOMIC_RELAXED);
      if (has) { /* the last call's value, not folded in yet */
        double c;
        __atomic_load(&x->cur, &c, __ATOMIC_RELAXED);
        o.sum += c;
        o.min = o.count == 0 || c < o.min ? c : o.min;
        o.max = o.count == 0 || c > o.max ? c : o.max;
        o.count++;
      }
      if (sp__agg_grow((void **)&s->vals, &s->vcap, s->nvals + 1, sizeof *s->vals))
        return SP_ENOMEM;
      s->vals[s->nvals++] = o;
    }
  }
  return 0;
}

/* The keys of the values sp_snap_vals took, by their region's table
 * (call_values.c); a string key's figures are its calls only. */
static int sp_snap_keys(sp_agg_snap_t *s) {
  for (int64_t i = 0; i < s->nvals; i++) {
    sp_agg_val_t *o = &s->vals[i];
    int32_t kind = 0;
    const char *name = sp__vals_key(s->rows[o->row].region, o->kix, &kind);
    o->key = strdup(name ? name : "?");
    if (!o->key) return SP_ENOMEM;
    o->kind = kind;
    if (kind == SP_VKIND_STR) o->sum = o->min = o->max = NAN;
  }
  return 0;
}

/* Appends the rows and nonzero buckets of thread t's figures. */
static int sp_snap_thread(sp_agg_snap_t *s, const sp_thread_t *t, int32_t rank, double rate,
                          int64_t *rcap, int64_t *bcap) {
  int32_t n;
  const sp_agg_t *a = sp__agg_current(t, &n);
  if (!a) return 0;
  s->lost += SP_LOAD(&a->lost);
  if (n == 0) return 0;
  int64_t base = s->nrows;
  int64_t *tk = malloc((size_t)n * 4 * sizeof *tk); /* ticks, then the children's sums */
  if (!tk || sp__agg_grow((void **)&s->rows, rcap, base + n, sizeof *s->rows)) {
    free(tk);
    return SP_ENOMEM;
  }
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < n; i++) {
    const sp_agg_node_t *x = sp__agg_node(a, i);
    sp_agg_row_t *r = &s->rows[base + i];
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->thread = t->index;
    r->region = x->region;
    r->parent = x->parent < 0 ? -1 : (int32_t)(base + x->parent);
    r->depth = x->depth;
    r->calls = __atomic_load_n(&x->calls, __ATOMIC_ACQUIRE);
    tk[2 * i] = SP_LOAD(&x->incl);
    tk[2 * i + 1] = SP_LOAD(&x->excl);
    r->incl = sp__agg_round((double)tk[2 * i] * rate); /* ticks to ns */
    r->min = sp__agg_round((double)SP_LOAD(&x->min) * rate);
    r->max = sp__agg_round((double)SP_LOAD(&x->max) * rate);
    __atomic_load(&x->sumsq, &r->sumsq, __ATOMIC_RELAXED);
    r->sumsq *= rate * rate;
    rc = sp_snap_buckets(s, x, base + i, bcap);
  }
  if (rc == 0) {
    sp_snap_exclusive(s->rows + base, base, n, tk, tk + 2 * (int64_t)n, rate);
    s->nrows = base + n;
    rc = sp_snap_vals(s, a, n, base);
  }
  free(tk);
  return rc;
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
  if (rc == 0) rc = sp_snap_keys(s);
  /* The names after the rows: every region of a row was registered by then. */
  int32_t nreg = sp__region_count();
  s->names = rc ? NULL : calloc((size_t)(nreg ? nreg : 1), sizeof *s->names);
  if (!rc && !s->names) rc = SP_ENOMEM;
  s->srcs = rc ? NULL : calloc((size_t)(nreg ? nreg : 1), sizeof *s->srcs);
  if (!rc && !s->srcs) rc = SP_ENOMEM;
  if (!rc) s->nsrcs = nreg;
  for (int32_t h = 0; rc == 0 && h < nreg; h++) {
    s->names[h] = strdup(sp__region_get(h)->name);
    s->nnames = h + 1;
    const char *file;
    int64_t line;
    if (s->names[h] && sp__source_get(h, &file, &line)) { /* sp_region_at's location */
      s->srcs[h].file = strdup(file);
      s->srcs[h].line = line;
      if (!s->srcs[h].file) rc = SP_ENOMEM;
    }
    if (!s->names[h]) rc = SP_ENOMEM;
  }
  if (rc) sp__agg_snap_free(s);
  return rc;
}
