/* reader_tree_dense.c - the call tree from call ids that are dense per rank.
 *
 * The reference tool numbers a rank's calls 0 .. n-1 in start order, so a
 * parent's id is below its children's. When a rank's ids are unique, span
 * little more than its calls and every parent id that names a call is
 * below the id of its child, a call is found by indexing with its id (no
 * hash) and one pass in id order meets every parent before its children
 * (no walk, no cycle possible): the rules are those of reader_tree_ids.c,
 * which takes every other case. Per id of the span, in one record: its
 * parent's slot, then its nearest selected ancestor's, what the caller
 * keeps of it and its duration (16 bytes); the thread ids apart (4 bytes,
 * when the file has them).
 * The tree loads one pair at a time: memory follows the rank's ids, not
 * its loaded columns. */
#include <stdint.h>
#include <stdlib.h>

#include "reader_tree_internal.h"

/* One id: together, so that placing a call touches one cache line. */
typedef struct sp_idslot {
  int64_t ex;   /* the tree: the call's duration, less its children's as they are met */
  int32_t up;   /* parent's slot or -1; after sp_dense_visit, the nearest
                 * selected slot at or above it, or -1 */
  int32_t what; /* SP_SLOT_ABSENT, SP_SLOT_OTHER, else the caller's */
} sp_idslot_t;

/* The ids of one rank indexed by id - lo. */
typedef struct sp_dense {
  int64_t lo, span;
  sp_idslot_t *slot;
  int32_t *tid; /* the tree: [slot] thread id; NULL when the file has none */
} sp_dense_t;

enum { SP_SLOT_ABSENT = -2, SP_SLOT_OTHER = -1 };

static void sp_dense_free(sp_dense_t *d) {
  free(d->slot);
  free(d->tid);
}

/* min / max of the ids in v (n of them), folded into *lo, *hi. */
static void sp_ids_range(const int64_t *v, int64_t n, int64_t *lo, int64_t *hi) {
  for (int64_t i = 0; i < n; i++) {
    *lo = v[i] < *lo ? v[i] : *lo;
    *hi = v[i] > *hi ? v[i] : *hi;
  }
}

/* Slots for ids lo..hi of n calls. Returns 0, SP_DENSE_NO (too sparse or
 * too many for 32-bit slots) or SP_READER_ENOMEM. */
static int sp_dense_init(sp_dense_t *d, int64_t lo, int64_t hi, int64_t n) {
  d->slot = NULL;
  d->tid = NULL;
  if (n == 0) lo = hi = 0;
  /* hi - lo cannot overflow with 0 <= lo <= hi; hi - lo + 1 could. */
  if (lo < 0 || hi < lo || n >= INT32_MAX || hi - lo >= n + n / 4 + 64) return SP_DENSE_NO;
  d->lo = lo;
  d->span = hi - lo + 1;
  d->slot = malloc((size_t)d->span * sizeof *d->slot);
  if (!d->slot) return SP_READER_ENOMEM;
  for (int64_t s = 0; s < d->span; s++) d->slot[s].what = SP_SLOT_ABSENT;
  return 0;
}

/* Places the n calls of iv: call i gets what + i (step 1) or what (step
 * 0), and, with stamps, its duration (and thread, when d->tid).
 * Returns 0 or SP_DENSE_NO (an id outside the span, or repeated). */
static int sp_dense_put(sp_dense_t *d, const sp_reader_intervals_t *iv, int32_t what, int step) {
  const int64_t *cid = iv->call_ids, *pid = iv->parent_ids, *st = iv->start, *en = iv->end;
  for (int64_t i = 0; i < iv->n; i++) {
    uint64_t s = (uint64_t)cid[i] - (uint64_t)d->lo;
    if (s >= (uint64_t)d->span || d->slot[s].what != SP_SLOT_ABSENT) return SP_DENSE_NO;
    uint64_t p = (uint64_t)pid[i] - (uint64_t)d->lo;
    sp_idslot_t *x = &d->slot[s];
    x->up = p < (uint64_t)d->span ? (int32_t)p : -1;
    x->what = what + (int32_t)(step ? i : 0);
    x->ex = st ? sp_duration(st[i], en[i]) : 0;
    if (d->tid) d->tid[s] = iv->thread_ids ? iv->thread_ids[i] : 0;
  }
  return 0;
}

