/* tree_order.c - the call-tree order of a selection's regions, kept.
 *
 * The Gantt chart and the charts' common legend order regions as the call
 * tree does, and the JSON files of -o build a tree too: on a file of
 * 12,800 lanes each build read every interval again and cost about 10% of
 * `-o DIR --plots gantt`. The first tree built for a selection (without
 * threads apart: the same paths, whatever the other flags) leaves the
 * order here, and later callers copy it instead of building another.
 * Without one, the order comes from a tree of totals only
 * (SP_READER_TREE_TOTALS): no per-rank figures, and a per-rank file's
 * stamps streamed in slices instead of each rank's calls loaded. */
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

/* 1 when the kept order was computed for sel's regions and ranks: the
 * same values, not only the same arrays (a copy of a selection may point
 * to other ones, and a freed array's address may come back). */
static int sp_order_valid(const sp_selection_t *sel) {
  const sp_tree_order_t *c = sel->order;
  return c && c->pos && c->nregions == sel->nregions && c->nranks == sel->nranks &&
         (sel->nregions == 0 ||
          memcmp(c->regions, sel->regions, (size_t)sel->nregions * sizeof *c->regions) == 0) &&
         (sel->nranks <= 0 ||
          memcmp(c->ranks, sel->ranks, (size_t)sel->nranks * sizeof *c->ranks) == 0);
}

static void sp_tree_order_clear(sp_tree_order_t *c) {
  free(c->pos);
  free(c->depth);
  free(c->regions);
  free(c->ranks);
  memset(c, 0, sizeof *c);
}

/* pos[i]: place of selected region i in the tree's depth-first order, at
 * the node that holds most of its time (the largest inclusive time; calls
 * for count-only regions; the first on ties), so a region called briefly
 * deep in one path and mostly higher up in another sits where its time is;
 * regions not in the tree after those in it. depth[i]: that node's depth. */
typedef struct sp_main_node {
  int node, g;
} sp_main_node_t;

static int sp_main_cmp(const void *a, const void *b) {
  const sp_main_node_t *x = a, *y = b;
  unsigned ux = (unsigned)x->node, uy = (unsigned)y->node; /* -1 (none) last */
  return ux != uy ? (ux > uy) - (ux < uy) : (x->g > y->g) - (x->g < y->g);
}

static void sp_order_compute(const sp_selection_t *sel, const sp_reader_tree_t *t, int *pos,
                             int *depth) {
  int n = sel->nregions;
  sp_main_node_t *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
  for (int i = 0; i < n; i++) pos[i] = i, depth[i] = 0;
  if (!m) return;
  for (int g = 0; g < n; g++) m[g] = (sp_main_node_t){-1, g};
  int nn = sp_reader_tree_num_nodes(t);
  for (int i = 0; i < nn; i++) { /* node order is depth-first */
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    for (int g = 0; g < n; g++) {
      if (sel->regions[g] != nd->region) continue;
      const sp_reader_tree_node_t *b = m[g].node >= 0 ? sp_reader_tree_node(t, m[g].node) : NULL;
      if (!b || nd->inclusive > b->inclusive ||
          (nd->inclusive == b->inclusive && !nd->timed && nd->calls > b->calls)) {
        m[g].node = i;
        depth[g] = nd->depth;
      }
    }
  }
  qsort(m, (size_t)n, sizeof *m, sp_main_cmp);
  for (int k = 0; k < n; k++) pos[m[k].g] = k;
  free(m);
}

void sp_tree_order_note(const sp_selection_t *sel, const sp_reader_tree_t *t, unsigned flags) {
  sp_tree_order_t *c = sel->order;
  if (!c || (flags & SP_READER_TREE_BY_THREAD) || sp_order_valid(sel)) return;
  size_t n = sel->nregions > 0 ? (size_t)sel->nregions : 1;
  size_t nk = sel->nranks > 0 ? (size_t)sel->nranks : 1;
  int *pos = malloc(n * sizeof *pos), *depth = malloc(n * sizeof *depth);
  int *regions = malloc(n * sizeof *regions), *ranks = malloc(nk * sizeof *ranks);
  if (!pos || !depth || !regions || !ranks) { /* no cache: the next caller builds its own tree */
    free(pos);
    free(depth);
    free(regions);
    free(ranks);
    return;
  }
  sp_order_compute(sel, t, pos, depth);
  if (sel->nregions > 0) memcpy(regions, sel->regions, (size_t)sel->nregions * sizeof *regions);
  if (sel->nranks > 0) memcpy(ranks, sel->ranks, (size_t)sel->nranks * sizeof *ranks);
  sp_tree_order_clear(c);
  c->pos = pos;
  c->depth = depth;
  c->regions = regions;
  c->nregions = sel->nregions;
  c->ranks = ranks;
  c->nranks = sel->nranks;
}

int sp_tree_region_order(const sp_selection_t *sel, int *pos, int *depth) {
  if (!sp_order_valid(sel)) {
    /* A tree of totals: the order needs the paths, not the ranks. */
    sp_reader_tree_t *t;
    int err = sp_reader_tree_build(sel->reader, sel->regions, sel->nregions, sel->ranks,
                                   sel->nranks, SP_READER_TREE_TOTALS, &t);
    if (err < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader(err);
    }
    sp_tree_order_note(sel, t, 0);
    if (!sp_order_valid(sel)) sp_order_compute(sel, t, pos, depth); /* nothing kept */
    sp_reader_tree_free(t);
    if (!sp_order_valid(sel)) return 0;
  }
  memcpy(pos, sel->order->pos, (size_t)sel->nregions * sizeof *pos);
  memcpy(depth, sel->order->depth, (size_t)sel->nregions * sizeof *depth);
  return 0;
}

void sp_tree_order_free(sp_tree_order_t *c) {
  if (!c) return;
  sp_tree_order_clear(c);
  free(c);
}

/* The call tree of a selection; the first one built leaves its region
 * order above for the charts. */
int sp_tree_build(const sp_selection_t *sel, unsigned flags, sp_reader_tree_t **out) {
  int err = sp_reader_tree_build(sel->reader, sel->regions, sel->nregions, sel->ranks, sel->nranks,
                                 flags, out);
  if (err < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(err);
  }
  sp_tree_order_note(sel, *out, flags);
  return 0;
}
