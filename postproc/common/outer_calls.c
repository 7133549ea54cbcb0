/* outer_calls.c - which calls of a region are outermost on their thread
 * (no call of the same region on the same thread encloses them): the calls
 * a region's total counts, so that recursion is not counted twice (as GPTL
 * and Caliper count inclusive time). chart_stats.h. */
#include <stdlib.h>

#include "chart_stats.h"

typedef struct sp_oc_key {
  int32_t tid;
  int64_t start, end;
  int64_t i;
} sp_oc_key_t;

/* Thread, then start, then the longest first (an enclosing call before the
 * calls it holds). */
static int sp_oc_cmp(const void *a, const void *b) {
  const sp_oc_key_t *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

int sp_outer_calls(const sp_reader_intervals_t *iv, unsigned char *outer) {
  int64_t n = iv->n;
  /* The usual case: one thread, calls one after another (none nested). */
  int plain = 1;
  for (int64_t i = 0; plain && i < n; i++) {
    plain = !iv->thread_ids || iv->thread_ids[i] == iv->thread_ids[0];
    if (i > 0) plain = plain && iv->start[i] >= iv->end[i - 1];
  }
  if (plain) {
    for (int64_t i = 0; i < n; i++) outer[i] = 1;
    return 0;
  }
  sp_oc_key_t *k = malloc((size_t)n * sizeof *k);
  if (!k) return SP_EXIT_IO;
  for (int64_t i = 0; i < n; i++)
    k[i] = (sp_oc_key_t){iv->thread_ids ? iv->thread_ids[i] : 0, iv->start[i], iv->end[i], i};
  qsort(k, (size_t)n, sizeof *k, sp_oc_cmp);
  int64_t reach = 0; /* the end of the latest outermost call of this thread */
  for (int64_t p = 0; p < n; p++) {
    int first = p == 0 || k[p].tid != k[p - 1].tid;
    /* Enclosed: starts before an outermost call of the thread ends, ends
     * no later (a call that only overlaps counts on its own). */
    int in = !first && k[p].start < reach && k[p].end <= reach;
    outer[k[p].i] = !in;
    if (!in && (first || k[p].end > reach)) reach = k[p].end;
  }
  free(k);
  return 0;
}
