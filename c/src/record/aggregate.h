/* aggregate.h - profile mode (sp_config.aggregate): per thread and per call
 * path statistics whose memory grows with the number of distinct call
 * paths, never with the number of calls.
 *
 * Recording (aggregate.c) is done by the owning thread only; the figures
 * are stored with relaxed atomic stores and read with relaxed atomic loads
 * by sp_report / sp_region_stats on other threads (a snapshot: a call in
 * flight may be in one figure and not yet in another). Nodes live in
 * chunks that never move once published, so a reader never sees freed
 * memory while the session runs.
 *
 * Durations go into a log-bucket histogram: values below 32 ns exactly,
 * above it 32 buckets per power of two (HDR style), so a bucket's midpoint
 * is within 1/64 (1.6 %) of any value in it. */
#ifndef SP_AGGREGATE_H
#define SP_AGGREGATE_H

#include "sp_internal.h"

#define SP_AGG_SUB 32                              /* buckets per power of two */
#define SP_AGG_EXPONENTS 40                        /* powers 2^5 .. 2^44 ns (~4.9 h) */
#define SP_AGG_GROUPS (1 + SP_AGG_EXPONENTS)       /* below 32 ns, then one per power */
#define SP_AGG_NBUCKETS (SP_AGG_SUB * SP_AGG_GROUPS) /* 1312 */
#define SP_AGG_SLAB_BLOCKS 256                     /* histogram blocks a slab (64 KiB) */
#define SP_AGG_CHUNK_BITS 8                        /* 256 nodes a chunk */
#define SP_AGG_MAX_CHUNKS 1024                     /* 262144 call paths a thread */

/* One call path of one thread: the stack of open regions down to region. */
typedef struct sp_agg_node {
  int32_t region;       /* handle */
  int32_t parent;       /* node of the enclosing call, -1 at the top */
  int32_t depth;        /* 0 at the top */
  int32_t cache_region; /* the last child looked up from here (owner only) */
  int32_t cache_node;
  /* The bucket of the last call, whose counter is not incremented yet (-1:
   * none): the next stop of this path does it. A store whose address
   * depends on the stop's TSC read holds up the next TSC read until that
   * one completes (+4.5 ns a pair on the CI's AMD EPYC; issue 44); one
   * whose address was known a call earlier does not. Readers count it in
   * (sp__agg_hist_count): at rest the figures are whole; a reader that
   * races the owner may see that call in no bucket or in two, as it may
   * see it in one figure and not yet in another. */
  int32_t pend;
  int64_t calls, incl, excl, min, max; /* ns; min/max meaningless while calls == 0 */
  double sumsq;                        /* sum of squared inclusive durations, ns^2 */
  /* The histogram of inclusive durations by group of SP_AGG_SUB buckets
   * (bucket b in group b / SP_AGG_SUB): a group's block is taken from the
   * thread's slab at its first duration, so that a path costs the few
   * powers of two its calls span (256 B each), not 1312 counters (10 KiB
   * of zeroed pages at its first call). Published (release) once zeroed. */
  uint64_t *hist[SP_AGG_GROUPS];
} sp_agg_node_t;

/* One open call: where its figures go and what its children took. */
typedef struct sp_agg_open {
  int32_t node; /* -1: not recorded (no memory, too many paths) */
  int32_t unused;
  int64_t start; /* ns */
  int64_t child; /* ns of the calls directly inside it, so far */
} sp_agg_open_t;

typedef struct sp_agg {
  sp_agg_node_t *chunks[SP_AGG_MAX_CHUNKS];
  int32_t nnodes;  /* published (release) after a node is filled */
  unsigned gen;    /* sp__agg_gen its figures belong to (sp_reset) */
  int32_t *table;  /* open addressing: node index or -1 (owner only) */
  int32_t table_cap;
  int32_t open_cap;
  sp_agg_open_t *open; /* indexed like sp_thread_t.stack */
  int64_t lost;        /* calls of this window not recorded (path cap, memory) */
  uint64_t *slab;      /* histogram blocks not yet given out (owner only) */
  int32_t slab_left;   /* blocks left in slab */
  int32_t nslabs, slabs_cap;
  uint64_t **slabs; /* every slab, freed with the thread's record */
  int32_t root_region; /* the last outermost call's region (-1: none) and its node */
  int32_t root_node;
  struct sp_agg_vals *vals; /* values per call path (sp_call_set*), NULL until the first */
} sp_agg_t;

