/* waits_sum.c - the wait states summed for the outputs (--waits, the
 * report): per call path and rank, and per cause. */
#include <stdlib.h>
#include <string.h>

#include "waits.h"

static int sp_wrow_cmp(const void *a, const void *b) {
  const sp_wrow_t *x = a, *y = b;
  if (x->total != y->total) return x->total > y->total ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->path > y->path) - (x->path < y->path);
}

static int sp_cause_key_cmp(const void *a, const void *b) {
  const sp_cause_t *x = a, *y = b;
  if (x->state != y->state) return x->state < y->state ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->region > y->region) - (x->region < y->region);
}

static int sp_cause_cmp(const void *a, const void *b) {
  const sp_cause_t *x = a, *y = b;
  if (x->state != y->state) return x->state < y->state ? -1 : 1;
  if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
  return sp_cause_key_cmp(a, b);
}

/* Rows of the selected ranks (path x rank with some wait). */
int sp_waits_rows(const sp_waits_t *w, const int *ranks, int nranks, sp_wrow_t **out, int64_t *n) {
  int64_t *acc = calloc((size_t)(w->npaths + 1) * SP_WAIT_NSTATES, sizeof *acc);
  int64_t cap = 64, m = 0;
  sp_wrow_t *rows = malloc((size_t)cap * sizeof *rows);
  if (!acc || !rows) goto oom;
  for (int j = 0; j < nranks; j++) {
    const sp_wrank_t *rk = &w->ranks[ranks[j]];
    memset(acc, 0, (size_t)w->npaths * SP_WAIT_NSTATES * sizeof *acc);
    for (int64_t i = 0; i < rk->ncalls; i++)
      if (rk->calls[i].state >= 0)
        acc[(int64_t)rk->calls[i].path * SP_WAIT_NSTATES + rk->calls[i].state] += rk->calls[i].wait;
    for (int32_t p = 0; p < w->npaths; p++) {
      int64_t t = 0;
      for (int s = 0; s < SP_WAIT_NSTATES; s++) t += acc[(int64_t)p * SP_WAIT_NSTATES + s];
      if (t == 0) continue;
      if (m == cap) {
        sp_wrow_t *q = realloc(rows, (size_t)(cap *= 2) * sizeof *rows);
        if (!q) goto oom;
        rows = q;
      }
      sp_wrow_t *r = &rows[m++];
      r->path = p;
      r->rank = ranks[j];
      r->total = t;
      memcpy(r->ns, &acc[(int64_t)p * SP_WAIT_NSTATES], sizeof r->ns);
    }
  }
  free(acc);
  if (m > 1) qsort(rows, (size_t)m, sizeof *rows, sp_wrow_cmp);
  *out = rows;
  *n = m;
  return 0;
oom:
  free(acc);
  free(rows);
  return SP_READER_ENOMEM;
}

static uint64_t sp_cause_hash(const sp_cause_t *c) {
  uint64_t h = ((uint64_t)(uint32_t)c->rank << 32 | (uint32_t)c->region) * 0x9e3779b97f4a7c15ULL;
  return (h ^ (uint64_t)c->state) ^ (h >> 31);
}

/* Adds x into the table slot[cap] (indices + 1 into *c), growing it; *at
 * its index in *c. */
static int sp_cause_add(sp_cause_t **c, int64_t *n, int64_t *ccap, int64_t **slot, int64_t *cap,
                        const sp_cause_t *x, int64_t *at) {
  if (2 * (*n + 1) > *cap) {
    int64_t nc = *cap ? *cap * 2 : 256;
    int64_t *s = calloc((size_t)nc, sizeof *s);
    sp_cause_t *v = realloc(*c, (size_t)(nc / 2) * sizeof *v);
    if (!s || !v) {
      free(s);
      if (v) *c = v;
      return SP_READER_ENOMEM;
    }
    *c = v;
    *ccap = nc / 2;
    for (int64_t i = 0; i < *n; i++) {
      uint64_t h = sp_cause_hash(&v[i]) & (uint64_t)(nc - 1);
      while (s[h]) h = (h + 1) & (uint64_t)(nc - 1);
      s[h] = i + 1;
    }
    free(*slot);
    *slot = s;
    *cap = nc;
  }
  uint64_t h = sp_cause_hash(x) & (uint64_t)(*cap - 1);
  for (; (*slot)[h]; h = (h + 1) & (uint64_t)(*cap - 1)) {
    sp_cause_t *y = &(*c)[(*slot)[h] - 1];
    if (sp_cause_key_cmp(x, y) == 0) {
      y->ns += x->ns;
      y->calls++;
      *at = (*slot)[h] - 1;
      return 0;
    }
  }
  *at = *n;
  (*c)[*n] = *x;
  (*slot)[h] = ++*n;
  return 0;
}

/* Causes of the waits of the selected ranks, summed per (state, rank, region). */
int sp_waits_causes(const sp_waits_t *w, const int *ranks, int nranks, sp_cause_t **out,
                    int64_t *n) {
  sp_cause_t *c = NULL;
  int64_t m = 0, ccap = 0, cap = 0, *slot = NULL;
  int rc = 0;
  int64_t last = -1; /* the cause added last: the next call's, mostly (a region's calls) */
  for (int j = 0; rc == 0 && j < nranks; j++) {
    const sp_wrank_t *rk = &w->ranks[ranks[j]];
    for (int64_t i = 0; rc == 0 && i < rk->ncalls; i++) {
      const sp_wcall_t *x = &rk->calls[i];
      if (x->state < 0) continue;
      sp_cause_t one = {x->state, x->cause_rank, x->cause_region, x->wait, 1};
      if (last >= 0 && sp_cause_key_cmp(&one, &c[last]) == 0) {
        c[last].ns += one.ns;
        c[last].calls++;
        continue;
      }
      rc = sp_cause_add(&c, &m, &ccap, &slot, &cap, &one, &last);
    }
  }
  free(slot);
  if (rc) {
    free(c);
    return rc;
  }
  if (c) qsort(c, (size_t)m, sizeof *c, sp_cause_cmp);
  *out = c;
  *n = m;
  (void)ccap;
  return 0;
}
