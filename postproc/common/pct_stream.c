/* pct_stream.c - exact percentiles in bounded memory (pct_stream.h).
 *
 * Before, --summary kept every duration of a row (8 bytes a call, over all
 * ranks) and sorted them. Now a row keeps them only up to keep_max; past
 * that a log-linear histogram (128 buckets per power of two, values below
 * 256 one bucket each) counts them. Each order statistic a percentile
 * needs (numpy's linear default: the values at floor(pos) and the next)
 * is then a target: the histogram says in which value range it lies and
 * how many values fall below it. A further pass over the row's durations
 * either collects the range's values (when at most SP_PCT_COLLECT) and
 * picks the statistic from them sorted, or counts them in SP_PCT_FINE
 * finer buckets, which narrows the range 4096 times; a range of one value
 * is that value. At most six passes for any int64 durations, one in the
 * usual case. The interpolation is the one of sp_percentiles in
 * summary.c, on the same two values: the same doubles. */
#include <stdlib.h>
#include <string.h>

#include "pct_stream.h"

#define SP_PCT_SUB 128                                /* buckets per power of two */
#define SP_PCT_NLL (2 * SP_PCT_SUB + 55 * SP_PCT_SUB) /* values up to 2^63 - 1 */
#define SP_PCT_FINE 4096
#define SP_PCT_COLLECT 65536
#define SP_PCT_MAXT 16

enum { SP_T_DONE, SP_T_HIST, SP_T_COLLECT };

typedef struct sp_pct_target {
  int64_t rank;         /* the order statistic (0-based) */
  int64_t lo, hi;       /* the value range holding it, inclusive */
  int64_t below, count; /* values below lo, values in [lo, hi] */
  int mode;             /* SP_T_* */
  int64_t value;        /* once done */
  uint64_t *fine;       /* SP_T_HIST: SP_PCT_FINE counts */
  int64_t *vals, nvals; /* SP_T_COLLECT: the range's values */
} sp_pct_target_t;

struct sp_pct {
  int64_t n, keep_max;
  int64_t *keep, nkeep, capkeep; /* the durations while n <= keep_max */
  uint64_t *ll;                  /* the histogram after that */
  sp_pct_target_t t[SP_PCT_MAXT];
  int nt;
  double pos[8];
  int lo_t[8], hi_t[8]; /* each percentile's two targets */
  int np;
  int done; /* out[] holds the percentiles */
  double out[8];
};

static int sp_i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int sp_ll_index(int64_t d) {
  if (d < 2 * SP_PCT_SUB) return (int)d;
  int e = 63 - __builtin_clzll((unsigned long long)d); /* >= 8 */
  int m = (int)(d >> (e - 7));                         /* [128, 256) */
  return 2 * SP_PCT_SUB + (e - 8) * SP_PCT_SUB + (m - SP_PCT_SUB);
}

static void sp_ll_range(int b, int64_t *lo, int64_t *hi) {
  if (b < 2 * SP_PCT_SUB) {
    *lo = *hi = b;
    return;
  }
  int e = 8 + (b - 2 * SP_PCT_SUB) / SP_PCT_SUB, m = SP_PCT_SUB + (b - 2 * SP_PCT_SUB) % SP_PCT_SUB;
  *lo = (int64_t)((uint64_t)m << (e - 7));
  *hi = (int64_t)(((uint64_t)(m + 1) << (e - 7)) - 1);
}

sp_pct_t *sp_pct_new(int64_t keep_max) {
  sp_pct_t *p = calloc(1, sizeof *p);
  if (p) p->keep_max = keep_max;
  return p;
}

static void sp_target_clear(sp_pct_target_t *t) {
  free(t->fine);
  free(t->vals);
  t->fine = NULL;
  t->vals = NULL;
  t->nvals = 0;
}

void sp_pct_free(sp_pct_t *p) {
  if (!p) return;
  for (int i = 0; i < p->nt; i++) sp_target_clear(&p->t[i]);
  free(p->keep);
  free(p->ll);
  free(p);
}

int64_t sp_pct_count(const sp_pct_t *p) { return p->n; }

int sp_pct_add(sp_pct_t *p, int64_t d) {
  if (d < 0) d = 0;                    /* durations are not negative; a safe index all the same */
  if (!p->ll && p->n >= p->keep_max) { /* past the bound: to the histogram */
    p->ll = calloc(SP_PCT_NLL, sizeof *p->ll);
    if (!p->ll) return -1;
    for (int64_t i = 0; i < p->nkeep; i++) p->ll[sp_ll_index(p->keep[i])]++;
    free(p->keep);
    p->keep = NULL;
    p->nkeep = p->capkeep = 0;
  }
  p->n++;
  if (p->ll) {
    p->ll[sp_ll_index(d)]++;
    return 0;
  }
  if (p->nkeep == p->capkeep) {
    int64_t cap = p->capkeep ? 2 * p->capkeep : 1024;
    int64_t *v = realloc(p->keep, (size_t)cap * sizeof *v);
    if (!v) return -1;
    p->keep = v;
    p->capkeep = cap;
  }
  p->keep[p->nkeep++] = d;
  return 0;
}

/* Target t narrowed to [lo, hi] holding count values, below more under it:
 * done, collect or count finer next. */
static int sp_target_set(sp_pct_target_t *t, int64_t lo, int64_t hi, int64_t below, int64_t count) {
  sp_target_clear(t);
  t->lo = lo, t->hi = hi, t->below = below, t->count = count;
  if (lo == hi) {
    t->mode = SP_T_DONE;
    t->value = lo;
    return 0;
  }
  if (count <= SP_PCT_COLLECT) {
    t->mode = SP_T_COLLECT;
    t->vals = malloc((size_t)(count ? count : 1) * sizeof *t->vals);
    return t->vals ? 0 : -1;
  }
  t->mode = SP_T_HIST;
  t->fine = calloc(SP_PCT_FINE, sizeof *t->fine);
  return t->fine ? 0 : -1;
}

