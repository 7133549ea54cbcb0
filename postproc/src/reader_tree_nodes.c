/* reader_tree_nodes.c - what the three ways of building the call tree share
 * (the sweep of reader_tree.c, the call ids of reader_tree_ids.c and the
 * dense ranks of reader_tree_dense.c): the node table, a hash of (parent,
 * region, thread), and the load of one (region, rank) pair with its checks. */
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

static size_t sp_hash(int parent, int region, int thread) {
  uint64_t h = (uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ULL;
  h ^= (uint64_t)(uint32_t)region * 0xC2B2AE3D27D4EB4FULL;
  h ^= (uint64_t)(uint32_t)thread * 0x165667B19E3779F9ULL;
  return (size_t)(h ^ (h >> 29));
}

static int sp_slots_grow(sp_reader_tree_t *t) {
  size_t n = t->nslots ? t->nslots * 2 : 256;
  int *s = calloc(n, sizeof *s);
  if (!s) return SP_READER_ENOMEM;
  for (int i = 0; i < t->nnodes; i++) {
    const sp_reader_tree_node_t *nd = &t->nodes[i];
    size_t h = sp_hash(nd->parent, nd->region, nd->thread) & (n - 1);
    while (s[h]) h = (h + 1) & (n - 1);
    s[h] = i + 1;
  }
  free(t->slots);
  t->slots = s;
  t->nslots = n;
  return 0;
}

int sp__tree_node(sp_reader_tree_t *t, int parent, int region, int thread) {
  if ((size_t)t->nnodes * 2 >= t->nslots && sp_slots_grow(t) < 0) return -1;
  size_t mask = t->nslots - 1, h = sp_hash(parent, region, thread) & mask;
  for (; t->slots[h]; h = (h + 1) & mask) {
    const sp_reader_tree_node_t *nd = &t->nodes[t->slots[h] - 1];
    if (nd->parent == parent && nd->region == region && nd->thread == thread)
      return t->slots[h] - 1;
  }
  if (t->nnodes == t->cap) {
    int cap = t->cap ? t->cap * 2 : 64;
    sp_reader_tree_node_t *nn = realloc(t->nodes, (size_t)cap * sizeof *nn);
    if (!nn) return -1;
    t->nodes = nn;
    int64_t *pr = realloc(t->per_rank, (size_t)cap * (size_t)t->nranks * 3 * sizeof *pr);
    if (!pr) return -1;
    t->per_rank = pr;
    t->cap = cap;
  }
  int i = t->nnodes++;
  sp_reader_tree_node_t *nd = &t->nodes[i];
  memset(nd, 0, sizeof *nd);
  nd->parent = parent;
  nd->region = region;
  nd->thread = thread;
  nd->depth = parent < 0 ? 0 : t->nodes[parent].depth + 1;
  memset(&t->per_rank[(size_t)i * (size_t)t->nranks * 3], 0,
         (size_t)t->nranks * 3 * sizeof(int64_t));
  t->slots[h] = i + 1;
  return i;
}

/* SP_STAMPS_* of a pair's stamps, in one pass. */
SP_STAMP_LOOP static unsigned sp_stamps_scan(const int64_t *st, const int64_t *en, int64_t n) {
  int down = 0, bad = 0;
  for (int64_t i = 1; i < n; i++) {
    down |= st[i] < st[i - 1];
    bad |= en[i] < st[i];
  }
  bad |= n > 0 && en[0] < st[0];
  return (down ? SP_STAMPS_DOWN : 0u) | (bad ? SP_STAMPS_BAD : 0u);
}

/* Loads region g on rank index k into the pairs (keeping it for the sort). */
int sp__tree_pair_load(sp_reader_t *r, sp_reader_tree_t *t, int g, int k, int j, int key,
                       sp_pairs_t *ps) {
  sp_reader_intervals_t *iv = &ps->iv[ps->n];
  /* The load's check that every call ends after its start is done by
   * the pass below, which reads the stamps anyway. */
  int rc = sp__reader_load(r, g, k, iv, 0);
  if (rc < 0) return rc;
  const int64_t *st = iv->start;
  unsigned found = t->dur ? sp__durations(iv, &t->dur[(size_t)g * (size_t)t->nranks + (size_t)j])
                          : sp_stamps_scan(st, iv->end, iv->n);
  if (found & SP_STAMPS_BAD) { /* load again with the check: its message */
    sp_reader_intervals_free(iv);
    rc = sp_reader_load(r, g, k, iv);
    if (rc < 0) return rc;
    sp_reader_intervals_free(iv); /* the file changed under us */
    return sp__reader_fail(r, SP_READER_EDATA,
                           "region '%s' on rank %d: an interval ends before it starts",
                           r->regions[g].name, r->ranks[k].id);
  }
  ps->key[ps->n++] = key;
  ps->unsorted |= (found & SP_STAMPS_DOWN) != 0;
  /* Starts in order: the range is the ends (only the block order needs it). */
  if (iv->n && st[0] < ps->lo) ps->lo = st[0];
  if (iv->n && st[iv->n - 1] > ps->hi) ps->hi = st[iv->n - 1];
  for (int64_t i = 0; iv->thread_ids && i < iv->n; i++) {
    if (ps->calls + i == 0) ps->tid0 = iv->thread_ids[0];
    ps->mixed |= iv->thread_ids[i] != ps->tid0;
  }
  if (!iv->thread_ids && iv->n) {
    if (ps->calls == 0) ps->tid0 = 0;
    ps->mixed |= ps->tid0 != 0;
  }
  ps->calls += iv->n;
  return 0;
}
