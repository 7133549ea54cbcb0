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
  int32_t unused;
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
} sp_agg_t;

/* Incremented by sp_reset: a thread whose gen differs has no figures in
 * the current window (it clears them at its next stop). */
extern SP_HIDDEN unsigned sp__agg_gen;

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
 * no block). */
static inline uint64_t sp__agg_hist_count(const sp_agg_node_t *x, int b) {
  const uint64_t *blk = __atomic_load_n(&x->hist[b / SP_AGG_SUB], __ATOMIC_ACQUIRE);
  return blk ? __atomic_load_n(&blk[b % SP_AGG_SUB], __ATOMIC_RELAXED) : 0;
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
/* The same for the hot path: only when the call path's node is known
 * already (cached) and the open-call array has room; returns 0, having
 * changed nothing, otherwise (then sp__agg_start). Allocates nothing. */
SP_HIDDEN int sp__agg_start_known(sp_thread_t *t, int32_t h, int32_t d, int64_t start);
/* The call at t->stack[d] ended at now (ns). */
SP_HIDDEN void sp__agg_stop(sp_thread_t *t, int32_t d, int64_t now);
/* Frees t's call paths (sp_finalize, a second sp_setup). */
SP_HIDDEN void sp__agg_thread_free(sp_thread_t *t);
/* The figures of a thread as readers may use them: NULL when it has none
 * in the current window. */
SP_HIDDEN const sp_agg_t *sp__agg_current(const sp_thread_t *t, int32_t *nnodes);
/* Calls of the current window that profile mode could not record, summed
 * over this process's threads (sp_finalize's message). Takes the state lock. */
SP_HIDDEN int64_t sp__agg_lost_now(void);

#endif