static int sp_pct_target(sp_pct_t *p, int64_t rank) {
  for (int i = 0; i < p->nt; i++)
    if (p->t[i].rank == rank) return i;
  sp_pct_target_t *t = &p->t[p->nt];
  memset(t, 0, sizeof *t);
  t->rank = rank;
  uint64_t cum = 0;
  int b = 0;
  while (b < SP_PCT_NLL - 1 && cum + p->ll[b] <= (uint64_t)rank) cum += p->ll[b++];
  int64_t lo, hi;
  sp_ll_range(b, &lo, &hi);
  p->nt++;
  return sp_target_set(t, lo, hi, (int64_t)cum, (int64_t)p->ll[b]) ? -1 : p->nt - 1;
}

static int sp_pct_done(const sp_pct_t *p) {
  for (int i = 0; i < p->nt; i++)
    if (p->t[i].mode != SP_T_DONE) return 0;
  return 1;
}

/* The interpolation of sp_percentiles (summary.c) on the targets' values. */
static void sp_pct_compute(sp_pct_t *p) {
  for (int k = 0; k < p->np; k++) {
    double pos = p->pos[k];
    int64_t lo = (int64_t)pos;
    double vlo = (double)p->t[p->lo_t[k]].value, vhi = (double)p->t[p->hi_t[k]].value;
    p->out[k] = vlo + (pos - (double)lo) * (vhi - vlo);
  }
}

int sp_pct_plan(sp_pct_t *p, const double *pcts, int np) {
  p->np = np < 8 ? np : 8;
  p->done = 1;
  if (p->n == 0 || p->np == 0) return 1;
  if (!p->ll) { /* all kept: sorted, as before */
    qsort(p->keep, (size_t)p->nkeep, sizeof *p->keep, sp_i64_cmp);
    for (int k = 0; k < p->np; k++) {
      const int64_t *v = p->keep, n = p->nkeep;
      double pos = pcts[k] / 100.0 * (double)(n - 1);
      int64_t lo = (int64_t)pos, hi = lo + 1 < n ? lo + 1 : lo;
      p->out[k] = (double)v[lo] + (pos - (double)lo) * ((double)v[hi] - (double)v[lo]);
    }
    return 1;
  }
  p->done = 0;
  for (int k = 0; k < p->np; k++) {
    p->pos[k] = pcts[k] / 100.0 * (double)(p->n - 1);
    int64_t lo = (int64_t)p->pos[k], hi = lo + 1 < p->n ? lo + 1 : lo;
    p->lo_t[k] = sp_pct_target(p, lo);
    p->hi_t[k] = sp_pct_target(p, hi);
    if (p->lo_t[k] < 0 || p->hi_t[k] < 0) return -1;
  }
  free(p->ll);
  p->ll = NULL;
  if (!sp_pct_done(p)) return 0;
  sp_pct_compute(p);
  p->done = 1;
  return 1;
}

void sp_pct_visit(sp_pct_t *p, int64_t d) {
  if (p->done) return;
  if (d < 0) d = 0;
  for (int i = 0; i < p->nt; i++) {
    sp_pct_target_t *t = &p->t[i];
    if (t->mode == SP_T_DONE || d < t->lo || d > t->hi) continue;
    if (t->mode == SP_T_COLLECT) {
      if (t->nvals < t->count) t->vals[t->nvals] = d;
      t->nvals++; /* more than count: the file changed (sp_pct_step says so) */
    } else {
      uint64_t span = (uint64_t)t->hi - (uint64_t)t->lo + 1,
               w = (span + SP_PCT_FINE - 1) / SP_PCT_FINE;
      t->fine[((uint64_t)d - (uint64_t)t->lo) / w]++;
    }
  }
}

int sp_pct_step(sp_pct_t *p) {
  if (p->done) return 1;
  for (int i = 0; i < p->nt; i++) {
    sp_pct_target_t *t = &p->t[i];
    if (t->mode == SP_T_COLLECT) {
      if (t->nvals != t->count) return -2;
      qsort(t->vals, (size_t)t->nvals, sizeof *t->vals, sp_i64_cmp);
      t->value = t->vals[t->rank - t->below];
      t->mode = SP_T_DONE;
      sp_target_clear(t);
    } else if (t->mode == SP_T_HIST) {
      uint64_t span = (uint64_t)t->hi - (uint64_t)t->lo + 1,
               w = (span + SP_PCT_FINE - 1) / SP_PCT_FINE;
      uint64_t cum = 0, total = 0;
      for (int b = 0; b < SP_PCT_FINE; b++) total += t->fine[b];
      if (total != (uint64_t)t->count) return -2;
      int b = 0;
      while (b < SP_PCT_FINE - 1 && cum + t->fine[b] <= (uint64_t)(t->rank - t->below))
        cum += t->fine[b++];
      int64_t lo = (int64_t)((uint64_t)t->lo + (uint64_t)b * w);
      int64_t hi = (uint64_t)(t->hi - lo) < w ? t->hi : (int64_t)((uint64_t)lo + w - 1);
      if (sp_target_set(t, lo, hi, t->below + (int64_t)cum, (int64_t)t->fine[b])) return -1;
    }
  }
  if (!sp_pct_done(p)) return 0;
  sp_pct_compute(p);
  p->done = 1;
  return 1;
}

void sp_pct_result(const sp_pct_t *p, double *out) {
  for (int k = 0; k < p->np; k++) out[k] = p->out[k];
}
