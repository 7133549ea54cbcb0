/* outer_calls.c - which calls of a region are outermost on their thread
 * (no call of the same region on the same thread encloses them): the calls
 * a region's total counts, so that recursion is not counted twice (as GPTL
 * and Caliper count inclusive time). chart_stats.h. */
#include <stdlib.h>
#include <string.h>

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

/* Per thread of sp_outer_bits_read. Backwards: the least start and the
 * end of the calls seen so far (those stored after the current one).
 * Forwards: the start and end of the call before and the latest end of
 * all before (min_start holds the latest end). */
typedef struct sp_ob_thread {
  int used;
  int32_t tid;
  int64_t min_start, end, start;
} sp_ob_thread_t;

static sp_ob_thread_t *sp_ob_slot(sp_ob_thread_t *tab, int32_t tid) {
  uint32_t h = ((uint32_t)tid * 0x9E3779B1u) % SP_OA_SLOTS;
  for (int probe = 0; probe < SP_OA_SLOTS; probe++, h = (h + 1) % SP_OA_SLOTS)
    if (!tab[h].used || tab[h].tid == tid) return &tab[h];
  return NULL;
}

/* Calls [at, at + n) backwards into the bits; 0 when a thread's ends do
 * not increase strictly or there are too many threads. */
static int sp_ob_chunk(const int64_t *s, const int64_t *e, const int32_t *t, int64_t n, int64_t at,
                       sp_ob_thread_t *tab, unsigned char *bits) {
  for (int64_t i = n - 1; i >= 0; i--) {
    sp_ob_thread_t *x = sp_ob_slot(tab, t ? t[i] : 0);
    if (!x || e[i] < s[i] || (x->used && e[i] >= x->end)) return 0;
    int in = x->used && x->min_start <= s[i];
    if (!in) bits[(at + i) >> 3] |= (unsigned char)(1u << ((at + i) & 7));
    if (!x->used || s[i] < x->min_start) x->min_start = s[i];
    x->used = 1;
    x->tid = t ? t[i] : 0;
    x->end = e[i];
  }
  return 1;
}

/* Calls [at, at + n) forwards into the bits: 0 when a thread's calls are
 * not in sp_outer_calls' order (start, then the longest first), or too
 * many threads. In that order the calls before a call on its thread are
 * the ones sp_outer_calls sweeps before it: it is enclosed when the latest
 * end among them passes its start and reaches its end. */
static int sp_ob_fwd_chunk(const int64_t *s, const int64_t *e, const int32_t *t, int64_t n,
                           int64_t at, sp_ob_thread_t *tab, unsigned char *bits) {
  for (int64_t i = 0; i < n; i++) {
    sp_ob_thread_t *x = sp_ob_slot(tab, t ? t[i] : 0);
    if (!x || (x->used && (s[i] < x->start || (s[i] == x->start && e[i] > x->end)))) return 0;
    int64_t reach = x->min_start;
    int in = x->used && s[i] < reach && e[i] <= reach;
    if (!in) bits[(at + i) >> 3] |= (unsigned char)(1u << ((at + i) & 7));
    if (!x->used || e[i] > reach) x->min_start = e[i];
    x->used = 1;
    x->tid = t ? t[i] : 0;
    x->start = s[i];
    x->end = e[i];
  }
  return 1;
}

/* One direction of sp_outer_bits_read over the n calls: 1 with the bits
 * set, 0 when the pair is not in that direction's order (or a read came
 * short). */
static int sp_ob_pass(sp_reader_t *r, int g, int k, int64_t n, int tids, int fwd, int64_t *s,
                      int64_t *e, int32_t *t, sp_ob_thread_t *tab, unsigned char *bits) {
  memset(tab, 0, SP_OA_SLOTS * sizeof *tab);
  memset(bits, 0, (size_t)(n / 8 + 1));
  for (int64_t done = 0; done < n;) {
    int64_t left = n - done, c = left > SP_OA_CHUNK ? SP_OA_CHUNK : left;
    int64_t at = fwd ? done : left - c;
    if (sp_reader_read_range(r, g, k, at, c, s, e, t) != c) return 0;
    if (!(fwd ? sp_ob_fwd_chunk : sp_ob_chunk)(s, e, tids ? t : NULL, c, at, tab, bits)) return 0;
    done += c;
  }
  return 1;
}

int sp_outer_bits_read(sp_reader_t *r, int g, int k, int64_t n, int tids, unsigned char **out) {
  *out = NULL;
  int64_t *s = malloc(SP_OA_CHUNK * sizeof *s), *e = malloc(SP_OA_CHUNK * sizeof *e);
  int32_t *t = malloc(SP_OA_CHUNK * sizeof *t);
  sp_ob_thread_t *tab = calloc(SP_OA_SLOTS, sizeof *tab);
  unsigned char *bits = calloc((size_t)(n / 8 + 1), 1);
  int rc = s && e && t && tab && bits ? 1 : SP_EXIT_IO;
  /* The core's order (a thread's calls as they start), else as they end;
   * else the caller loads the pair (and says why a read failed). */
  if (rc == 1 && !sp_ob_pass(r, g, k, n, tids, 1, s, e, t, tab, bits) &&
      !sp_ob_pass(r, g, k, n, tids, 0, s, e, t, tab, bits))
    rc = 0;
  free(s);
  free(e);
  free(t);
  free(tab);
  if (rc == 1)
    *out = bits;
  else
    free(bits);
  return rc;
}
