/* html_paths.c - the call path (call-tree node) of every interval of a rank.
 *
 * The report's tree (sp_reader_tree_build, flags 0) aggregates calls by
 * call path but keeps no per-call record; the report needs one to
 * highlight a path's calls and to name a call's path. The rank's calls
 * are put in the order of the header's "Call tree" rules (thread, start
 * ascending, end descending, region name ascending) and swept with a
 * stack of open calls: a call's parent is the innermost open call that
 * contains it, on the same thread; a thread change empties the stack (a
 * worker thread's calls are roots). Its node is the tree's child of the
 * parent's node with its region, found in a hash table over the tree's
 * (parent, region) pairs. The same rules give the same nodes as the
 * tree's build (tests/postproc/check_report.py "paths" checks them
 * against h5py).
 *
 * Files that number their calls (the reference tool's call ids) define
 * the tree by the ids, not the stamps: there the reader gives each call's
 * parent (sp_reader_call_parents, the rules of the tree's build) and a
 * call's node is the child of its parent's node with its region. */
#include <stdlib.h>
#include <string.h>

#include "html.h"

struct sp_html_paths {
  int *slots;  /* node + 1 per slot, 0 = empty */
  size_t mask; /* slots - 1 (a power of two) */
  const sp_reader_tree_node_t **nodes;
  int *name_key; /* reader region index -> position in name order */
  sp_reader_t *r;
  int ids; /* the file's call ids define the tree */
};

/* One call of the rank, in the sweep's order. */
typedef struct sp_pcall {
  int64_t s, e;
  int32_t tid, key; /* thread id; region's position in name order */
  int32_t pair;     /* which of the rank's pairs */
  int64_t i;        /* index in that pair */
} sp_pcall_t;

