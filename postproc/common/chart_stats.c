/* chart_stats.c - duration figures per (region, rank), one pair in memory at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"

/* A pair without stamps: its stored figures (aggregate files). With
 * min_duration the stored min and max must tell that every call passes or
 * none does; otherwise no figure of the pair is known, so that its region's
 * figures are unknown too, not those of the other ranks alone (returns 1,
 * said by the caller). */
static int sp_cell_aggregate(const sp_selection_t *sel, int g, int k, double min_ns,
                             sp_cell_stats_t *c) {
  sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
  if (sp_reader_aggregate(sel->reader, sel->regions[g], sel->ranks[k], &ag) != 0 || !ag.present ||
      ag.calls <= 0)
    return 0;
  const unsigned mm = SP_READER_AGG_MIN | SP_READER_AGG_MAX;
  const unsigned all = SP_READER_AGG_TOTAL | SP_READER_AGG_MIN | SP_READER_AGG_MAX;
  c->n = ag.calls;
  if (min_ns > 0 && !((ag.have & mm) == mm && (ag.min >= min_ns || ag.max < min_ns))) {
    c->unknown = all;
    return 1;
  }
  if (min_ns > 0 && ag.max < min_ns) { /* every call shorter */
    c->n = 0;
    return 0;
  }
  c->unknown = ~ag.have & all;
  c->total = (double)ag.total;
  c->busiest = c->outer = c->total; /* threads and nesting unknown */
  c->min = (double)ag.min;
  c->max = (double)ag.max;
  return 0;
}

/* c->busiest: the largest over the pair's threads of the thread's outermost
 * calls (those of min_ns or longer); c->outer: their sum over the threads. */
static int sp_cell_busiest(const sp_reader_intervals_t *iv, double min_ns, sp_cell_stats_t *c) {
  unsigned char *outer = malloc((size_t)iv->n);
  if (!outer || sp_outer_calls(iv, outer) != 0) {
    free(outer);
    return SP_EXIT_IO;
  }
  /* Threads in order of first appearance (the few threads of a rank). */
  int32_t *tids = NULL;
  double *sum = NULL;
  int nt = 0, cap = 0, rc = 0;
  for (int64_t i = 0; rc == 0 && i < iv->n; i++) {
    double d = sp_ns_between(iv->start[i], iv->end[i]);
    if (!outer[i] || d < min_ns) continue;
    int32_t tid = iv->thread_ids ? iv->thread_ids[i] : 0;
    int t = 0;
    while (t < nt && tids[t] != tid) t++;
    if (t == nt && nt == cap) {
      cap = cap ? 2 * cap : 8;
      int32_t *nt2 = realloc(tids, (size_t)cap * sizeof *tids);
      if (nt2) tids = nt2;
      double *ns2 = nt2 ? realloc(sum, (size_t)cap * sizeof *sum) : NULL;
      if (ns2) sum = ns2;
      if (!nt2 || !ns2) rc = SP_EXIT_IO;
    }
    if (rc == 0 && t == nt) tids[nt] = tid, sum[nt++] = 0;
    if (rc == 0) sum[t] += d;
  }
  free(outer);
  c->busiest = c->outer = 0;
  for (int t = 0; t < nt; t++) {
    c->outer += sum[t];
    if (sum[t] > c->busiest) c->busiest = sum[t];
  }
  free(tids);
  free(sum);
  return rc;
}

int sp_chart_stats_build(const sp_selection_t *sel, double min_duration, sp_chart_stats_t *st) {
  memset(st, 0, sizeof *st);
  st->nregions = sel->nregions;
  st->nranks = sel->nranks;
  size_t cells = (size_t)sel->nregions * (size_t)sel->nranks;
  st->cell = calloc(cells ? cells : 1, sizeof *st->cell);
  if (!st->cell) return SP_EXIT_IO;
  int64_t unfiltered = 0;
  /* Rank after rank: a columnar file stores its events so (one pass over
   * the file instead of one per region on 100,000 ranks). */
  for (int k = 0; k < sel->nranks; k++)
    for (int g = 0; g < sel->nregions; g++) {
      sp_reader_intervals_t iv;
      int err = sp_load_intervals(sel->reader, sel->regions[g], sel->ranks[k], &iv);
      if (err) return err;
      sp_cell_stats_t *c = &st->cell[(size_t)g * sel->nranks + k];
      for (int64_t i = 0; i < iv.n; i++) {
        double d = sp_ns_between(iv.start[i], iv.end[i]);
        if (d < 1e9 * min_duration) continue;
        c->total += d;
        if (c->n == 0 || d < c->min) c->min = d;
        if (c->n == 0 || d > c->max) c->max = d;
        c->n++;
      }
      if (iv.n > 0 && sp_cell_busiest(&iv, 1e9 * min_duration, c) != 0) {
        sp_reader_intervals_free(&iv);
        return SP_EXIT_IO;
      }
      if (iv.n == 0) unfiltered += sp_cell_aggregate(sel, g, k, 1e9 * min_duration, c);
      st->aggregate |= c->n > 0 && iv.n == 0;
      sp_reader_intervals_free(&iv);
    }
  if (unfiltered)
    sp_msg(SP_NORMAL,
           "%s: the figures of %lld (region, rank) pairs are unknown (their regions are "
           "left out of the duration charts): the file stores no stamps, and their stored "
           "min and max do not tell which calls last --min-duration or longer",
           sel->file, (long long)unfiltered);
  return 0;
}

