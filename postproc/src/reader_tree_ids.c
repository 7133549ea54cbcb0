/* reader_tree_ids.c - the call tree from the reference tool's call ids.
 *
 * Its columnar files may number every call (events/call_ids, unique within
 * a rank) and give each call the id of its enclosing call
 * (events/parent_ids, -1 for none). Where they exist they define the tree
 * instead of the stamps: a call's parent is the call with its parent id on
 * the same rank, and, as with stamps, a call whose parent is in a region
 * not selected nests under its nearest selected ancestor. An id that is
 * missing, repeated (the first call with it wins) or part of a cycle makes
 * the call a root: a damaged file gives a wrong tree, never a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

/* The rank's calls, selected ones first, flattened. */
typedef struct sp_idcalls {
  int64_t n, nsel;
  int64_t *id, *parent_id, *dur;
  int *region_key, *tid;
  int64_t *up;          /* index of the call with the parent id, -1 if none */
  int64_t *anc;         /* nearest selected ancestor, -1 if none */
  int *node;            /* selected calls: their node */
  unsigned char *state; /* 0 new, 1 on the walk, 2 done */
  int64_t *slots;       /* hash of id -> index + 1 */
  size_t mask;
} sp_idcalls_t;

static void sp_idcalls_free(sp_idcalls_t *c) {
  free(c->id);
  free(c->parent_id);
  free(c->dur);
  free(c->region_key);
  free(c->tid);
  free(c->up);
  free(c->anc);
  free(c->node);
  free(c->state);
  free(c->slots);
}

static size_t sp_id_hash(int64_t id, size_t mask) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
  return (size_t)(h ^ (h >> 31)) & mask;
}

/* Appends the calls of the pairs in ps. */
static void sp_idcalls_add(sp_idcalls_t *c, const sp_pairs_t *ps) {
  for (int p = 0; p < ps->n; p++) {
    const sp_reader_intervals_t *iv = &ps->iv[p];
    for (int64_t i = 0; i < iv->n; i++, c->n++) {
      c->dur[c->n] = iv->start ? sp_duration(iv->start[i], iv->end[i]) : 0;
      c->id[c->n] = iv->call_ids ? iv->call_ids[i] : -1;
      c->parent_id[c->n] = iv->parent_ids ? iv->parent_ids[i] : -1;
      c->region_key[c->n] = ps->key ? ps->key[p] : 0;
      c->tid[c->n] = iv->thread_ids ? iv->thread_ids[i] : 0;
    }
  }
}

static int sp_idcalls_make(sp_idcalls_t *c, const sp_pairs_t *sel, const sp_pairs_t *other) {
  c->nsel = sel->calls;
  int64_t n = sel->calls + (other ? other->calls : 0);
  size_t m = (size_t)(n ? n : 1);
  size_t ns = 16;
  while (ns < 2 * m) ns *= 2;
  c->id = malloc(m * sizeof *c->id);
  c->parent_id = malloc(m * sizeof *c->parent_id);
  c->dur = malloc(m * sizeof *c->dur);
  c->region_key = malloc(m * sizeof *c->region_key);
  c->tid = malloc(m * sizeof *c->tid);
  c->up = malloc(m * sizeof *c->up);
  c->anc = malloc(m * sizeof *c->anc);
  c->node = malloc(m * sizeof *c->node);
  c->state = calloc(m, 1);
  c->slots = calloc(ns, sizeof *c->slots);
  c->mask = ns - 1;
  if (!c->id || !c->parent_id || !c->dur || !c->region_key || !c->tid || !c->up || !c->anc ||
      !c->node || !c->state || !c->slots)
    return SP_READER_ENOMEM;
  sp_idcalls_add(c, sel);
  if (other) sp_idcalls_add(c, other);
  for (int64_t i = 0; i < c->n; i++) { /* the first call with an id owns it */
    if (c->id[i] < 0) continue;
    size_t h = sp_id_hash(c->id[i], c->mask);
    while (c->slots[h] && c->id[c->slots[h] - 1] != c->id[i]) h = (h + 1) & c->mask;
    if (!c->slots[h]) c->slots[h] = i + 1;
  }
  for (int64_t i = 0; i < c->n; i++) {
    int64_t up = -1;
    if (c->parent_id[i] >= 0) {
      size_t h = sp_id_hash(c->parent_id[i], c->mask);
      while (c->slots[h] && c->id[c->slots[h] - 1] != c->parent_id[i]) h = (h + 1) & c->mask;
      up = c->slots[h] ? c->slots[h] - 1 : -1;
    }
    c->up[i] = up == i ? -1 : up;
  }
  return 0;
}

/* Resolves call g and the calls above it that are not done yet: each one's
 * nearest selected ancestor and, if selected and t is not NULL, its node. */
static int sp_resolve(sp_idcalls_t *c, sp_reader_tree_t *t, unsigned flags, const int *by_key,
                      int64_t g, int64_t *walk) {
  int64_t depth = 0;
  walk[depth++] = g;
  c->state[g] = 1;
  while (depth) {
    int64_t v = walk[depth - 1], p = c->up[v];
    if (p >= 0 && c->state[p] == 0) {
      c->state[p] = 1;
      walk[depth++] = p;
      continue;
    }
    if (p >= 0 && c->state[p] == 1) p = -1; /* a cycle: v is a root */
    c->anc[v] = p < 0 ? -1 : p < c->nsel ? p : c->anc[p];
    if (t && v < c->nsel) {
      int parent = c->anc[v] >= 0 ? c->node[c->anc[v]] : -1;
      int thread = (flags & SP_READER_TREE_BY_THREAD) ? c->tid[v] : -1;
      c->node[v] = sp__tree_node(t, parent, by_key[c->region_key[v]], thread);
      if (c->node[v] < 0) return SP_READER_ENOMEM;
    }
    c->state[v] = 2;
    depth--;
  }
  return 0;
}

