/* reader_tree_agg.c - the call tree of a profile-mode file (scope-profiler's
 * aggregate files, docs/profile-mode.md): its call_paths group already
 * holds the tree per (rank, thread) with calls, inclusive and exclusive
 * time, so the nodes are filled from its rows instead of a sweep of
 * stamps. A path whose region is not selected nests its selected
 * descendants under its nearest selected ancestor, and its own exclusive
 * time goes to that ancestor (as the ancestor's exclusive time from stamps
 * would hold the unselected call's time). The reference tool's aggregate
 * files have no call_paths: their regions stay count-only roots. */
#include <stdlib.h>
#include <string.h>

#include "../../c/src/profile/agg_layout.h" /* the aggregate file's names: the writer's list */
#include "reader_internal.h"
#include "reader_tree_internal.h"

#define SP_PATHS_MAX ((hsize_t)1 << 22)

static int64_t sp_plen(hid_t file, const char *path) {
  if (H5Lexists(file, SP_AGG_PATHS, H5P_DEFAULT) <= 0) return -1;
  return sp__agg_col_len(file, path, (int64_t)SP_PATHS_MAX);
}

typedef struct sp_named {
  const char *name;
  int region; /* reader region index */
  int order;  /* index in the selection: the last of equal names wins, as before */
} sp_named_t;

static int sp_named_cmp(const void *a, const void *b) {
  const sp_named_t *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* The selected region named name (the last of its name in the selection),
 * else -1: a binary search of the n sorted entries of v. */
static int sp_named_find(const sp_named_t *v, int n, const char *name) {
  int lo = 0, hi = n; /* the first entry above name */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(v[mid].name, name) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && strcmp(v[lo - 1].name, name) == 0 ? v[lo - 1].region : -1;
}

/* map[i]: the selected reader region of region_table/names[i], else -1.
 * The selection sorted by name, so that a file of many regions maps in
 * n log n, not names x regions string compares. */
static int64_t *sp_name_map(const sp_reader_t *r, const int *regions, int nregions, int64_t *nn) {
  hid_t d = H5Dopen2(r->file, SP_AGG_REGION_TABLE "/" SP_AGG_NAMES, H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t s = H5Dget_space(d), ft = H5Dget_type(d);
  hsize_t n = 0;
  int ok = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &n, NULL) == 1 && n <= SP_PATHS_MAX && ft >= 0 &&
           H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 &&
           sp__gheap_sound(r) == 0; /* the open's read of these names made the scan */
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char **v = ok ? calloc(n ? n : 1, sizeof *v) : NULL;
  int64_t *map = ok ? malloc((n ? n : 1) * sizeof *map) : NULL;
  sp_named_t *sel = map ? malloc((size_t)(nregions > 0 ? nregions : 1) * sizeof *sel) : NULL;
  for (int x = 0; sel && x < nregions; x++)
    sel[x] = (sp_named_t){r->regions[regions[x]].name, regions[x], x};
  if (sel) qsort(sel, (size_t)nregions, sizeof *sel, sp_named_cmp);
  if (v && map && sel && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
    for (hsize_t i = 0; i < n; i++) map[i] = v[i] ? sp_named_find(sel, nregions, v[i]) : -1;
    H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
    *nn = (int64_t)n;
  } else {
    free(map);
    map = NULL;
  }
  free(sel);
  free(v);
  H5Tclose(t);
  if (ft >= 0) H5Tclose(ft);
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return map;
}

typedef struct sp_cols {
  int64_t *rank, *thread, *region, *parent, *calls, *incl, *excl;
} sp_cols_t;

static void sp_cols_free(sp_cols_t *c) {
  free(c->rank), free(c->thread), free(c->region), free(c->parent);
  free(c->calls), free(c->incl), free(c->excl);
}

/* The rows' node (-1: none selected on the way up), computed parents
 * first: the file lists a path after its parent. */
static int sp_fill(sp_reader_tree_t *t, int j, int rank_id, unsigned flags, const sp_cols_t *c,
                   int64_t np, const int64_t *map, int64_t nn, int *node) {
  for (int64_t i = 0; i < np; i++) {
    node[i] = -1;
    int64_t p = c->parent[i];
    if (c->rank[i] != rank_id) continue;
    if (p >= i || p < -1 || c->region[i] < 0 || c->region[i] >= nn || c->calls[i] < 0)
      return 1; /* not the layout written: nothing is taken */
    int above = p >= 0 ? node[p] : -1;
    int g = (int)map[c->region[i]];
    int64_t *cell;
    if (g < 0) { /* not selected: its own time is its selected ancestor's */
      node[i] = above;
      if (above >= 0) {
        cell = sp_rank_cell(t, above, j);
        cell[2] = sp_add(cell[2], c->excl[i]);
      }
      continue;
    }
    int th = (flags & SP_READER_TREE_BY_THREAD) ? (int)c->thread[i] : -1;
    int nd = sp__tree_node(t, above, g, th);
    if (nd < 0) return SP_READER_ENOMEM;
    node[i] = nd;
    t->nodes[nd].timed = 1;
    if (c->thread[i] != 0)
      t->nodes[nd].worker_calls = sp_add(t->nodes[nd].worker_calls, c->calls[i]);
    cell = sp_rank_cell(t, nd, j);
    cell[0] = sp_add(cell[0], c->calls[i]);
    cell[1] = sp_add(cell[1], c->incl[i]);
    cell[2] = sp_add(cell[2], c->excl[i]);
  }
  return 0;
}

int sp__tree_rank_agg(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                      int nregions, unsigned flags) {
  static const char *const names[7] = {
      SP_AGG_PATHS "/" SP_AGG_RANKS,      SP_AGG_PATHS "/" SP_AGG_THREADS,
      SP_AGG_PATHS "/" SP_AGG_REGION_IDS, SP_AGG_PATHS "/" SP_AGG_PARENTS,
      SP_AGG_PATHS "/" SP_AGG_COUNTS,     SP_AGG_PATHS "/" SP_AGG_INCLUSIVES,
      SP_AGG_PATHS "/" SP_AGG_EXCLUSIVES};
  int64_t np = sp_plen(r->file, names[0]);
  for (int c = 1; c < 7 && np >= 0; c++)
    if (sp_plen(r->file, names[c]) != np) np = -1;
  if (np < 0) return 1; /* no call paths: the caller counts the regions */
  sp_cols_t c = {0};
  int64_t **dst[7] = {&c.rank, &c.thread, &c.region, &c.parent, &c.calls, &c.incl, &c.excl};
  int ok = 1;
  for (int x = 0; x < 7; x++) ok &= (*dst[x] = sp__agg_col_read(r->file, names[x], np)) != NULL;
  int64_t nn = 0;
  int64_t *map = ok ? sp_name_map(r, regions, nregions, &nn) : NULL;
  int *node = map ? malloc((size_t)(np ? np : 1) * sizeof *node) : NULL;
  int rc = node ? sp_fill(t, j, r->ranks[k].id, flags, &c, np, map, nn, node) : 1;
  free(node);
  free(map);
  sp_cols_free(&c);
  return rc;
}