/* Incremented by sp_reset: a thread whose gen differs has no figures in
 * the current window (it clears them at its next stop). */
extern SP_HIDDEN unsigned sp__agg_gen;

/* ---- values per call path (sp_call_set* in profile mode; docs/values.md,
 * aggregate_values.c) ----
 * Per call path and key (the key's number in its region, call_values.c):
 * the calls that set it, the sum, min and max of their values. A call may
 * set a key again (the last value counts), so the value of the call that
 * set it last is kept apart (cur, under the call's start stamp: mark) and
 * folded into the figures when another call of the path sets the key. A
 * reader folds it in itself. Written by the owner with relaxed atomics,
 * read by sp_report / sp_finalize's snapshot on another thread (a value in
 * flight may be in one figure and not yet in another, as with the times). */
#define SP_AGG_VKEYS 64 /* keys per region: call_values.c's SP_VKEYS */
typedef struct sp_agg_vstat {
  int64_t count; /* calls folded in */
  double sum, min, max;
  int64_t mark; /* start stamp of the call whose value is cur */
  double cur;
  int64_t has; /* cur holds a value */
} sp_agg_vstat_t;

typedef struct sp_agg_vals {
  unsigned gen; /* sp__agg_gen its figures belong to */
  /* by node: a block of SP_AGG_VKEYS stats, made at the node's first value
   * and published (release); chunks of 1 << SP_AGG_CHUNK_BITS nodes */
  sp_agg_vstat_t **chunks[SP_AGG_MAX_CHUNKS];
} sp_agg_vals_t;

/* Node i's stats block, or NULL (any thread). */
static inline sp_agg_vstat_t *sp__agg_vblock(const sp_agg_vals_t *v, int32_t i) {
  sp_agg_vstat_t **c = __atomic_load_n(&v->chunks[i >> SP_AGG_CHUNK_BITS], __ATOMIC_ACQUIRE);
  return c ? __atomic_load_n(&c[i & ((1 << SP_AGG_CHUNK_BITS) - 1)], __ATOMIC_ACQUIRE) : NULL;
}

/* Value x of the call with start stamp mark into s (owner only). */
static inline void sp__agg_vstat_put(sp_agg_vstat_t *s, int64_t mark, double x) {
  if (s->has && s->mark == mark) { /* the same call again: its last value counts */
    __atomic_store(&s->cur, &x, __ATOMIC_RELAXED);
    return;
  }
  if (s->has) { /* the call that set it last has ended: folded in */
    const double c = s->cur;
    const int64_t n = s->count;
    double sum = s->sum + c, mn = n == 0 || c < s->min ? c : s->min;
    double mx = n == 0 || c > s->max ? c : s->max;
    __atomic_store(&s->sum, &sum, __ATOMIC_RELAXED);
    __atomic_store(&s->min, &mn, __ATOMIC_RELAXED);
    __atomic_store(&s->max, &mx, __ATOMIC_RELAXED);
    __atomic_store_n(&s->count, n + 1, __ATOMIC_RELAXED);
  }
  __atomic_store(&s->cur, &x, __ATOMIC_RELAXED);
  __atomic_store_n(&s->mark, mark, __ATOMIC_RELAXED);
  __atomic_store_n(&s->has, 1, __ATOMIC_RELEASE);
}

/* The fast path of a numeric value x of key k for the innermost call of t
 * (at depth d), when its path's block exists in this window: 1 done, 0
 * not (then sp__agg_val_set, aggregate_values.h). No lock, no allocation. */