/* Every selected call's nearest selected ancestor (c->anc) and, with t,
 * its node. */
static int sp_resolve_all(sp_idcalls_t *c, sp_reader_tree_t *t, unsigned flags, const int *by_key) {
  int64_t *walk = malloc((size_t)(c->n ? c->n : 1) * sizeof *walk);
  int rc = walk ? 0 : SP_READER_ENOMEM;
  for (int64_t g = 0; rc == 0 && g < c->nsel; g++)
    if (c->state[g] == 0) rc = sp_resolve(c, t, flags, by_key, g, walk);
  free(walk);
  return rc;
}

int sp__ids_other_load(sp_reader_t *r, int k, const int *regions, int nregions, sp_pairs_t *other) {
  size_t m = (size_t)(r->nregions ? r->nregions : 1);
  unsigned char *picked = calloc(m, 1);
  other->n = 0;
  other->calls = 0;
  other->iv = calloc(m, sizeof *other->iv);
  other->key = NULL; /* never a node: only its links are used */
  int rc = picked && other->iv ? 0 : SP_READER_ENOMEM;
  for (int i = 0; rc == 0 && i < nregions; i++) picked[regions[i]] = 1;
  for (int g = 0; rc == 0 && g < r->nregions; g++) {
    if (picked[g]) continue;
    sp_reader_intervals_t *iv = &other->iv[other->n];
    memset(iv, 0, sizeof *iv);
    /* Only the ids: their stamps are not used. A pair that cannot be read
     * only loses the links through it. */
    int e = sp__columnar_read_ids(r, g, k, &iv->n, &iv->call_ids, &iv->parent_ids);
    if (e == SP_READER_ENOMEM) rc = e;
    if (e == 0 && iv->n > 0) {
      other->calls += iv->n;
      other->n++;
    }
  }
  free(picked);
  return rc;
}

void sp__ids_other_free(sp_pairs_t *other) {
  for (int p = 0; other->iv && p < other->n; p++) sp_reader_intervals_free(&other->iv[p]);
  free(other->iv);
  other->iv = NULL;
  other->n = 0;
}

int sp__tree_by_ids(sp_reader_tree_t *t, int j, unsigned flags, const int *by_key,
                    const sp_pairs_t *sel, const sp_pairs_t *other) {
  sp_idcalls_t c = {0};
  int rc = sp_idcalls_make(&c, sel, other);
  int64_t *kids = rc == 0 ? calloc((size_t)(c.nsel ? c.nsel : 1), sizeof *kids) : NULL;
  if (rc == 0 && !kids) rc = SP_READER_ENOMEM;
  if (rc == 0) rc = sp_resolve_all(&c, t, flags, by_key);
  for (int64_t g = 0; rc == 0 && g < c.nsel; g++) {
    sp_reader_tree_node_t *nd = &t->nodes[c.node[g]];
    nd->timed = 1;
    nd->worker_calls += c.tid[g] != 0;
    int64_t *cell = sp_rank_cell(t, c.node[g], j);
    cell[0]++;
    cell[1] = sp_add(cell[1], c.dur[g]);
    if (c.anc[g] >= 0) kids[c.anc[g]] = sp_add(kids[c.anc[g]], c.dur[g]);
  }
  for (int64_t g = 0; rc == 0 && g < c.nsel; g++) {
    int64_t *cell = sp_rank_cell(t, c.node[g], j);
    cell[2] = sp_add(cell[2], sp_add(c.dur[g], -kids[g]));
  }
  free(kids);
  sp_idcalls_free(&c);
  return rc;
}

int sp_reader_has_call_ids(const sp_reader_t *r) { return r && r->columnar && r->col[3] >= 0; }

int sp_reader_call_parents(sp_reader_t *r, int k, const sp_reader_intervals_t *iv,
                           const int *regions, int n, int64_t *parent) {
  if (!r) return SP_READER_EINVAL;
  if (!iv || !regions || n < 0 || !parent || k < 0 || k >= r->nranks)
    return sp__reader_fail(r, SP_READER_EINVAL, "sp_reader_call_parents: bad argument");
  if (!sp_reader_has_call_ids(r))
    return sp__reader_fail(r, SP_READER_EINVAL, "the file has no call ids");
  for (int q = 0; q < n; q++)
    if (regions[q] < 0 || regions[q] >= r->nregions)
      return sp__reader_fail(r, SP_READER_EINVAL, "sp_reader_call_parents: bad region");
  /* The caller's pairs, read only (the cast: sp_pairs_t is shared with the
   * tree's build, which owns its arrays). */
  sp_pairs_t sel = {(sp_reader_intervals_t *)(uintptr_t)iv, NULL, n, 0, 0, 0, 0, 0, 0};
  for (int q = 0; q < n; q++) sel.calls += iv[q].n;
  sp_pairs_t other = {0};
  sp_idcalls_t c = {0};
  int rc = sp__ids_other_load(r, k, regions, n, &other);
  if (rc == 0) rc = sp__dense_parents(iv, n, &other, parent); /* SP_DENSE_NO: not dense */
  if (rc == SP_DENSE_NO) rc = sp_idcalls_make(&c, &sel, &other);
  if (rc == 0 && c.id) rc = sp_resolve_all(&c, NULL, 0, NULL);
  for (int64_t g = 0; rc == 0 && c.id && g < c.nsel; g++) parent[g] = c.anc[g];
  sp_idcalls_free(&c);
  sp__ids_other_free(&other);
  return rc == SP_READER_ENOMEM ? sp__reader_fail(r, rc, "out of memory linking the call ids") : rc;
}
