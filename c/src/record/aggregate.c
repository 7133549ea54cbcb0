/* aggregate.c - profile mode: recording per call path (aggregate.h).
 *
 * Called from the hot path's slow paths when sp_config.aggregate is set:
 * sp__agg_start after a call is pushed on the thread's stack, sp__agg_stop
 * when it is closed (the usual start and stop of profile mode alone are
 * aggregate.h's inline sp__agg_start_known and sp__agg_stop_fast). The thread's open calls are mirrored in a->open (same
 * index as t->stack), each with the node of its call path, its start and
 * the time of the calls directly inside it, so a stop knows its inclusive
 * and exclusive time without a search. The node of a call path is found
 * from its parent's one-entry cache (loops call the same child again), else
 * through a hash table keyed by (parent node, region). */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"

unsigned sp__agg_gen;
uint64_t sp__agg_mul = (uint64_t)1 << 32; /* ns per tick, 32.32 fixed point */

void sp__agg_rate_setup(void) {
  double r = sp__agg_ns_per_tick(0);
  sp__agg_mul = (uint64_t)(r * 4294967296.0 + 0.5);
}

double sp__agg_ns_per_tick(int add_point) {
  sp_state_t *st = &sp__state;
  if (!st->clock_tsc) return 1.0;
  pthread_mutex_lock(&st->lock);
  if (add_point && sp__monotonic_ns() - st->last_calib_ns >= 1000000000) {
    sp__calib_add_now(&st->calib, 1, NULL);
    st->last_calib_ns = sp__monotonic_ns();
  }
  double r = 1.0;
  const sp_calib_t *c = &st->calib;
  if (c->n >= 2 && c->pts[c->n - 1].ticks > c->pts[0].ticks)
    r = (double)(c->pts[c->n - 1].ns - c->pts[0].ns) /
        (double)(c->pts[c->n - 1].ticks - c->pts[0].ticks);
  pthread_mutex_unlock(&st->lock);
  return r;
}

#define SP_LOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define SP_STORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELAXED)

static uint64_t sp_agg_key_hash(int32_t parent, int32_t region) {
  uint64_t k = ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint32_t)region;
  return k * 0x9E3779B97F4A7C15ull;
}

static int sp_agg_table_put(sp_agg_t *a, int32_t node) {
  const sp_agg_node_t *n = sp__agg_node(a, node);
  uint32_t mask = (uint32_t)a->table_cap - 1;
  uint32_t i = (uint32_t)(sp_agg_key_hash(n->parent, n->region) >> 32) & mask;
  while (a->table[i] >= 0) i = (i + 1) & mask;
  a->table[i] = node;
  return 0;
}

/* Keeps the table at most half full. */
static int sp_agg_table_grow(sp_agg_t *a) {
  int32_t ncap = a->table_cap ? a->table_cap * 2 : 256;
  int32_t *nt = malloc((size_t)ncap * sizeof *nt);
  if (!nt) return SP_ENOMEM;
  memset(nt, 0xff, (size_t)ncap * sizeof *nt);
  free(a->table);
  a->table = nt;
  a->table_cap = ncap;
  for (int32_t i = 0; i < a->nnodes; i++) sp_agg_table_put(a, i);
  return 0;
}

static int32_t sp_agg_table_find(const sp_agg_t *a, int32_t parent, int32_t region) {
  if (!a->table_cap) return -1;
  uint32_t mask = (uint32_t)a->table_cap - 1;
  uint32_t i = (uint32_t)(sp_agg_key_hash(parent, region) >> 32) & mask;
  for (int32_t n; (n = a->table[i]) >= 0; i = (i + 1) & mask) {
    const sp_agg_node_t *x = sp__agg_node(a, n);
    if (x->parent == parent && x->region == region) return n;
  }
  return -1;
}

/* A new call path below parent; -1 without memory or past the limit. */
static int32_t sp_agg_node_new(sp_agg_t *a, int32_t parent, int32_t region) {
  int32_t i = a->nnodes;
  if ((i >> SP_AGG_CHUNK_BITS) >= SP_AGG_MAX_CHUNKS) {
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM,
            "aggregate mode: more than %d call paths on one thread; calls of new paths are "
            "not recorded",
            SP_AGG_MAX_CHUNKS << SP_AGG_CHUNK_BITS);
    return -1;
  }
  if ((int64_t)(i + 1) * 2 > a->table_cap && sp_agg_table_grow(a) != 0) return -1;
  sp_agg_node_t **chunk = &a->chunks[i >> SP_AGG_CHUNK_BITS];
  if (!*chunk) {
    sp_agg_node_t *c = calloc((size_t)1 << SP_AGG_CHUNK_BITS, sizeof *c);
    if (!c) return -1;
    __atomic_store_n(chunk, c, __ATOMIC_RELEASE);
  }
  sp_agg_node_t *n = sp__agg_node(a, i);
  n->region = region;
  n->parent = parent;
  n->depth = parent < 0 ? 0 : sp__agg_node(a, parent)->depth + 1;
  n->cache_region = -1;
  n->cache_node = -1;
  n->pend = -1;
  __atomic_store_n(&a->nnodes, i + 1, __ATOMIC_RELEASE);
  sp_agg_table_put(a, i);
  return i;
}