static size_t sp_phash(int parent, int region) {
  uint64_t h = (uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ULL;
  h ^= (uint64_t)(uint32_t)region * 0xC2B2AE3D27D4EB4FULL;
  return (size_t)(h ^ (h >> 29));
}

/* Names in order: for the tie-break of calls with identical stamps. */
static const sp_reader_t *sp_sort_reader;
static int sp_cmp_name(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int c =
      strcmp(sp_reader_region_name(sp_sort_reader, x), sp_reader_region_name(sp_sort_reader, y));
  return c ? c : (x > y) - (x < y);
}

int sp_html_paths_new(sp_html_paths_t **out, const sp_reader_tree_t *t, sp_reader_t *r) {
  int n = sp_reader_tree_num_nodes(t), ng = sp_reader_num_regions(r);
  sp_html_paths_t *p = calloc(1, sizeof *p);
  size_t ns = 16;
  while (ns < 2 * (size_t)n + 2) ns *= 2;
  int *ord = malloc(((size_t)ng + 1) * sizeof *ord);
  if (p) {
    p->slots = calloc(ns, sizeof *p->slots);
    p->nodes = malloc(((size_t)n + 1) * sizeof *p->nodes);
    p->name_key = malloc(((size_t)ng + 1) * sizeof *p->name_key);
  }
  if (!p || !ord || !p->slots || !p->nodes || !p->name_key) {
    free(ord);
    sp_html_paths_free(p);
    *out = NULL;
    return SP_EXIT_IO;
  }
  p->mask = ns - 1;
  p->r = r;
  p->ids = sp_reader_has_call_ids(r);
  for (int i = 0; i < n; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    p->nodes[i] = nd;
    size_t h = sp_phash(nd->parent, nd->region) & p->mask;
    while (p->slots[h]) h = (h + 1) & p->mask;
    p->slots[h] = i + 1;
  }
  for (int g = 0; g < ng; g++) ord[g] = g;
  sp_sort_reader = r;
  qsort(ord, (size_t)ng, sizeof *ord, sp_cmp_name);
  for (int k = 0; k < ng; k++) p->name_key[ord[k]] = k;
  free(ord);
  *out = p;
  return 0;
}

void sp_html_paths_free(sp_html_paths_t *p) {
  if (!p) return;
  free(p->slots);
  free(p->nodes);
  free(p->name_key);
  free(p);
}

/* The node of region g under parent (-1: a root); -1 if the tree has none. */
static int sp_html_path_find(const sp_html_paths_t *p, int parent, int g) {
  for (size_t h = sp_phash(parent, g) & p->mask; p->slots[h]; h = (h + 1) & p->mask) {
    const sp_reader_tree_node_t *nd = p->nodes[p->slots[h] - 1];
    if (nd->parent == parent && nd->region == g) return p->slots[h] - 1;
  }
  return -1;
}

int sp_html_paths_node(const sp_html_paths_t *p, int parent, int g) {
  return sp_html_path_find(p, parent, g);
}

int sp_html_paths_key(const sp_html_paths_t *p, int g) { return p->name_key[g]; }

int sp_html_paths_ids(const sp_html_paths_t *p) { return p->ids; }

static int sp_pcall_cmp(const void *a, const void *b) {
  const sp_pcall_t *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  if (x->e != y->e) return x->e > y->e ? -1 : 1;
  return (x->key > y->key) - (x->key < y->key);
}

/* The sweep's state: the open calls of the current thread. */
typedef struct sp_psweep {
  const sp_html_paths_t *p;
  const int *regions;
  int32_t **node;
  int64_t *stack_end;
  int *stack_node;
  int64_t depth;
} sp_psweep_t;

static inline void sp_psweep_call(sp_psweep_t *w, int q, int64_t i, int64_t e) {
  while (w->depth && w->stack_end[w->depth - 1] < e) w->depth--;
  int nd = sp_html_path_find(w->p, w->depth ? w->stack_node[w->depth - 1] : -1, w->regions[q]);
  w->node[q][i] = nd;
  /* A call the tree does not know (cannot happen with the same rules)
   * is not pushed: its children then hang under its parent. */
  if (nd >= 0) {
    w->stack_end[w->depth] = e;
    w->stack_node[w->depth++] = nd;
  }
}

/* 1 when the rank has one thread and every pair is in the sweep's order
 * (start ascending, end descending): the common case. */
static int sp_pairs_in_order(const sp_reader_intervals_t *iv, int npairs) {
  int32_t tid0 = 0;
  int have = 0;
  for (int q = 0; q < npairs; q++) {
    const int64_t *st = iv[q].start, *en = iv[q].end;
    for (int64_t i = 0; iv[q].thread_ids && i < iv[q].n; i++) {
      if (!have) tid0 = iv[q].thread_ids[i], have = 1;
      if (iv[q].thread_ids[i] != tid0) return 0;
    }
    if (!iv[q].thread_ids && iv[q].n) {
      if (have && tid0 != 0) return 0;
      have = 1;
    }
    for (int64_t i = 1; i < iv[q].n; i++)
      if (st[i] < st[i - 1] || (st[i] == st[i - 1] && en[i] > en[i - 1])) return 0;
  }
  return 1;
}

/* Heads of the pairs in a binary heap, smallest in the sweep's order first. */
typedef struct sp_phead {
  int64_t s, e;
  int32_t key, q;
  int64_t i;
} sp_phead_t;

static inline int sp_phead_before(const sp_phead_t *x, const sp_phead_t *y) {
  if (x->s != y->s) return x->s < y->s;
  if (x->e != y->e) return x->e > y->e;
  return x->key < y->key;
}

static void sp_heap_down(sp_phead_t *h, int n, int k) {
  for (;;) {
    int l = 2 * k + 1, m = k;
    if (l < n && sp_phead_before(&h[l], &h[m])) m = l;
    if (l + 1 < n && sp_phead_before(&h[l + 1], &h[m])) m = l + 1;
    if (m == k) return;
    sp_phead_t t = h[k];
    h[k] = h[m], h[m] = t;
    k = m;
  }
}

/* One thread, pairs in order: a k-way merge, no copy or sort of the calls. */
static int sp_paths_merge(sp_psweep_t *w, const sp_reader_intervals_t *iv, int npairs) {
  sp_phead_t *h = malloc(((size_t)npairs + 1) * sizeof *h);
  if (!h) return SP_EXIT_IO;
  int n = 0;
  for (int q = 0; q < npairs; q++)
    if (iv[q].n)
      h[n++] = (sp_phead_t){iv[q].start[0], iv[q].end[0], w->p->name_key[w->regions[q]], q, 0};
  for (int k = n / 2 - 1; k >= 0; k--) sp_heap_down(h, n, k);
  while (n) {
    sp_phead_t *t = &h[0];
    sp_psweep_call(w, t->q, t->i, t->e);
    if (++t->i < iv[t->q].n) {
      t->s = iv[t->q].start[t->i];
      t->e = iv[t->q].end[t->i];
    } else {
      h[0] = h[--n];
    }
    sp_heap_down(h, n, 0);
  }
  free(h);
  return 0;
}

/* The general case (threads, recursion): every call copied and sorted. */
static int sp_paths_sort(sp_psweep_t *w, const sp_reader_intervals_t *iv, int npairs, int64_t n) {
  sp_pcall_t *c = malloc(((size_t)n + 1) * sizeof *c);
  if (!c) return SP_EXIT_IO;
  int64_t m = 0;
  for (int q = 0; q < npairs; q++)
    for (int64_t i = 0; i < iv[q].n; i++)
      c[m++] = (sp_pcall_t){iv[q].start[i],
                            iv[q].end[i],
                            iv[q].thread_ids ? iv[q].thread_ids[i] : 0,
                            w->p->name_key[w->regions[q]],
                            q,
                            i};
  qsort(c, (size_t)m, sizeof *c, sp_pcall_cmp);
  for (int64_t k = 0; k < m; k++) {
    if (k > 0 && c[k].tid != c[k - 1].tid) w->depth = 0; /* a thread's calls: a new stack */
    sp_psweep_call(w, c[k].pair, c[k].i, c[k].e);
  }
  free(c);
  return 0;
}

/* Files with call ids: every call's node from its parent's, parents first
 * (a chain is walked up to a call already placed, then down). */
static int sp_paths_ids(const sp_html_paths_t *p, int k, const sp_reader_intervals_t *iv,
                        const int *regions, int npairs, int64_t n, int32_t **node) {
  int64_t *par = malloc(((size_t)n + 1) * sizeof *par);
  int64_t *walk = malloc(((size_t)n + 1) * sizeof *walk);
  int64_t *first = malloc(((size_t)npairs + 1) * sizeof *first);
  int32_t *pair = malloc(((size_t)n + 1) * sizeof *pair);
  int32_t *up = malloc(((size_t)n + 1) * sizeof *up); /* where its children hang; -2: not yet */
  int rc = par && walk && first && pair && up ? 0 : SP_EXIT_IO;
  if (rc == 0 && sp_reader_call_parents(p->r, k, iv, regions, npairs, par) != 0) rc = SP_EXIT_IO;
  int64_t f = 0;
  for (int q = 0; rc == 0 && q < npairs; q++) {
    first[q] = f;
    for (int64_t i = 0; i < iv[q].n; i++) pair[f] = q, up[f++] = -2;
  }
  for (f = 0; rc == 0 && f < n; f++) {
    int64_t d = 0, g = f;
    while (g >= 0 && up[g] == -2 && d < n) walk[d++] = g, g = par[g];
    int above = g >= 0 && up[g] != -2 ? up[g] : -1;
    while (d) {
      g = walk[--d];
      int q = pair[g];
      int nd = sp_html_path_find(p, above, regions[q]);
      node[q][g - first[q]] = nd;
      /* A call the tree does not know (cannot happen with the same
       * rules): its children hang under its parent, as in the sweep. */
      above = up[g] = nd >= 0 ? nd : above;
    }
  }
  free(par), free(walk), free(first), free(pair), free(up);
  return rc;
}

int sp_html_paths_rank(const sp_html_paths_t *p, int k, const sp_reader_intervals_t *iv,
                       const int *regions, int npairs, int32_t **node) {
  int64_t n = 0;
  for (int q = 0; q < npairs; q++) n += iv[q].n;
  if (p->ids) return sp_paths_ids(p, k, iv, regions, npairs, n, node);
  sp_psweep_t w = {p, regions, node, NULL, NULL, 0};
  w.stack_end = malloc(((size_t)n + 1) * sizeof *w.stack_end);
  w.stack_node = malloc(((size_t)n + 1) * sizeof *w.stack_node);
  int rc = w.stack_end && w.stack_node ? 0 : SP_EXIT_IO;
  if (rc == 0)
    rc = sp_pairs_in_order(iv, npairs) ? sp_paths_merge(&w, iv, npairs)
                                       : sp_paths_sort(&w, iv, npairs, n);
  free(w.stack_end), free(w.stack_node);
  return rc;
}

static int sp_cmp_i32n(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

void sp_html_lane_paths(const sp_html_span_t *sp, int64_t m, int32_t *paths, int *np) {
  int n = 0;
  for (int64_t i = 0; i < m; i++) {
    /* Lanes usually have one path or a few: a short linear check first. */
    int seen = 0;
    for (int k = 0; k < n && k < 8 && !seen; k++) seen = paths[k] == sp[i].node;
    if (!seen) paths[n++] = sp[i].node;
  }
  qsort(paths, (size_t)n, sizeof *paths, sp_cmp_i32n);
  int u = 0;
  for (int k = 0; k < n; k++)
    if (u == 0 || paths[k] != paths[u - 1]) paths[u++] = paths[k];
  *np = u;
}

int sp_html_path_index(const int32_t *paths, int np, int32_t node) {
  int lo = 0, hi = np;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (paths[mid] < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < np && paths[lo] == node ? lo : 0;
}
