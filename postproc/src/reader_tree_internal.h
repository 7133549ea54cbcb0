/* reader_tree_internal.h - what the call tree's files share (reader_tree.c,
 * reader_tree_repeat.c, reader_tree_nodes.c, reader_tree_ids.c,
 * reader_tree_dense.c, reader_tree_agg.c) and reader_durations.c uses: the
 * tree under construction, the sweep over one rank's calls and the rank's
 * loaded pairs. */
#ifndef SP_READER_TREE_INTERNAL_H
#define SP_READER_TREE_INTERNAL_H

#include <stdlib.h>

#include "reader_internal.h"

/* One call on the rank being processed. */
typedef struct sp_call {
  int64_t start, end; /* ns */
  int32_t tid;        /* thread id, 0 without thread_ids */
  int32_t key;        /* region's position in name order (tie-break), then region */
} sp_call_t;

/* The order of the sweep: thread, start ascending, end descending, name. */
static inline int sp_call_before(const sp_call_t *x, const sp_call_t *y) {
  if (x->tid != y->tid) return x->tid < y->tid;
  if (x->start != y->start) return x->start < y->start;
  if (x->end != y->end) return x->end > y->end;
  return x->key < y->key;
}

/* A call still open during the sweep. */
typedef struct sp_open {
  int node;
  int slot;           /* its slot in the pattern being recorded, -1 if none */
  int last_child;     /* slot of its latest child in that pattern, -1 if none */
  int64_t end;        /* ns */
  int64_t dur;        /* ns */
  int64_t child_incl; /* ns: the inclusive time of the calls directly under it */
} sp_open_t;

struct sp_reader_tree {
  int nnodes, cap;
  sp_reader_tree_node_t *nodes;
  int64_t *per_rank; /* [node][j][calls, inclusive, exclusive] */
  int nranks;        /* selected ranks */
  int *rank_ids;     /* their ids */
  int *slots;        /* hash table of node indices + 1 (0 = empty) */
  size_t nslots;     /* power of two */
  int64_t roots_inclusive;
  int nregions_all;           /* regions of the reader (index of dur) */
  sp_reader_durations_t *dur; /* [region][j] with SP_READER_TREE_DURATIONS, else NULL */
  int64_t stream_calls;       /* ranks with more timed calls stream (sp_reader_stream_calls) */
};

