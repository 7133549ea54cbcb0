/* flame_calls.c - one rank's calls in the flame chart's order, given their
 * depth.
 *
 * The reader's merge gives the calls by thread, start, longest first, then
 * a key: the region's place in name order (the call tree's rule), and a
 * sweep with a stack of open ends gives each call the number of calls
 * still open at its start. */
#include <stdlib.h>
#include <string.h>

#include "flame_calls.h"

enum { SP_FLAME_BATCH = 4096 };

struct sp_flame_stream {
  const sp_selection_t *sel;
  sp_reader_merge_t *m;
  int *slot_row;           /* the merge's slot -> index into sel->regions */
  sp_reader_call_t *batch; /* calls taken from the merge, not yet given */
  int64_t nb, at;
  int64_t *stack; /* ends of the calls open on the current thread */
  int64_t top, cap;
  int32_t thread;
  int first;
};

static const sp_selection_t *sp_sort_sel;

static int sp_cmp_row_name(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return strcmp(sp_reader_region_name(sp_sort_sel->reader, sp_sort_sel->regions[a]),
                sp_reader_region_name(sp_sort_sel->reader, sp_sort_sel->regions[b]));
}

/* The timed selected regions of the rank, their rows and name keys, for
 * the merge. */
static int sp_flame_merge(const sp_selection_t *sel, int k, sp_flame_stream_t *s) {
  int nr = sel->nregions ? sel->nregions : 1, n = 0;
  int *order = malloc((size_t)nr * sizeof *order);
  int32_t *key = malloc((size_t)nr * sizeof *key);
  int *regions = malloc((size_t)nr * sizeof *regions);
  s->slot_row = malloc((size_t)nr * sizeof *s->slot_row);
  int rc = order && key && regions && s->slot_row ? 0 : SP_EXIT_IO;
  if (rc == 0) {
    for (int g = 0; g < sel->nregions; g++) order[g] = g;
    sp_sort_sel = sel;
    qsort(order, (size_t)sel->nregions, sizeof *order, sp_cmp_row_name);
    for (int i = 0; i < sel->nregions; i++) {
      int g = order[i];
      sp_reader_info_t info;
      if (sp_reader_info(sel->reader, sel->regions[g], sel->ranks[k], &info) != 0 ||
          !info.present || !info.has_times || info.num_intervals <= 0)
        continue;
      regions[n] = sel->regions[g];
      key[n] = i;
      s->slot_row[n++] = g;
    }
    int err = sp_reader_merge_open(sel->reader, sel->ranks[k], regions, key, n, &s->m);
    if (err) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      rc = sp_exit_for_reader(err);
    }
  }
  free(order);
  free(key);
  free(regions);
  return rc;
}

int sp_flame_stream_open(const sp_selection_t *sel, int k, sp_flame_stream_t **out) {
  sp_flame_stream_t *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s) return SP_EXIT_IO;
  s->sel = sel;
  s->first = 1;
  s->batch = malloc(SP_FLAME_BATCH * sizeof *s->batch);
  int rc = s->batch ? sp_flame_merge(sel, k, s) : SP_EXIT_IO;
  if (rc) {
    sp_flame_stream_close(s);
    return rc;
  }
  *out = s;
  return 0;
}

int sp_flame_stream_next(sp_flame_stream_t *s, sp_flame_call_t *c) {
  if (s->at == s->nb) {
    int64_t got = sp_reader_merge_next_n(s->m, s->batch, SP_FLAME_BATCH);
    if (got < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(s->sel->reader));
      return -sp_exit_for_reader((int)got);
    }
    if (got == 0) return 0;
    s->nb = got;
    s->at = 0;
  }
  const sp_reader_call_t *x = &s->batch[s->at++];
  if (s->first || x->thread != s->thread) s->top = 0;
  s->first = 0;
  s->thread = x->thread;
  while (s->top > 0 && s->stack[s->top - 1] <= x->start) s->top--;
  if (s->top == s->cap) {
    int64_t cap = s->cap ? 2 * s->cap : 64;
    int64_t *p = realloc(s->stack, (size_t)cap * sizeof *p);
    if (!p) return -SP_EXIT_IO;
    s->stack = p;
    s->cap = cap;
  }
  *c = (sp_flame_call_t){x->start, x->end, x->thread, s->slot_row[x->slot],
                         (int32_t)(s->top < INT32_MAX ? s->top : INT32_MAX)};
  s->stack[s->top++] = x->end;
  return 1;
}

void sp_flame_stream_close(sp_flame_stream_t *s) {
  if (!s) return;
  sp_reader_merge_close(s->m);
  free(s->slot_row);
  free(s->batch);
  free(s->stack);
  free(s);
}

int sp_flame_calls_scan(const sp_selection_t *sel, int k, sp_flame_calls_t *fc) {
  memset(fc, 0, sizeof *fc);
  fc->last_end = INT64_MIN;
  sp_flame_stream_t *s;
  int rc = sp_flame_stream_open(sel, k, &s), got = 0, cap = 0;
  sp_flame_call_t c;
  while (rc == 0 && (got = sp_flame_stream_next(s, &c)) > 0) {
    fc->n++;
    if (c.end > fc->last_end) fc->last_end = c.end;
    if (fc->nthreads == 0 || c.thread != fc->threads[fc->nthreads - 1]) {
      if (fc->nthreads == cap) {
        cap = cap ? 2 * cap : 8;
        int32_t *t = realloc(fc->threads, (size_t)cap * sizeof *t);
        if (t) fc->threads = t;
        int32_t *d = t ? realloc(fc->max_depth, (size_t)cap * sizeof *d) : NULL;
        if (d) fc->max_depth = d;
        if (!t || !d) {
          rc = SP_EXIT_IO;
          break;
        }
      }
      fc->threads[fc->nthreads] = c.thread;
      fc->max_depth[fc->nthreads++] = 0;
    }
    if (c.depth > fc->max_depth[fc->nthreads - 1]) fc->max_depth[fc->nthreads - 1] = c.depth;
  }
  if (rc == 0 && got < 0) rc = -got;
  sp_flame_stream_close(s);
  if (rc) sp_flame_calls_free(fc);
  return rc;
}

void sp_flame_calls_free(sp_flame_calls_t *fc) {
  free(fc->threads);
  free(fc->max_depth);
  memset(fc, 0, sizeof *fc);
}

int sp_flame_ranks(const sp_selection_t *sel, const sp_options_t *o, const int **ranks) {
  *ranks = sel->ranks;
  return o->nranks > 0 ? sel->nranks : (sel->nranks > 0 ? 1 : 0);
}