static inline int sp__agg_val_fast(sp_thread_t *t, int32_t d, int32_t k, double x) {
  const sp_agg_t *a = t->agg;
  const sp_agg_vals_t *v = a ? a->vals : NULL;
  if (!v || d >= a->open_cap || v->gen != __atomic_load_n(&sp__agg_gen, __ATOMIC_RELAXED)) return 0;
  const int32_t node = a->open[d].node;
  sp_agg_vstat_t *b = node >= 0 ? sp__agg_vblock(v, node) : NULL;
  if (!b) return 0;
  sp__agg_vstat_put(&b[k], a->open[d].start, x);
  return 1;
}



static inline sp_agg_node_t *sp__agg_node(const sp_agg_t *a, int32_t i) {
  return &a->chunks[i >> SP_AGG_CHUNK_BITS][i & ((1 << SP_AGG_CHUNK_BITS) - 1)];
}

/* Bucket of a duration and the value that stands for it (its midpoint). */
static inline int sp__agg_bucket(int64_t v) {
  if (v < SP_AGG_SUB) return v < 0 ? 0 : (int)v;
  int e = 63 - __builtin_clzll((unsigned long long)v); /* >= 5 */
  int b = SP_AGG_SUB * (e - 4) + (int)((v >> (e - 5)) & (SP_AGG_SUB - 1));
  return b < SP_AGG_NBUCKETS ? b : SP_AGG_NBUCKETS - 1;
}
static inline int64_t sp__agg_round(double x) { return (int64_t)(x + 0.5); }

/* Count of bucket b of x for a reader on any thread (0 while its group has
 * no block), the pending call included. */
static inline uint64_t sp__agg_hist_count(const sp_agg_node_t *x, int b) {
  const uint64_t *blk = __atomic_load_n(&x->hist[b / SP_AGG_SUB], __ATOMIC_ACQUIRE);
  return blk ? __atomic_load_n(&blk[b % SP_AGG_SUB], __ATOMIC_RELAXED) +
                   (__atomic_load_n(&x->pend, __ATOMIC_RELAXED) == b)
             : 0;
}

/* ---- aggregate.c: recording (hooks of hot_path.c) ---- */
/* Durations are recorded in the hot path's ticks: ns with CLOCK_MONOTONIC,
 * TSC ticks in profile mode alone where the TSC is used. The histogram
 * needs ns at once: ticks times the rate of sp_setup's calibration
 * (2 ms apart), in 32.32 fixed point. */
SP_HIDDEN void sp__agg_rate_setup(void);
/* ns per tick now, from the first and last calibration points (1.0 when
 * the ticks are ns); adds a point first when add_point and the last is
 * older than a second. Takes the state lock. */
SP_HIDDEN double sp__agg_ns_per_tick(int add_point);
/* The call just pushed at t->stack[d] of region h started at start (ns). */
SP_HIDDEN void sp__agg_start(sp_thread_t *t, int32_t h, int32_t d, int64_t start);
/* The call at t->stack[d] ended at now (ns). */
SP_HIDDEN void sp__agg_stop(sp_thread_t *t, int32_t d, int64_t now);

/* ---- the hot path's profile fast path (hot_path.c), inline: each call
 * level cost the pair ~1 ns (issue 44) ---- */
extern SP_HIDDEN uint64_t sp__agg_mul; /* ns per tick, 32.32 fixed point */

/* A duration in the hot path's ticks, in ns (the histogram's unit). dur
 * >= 0: one unsigned 64x64 multiply. */
static inline int64_t sp__agg_dur_ns(int64_t dur) {
  if (!sp__state.clock_tsc) return dur;
  return (int64_t)(((unsigned __int128)(uint64_t)dur * sp__agg_mul) >> 32);
}

/* A finished call of dur into node n, child of it in calls directly
 * inside, in bucket b (whose group has its block). */