unsigned sp_chart_stats_need(int metric) {
  return metric == SP_DUR_MIN   ? SP_READER_AGG_MIN
         : metric == SP_DUR_MAX ? SP_READER_AGG_MAX
                                : SP_READER_AGG_TOTAL;
}

int sp_chart_stats_stored(const sp_chart_stats_t *st, int g, int metric) {
  for (int k = 0; k < st->nranks; k++) {
    const sp_cell_stats_t *c = &st->cell[(size_t)g * st->nranks + k];
    if (c->n > 0 && (c->unknown & sp_chart_stats_need(metric))) return 0;
  }
  return 1;
}

int sp_selection_no_stamps(const sp_selection_t *sel) {
  for (int g = 0; g < sel->nregions; g++)
    for (int k = 0; k < sel->nranks; k++) {
      sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
      if (sp_reader_aggregate(sel->reader, sel->regions[g], sel->ranks[k], &ag) == 0 && ag.present)
        return 1;
    }
  return 0;
}

void sp_chart_stats_free(sp_chart_stats_t *st) {
  free(st->cell);
  free(st->all_total);
  memset(st, 0, sizeof *st);
}

double sp_chart_stats_metric(const sp_chart_stats_t *st, int g, int metric) {
  int64_t n = 0;
  double total = 0, mn = 0, mx = 0;
  for (int k = 0; k < st->nranks; k++) {
    const sp_cell_stats_t *c = &st->cell[(size_t)g * st->nranks + k];
    if (c->n == 0) continue;
    if (c->unknown & sp_chart_stats_need(metric)) return NAN; /* not stored: unknown */
    if (n == 0 || c->min < mn) mn = c->min;
    if (n == 0 || c->max > mx) mx = c->max;
    n += c->n;
    total += c->total;
  }
  if (n == 0) return NAN;
  switch (metric) {
  case SP_DUR_MIN:
    return 1e-9 * mn;
  case SP_DUR_MAX:
    return 1e-9 * mx;
  case SP_DUR_TOTAL:
    return 1e-9 * total;
  default:
    return 1e-9 * total / (double)n;
  }
}

double sp_chart_stats_rank_total(const sp_chart_stats_t *st, int g) {
  int64_t n = 0;
  double sum = 0;
  for (int k = 0; k < st->nranks; k++) {
    const sp_cell_stats_t *c = &st->cell[(size_t)g * st->nranks + k];
    if (c->n == 0) continue;
    if (c->unknown & SP_READER_AGG_TOTAL) return NAN;
    n += c->n;
    sum += c->busiest;
  }
  return n && st->nranks > 0 ? 1e-9 * sum / st->nranks : NAN;
}

/* Row of name among sel's regions, or -1. */
static int sp_row_of(const sp_selection_t *sel, const char *name) {
  for (int g = 0; g < sel->nregions; g++)
    if (strcmp(sp_reader_region_name(sel->reader, sel->regions[g]), name) == 0) return g;
  return -1;
}

int sp_common_regions(const sp_selection_t *sels, int nfiles, int **rows, int *ncommon) {
  int n0 = sels[0].nregions;
  *ncommon = 0;
  *rows = malloc((size_t)(n0 ? n0 : 1) * (size_t)nfiles * sizeof **rows);
  int *tmp = malloc((size_t)(nfiles ? nfiles : 1) * sizeof *tmp);
  if (!*rows || !tmp) {
    free(tmp);
    return SP_EXIT_IO;
  }
  int nc = 0;
  for (int g = 0; g < n0; g++) {
    const char *name = sp_reader_region_name(sels[0].reader, sels[0].regions[g]);
    int all = 1;
    tmp[0] = g;
    for (int f = 1; all && f < nfiles; f++) all = (tmp[f] = sp_row_of(&sels[f], name)) >= 0;
    if (!all) continue;
    for (int f = 0; f < nfiles; f++) (*rows)[(size_t)f * n0 + nc] = tmp[f];
    nc++;
  }
  /* Compact from stride n0 to stride nc. */
  for (int f = 1; f < nfiles; f++)
    memmove(*rows + (size_t)f * nc, *rows + (size_t)f * n0, (size_t)nc * sizeof **rows);
  *ncommon = nc;
  free(tmp);
  return 0;
}
