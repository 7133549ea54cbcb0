/* rank_pick.c - representative ranks: the min, median and max of the
 * slowest region and its outliers (rank_pick.h has the rule). One pass over
 * the figures the charts read anyway; memory per selected rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_pick.h"

typedef struct sp_rank_v {
  double v; /* the slowest region's total on the rank, ns */
  int k;    /* position in sel->ranks (ascending rank index, so ascending id) */
} sp_rank_v_t;

static int sp_rank_v_cmp(const void *a, const void *b) {
  const sp_rank_v_t *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* numpy.percentile's default (linear) of the sorted values, q in [0, 1]. */
static double sp_quantile(const sp_rank_v_t *s, int n, double q) {
  double pos = q * (n - 1);
  int lo = (int)floor(pos);
  int hi = lo + 1 < n ? lo + 1 : lo;
  return s[lo].v + (pos - lo) * (s[hi].v - s[lo].v);
}

/* The row of the region with the largest total over the selected ranks, -1 if none. */
static int sp_slowest(const sp_chart_stats_t *st) {
  int best = -1;
  double bv = 0;
  for (int g = 0; g < st->nregions; g++) {
    double sum = 0;
    for (int k = 0; k < st->nranks; k++) sum += st->cell[(size_t)g * st->nranks + k].total;
    if (sum > bv) best = g, bv = sum;
  }
  return best;
}

static int sp_int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Outliers of the sorted values s: beyond 1.5 IQR, farthest from med first. */
static int sp_outliers(const sp_rank_v_t *s, int n, double med, int *out) {
  double q1 = sp_quantile(s, n, 0.25), q3 = sp_quantile(s, n, 0.75), iqr = q3 - q1;
  double lo = q1 - 1.5 * iqr, hi = q3 + 1.5 * iqr;
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (s[i].v >= lo && s[i].v <= hi) continue;
    /* insertion by (distance descending, position ascending), kept to the cap */
    double d = fabs(s[i].v - med);
    int at = m < SP_RANKS_OUTLIERS ? m : SP_RANKS_OUTLIERS;
    while (at > 0) {
      const sp_rank_v_t *p = &s[out[at - 1]];
      double dp = fabs(p->v - med);
      if (dp > d || (dp == d && p->k < s[i].k)) break;
      at--;
    }
    if (at >= SP_RANKS_OUTLIERS) continue;
    int last = m < SP_RANKS_OUTLIERS ? m : SP_RANKS_OUTLIERS - 1;
    memmove(out + at + 1, out + at, (size_t)(last - at) * sizeof *out);
    out[at] = i;
    if (m < SP_RANKS_OUTLIERS) m++;
  }
  return m;
}

int sp_rank_pick(const sp_selection_t *sel, const sp_chart_stats_t *st, sp_rank_pick_t *out) {
  memset(out, 0, sizeof *out);
  int n = sel->nranks;
  out->region = st->nranks == n ? sp_slowest(st) : -1;
  sp_rank_v_t *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
  int *idx = malloc(SP_RANKS_OUTLIERS * sizeof *idx);
  out->outliers = malloc(SP_RANKS_OUTLIERS * sizeof *out->outliers);
  out->ranks = malloc((SP_RANKS_OUTLIERS + 3) * sizeof *out->ranks);
  if (!s || !idx || !out->outliers || !out->ranks || n <= 0) {
    free(s);
    free(idx);
    sp_rank_pick_free(out);
    return SP_EXIT_IO;
  }
  for (int k = 0; k < n; k++) {
    s[k].k = k;
    s[k].v = out->region >= 0 ? st->cell[(size_t)out->region * n + k].total : 0.0;
  }
  qsort(s, (size_t)n, sizeof *s, sp_rank_v_cmp);
  out->min = sel->ranks[s[0].k];
  out->median = sel->ranks[s[(n - 1) / 2].k];
  out->max = sel->ranks[s[n - 1].k];
  int m = out->region >= 0 ? sp_outliers(s, n, s[(n - 1) / 2].v, idx) : 0;
  for (int i = 0; i < m; i++) out->outliers[i] = sel->ranks[s[idx[i]].k];
  out->noutliers = m;
  int c = 0;
  out->ranks[c++] = out->min;
  out->ranks[c++] = out->median;
  out->ranks[c++] = out->max;
  for (int i = 0; i < m; i++) out->ranks[c++] = out->outliers[i];
  qsort(out->ranks, (size_t)c, sizeof *out->ranks, sp_int_cmp);
  out->n = 0;
  for (int i = 0; i < c; i++)
    if (out->n == 0 || out->ranks[out->n - 1] != out->ranks[i])
      out->ranks[out->n++] = out->ranks[i];
  free(s);
  free(idx);
  return 0;
}

void sp_rank_pick_free(sp_rank_pick_t *p) {
  free(p->outliers);
  free(p->ranks);
  memset(p, 0, sizeof *p);
}

