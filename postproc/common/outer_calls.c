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

/* Threads followed by sp_outer_all_read; a pair with more is not checked. */
enum { SP_OA_SLOTS = 1024, SP_OA_CHUNK = 65536 };

typedef struct sp_oa_thread {
  int used;
  int32_t tid;
  int64_t start, end; /* its latest call in the pair's order */
} sp_oa_thread_t;

/* The slot of thread tid (open addressing), NULL when the table is full. */
static sp_oa_thread_t *sp_oa_slot(sp_oa_thread_t *tab, int32_t tid) {
  uint32_t h = ((uint32_t)tid * 0x9E3779B1u) % SP_OA_SLOTS;
  for (int probe = 0; probe < SP_OA_SLOTS; probe++, h = (h + 1) % SP_OA_SLOTS)
    if (!tab[h].used || tab[h].tid == tid) return &tab[h];
  return NULL;
}

/* One pass over the chunk: whether it keeps the pair "plain" as
 * sp_outer_calls' test (one thread, each call starting at or after the end
 * of the call before), and whether each call starts after its thread's
 * call before ends (or at its end when that one took time): then no call
 * of a thread holds another in the order sp_outer_calls sorts. */
static void sp_oa_chunk(const int64_t *s, const int64_t *e, const int32_t *t, int64_t n, int64_t at,
                        sp_oa_thread_t *tab, int32_t *t0, int64_t *pend, int *plain, int *apart) {
  for (int64_t i = 0; i < n && (*plain || *apart); i++) {
    if (at + i == 0) *t0 = t[i];
    *plain = *plain && t[i] == *t0 && (at + i == 0 || s[i] >= *pend);
    *pend = e[i];
    sp_oa_thread_t *x = *apart ? sp_oa_slot(tab, t[i]) : NULL;
    if (!x) {
      *apart = 0;
      continue;
    }
    if (x->used && !(s[i] > x->end || (s[i] == x->end && x->start != x->end))) *apart = 0;
    *x = (sp_oa_thread_t){1, t[i], s[i], e[i]};
  }
}

int sp_outer_all_read(sp_reader_t *r, int g, int k, int64_t n) {
  int64_t *s = malloc(SP_OA_CHUNK * sizeof *s), *e = malloc(SP_OA_CHUNK * sizeof *e);
  int32_t *t = malloc(SP_OA_CHUNK * sizeof *t);
  sp_oa_thread_t *tab = calloc(SP_OA_SLOTS, sizeof *tab);
  int rc = s && e && t && tab ? 1 : SP_EXIT_IO, plain = 1, apart = 1;
  int32_t t0 = 0;
  int64_t pend = 0;
  for (int64_t at = 0; rc == 1 && at < n && (plain || apart);) {
    int64_t got = sp_reader_read_range(r, g, k, at, SP_OA_CHUNK, s, e, t);
    if (got <= 0) { /* the caller's load says why */
      rc = 0;
      break;
    }
    sp_oa_chunk(s, e, t, got, at, tab, &t0, &pend, &plain, &apart);
    at += got;
  }
  if (rc == 1 && !plain && !apart) rc = 0;
  free(s);
  free(e);
  free(t);
  free(tab);
  return rc;
}
