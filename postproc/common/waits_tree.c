/* waits_tree.c - a rank's calls nested by their stamps (as the reader's
 * call tree: start ascending, end descending; a call's parent is the
 * innermost call before it that contains it), for two questions: the call
 * path of each MPI call, and the region a rank was in at a given time
 * (its innermost open call that is not an MPI call). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waits.h"

static const sp_reader_t *sp_sort_reader; /* region names for the tie-break (one sort at a time) */

static int sp_item_cmp(const void *a, const void *b) {
  const sp_witem_t *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  if (x->region == y->region) return 0;
  return strcmp(sp_reader_region_name(sp_sort_reader, x->region),
                sp_reader_region_name(sp_sort_reader, y->region));
}

/* Path ids: (parent path, region) pairs, found through an open-addressed
 * table (w->path_slot: path id + 1, 0 empty). */

static uint64_t sp_path_hash(int32_t parent, int32_t region) {
  uint64_t h = ((uint64_t)(uint32_t)parent << 32) ^ (uint32_t)region;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

static int sp_path_id(sp_waits_t *w, int32_t parent, int32_t region) {
  if ((int64_t)(w->npaths + 1) * 2 > w->path_cap) { /* grow and rehash */
    int64_t cap = w->path_cap ? w->path_cap * 2 : 1024;
    int32_t *s = calloc((size_t)cap, sizeof *s);
    sp_wpath_t *p = realloc(w->paths, (size_t)cap / 2 * sizeof *p);
    if (!s || !p) {
      free(s);
      if (p) w->paths = p;
      return -1;
    }
    w->paths = p;
    for (int i = 0; i < w->npaths; i++) {
      uint64_t h = sp_path_hash(p[i].parent, p[i].region) & (uint64_t)(cap - 1);
      while (s[h]) h = (h + 1) & (uint64_t)(cap - 1);
      s[h] = i + 1;
    }
    free(w->path_slot);
    w->path_slot = s;
    w->path_cap = cap;
  }
  uint64_t h = sp_path_hash(parent, region) & (uint64_t)(w->path_cap - 1);
  while (w->path_slot[h]) {
    const sp_wpath_t *p = &w->paths[w->path_slot[h] - 1];
    if (p->parent == parent && p->region == region) return w->path_slot[h] - 1;
    h = (h + 1) & (uint64_t)(w->path_cap - 1);
  }
  w->paths[w->npaths] = (sp_wpath_t){parent, region};
  w->path_slot[h] = ++w->npaths;
  return w->npaths - 1;
}

/* Index of rank k's innermost item open at t (start <= t <= end), or -1.
 * The item found last is tried first (lookups come in time order, mostly:
 * a channel's calls, a communicator's collectives). */
static int64_t sp_item_at(sp_wrank_t *rk, int64_t t) {
  int64_t h = rk->item_hint;
  if (h >= 0 && h < rk->nitems && rk->items[h].start <= t && rk->items[h].end >= t &&
      (h + 1 == rk->nitems || rk->items[h + 1].start > t))
    return h;
  int64_t lo = 0, hi = rk->nitems; /* first item starting after t */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (rk->items[mid].start <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* The last call started by t, then its ancestors: the innermost open one
   * is the first that has not ended (one that contains t contains it). */
  int64_t i = lo - 1;
  while (i >= 0 && rk->items[i].end < t) i = rk->items[i].parent;
  rk->item_hint = i;
  return i;
}

int sp__waits_tree(sp_waits_t *w, int k) {
  sp_wrank_t *rk = &w->ranks[k];
  sp_sort_reader = w->reader;
  if (rk->nitems > 1) qsort(rk->items, (size_t)rk->nitems, sizeof *rk->items, sp_item_cmp);
  int32_t *stack = malloc((size_t)(rk->nitems + 1) * sizeof *stack);
  if (!stack) return SP_READER_ENOMEM;
  int64_t top = 0;
  int rc = 0;
  for (int64_t i = 0; i < rk->nitems && rc == 0; i++) {
    sp_witem_t *it = &rk->items[i];
    while (top > 0 && rk->items[stack[top - 1]].end < it->end) top--;
    it->parent = top > 0 ? stack[top - 1] : -1;
    stack[top++] = (int32_t)i;
    int32_t pp = it->parent >= 0 ? rk->items[it->parent].path : -1;
    it->path = sp_path_id(w, pp, it->region);
    if (it->path < 0) rc = SP_READER_ENOMEM;
  }
  free(stack);
  return rc;
}

/* An MPI call's path: its innermost enclosing region's, then its own name
 * (on a worker thread, the name alone). Asked for the calls with a wait
 * only. */
int32_t sp__waits_call_path(sp_waits_t *w, int k, const sp_wcall_t *c) {
  sp_wrank_t *rk = &w->ranks[k];
  int64_t it = c->worker ? -1 : sp_item_at(rk, c->start);
  return sp_path_id(w, it >= 0 ? rk->items[it].path : -1, c->region);
}

int32_t sp_waits_region_at(sp_waits_t *w, int k, int64_t t) {
  int64_t i = sp_item_at(&w->ranks[k], t);
  return i >= 0 ? w->ranks[k].items[i].region : -1;
}

void sp_waits_path_name(const sp_waits_t *w, int32_t p, char *buf, size_t cap) {
  int32_t chain[256];
  int n = 0;
  for (; p >= 0 && n < 256; p = w->paths[p].parent) chain[n++] = p;
  size_t len = 0;
  buf[0] = 0;
  for (int i = n - 1; i >= 0 && len + 1 < cap; i--) {
    const char *name = sp_reader_region_name(w->reader, w->paths[chain[i]].region);
    int wrote = snprintf(buf + len, cap - len, "%s%s", i == n - 1 ? "" : "/", name ? name : "?");
    if (wrote < 0) break;
    len += (size_t)wrote;
  }
}