/* A parent id no call has makes a root; one at or after its child's
 * (the order of the single pass would break) gives SP_DENSE_NO. */
static int sp_dense_check(sp_dense_t *d) {
  for (int64_t s = 0; s < d->span; s++) {
    sp_idslot_t *x = &d->slot[s];
    if (x->what == SP_SLOT_ABSENT) continue;
    if (x->up >= 0 && d->slot[x->up].what == SP_SLOT_ABSENT)
      x->up = -1;
    else if (x->up >= s)
      return SP_DENSE_NO;
  }
  return 0;
}

/* The nearest selected ancestor of slot s (its parent's entry, visited
 * before it), then s's own entry for its children. */
static inline int32_t sp_dense_visit(sp_dense_t *d, int64_t s) {
  sp_idslot_t *x = &d->slot[s];
  int32_t a = x->up >= 0 ? d->slot[x->up].up : -1;
  x->up = x->what >= 0 ? (int32_t)s : a;
  return a;
}

int sp__dense_parents(const sp_reader_intervals_t *iv, int n, const sp_pairs_t *other,
                      int64_t *parent) {
  int64_t lo = INT64_MAX, hi = INT64_MIN, calls = other->calls, f = 0;
  for (int q = 0; q < n; q++) {
    if (iv[q].n && (!iv[q].call_ids || !iv[q].parent_ids)) return SP_DENSE_NO;
    sp_ids_range(iv[q].call_ids, iv[q].n, &lo, &hi);
    calls += iv[q].n;
  }
  for (int p = 0; p < other->n; p++) sp_ids_range(other->iv[p].call_ids, other->iv[p].n, &lo, &hi);
  sp_dense_t d;
  int rc = sp_dense_init(&d, lo, hi, calls);
  for (int q = 0; rc == 0 && q < n; f += iv[q].n, q++) {
    sp_reader_intervals_t ids = {0}; /* the ids only: no durations here */
    ids.n = iv[q].n;
    ids.call_ids = iv[q].call_ids;
    ids.parent_ids = iv[q].parent_ids;
    rc = sp_dense_put(&d, &ids, (int32_t)f, 1);
  }
  for (int p = 0; rc == 0 && p < other->n; p++)
    rc = sp_dense_put(&d, &other->iv[p], SP_SLOT_OTHER, 0);
  if (rc == 0) rc = sp_dense_check(&d);
  for (int64_t s = 0; rc == 0 && s < d.span; s++) {
    if (d.slot[s].what == SP_SLOT_ABSENT) continue;
    int32_t a = sp_dense_visit(&d, s);
    if (d.slot[s].what >= 0) parent[d.slot[s].what] = a >= 0 ? d.slot[a].what : -1;
  }
  sp_dense_free(&d);
  return rc;
}

/* Range and count of the rank's ids (every timed pair, ids only). */
static int sp_rank_ids_range(sp_reader_t *r, int k, int64_t *lo, int64_t *hi, int64_t *calls) {
  *lo = INT64_MAX;
  *hi = INT64_MIN;
  *calls = 0;
  for (int g = 0; g < r->nregions; g++) {
    int64_t n, *cid;
    int rc = sp__columnar_read_ids(r, g, k, &n, &cid, NULL);
    if (rc == SP_READER_ENOMEM) return rc;
    if (rc) continue; /* unreadable: the loads below decide */
    sp_ids_range(cid, n, lo, hi);
    *calls += n;
    free(cid);
  }
  return 0;
}

/* Loads the selected pairs one at a time into the slots (what: the
 * pair's index q in regions). */