void sp_rank_pick_text(const sp_selection_t *sel, const sp_rank_pick_t *p, char *out, size_t cap) {
  sp_reader_t *r = sel->reader;
  size_t at =
      (size_t)snprintf(out, cap, "min r%d, median r%d, max r%d", sp_reader_rank_id(r, p->min),
                       sp_reader_rank_id(r, p->median), sp_reader_rank_id(r, p->max));
  for (int i = 0; i < p->noutliers && at < cap; i++)
    at += (size_t)snprintf(out + at, cap - at, "%s r%d", i ? "" : ", outliers",
                           sp_reader_rank_id(r, p->outliers[i]));
  char name[64] = "";
  if (p->region >= 0)
    sp_plot_text(sp_reader_region_name(r, sel->regions[p->region]), name, sizeof name, 24);
  if (at < cap)
    snprintf(out + at, cap - at, " (%s%s%s%d of %d ranks)", p->region >= 0 ? "region '" : "", name,
             p->region >= 0 ? "', " : "", p->n, sel->nranks);
}

int sp_rank_views_needed(const sp_selection_t *sels, int nfiles, const sp_options_t *o) {
  if (o->nranks > 0) return 0; /* --ranks chose: every chosen rank is drawn */
  for (int f = 0; f < nfiles; f++)
    if (sels[f].nranks > SP_RANKS_FIT) return 1;
  return 0;
}

/* The view's figures: the chosen ranks' cells of the file's, and each
 * region's total over all ranks (the heat map's mean is over all). */
static int sp_rank_view_stats(const sp_chart_stats_t *all, const sp_selection_t *sel,
                              const sp_rank_pick_t *p, sp_chart_stats_t *st) {
  memset(st, 0, sizeof *st);
  int ng = all->nregions > 0 ? all->nregions : 1;
  st->cell = calloc((size_t)ng * (size_t)p->n, sizeof *st->cell);
  st->all_total = calloc((size_t)ng, sizeof *st->all_total);
  if (!st->cell || !st->all_total) return SP_EXIT_IO;
  st->nregions = all->nregions;
  st->nranks = p->n;
  st->aggregate = all->aggregate;
  st->all_nranks = all->nranks;
  for (int g = 0; g < all->nregions; g++) {
    int j = 0;
    for (int k = 0; k < all->nranks; k++) {
      const sp_cell_stats_t *c = &all->cell[(size_t)g * all->nranks + k];
      st->all_total[g] += c->total;
      if (j < p->n && sel->ranks[k] == p->ranks[j]) /* both ascending */
        st->cell[(size_t)g * p->n + j++] = *c;
    }
  }
  return 0;
}

/* File f's view on its representative ranks. */
static int sp_rank_view(const sp_charts_t *c, int f, sp_rank_views_t *v) {
  const sp_selection_t *sel = &c->sels[f];
  sp_rank_pick_t p;
  int rc = sp_rank_pick(sel, &c->stats[f], &p);
  char text[1024];
  if (rc == 0) {
    sp_rank_pick_text(sel, &p, text, sizeof text);
    v->captions[f] = malloc(strlen(text) + 32);
    if (!v->captions[f]) rc = SP_EXIT_IO;
  }
  if (rc == 0) {
    snprintf(v->captions[f], strlen(text) + 32, "representative ranks: %s", text);
    sp_msg(SP_NORMAL,
           "%s: %d ranks are more than fit (%d): the Gantt chart and the rank heat map draw "
           "%d representative ranks: %s; --ranks draws any",
           sel->file, sel->nranks, SP_RANKS_FIT, p.n, text);
    rc = sp_selection_view(sel, p.ranks, p.n, v->captions[f], &v->sels[f]);
  }
  if (rc == 0) rc = sp_rank_view_stats(&c->stats[f], sel, &p, &v->stats[f]);
  sp_rank_pick_free(&p);
  return rc;
}

int sp_rank_views_build(const sp_charts_t *c, sp_rank_views_t *v) {
  int n = c->nfiles;
  memset(v, 0, sizeof *v);
  v->nfiles = n;
  v->sels = calloc((size_t)(n ? n : 1), sizeof *v->sels);
  v->stats = calloc((size_t)(n ? n : 1), sizeof *v->stats);
  v->captions = calloc((size_t)(n ? n : 1), sizeof *v->captions);
  if (!v->sels || !v->stats || !v->captions) return SP_EXIT_IO;
  int rc = 0;
  for (int f = 0; rc == 0 && f < n; f++) {
    if (c->sels[f].nranks > SP_RANKS_FIT) {
      rc = sp_rank_view(c, f, v);
      continue;
    }
    v->sels[f] = c->sels[f]; /* shared, not freed here */
    v->stats[f] = c->stats[f];
  }
  return rc;
}

void sp_rank_views_free(sp_rank_views_t *v) {
  for (int f = 0; v->captions && f < v->nfiles; f++) {
    if (!v->captions[f]) continue; /* the file's own selection */
    sp_selection_free(&v->sels[f]);
    sp_chart_stats_free(&v->stats[f]);
    free(v->captions[f]);
  }
  free(v->sels);
  free(v->stats);
  free(v->captions);
  memset(v, 0, sizeof *v);
}