static sp_agg_t *sp_agg_of(sp_thread_t *t) {
  if (SP_LIKELY(t->agg != NULL)) return t->agg;
  sp_agg_t *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->gen = __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE);
  a->root_region = a->root_node = -1;
  pthread_mutex_lock(&sp__state.lock); /* readers walk the thread list under it */
  t->agg = a;
  pthread_mutex_unlock(&sp__state.lock);
  return a;
}

/* Makes a->open cover depth d; new entries record nothing. */
static int sp_agg_open_room(sp_agg_t *a, int32_t d) {
  if (d < a->open_cap) return 0;
  int32_t ncap = a->open_cap ? a->open_cap : 64;
  while (ncap <= d) ncap *= 2;
  sp_agg_open_t *no = realloc(a->open, (size_t)ncap * sizeof *no);
  if (!no) return SP_ENOMEM;
  for (int32_t i = a->open_cap; i < ncap; i++) no[i].node = -1;
  a->open = no;
  a->open_cap = ncap;
  return 0;
}

/* sp_reset happened: the figures of the last window go (owner only). */
static void sp_agg_clear(sp_agg_t *a, unsigned gen) {
  for (int32_t i = 0; i < a->nnodes; i++) {
    sp_agg_node_t *n = sp__agg_node(a, i);
    SP_STORE(&n->calls, 0);
    SP_STORE(&n->incl, 0);
    SP_STORE(&n->excl, 0);
    SP_STORE(&n->min, 0);
    SP_STORE(&n->max, 0);
    double z = 0.0;
    __atomic_store(&n->sumsq, &z, __ATOMIC_RELAXED);
    for (int g = 0; g < SP_AGG_GROUPS; g++)
      for (int b = 0; n->hist[g] && b < SP_AGG_SUB; b++) SP_STORE(&n->hist[g][b], 0);
    SP_STORE(&n->pend, -1);
  }
  SP_STORE(&a->lost, 0);
  __atomic_store_n(&a->gen, gen, __ATOMIC_RELEASE);
}

/* A call of this thread that the figures leave out, counted in the
 * window it starts in (the file's events_lost, sp_finalize's message). */
static void sp_agg_lose(sp_agg_t *a) {
  unsigned gen = __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(a->gen != gen)) sp_agg_clear(a, gen);
  SP_STORE(&a->lost, SP_LOAD(&a->lost) + 1);
}

/* A zeroed histogram block of SP_AGG_SUB counters from the thread's slab;
 * NULL without memory. Slabs are freed only with the thread's record, so
 * a reader never sees a block go. */
static uint64_t *sp_agg_block(sp_agg_t *a) {
  if (a->slab_left == 0) {
    if (a->nslabs == a->slabs_cap) {
      int32_t ncap = a->slabs_cap ? a->slabs_cap * 2 : 16;
      uint64_t **ns = realloc(a->slabs, (size_t)ncap * sizeof *ns);
      if (!ns) return NULL;
      a->slabs = ns;
      a->slabs_cap = ncap;
    }
    uint64_t *slab = calloc((size_t)SP_AGG_SLAB_BLOCKS * SP_AGG_SUB, sizeof *slab);
    if (!slab) return NULL;
    a->slabs[a->nslabs++] = slab;
    a->slab = slab;
    a->slab_left = SP_AGG_SLAB_BLOCKS;
  }
  uint64_t *b = a->slab;
  a->slab += SP_AGG_SUB;
  a->slab_left--;
  return b;
}

/* Node n's block of group g at its first duration there, published for
 * readers; NULL (the call counted as lost, said once) without memory. Out
 * of line: the stop that needs it is rare, and its calls would cost every
 * stop registers saved. */
static __attribute__((noinline)) uint64_t *sp_agg_first_block(sp_agg_t *a, sp_agg_node_t *n,
                                                              int g) {
  uint64_t *blk = sp_agg_block(a);
  if (!blk) {
    SP_STORE(&a->lost, SP_LOAD(&a->lost) + 1);
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
    return NULL;
  }
  __atomic_store_n(&n->hist[g], blk, __ATOMIC_RELEASE);
  return blk;
}