static inline void sp__agg_record(sp_agg_node_t *n, int64_t dur, int64_t child, int b) {
  int64_t calls = __atomic_load_n(&n->calls, __ATOMIC_RELAXED);
  if (calls == 0 || dur < __atomic_load_n(&n->min, __ATOMIC_RELAXED))
    __atomic_store_n(&n->min, dur, __ATOMIC_RELAXED);
  if (calls == 0 || dur > __atomic_load_n(&n->max, __ATOMIC_RELAXED))
    __atomic_store_n(&n->max, dur, __ATOMIC_RELAXED);
  __atomic_store_n(&n->incl, __atomic_load_n(&n->incl, __ATOMIC_RELAXED) + dur, __ATOMIC_RELAXED);
  __atomic_store_n(&n->excl, __atomic_load_n(&n->excl, __ATOMIC_RELAXED) + (dur - child),
                   __ATOMIC_RELAXED);
  double sq;
  __atomic_load(&n->sumsq, &sq, __ATOMIC_RELAXED);
  sq += (double)dur * (double)dur;
  __atomic_store(&n->sumsq, &sq, __ATOMIC_RELAXED);
  const int32_t p = n->pend; /* the last call's count, at an address known by now */
  if (SP_LIKELY(p >= 0)) {
    uint64_t *c = &n->hist[p / SP_AGG_SUB][p % SP_AGG_SUB];
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&n->pend, b, __ATOMIC_RELAXED);
  /* The count last: a reader that sees it sees a call with its time. */
  __atomic_store_n(&n->calls, calls + 1, __ATOMIC_RELEASE);
}

/* The same start as sp__agg_start, only when the call path's node is
 * known already (the parent's one-entry cache, or the thread's last
 * outermost call) and the open-call array has room; returns 0, having
 * changed nothing, otherwise (then sp__agg_start). Allocates nothing. */
static inline int sp__agg_start_known(sp_thread_t *t, int32_t h, int32_t d, int64_t start) {
  sp_agg_t *a = t->agg;
  if (SP_UNLIKELY(!a || d >= a->open_cap)) return 0;
  int32_t node;
  if (d == 0) {
    if (a->root_region != h) return 0;
    node = a->root_node;
  } else {
    const int32_t parent = a->open[d - 1].node;
    if (parent < 0) return 0;
    const sp_agg_node_t *p = sp__agg_node(a, parent);
    if (p->cache_region != h) return 0;
    node = p->cache_node;
  }
  a->open[d].node = node;
  a->open[d].start = start;
  a->open[d].child = 0;
  return 1;
}

/* sp__agg_stop inline for the usual stop (figures of this window, the
 * bucket's block there); everything else goes to sp__agg_stop. */
static inline void sp__agg_stop_fast(sp_thread_t *t, int32_t d, int64_t now) {
  sp_agg_t *a = t->agg;
  if (SP_UNLIKELY(!a || d >= a->open_cap)) return;
  sp_agg_open_t *o = &a->open[d];
  const int32_t node = o->node;
  if (SP_UNLIKELY(node < 0 || a->gen != __atomic_load_n(&sp__agg_gen, __ATOMIC_ACQUIRE))) {
    sp__agg_stop(t, d, now);
    return;
  }
  int64_t dur = now - o->start;
  if (dur < 0) dur = 0;
  sp_agg_node_t *n = sp__agg_node(a, node);
  const int b = sp__agg_bucket(sp__agg_dur_ns(dur));
  uint64_t *blk = n->hist[b / SP_AGG_SUB];
  if (SP_UNLIKELY(!blk)) { /* the first duration of this power of two */
    sp__agg_stop(t, d, now);
    return;
  }
  if (d > 0) a->open[d - 1].child += dur;
  sp__agg_record(n, dur, o->child, b);
}

/* Frees t's call paths (sp_finalize, a second sp_setup). */
SP_HIDDEN void sp__agg_thread_free(sp_thread_t *t);
/* The figures of a thread as readers may use them: NULL when it has none
 * in the current window. */
SP_HIDDEN const sp_agg_t *sp__agg_current(const sp_thread_t *t, int32_t *nnodes);
/* Calls of the current window that profile mode could not record, summed
 * over this process's threads (sp_finalize's message). Takes the state lock. */
SP_HIDDEN int64_t sp__agg_lost_now(void);

#endif
