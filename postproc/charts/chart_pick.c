/* chart_pick.c - the regions of the per-call charts (chart_pick.h). */
#include <stdlib.h>
#include <string.h>

#include "chart_pick.h"

typedef struct sp_pick_key {
  double self;
  int j;
} sp_pick_key_t;

static int sp_pick_cmp_self(const void *a, const void *b) {
  const sp_pick_key_t *x = a, *y = b;
  if (x->self != y->self) return x->self > y->self ? -1 : 1;
  return (x->j > y->j) - (x->j < y->j);
}

static int sp_pick_cmp_j(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int sp_charts_pick_per_call(const sp_charts_t *c, int max, int *pick, const char *chart) {
  int n = c->ncommon;
  sp_pick_key_t *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
  double *self = malloc((size_t)(n > 0 ? n : 1) * sizeof *self);
  int rc = k && self ? sp_self_times(&c->sels[0], c->common, c->ncommon, self) : SP_EXIT_IO;
  int m = 0, single = 0;
  const sp_chart_stats_t *st = &c->stats[0];
  for (int j = 0; rc == 0 && j < n; j++) {
    int many = 0;
    for (int r = 0; r < st->nranks; r++) many |= st->cell[(size_t)c->common[j] * st->nranks + r].n > 1;
    if (many)
      k[m++] = (sp_pick_key_t){self[j], j};
    else
      single++;
  }
  if (rc == 0 && m == 0) { /* only single calls: the largest of those */
    for (int j = 0; j < n; j++) k[m++] = (sp_pick_key_t){self[j], j};
    single = 0;
  }
  if (rc == 0) {
    qsort(k, (size_t)m, sizeof *k, sp_pick_cmp_self);
    int np = m < max ? m : max;
    for (int p = 0; p < np; p++) pick[p] = k[p].j;
    qsort(pick, (size_t)np, sizeof *pick, sp_pick_cmp_j);
    if (single || m > np)
      sp_msg(SP_NORMAL,
             "%s: %d region%s by self time%s%s (--top-n, --include choose)", chart, np,
             np == 1 ? "" : "s", single ? "; left out: single-call regions" : "",
             m > np ? "; left out: smaller self times" : "");
    m = np;
  }
  free(k);
  free(self);
  return rc ? -rc : m;
}