static int sp_dense_selected(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                             const int *keys, int nregions, sp_dense_t *d) {
  sp_reader_intervals_t iv;
  int key;
  sp_pairs_t one = {&iv, &key, 0, 0, INT64_MAX, INT64_MIN, 0, 0, 0};
  int rc = 0;
  for (int q = 0; rc == 0 && q < nregions; q++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[q], k, &info);
    if (!info.present || !info.has_times) continue;
    one.n = 0;
    rc = sp__tree_pair_load(r, t, regions[q], k, j, keys[q], &one);
    if (rc < 0) return rc;
    if (iv.n && (!iv.call_ids || !iv.parent_ids)) rc = SP_DENSE_NO;
    if (rc == 0 && iv.thread_ids && !d->tid) {
      d->tid = calloc((size_t)d->span, sizeof *d->tid); /* the pairs before: thread 0 */
      if (!d->tid) rc = SP_READER_ENOMEM;
    }
    if (rc == 0) rc = sp_dense_put(d, &iv, q, 0);
    sp_reader_intervals_free(&iv);
  }
  return rc;
}

/* The rank's other pairs, ids only, for the links through them; a pair
 * that cannot be read only loses those links. */
static int sp_dense_others(sp_reader_t *r, int k, const int *regions, int nregions, sp_dense_t *d) {
  unsigned char *picked = calloc((size_t)(r->nregions ? r->nregions : 1), 1);
  int rc = picked ? 0 : SP_READER_ENOMEM;
  for (int q = 0; rc == 0 && q < nregions; q++) picked[regions[q]] = 1;
  for (int g = 0; rc == 0 && g < r->nregions; g++) {
    sp_reader_intervals_t iv = {0};
    if (picked[g]) continue;
    int e = sp__columnar_read_ids(r, g, k, &iv.n, &iv.call_ids, &iv.parent_ids);
    if (e == SP_READER_ENOMEM) rc = e;
    if (e) continue;
    rc = sp_dense_put(d, &iv, SP_SLOT_OTHER, 0);
    sp_reader_intervals_free(&iv);
  }
  free(picked);
  return rc;
}

/* The single pass: every selected call's node, then the exclusive times. */
static int sp_dense_nodes(sp_reader_tree_t *t, int j, unsigned flags, const int *regions,
                          sp_dense_t *d) {
  int cache[1 << SP_CACHE_BITS] = {0}; /* node + 1 of a recent (parent, region, thread) */
  for (int64_t s = 0; s < d->span; s++) {
    sp_idslot_t *x = &d->slot[s];
    if (x->what == SP_SLOT_ABSENT) continue;
    int32_t a = sp_dense_visit(d, s);
    if (x->what < 0) continue;
    int parent = a >= 0 ? d->slot[a].what : -1, region = regions[x->what];
    int tid = d->tid ? d->tid[s] : 0, thread = (flags & SP_READER_TREE_BY_THREAD) ? tid : -1;
    int node = sp_tree_node_cached(t, cache, parent, region, thread);
    if (node < 0) return SP_READER_ENOMEM;
    x->what = node; /* its children need its node, no longer its pair */
    sp_reader_tree_node_t *w = &t->nodes[node];
    w->timed = 1;
    w->worker_calls += tid != 0;
    int64_t *cell = sp_rank_cell(t, node, j);
    cell[0]++;
    cell[1] = sp_add(cell[1], x->ex); /* its children come later: still its duration */
    if (a >= 0) d->slot[a].ex = sp_add(d->slot[a].ex, -x->ex);
  }
  for (int64_t s = 0; s < d->span; s++) /* every selected slot holds its node now */
    if (d->slot[s].what >= 0) {
      int64_t *cell = sp_rank_cell(t, d->slot[s].what, j);
      cell[2] = sp_add(cell[2], d->slot[s].ex);
    }
  return 0;
}

int sp__tree_rank_dense(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                        const int *keys, int nregions, unsigned flags) {
  int64_t lo, hi, calls;
  sp_dense_t d = {0, 0, NULL, NULL};
  int rc = sp_rank_ids_range(r, k, &lo, &hi, &calls);
  if (rc == 0) rc = sp_dense_init(&d, lo, hi, calls);
  if (rc == 0) rc = sp_dense_selected(r, t, j, k, regions, keys, nregions, &d);
  if (rc == 0) rc = sp_dense_others(r, k, regions, nregions, &d);
  if (rc == 0) rc = sp_dense_check(&d);
  if (rc == 0) rc = sp_dense_nodes(t, j, flags, regions, &d);
  sp_dense_free(&d);
  return rc;
}
