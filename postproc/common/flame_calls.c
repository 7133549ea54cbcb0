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

/* The selected regions' positions in name order (sp_flame_calls_load's
 * tie-break), as the merge's keys. */
static int sp_flame_keys(const sp_selection_t *sel, int32_t *keys) {
  int *order = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *order);
  if (!order) return SP_EXIT_IO;
  for (int g = 0; g < sel->nregions; g++) order[g] = g;
  sp_sort_sel = sel;
  qsort(order, (size_t)sel->nregions, sizeof *order, sp_cmp_row_name);
  for (int g = 0; g < sel->nregions; g++) keys[order[g]] = g;
  free(order);
  return 0;
}

enum { SP_FLAME_SLICE = 4096 }; /* calls taken from the merge at once */

/* The depth sweep of sp_flame_depths over one slice of the merge. */
static int sp_flame_slice(const sp_reader_call_t *c, int64_t n, sp_flame_call_t *out,
                          int64_t **stack, int64_t *cap, int64_t *top, int32_t *tid, int *started) {
  for (int64_t i = 0; i < n; i++) {
    if (!*started || c[i].thread != *tid) *top = 0;
    *started = 1, *tid = c[i].thread;
    while (*top > 0 && (*stack)[*top - 1] <= c[i].start) (*top)--;
    if (*top == *cap) {
      int64_t nc = *cap ? 2 * *cap : 64;
      int64_t *s = realloc(*stack, (size_t)nc * sizeof *s);
      if (!s) return SP_EXIT_IO;
      *stack = s, *cap = nc;
    }
    out[i] = (sp_flame_call_t){c[i].start, c[i].end, c[i].thread, (int32_t)c[i].slot,
                               (int32_t)(*top < INT32_MAX ? *top : INT32_MAX)};
    (*stack)[(*top)++] = c[i].end;
  }
  return 0;
}

int sp_flame_calls_stream(const sp_selection_t *sel, int k, sp_flame_fn fn, void *ctx) {
  int32_t *keys = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *keys);
  sp_reader_call_t *c = malloc(SP_FLAME_SLICE * sizeof *c);
  sp_flame_call_t *out = malloc(SP_FLAME_SLICE * sizeof *out);
  int64_t *stack = NULL, cap = 0, top = 0, got = 0;
  int32_t tid = 0;
  int started = 0, rc = keys && c && out ? sp_flame_keys(sel, keys) : SP_EXIT_IO;
  sp_reader_merge_t *m = NULL;
  int err = rc == 0 ? sp_reader_merge_open(sel->reader, sel->ranks[k], sel->regions, keys,
                                           sel->nregions, &m)
                    : 0;
  while (rc == 0 && err == 0 && (got = sp_reader_merge_next_n(m, c, SP_FLAME_SLICE)) > 0) {
    rc = sp_flame_slice(c, got, out, &stack, &cap, &top, &tid, &started);
    if (rc == 0) rc = fn(ctx, out, got);
  }
  if (err == 0 && got < 0) err = (int)got;
  sp_reader_merge_close(m);
  free(keys), free(c), free(out), free(stack);
  if (rc == SP_EXIT_IO) sp_msg(SP_QUIET, "out of memory");
  if (rc == 0 && err < 0) {
    sp_msg(SP_QUIET, "%s",
           err == SP_READER_ENOMEM ? "out of memory" : sp_reader_errmsg(sel->reader));
    rc = err == SP_READER_ENOMEM ? SP_EXIT_IO : sp_exit_for_reader(err);
  }
  return rc;
}
