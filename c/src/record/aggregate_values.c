/* aggregate_values.c - values per call path in profile mode (aggregate.h,
 * docs/values.md "Profile mode"): the blocks of a thread's stats, made at
 * a path's first value; the snapshot (profile/aggregate_snap.c) reads
 * them. The fast path is aggregate.h's sp__agg_val_fast. */
#include <stdlib.h>
#include <string.h>

#include "aggregate_values.h"

#define SP_VCHUNK (1 << SP_AGG_CHUNK_BITS)

/* A new window (sp_reset): every stat of v zeroed (owner only). */
static void sp_vals_clear(sp_agg_vals_t *v, unsigned gen) {
  for (int c = 0; c < SP_AGG_MAX_CHUNKS; c++) {
    sp_agg_vstat_t **ch = v->chunks[c];
    for (int i = 0; ch && i < SP_VCHUNK; i++) {
      sp_agg_vstat_t *b = ch[i];
      for (int k = 0; b && k < SP_AGG_VKEYS; k++) {
        __atomic_store_n(&b[k].has, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b[k].count, 0, __ATOMIC_RELAXED);
      }
    }
  }
  __atomic_store_n(&v->gen, gen, __ATOMIC_RELEASE);
}

int sp__agg_val_set(sp_thread_t *t, int32_t d, int32_t k, double x) {
  sp_agg_t *a = t->agg;
  if (!a || d < 0 || d >= a->open_cap || a->open[d].node < 0 || k < 0 || k >= SP_AGG_VKEYS)
    return 0;
  const unsigned gen = __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE);
  sp_agg_vals_t *v = a->vals;
  if (!v) {
    v = calloc(1, sizeof *v);
    if (!v) return SP_ENOMEM;
    v->gen = gen;
    __atomic_store_n(&a->vals, v, __ATOMIC_RELEASE);
  }
  if (v->gen != gen) sp_vals_clear(v, gen);
  const int32_t node = a->open[d].node;
  sp_agg_vstat_t **ch = v->chunks[node >> SP_AGG_CHUNK_BITS];
  if (!ch) {
    ch = calloc(SP_VCHUNK, sizeof *ch);
    if (!ch) return SP_ENOMEM;
    __atomic_store_n(&v->chunks[node >> SP_AGG_CHUNK_BITS], ch, __ATOMIC_RELEASE);
  }
  sp_agg_vstat_t *b = ch[node & (SP_VCHUNK - 1)];
  if (!b) {
    b = calloc(SP_AGG_VKEYS, sizeof *b);
    if (!b) return SP_ENOMEM;
    __atomic_store_n(&ch[node & (SP_VCHUNK - 1)], b, __ATOMIC_RELEASE);
  }
  sp__agg_vstat_put(&b[k], a->open[d].start, x);
  return 0;
}