/* Saturating int64 addition: sums of a damaged file's durations must not overflow. */
static inline int64_t sp_add(int64_t a, int64_t b) {
  int64_t s;
  if (!__builtin_add_overflow(a, b, &s)) return s;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t *sp_rank_cell(sp_reader_tree_t *t, int node, int j) {
  return &t->per_rank[((size_t)node * (size_t)t->nranks + (size_t)j) * 3];
}

/* The timed (region, rank) pairs of the rank being processed, all loaded:
 * the rank's set is what memory is bounded by. */
typedef struct sp_pairs {
  sp_reader_intervals_t *iv;
  int *key; /* region's position in name order */
  int n;
  int64_t calls;  /* intervals over all pairs */
  int64_t lo, hi; /* smallest and largest start, ns */
  int mixed;      /* more than one thread id among the calls */
  int unsorted;   /* a pair whose starts decrease somewhere (recursion) */
  int32_t tid0;   /* the thread id when not mixed */
} sp_pairs_t;

/* reader_tree_nodes.c: node of (parent, region, thread), created when
 * missing; -1 when out of memory. */
int sp__tree_node(sp_reader_tree_t *t, int parent, int region, int thread);

/* A profile-mode file's rank (reader_tree_agg.c): the nodes from its
 * call_paths rows. 0, SP_READER_ENOMEM, or 1 when the file has no usable
 * call paths (the caller then counts the regions as roots). */
int sp__tree_rank_agg(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                      int nregions, unsigned flags);

enum { SP_CACHE_BITS = 12 };

/* sp__tree_node through cache[1 << SP_CACHE_BITS] (node + 1 of a recent
 * (parent, region, thread), 0 = none): a call's node is usually one met
 * just before, so the hash table is mostly not needed. */
static inline int sp_tree_node_cached(sp_reader_tree_t *t, int *cache, int parent, int region,
                                      int thread) {
  uint32_t h = ((uint32_t)(parent + 1) * 0x9E3779B1u + (uint32_t)region * 0x85EBCA6Bu +
                (uint32_t)thread * 0xC2B2AE35u) >>
               (32 - SP_CACHE_BITS);
  int node = cache[h] - 1;
  const sp_reader_tree_node_t *nd = node >= 0 ? &t->nodes[node] : NULL;
  if (nd && nd->parent == parent && nd->region == region && nd->thread == thread) return node;
  node = sp__tree_node(t, parent, region, thread);
  if (node >= 0) cache[h] = node + 1;
  return node;
}

/* ---- reader_durations.c: the duration statistics of one pair ---------- */

/* What a pass over a pair's stamps found: starts that decrease somewhere
 * (the tree's order needs to know), an end below its start (the file is
 * refused, as sp_reader_load does). */
enum { SP_STAMPS_DOWN = 1u, SP_STAMPS_BAD = 2u };

/* Statistics of the durations of iv; returns SP_STAMPS_* flags (the same pass). */
unsigned sp__durations(const sp_reader_intervals_t *iv, sp_reader_durations_t *d);

/* The same statistics of region g on rank index k (n intervals) read in
 * slices (bounded memory: the streamed tree's region_statistics.json took
 * 10 bytes a call of its largest pair): the same spans in the same order,
 * so the same figures. Returns 0, 1 when the first slice cannot be read
 * (the caller loads the pair: delta-encoded columns, or it says why), or
 * a negative SP_READER_E* code (message set). */
int sp__durations_read(sp_reader_t *r, int g, int k, int64_t n, sp_reader_durations_t *d);

/* ---- reader_tree_ids.c: the tree from the reference tool's call ids ---- */

/* Adds the j-th selected rank's calls to t by their call_ids/parent_ids:
 * sel holds the selected pairs, other the rank's other pairs (loaded only
 * for the links through them). Returns 0 or SP_READER_ENOMEM. */
int sp__tree_by_ids(sp_reader_tree_t *t, int j, unsigned flags, const int *by_key,
                    const sp_pairs_t *sel, const sp_pairs_t *other);

/* Loads into *other (arrays allocated here) the pairs of rank index k whose
 * regions are not among regions[0..nregions-1], for the links through
 * them; a pair that cannot be read is left out. Returns 0 or
 * SP_READER_ENOMEM; free with sp__ids_other_free() either way. */
int sp__ids_other_load(sp_reader_t *r, int k, const int *regions, int nregions, sp_pairs_t *other);
void sp__ids_other_free(sp_pairs_t *other);

/* ---- reader_tree_dense.c: call ids dense per rank, indexed by id ------- */

/* What the dense path returns when the ids do not suit it (sparse,
 * repeated, a parent id at or after its child's): the caller takes the
 * general path of reader_tree_ids.c, nothing was changed. */
enum { SP_DENSE_NO = 1 };

/* The j-th selected rank (index k) by its dense ids: the selected pairs
 * (regions[q], name position keys[q]) loaded one at a time, the others'
 * ids only. Returns 0, SP_DENSE_NO before any node is made, or < 0. */
int sp__tree_rank_dense(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                        const int *keys, int nregions, unsigned flags);

/* sp_reader_call_parents by dense ids: the caller's n pairs iv, the
 * rank's other pairs (ids only). Returns 0, SP_DENSE_NO or SP_READER_ENOMEM. */
int sp__dense_parents(const sp_reader_intervals_t *iv, int n, const sp_pairs_t *other,
                      int64_t *parent);

/* Loads region g on rank index k (name position key) into ps, with the
 * tree's duration statistics when it keeps them (reader_tree.c). */
int sp__tree_pair_load(sp_reader_t *r, sp_reader_tree_t *t, int g, int k, int j, int key,
                       sp_pairs_t *ps);

typedef struct sp_repeat sp_repeat_t;

/* The sweep over one rank's calls in order, one call at a time. */
typedef struct sp_sweep {
  sp_reader_tree_t *t;
  int j;             /* selected rank */
  const int *by_key; /* name position -> region */
  unsigned flags;
  sp_open_t *stack;
  int depth, cap;
  int32_t tid;                   /* thread of the open calls */
  sp_repeat_t *rep;              /* repeated patterns (block order only), else NULL */
  int cache[1 << SP_CACHE_BITS]; /* node + 1 of a recent (parent, region, thread), 0 = none */
} sp_sweep_t;

/* ---- reader_tree_repeat.c: repeated call patterns taken whole ---------- */

/* One call of a pattern. */
typedef struct sp_slot {
  int pair, occ;   /* the pair, and the call's occurrence of it in the pattern */
  int parent, sib; /* slots of its parent and previous sibling, -1 if none */
  int node;
} sp_slot_t;

typedef struct sp_pattern sp_pattern_t;

/* What is known of a node's subtrees: nothing yet, a pattern worth trying,
 * or a pattern that found no run too often (swept call by call). */
enum { SP_NODE_NONE = 0, SP_NODE_LIVE = 1, SP_NODE_DEAD = 2 };

/* The pattern state of one rank; its fields are read by the sweep's
 * inline tests below, written by reader_tree_repeat.c. */
struct sp_repeat {
  const sp_pairs_t *ps;
  int64_t *pos;     /* [pair]: next call not swept */
  int *pair_of_key; /* [name position]: pair, -1 if none */
  int nkeys;
  sp_pattern_t **of_node; /* [node]: the latest pattern recorded under it */
  unsigned char *state;   /* [node]: SP_NODE_* */
  int nof;
  int *per;            /* [pair]: calls per repeat of the pattern being taken */
  uint64_t *sum;       /* [slot]: durations of the run */
  uint64_t *kids;      /* [slot]: durations of the children of the run's calls */
  sp_slot_t *rec;      /* the pattern being recorded */
  int nrec, rec_depth; /* its calls; stack index of its root, -1 when not recording */
};

/* The pattern state of one rank (its pairs in ps); NULL when out of memory. */
sp_repeat_t *sp__repeat_new(const sp_pairs_t *ps);
void sp__repeat_free(sp_repeat_t *rep);

static inline int sp_repeat_state(const sp_repeat_t *rep, int node) {
  return node < rep->nof ? rep->state[node] : SP_NODE_NONE;
}

/* Call c of pair `pair` arrives as node `node` (live, nothing recording)
 * under the stack's top: takes as many repeats of the node's pattern as
 * the stamps prove identical (see the file's comment). Returns the repeats
 * taken (0: none, sweep c as usual). */
int64_t sp__repeat_take(sp_sweep_t *w, int pair, int node, const sp_call_t *c);

/* The sweep pushed c (pair, node) at stack index w->depth - 1, while
 * recording or with the node not dead. */
void sp__repeat_pushed(sp_sweep_t *w, int pair, int node);

/* The sweep pops the root of the pattern being recorded. */
void sp__repeat_popping(sp_sweep_t *w);

/* ---- the sweep of one call (reader_tree.c, reader_tree_stream.c) -------- */

/* Closes the innermost open call: its exclusive time is now known. */
static inline void sp_pop(sp_sweep_t *w) {
  if (w->rep && w->rep->rec_depth == w->depth - 1) sp__repeat_popping(w);
  sp_open_t *o = &w->stack[--w->depth];
  int64_t excl = o->dur - o->child_incl;
  int64_t *c = sp_rank_cell(w->t, o->node, w->j);
  c[2] = sp_add(c[2], excl);
}

/* Node totals (calls, inclusive, exclusive) are summed from the per-rank
 * cells when the tree is finished: one update per call here. Returns 0,
 * SP_SWEEP_TOOK when a run of repeated patterns was taken from c on (the
 * caller's order of the calls after c is then stale) or SP_READER_ENOMEM. */
enum { SP_SWEEP_TOOK = 1 };
static inline __attribute__((always_inline)) int sp_sweep_call(sp_sweep_t *w, const sp_call_t *c) {
  sp_reader_tree_t *t = w->t;
  if (c->tid != w->tid)
    while (w->depth) sp_pop(w);
  w->tid = c->tid;
  while (w->depth && w->stack[w->depth - 1].end < c->end) sp_pop(w);
  int64_t dur = sp_duration(c->start, c->end);
  int parent = w->depth ? w->stack[w->depth - 1].node : -1;
  int node = sp_tree_node_cached(t, w->cache, parent, w->by_key[c->key],
                                 (w->flags & SP_READER_TREE_BY_THREAD) ? c->tid : -1);
  if (node < 0) return SP_READER_ENOMEM;
  int pair = -1;
  sp_repeat_t *rep = w->rep;
  if (rep) {
    pair = rep->pair_of_key[c->key];
    if (rep->rec_depth < 0 && sp_repeat_state(rep, node) == SP_NODE_LIVE &&
        sp__repeat_take(w, pair, node, c) > 0)
      return SP_SWEEP_TOOK;
    rep->pos[pair]++;
  }
  sp_reader_tree_node_t *nd = &t->nodes[node];
  nd->timed = 1;
  nd->worker_calls += c->tid != 0;
  int64_t *cell = sp_rank_cell(t, node, w->j);
  cell[0]++;
  cell[1] = sp_add(cell[1], dur);
  if (w->depth) w->stack[w->depth - 1].child_incl = sp_add(w->stack[w->depth - 1].child_incl, dur);
  if (w->depth == w->cap) {
    int cap = w->cap ? 2 * w->cap : 64;
    sp_open_t *s = realloc(w->stack, (size_t)cap * sizeof *s);
    if (!s) return SP_READER_ENOMEM;
    w->stack = s;
    w->cap = cap;
  }
  w->stack[w->depth++] = (sp_open_t){node, -1, -1, c->end, dur, 0};
  if (rep && (rep->rec_depth >= 0 || sp_repeat_state(rep, node) != SP_NODE_DEAD))
    sp__repeat_pushed(w, pair, node);
  return 0;
}

/* ---- reader_tree_stream.c: one rank's calls swept as they are read ---- */

/* What sp__tree_rank_stream returns when the calls cannot be streamed in
 * the sweep's order: the caller builds the whole tree again, loaded. */
enum { SP_STREAM_NO = 2 };

typedef struct sp_stream sp_stream_t;

/* Slices for up to nregions pairs, kept from rank to rank; NULL when out of memory. */
sp_stream_t *sp__stream_new(int nregions);
void sp__stream_free(sp_stream_t *s);

/* Adds the j-th selected rank's (index k) timed selected pairs to t,
 * streamed. Returns 0, SP_STREAM_NO (t is then partly filled) or < 0. */
int sp__tree_rank_stream(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                         const int *keys, int nregions, const int *by_key, unsigned flags,
                         sp_stream_t *s);

#endif
