/* tree.c - --tree: the call tree of the selection as an indented table.
 *
 * Siblings are ordered by --sort-by (default: inclusive time), a parent
 * before its children. Times are the mean over the selected ranks of the
 * per-rank sums (over threads); min / max over ranks are of the inclusive
 * time. --format json prints the call_tree.json document instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "pproc.h"

/* Sort key of a node under --sort-by: numbers descending, so negated. */
static double sp_node_key(const sp_reader_tree_node_t *nd, sp_sort_t sort) {
  switch (sort) {
  case SP_SORT_CALLS:
    return -(double)nd->calls;
  case SP_SORT_MEAN:
    return nd->calls ? -(double)nd->inclusive / (double)nd->calls : 0.0;
  case SP_SORT_MIN:
    return -nd->rank_min;
  case SP_SORT_MAX:
    return -nd->rank_max;
  case SP_SORT_IMBALANCE:
    return -nd->imbalance;
  case SP_SORT_SELF:
    return -(double)nd->exclusive;
  case SP_SORT_START:
  case SP_SORT_NAME:
  case SP_SORT_TOTAL:
    break;
  }
  return 0.0; /* the tree's own order: inclusive time */
}

typedef struct sp_sorted {
  const sp_reader_tree_t *t;
  const sp_reader_t *r;
  sp_sort_t sort;
} sp_sorted_t;

static const sp_sorted_t *sp_sort_ctx; /* qsort has no context argument; one use at a time */

static int sp_sib_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  const sp_reader_tree_node_t *nx = sp_reader_tree_node(sp_sort_ctx->t, x);
  const sp_reader_tree_node_t *ny = sp_reader_tree_node(sp_sort_ctx->t, y);
  if (sp_sort_ctx->sort == SP_SORT_NAME) {
    int c = strcmp(sp_reader_region_name(sp_sort_ctx->r, nx->region),
                   sp_reader_region_name(sp_sort_ctx->r, ny->region));
    if (c) return c;
  }
  double kx = sp_node_key(nx, sp_sort_ctx->sort), ky = sp_node_key(ny, sp_sort_ctx->sort);
  if (kx != ky) return kx < ky ? -1 : 1;
  return (x > y) - (x < y); /* stable: the tree's order */
}

/* Node indices in printing order: depth first, siblings by the sort key. */
static int *sp_tree_order(const sp_reader_tree_t *t, const sp_reader_t *r, sp_sort_t sort) {
  int n = sp_reader_tree_num_nodes(t);
  int *order = malloc((size_t)(n ? n : 1) * sizeof *order);
  int *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
  int *kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
  if (!order || !stack || !kids) {
    free(order);
    order = NULL;
  }
  sp_sorted_t ctx = {t, r, sort};
  sp_sort_ctx = &ctx;
  int depth = 0, out = 0, nk = 0;
  /* Roots, pushed in reverse so the first sorted is printed first. */
  for (int i = 0; order && i < n; i = sp_reader_tree_node(t, i)->next_sibling) {
    kids[nk++] = i;
    if (sp_reader_tree_node(t, i)->next_sibling < 0) break;
  }
  if (order) qsort(kids, (size_t)nk, sizeof *kids, sp_sib_cmp);
  for (int k = nk - 1; order && k >= 0; k--) stack[depth++] = kids[k];
  while (order && depth) {
    int v = stack[--depth];
    order[out++] = v;
    nk = 0;
    for (int c = sp_reader_tree_node(t, v)->first_child; c >= 0;
         c = sp_reader_tree_node(t, c)->next_sibling)
      kids[nk++] = c;
    qsort(kids, (size_t)nk, sizeof *kids, sp_sib_cmp);
    for (int k = nk - 1; k >= 0; k--) stack[depth++] = kids[k];
  }
  free(stack);
  free(kids);
  return order;
}

static const sp_col_t sp_tree_cols[] = {
    {"calls", SP_COL_INT, 10},   {"incl_s", SP_COL_SEC, 14},     {"excl_s", SP_COL_SEC, 14},
    {"%", SP_COL_PCT, 7},        {"rank_min_s", SP_COL_SEC, 14}, {"rank_max_s", SP_COL_SEC, 14},
    {"max_rank", SP_COL_INT, 8}, {"imbalance", SP_COL_RATIO, 9}, {"worker_calls", SP_COL_INT, 12},
    {"depth", SP_COL_INT, 5},    {"region", SP_COL_STR, 0}};
enum { SP_TREE_NCOLS = (int)(sizeof sp_tree_cols / sizeof sp_tree_cols[0]) };

static void sp_tree_row(sp_table_t *tb, const sp_selection_t *sel, const sp_reader_tree_node_t *nd,
                        double wall, char *name, size_t cap) {
  sp_cell_t c[SP_TREE_NCOLS];
  memset(c, 0, sizeof c);
  double per = sel->nranks ? 1e-9 / sel->nranks : 0;
  const char *region = sp_reader_region_name(sel->reader, nd->region);
  c[0].i = nd->calls;
  c[1].d = per * (double)nd->inclusive;
  c[2].d = per * (double)nd->exclusive;
  c[3].d = wall > 0 ? 100.0 * (double)nd->inclusive / wall : 0.0;
  c[4].d = 1e-9 * nd->rank_min;
  c[5].d = 1e-9 * nd->rank_max;
  c[6].i = nd->max_rank;
  c[7].d = nd->imbalance;
  for (int k = 1; k <= 7; k++) c[k].missing = !nd->timed;
  c[8].i = nd->worker_calls;
  c[9].i = nd->depth;
  if (tb->fmt == SP_TABLE_TEXT) {
    /* Two spaces per level; paths that ran on worker threads are marked. */
    int ind = nd->depth < 40 ? 2 * nd->depth : 80;
    snprintf(name, cap, "%*s%s%s", ind, "", region, nd->worker_calls ? " [threads]" : "");
    c[10].s = name;
  } else {
    c[10].s = region;
  }
  sp_table_row(tb, c);
}

int sp_tree_print(const sp_selection_t *sel, const sp_options_t *o) {
  int red = o->table == SP_TABLE_TEXT ? sp_reduced_print(sel, o, 1) : -1;
  if (red >= 0) return red; /* reduced across ranks: its own tree */
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  if (rc) return rc;
  if (o->table == SP_TABLE_JSON) {
    sp_tree_json_write(stdout, sel, t, NULL);
    sp_reader_tree_free(t);
    return 0;
  }
  int *order = sp_tree_order(t, sel->reader, o->sort);
  if (!order) {
    sp_reader_tree_free(t);
    return SP_EXIT_IO;
  }
  char note[256], name[4096];
  snprintf(note, sizeof note,
           "# call tree of %d rank%s: incl_s, excl_s mean per rank of the sums over threads;\n"
           "# %%: incl_s / the ranks' wall time on thread 0 (the outermost region is 100%%);\n"
           "# rank_min/max_s of per-rank inclusive time",
           sel->nranks, sel->nranks == 1 ? "" : "s");
  sp_table_t tb;
  if (o->table == SP_TABLE_TEXT) sp_run_meta_note(sel->reader, stdout);
  sp_table_begin(&tb, o->table, sp_tree_cols, SP_TREE_NCOLS, note);
  for (int i = 0; i < sp_reader_tree_num_nodes(t); i++)
    sp_tree_row(&tb, sel, sp_reader_tree_node(t, order[i]), sp_metric_wall(t), name, sizeof name);
  sp_table_end(&tb);
  free(order);
  sp_reader_tree_free(t);
  return 0;
}