void sp__agg_start(sp_thread_t *t, int32_t h, int32_t d, int64_t start) {
  sp_agg_t *a = sp_agg_of(t);
  if (SP_UNLIKELY(!a)) { /* no record to count it in */
    __atomic_fetch_add(&sp__state.events_lost, 1, __ATOMIC_RELAXED);
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
    return;
  }
  if (SP_UNLIKELY(sp_agg_open_room(a, d) != 0)) {
    sp_agg_lose(a);
    sp__log(SP_LOG_ERROR, SP_LOG_ONCE_NOMEM, "out of memory: calls are not recorded");
    return;
  }
  int32_t parent = d > 0 ? a->open[d - 1].node : -1;
  int32_t node = -1;
  if (d > 0 && parent < 0) { /* the enclosing call is not recorded: nor is this one */
    sp_agg_lose(a);
    goto done;
  }
  sp_agg_node_t *p = parent >= 0 ? sp__agg_node(a, parent) : NULL;
  if (p && p->cache_region == h) {
    node = p->cache_node;
  } else {
    node = sp_agg_table_find(a, parent, h);
    if (node < 0) node = sp_agg_node_new(a, parent, h);
    if (node >= 0 && parent >= 0) {
      p = sp__agg_node(a, parent); /* its chunk may be new, but never moves */
      p->cache_region = h;
      p->cache_node = node;
    } else if (node >= 0) { /* outermost: the hot path finds it again without the table */
      a->root_region = h;
      a->root_node = node;
    }
  }
  if (node < 0) sp_agg_lose(a);
done:
  a->open[d].node = node;
  a->open[d].start = start;
  a->open[d].child = 0;
}

/* The stop of a call whose bucket's group has no block yet: out of line
 * and reached by a tail call, so that the usual stop saves no registers
 * for a call it rarely makes. */
static __attribute__((noinline)) void sp_agg_record_first(sp_agg_t *a, sp_agg_node_t *n,
                                                          int64_t dur, int64_t child, int b) {
  uint64_t *blk = sp_agg_first_block(a, n, b / SP_AGG_SUB);
  if (blk) sp__agg_record(n, dur, child, b);
}

void sp__agg_stop(sp_thread_t *t, int32_t d, int64_t now) {
  sp_agg_t *a = t->agg;
  if (SP_UNLIKELY(!a || d >= a->open_cap)) return;
  const sp_agg_open_t *o = &a->open[d];
  int64_t dur = now - o->start;
  if (dur < 0) dur = 0;
  if (d > 0) a->open[d - 1].child += dur;
  if (SP_UNLIKELY(o->node < 0)) return;
  unsigned gen = __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE);
  if (SP_UNLIKELY(a->gen != gen)) sp_agg_clear(a, gen);
  sp_agg_node_t *n = sp__agg_node(a, o->node);
  int b = sp__agg_bucket(sp__agg_dur_ns(dur));
  uint64_t *blk = n->hist[b / SP_AGG_SUB];
  if (SP_UNLIKELY(!blk)) { /* the first duration of this power of two */
    sp_agg_record_first(a, n, dur, o->child, b);
    return;
  }
  sp__agg_record(n, dur, o->child, b);
}

void sp__agg_thread_free(sp_thread_t *t) {
  sp_agg_t *a = t->agg;
  if (!a) return;
  t->agg = NULL;
  for (int32_t i = 0; i < a->nslabs; i++) free(a->slabs[i]);
  free(a->slabs);
  for (int c = 0; c < SP_AGG_MAX_CHUNKS && a->chunks[c]; c++) free(a->chunks[c]);
  free(a->table);
  free(a->open);
  sp_agg_vals_t *v = a->vals; /* values per call path (aggregate_values.c) */
  for (int c = 0; v && c < SP_AGG_MAX_CHUNKS; c++) {
    for (int i = 0; v->chunks[c] && i < 1 << SP_AGG_CHUNK_BITS; i++) free(v->chunks[c][i]);
    free(v->chunks[c]);
  }
  free(v);
  free(a);
}

const sp_agg_t *sp__agg_current(const sp_thread_t *t, int32_t *nnodes) {
  const sp_agg_t *a = __atomic_load_n(&t->agg, __ATOMIC_ACQUIRE);
  *nnodes = 0;
  if (!a) return NULL;
  if (__atomic_load_n(&a->gen, __ATOMIC_ACQUIRE) != __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE))
    return NULL;
  *nnodes = __atomic_load_n(&a->nnodes, __ATOMIC_ACQUIRE);
  return a;
}

int64_t sp__agg_lost_now(void) {
  int64_t lost = 0;
  pthread_mutex_lock(&sp__state.lock);
  for (const sp_thread_t *t = sp__state.threads; t; t = t->next) {
    int32_t n;
    const sp_agg_t *a = sp__agg_current(t, &n);
    if (a) lost += __atomic_load_n(&a->lost, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&sp__state.lock);
  return lost;
}
