/* flame_calls.c - one rank's calls sorted and given their depth.
 *
 * Calls are sorted per thread by start, then longest first, then region
 * name (the order of calls with identical stamps is otherwise unknowable:
 * the call tree uses the same rule), and a sweep with a stack of open ends
 * gives each call the number of calls still open at its start. */
#include <stdlib.h>
#include <string.h>

#include "flame_calls.h"

/* Name order of the selected regions, for the sort (set before qsort). */
static const int *sp_name_rank;

static int sp_cmp_call(const void *pa, const void *pb) {
  const sp_flame_call_t *a = pa, *b = pb;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end > b->end ? -1 : 1;
  return sp_name_rank[a->row] - sp_name_rank[b->row];
}

static const sp_selection_t *sp_sort_sel;

static int sp_cmp_row_name(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return strcmp(sp_reader_region_name(sp_sort_sel->reader, sp_sort_sel->regions[a]),
                sp_reader_region_name(sp_sort_sel->reader, sp_sort_sel->regions[b]));
}

static int sp_flame_append(const sp_selection_t *sel, int k, sp_flame_calls_t *fc) {
  int64_t cap = 0;
  for (int g = 0; g < sel->nregions; g++) {
    sp_reader_intervals_t iv;
    int err = sp_load_intervals(sel->reader, sel->regions[g], sel->ranks[k], &iv);
    if (err) return err;
    if (fc->n + iv.n > cap) {
      int64_t nc = (fc->n + iv.n) * 2;
      sp_flame_call_t *p = realloc(fc->call, (size_t)nc * sizeof *p);
      if (!p) {
        sp_reader_intervals_free(&iv);
        return SP_EXIT_IO;
      }
      fc->call = p;
      cap = nc;
    }
    for (int64_t i = 0; i < iv.n; i++) {
      sp_flame_call_t *c = &fc->call[fc->n++];
      c->start = iv.start[i];
      c->end = iv.end[i];
      c->thread = iv.thread_ids ? iv.thread_ids[i] : 0;
      c->row = g;
      c->depth = 0;
    }
    sp_reader_intervals_free(&iv);
  }
  return 0;
}

/* Depth sweep over the sorted calls; fills threads and max_depth. */
static int sp_flame_depths(sp_flame_calls_t *fc) {
  int64_t *stack = malloc((size_t)(fc->n ? fc->n : 1) * sizeof *stack);
  fc->threads = malloc((size_t)(fc->n ? fc->n : 1) * sizeof *fc->threads);
  fc->max_depth = malloc((size_t)(fc->n ? fc->n : 1) * sizeof *fc->max_depth);
  if (!stack || !fc->threads || !fc->max_depth) {
    free(stack);
    return SP_EXIT_IO;
  }
  int64_t top = 0;
  for (int64_t i = 0; i < fc->n; i++) {
    sp_flame_call_t *c = &fc->call[i];
    if (i == 0 || c->thread != fc->call[i - 1].thread) {
      top = 0;
      fc->threads[fc->nthreads] = c->thread;
      fc->max_depth[fc->nthreads++] = 0;
    }
    while (top > 0 && stack[top - 1] <= c->start) top--;
    c->depth = (int32_t)(top < INT32_MAX ? top : INT32_MAX);
    if (c->depth > fc->max_depth[fc->nthreads - 1]) fc->max_depth[fc->nthreads - 1] = c->depth;
    stack[top++] = c->end;
  }
  free(stack);
  return 0;
}

int sp_flame_calls_load(const sp_selection_t *sel, int k, sp_flame_calls_t *fc) {
  memset(fc, 0, sizeof *fc);
  int *order = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *order);
  int *name_rank = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *name_rank);
  int rc = order && name_rank ? 0 : SP_EXIT_IO;
  if (rc == 0) {
    for (int g = 0; g < sel->nregions; g++) order[g] = g;
    sp_sort_sel = sel;
    qsort(order, (size_t)sel->nregions, sizeof *order, sp_cmp_row_name);
    for (int g = 0; g < sel->nregions; g++) name_rank[order[g]] = g;
    rc = sp_flame_append(sel, k, fc);
  }
  if (rc == 0) {
    sp_name_rank = name_rank;
    if (fc->n > 1) qsort(fc->call, (size_t)fc->n, sizeof *fc->call, sp_cmp_call);
    rc = sp_flame_depths(fc);
  }
  free(order);
  free(name_rank);
  if (rc) sp_flame_calls_free(fc);
  return rc;
}

void sp_flame_calls_free(sp_flame_calls_t *fc) {
  free(fc->call);
  free(fc->threads);
  free(fc->max_depth);
  memset(fc, 0, sizeof *fc);
}

int sp_flame_ranks(const sp_selection_t *sel, const sp_options_t *o, const int **ranks) {
  *ranks = sel->ranks;
  return o->nranks > 0 ? sel->nranks : (sel->nranks > 0 ? 1 : 0);
}
