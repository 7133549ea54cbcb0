/* reader_tree_stream.c - one rank's calls swept as they are read, for a
 * tree of totals only (SP_READER_TREE_TOTALS: the charts' region order).
 *
 * The loaded order (reader_tree.c) holds every selected pair of a rank in
 * memory, 16-20 bytes per call. Here each pair is read in slices of up to
 * SP_STREAM_SLICE calls (sp_reader_read_range; 80 kB) and the slices are merged
 * through a heap in the sweep's order (thread, start, end descending,
 * name), so memory follows the regions, not the calls. The merge is that
 * order only when each pair's own calls are in it (one thread, or threads
 * one after the other; no recursion inside a pair): a call found before
 * the one read just before it in its pair, an end before its start or a
 * slice that cannot be read (delta-encoded columns) stops the stream, and
 * the caller builds the tree again from loaded pairs, which handle every
 * case and say why a file is bad. The sums are the sweep's own
 * (sp_sweep_call), so the nodes are those of the loaded order. */
#include <stdlib.h>
#include <string.h>

#include "reader_tree_internal.h"

/* Calls per slice: a pair shorter than this takes its length. */
enum { SP_STREAM_SLICE = 4096 };

/* One selected pair of the rank: its slice and where the next one starts. */
typedef struct sp_cursor {
  int64_t *start, *end; /* the slice, cap each */
  int32_t *tid;
  int64_t cap;
  int64_t got, i;  /* calls in the slice, the current one */
  int64_t next, n; /* first call not read, calls of the pair */
  int g, key;      /* region, its position in name order */
  sp_call_t cur;   /* the current call */
} sp_cursor_t;

struct sp_stream {
  sp_cursor_t *cur; /* one per selected region */
  int *heap;        /* cursors by their current call */
  int ncap;
  sp_sweep_t *w;
};

sp_stream_t *sp__stream_new(int nregions) {
  sp_stream_t *s = calloc(1, sizeof *s);
  int n = nregions > 0 ? nregions : 1;
  if (!s) return NULL;
  s->cur = calloc((size_t)n, sizeof *s->cur);
  s->heap = malloc((size_t)n * sizeof *s->heap);
  s->w = calloc(1, sizeof *s->w);
  s->ncap = n;
  if (!s->cur || !s->heap || !s->w) {
    sp__stream_free(s);
    return NULL;
  }
  return s;
}

void sp__stream_free(sp_stream_t *s) {
  if (!s) return;
  for (int c = 0; s->cur && c < s->ncap; c++) {
    free(s->cur[c].start);
    free(s->cur[c].end);
    free(s->cur[c].tid);
  }
  free(s->cur);
  free(s->heap);
  if (s->w) free(s->w->stack);
  free(s->w);
  free(s);
}

/* Moves cursor c to its next call: 1 if there is one, 0 at the pair's
 * end, SP_STREAM_NO when the pair is not in the sweep's order or cannot
 * be read in slices. */
static int sp_cursor_step(sp_reader_t *r, int k, sp_cursor_t *c) {
  if (++c->i >= c->got) {
    if (c->next >= c->n) return 0;
    int64_t want = c->n - c->next < c->cap ? c->n - c->next : c->cap;
    int64_t got = sp_reader_read_range(r, c->g, k, c->next, want, c->start, c->end, c->tid);
    if (got <= 0) return SP_STREAM_NO; /* short or unreadable: the loaded build says why */
    c->next += got;
    c->got = got;
    c->i = 0;
  }
  sp_call_t x = {c->start[c->i], c->end[c->i], c->tid[c->i], c->key};
  if (x.end < x.start || (c->next - c->got + c->i > 0 && sp_call_before(&x, &c->cur)))
    return SP_STREAM_NO;
  c->cur = x;
  return 1;
}

static void sp_heap_down(const sp_stream_t *s, int *h, int n, int at) {
  for (;;) {
    int m = at, l = 2 * at + 1, rr = l + 1;
    if (l < n && sp_call_before(&s->cur[h[l]].cur, &s->cur[h[m]].cur)) m = l;
    if (rr < n && sp_call_before(&s->cur[h[rr]].cur, &s->cur[h[m]].cur)) m = rr;
    if (m == at) return;
    int x = h[m];
    h[m] = h[at];
    h[at] = x;
    at = m;
  }
}

/* The cursors of rank index k's timed selected pairs, each on its first call. */
static int sp_stream_open(sp_stream_t *s, sp_reader_t *r, int k, const int *regions,
                          const int *keys, int nregions, int *nheap) {
  int nh = 0;
  for (int i = 0; i < nregions; i++) {
    sp_reader_info_t info;
    sp_reader_info(r, regions[i], k, &info);
    if (!info.present || !info.has_times || info.num_intervals <= 0) continue;
    sp_cursor_t *c = &s->cur[nh];
    int64_t cap = info.num_intervals < SP_STREAM_SLICE ? info.num_intervals : SP_STREAM_SLICE;
    if (c->cap < cap) { /* the slot's largest pair so far */
      int64_t *st = realloc(c->start, (size_t)cap * sizeof *st);
      if (st) c->start = st;
      int64_t *en = st ? realloc(c->end, (size_t)cap * sizeof *en) : NULL;
      if (en) c->end = en;
      int32_t *td = en ? realloc(c->tid, (size_t)cap * sizeof *td) : NULL;
      if (td) c->tid = td;
      if (!td) return SP_READER_ENOMEM;
      c->cap = cap;
    }
    c->got = c->i = c->next = 0;
    c->n = info.num_intervals;
    c->g = regions[i];
    c->key = keys[i];
    c->i = -1;
    int rc = sp_cursor_step(r, k, c);
    if (rc == SP_STREAM_NO) return rc;
    if (rc == 1) {
      s->heap[nh] = nh;
      nh++;
    }
  }
  *nheap = nh;
  return 0;
}

int sp__tree_rank_stream(sp_reader_t *r, sp_reader_tree_t *t, int j, int k, const int *regions,
                         const int *keys, int nregions, const int *by_key, unsigned flags,
                         sp_stream_t *s) {
  int nh = 0;
  int rc = sp_stream_open(s, r, k, regions, keys, nregions, &nh);
  for (int i = nh / 2 - 1; rc == 0 && i >= 0; i--) sp_heap_down(s, s->heap, nh, i);
  sp_sweep_t *w = s->w;
  sp_open_t *stack = w->stack;
  int cap = w->cap;
  memset(w, 0, sizeof *w);
  w->stack = stack;
  w->cap = cap;
  w->t = t;
  w->j = j;
  w->by_key = by_key;
  w->flags = flags;
  while (rc == 0 && nh > 0) {
    sp_cursor_t *c = &s->cur[s->heap[0]];
    rc = sp_sweep_call(w, &c->cur); /* no patterns here: 0 or SP_READER_ENOMEM */
    if (rc) break;
    int more = sp_cursor_step(r, k, c);
    if (more == SP_STREAM_NO)
      rc = more;
    else if (more == 0)
      s->heap[0] = s->heap[--nh];
    sp_heap_down(s, s->heap, nh, 0);
  }
  while (w->depth) sp_pop(w);
  return rc;
}
