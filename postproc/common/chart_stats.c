/* chart_stats.c - duration figures per (region, rank), one pair in memory at a
 * time; a pair past the stream bound in slices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "pair_chunks.h"

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

/* The sums of a pair's outermost calls per thread, threads in order of
 * first appearance (the few threads of a rank). */
typedef struct sp_busy {
  int32_t *tids;
  double *sum;
  int nt, cap;
} sp_busy_t;

static int sp_busy_add(sp_busy_t *b, int32_t tid, double d) {
  int t = 0;
  while (t < b->nt && b->tids[t] != tid) t++;
  if (t == b->nt && b->nt == b->cap) {
    int cap = b->cap ? 2 * b->cap : 8;
    int32_t *nt2 = realloc(b->tids, (size_t)cap * sizeof *b->tids);
    if (nt2) b->tids = nt2;
    double *ns2 = nt2 ? realloc(b->sum, (size_t)cap * sizeof *b->sum) : NULL;
    if (ns2) b->sum = ns2;
    if (!nt2 || !ns2) return SP_EXIT_IO;
    b->cap = cap;
  }
  if (t == b->nt) b->tids[b->nt] = tid, b->sum[b->nt++] = 0;
  b->sum[t] += d;
  return 0;
}

/* The largest sum, their total into *all, and frees b. */
static double sp_busy_done(sp_busy_t *b, double *all) {
  double mx = 0;
  *all = 0;
  for (int t = 0; t < b->nt; t++) {
    *all += b->sum[t];
    if (b->sum[t] > mx) mx = b->sum[t];
  }
  free(b->tids);
  free(b->sum);
  return mx;
}

/* c->busiest: the largest over the pair's threads of the thread's outermost
 * calls (those of min_ns or longer); c->outer: their sum over the threads. */
static int sp_cell_busiest(const sp_reader_intervals_t *iv, double min_ns, sp_cell_stats_t *c) {
  unsigned char *outer = malloc((size_t)iv->n);
  if (!outer || sp_outer_calls(iv, outer) != 0) {
    free(outer);
    return SP_EXIT_IO;
  }
  sp_busy_t b = {NULL, NULL, 0, 0};
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < iv->n; i++) {
    double d = sp_ns_between(iv->start[i], iv->end[i]);
    if (!outer[i] || d < min_ns) continue;
    rc = sp_busy_add(&b, iv->thread_ids ? iv->thread_ids[i] : 0, d);
  }
  free(outer);
  c->busiest = sp_busy_done(&b, &c->outer);
  return rc;
}

/* One pair's calls (loaded, or a slice) into the cell's count, total, min
 * and max: the calls of min_ns or longer. */
static void sp_cell_add(const int64_t *s, const int64_t *e, int64_t n, double min_ns,
                        sp_cell_stats_t *c) {
  for (int64_t i = 0; i < n; i++) {
    double d = sp_ns_between(s[i], e[i]);
    if (d < min_ns) continue;
    c->total += d;
    if (c->n == 0 || d < c->min) c->min = d;
    if (c->n == 0 || d > c->max) c->max = d;
    c->n++;
  }
}

typedef struct sp_cell_pass {
  sp_cell_stats_t *c;
  const unsigned char *bits; /* outermost calls, a bit each; NULL: all are */
  double min_ns;
  sp_busy_t busy;
} sp_cell_pass_t;

static int sp_cell_slice(void *ctx, const int64_t *s, const int64_t *e, const int32_t *t,
                         int64_t at, int64_t n) {
  sp_cell_pass_t *p = ctx;
  sp_cell_add(s, e, n, p->min_ns, p->c);
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    double d = sp_ns_between(s[i], e[i]);
    int outer = !p->bits || ((p->bits[(at + i) >> 3] >> ((at + i) & 7)) & 1);
    if (outer && d >= p->min_ns) rc = sp_busy_add(&p->busy, t ? t[i] : 0, d);
  }
  return rc;
}

/* A pair past the stream bound whose outermost calls a chunked pass finds
 * (sp_outer_all_read, sp_outer_bits_read: a bit a call), read in slices
 * instead of loaded whole (34 bytes a call: durations, histogram and heat
 * map grew 7x from 1e6 to 1e7 calls): the same sums in the same order as
 * the load below. Returns 0, SP_EXIT_*, or 1 when the caller loads the
 * pair (small, no stamps, or in no order the chunked passes know). */
static int sp_cell_stream(const sp_selection_t *sel, int g, int k, double min_ns,
                          sp_cell_stats_t *c) {
  sp_reader_info_t info;
  if (sp_reader_info(sel->reader, g, k, &info) != 0 || !info.present || !info.has_times ||
      info.num_intervals <= sp_reader_stream_calls())
    return 1;
  unsigned char *bits = NULL;
  int all = sp_outer_all_read(sel->reader, g, k, info.num_intervals);
  if (all == 0)
    all = sp_outer_bits_read(sel->reader, g, k, info.num_intervals, info.has_thread_ids, &bits);
  if (all != 1) return all == 0 ? 1 : all;
  sp_cell_pass_t p = {c, bits, min_ns, {NULL, NULL, 0, 0}};
  int rc = sp_pair_chunks(sel->reader, sel->file, g, k, sp_cell_slice, &p);
  c->busiest = sp_busy_done(&p.busy, &c->outer);
  free(bits);
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
      sp_cell_stats_t *c = &st->cell[(size_t)g * sel->nranks + k];
      int err = sp_cell_stream(sel, sel->regions[g], sel->ranks[k], 1e9 * min_duration, c);
      if (err != 1) {
        if (err) return err;
        continue;
      }
      sp_reader_intervals_t iv;
      err = sp_load_intervals(sel->reader, sel->regions[g], sel->ranks[k], &iv);
      if (err) return err;
      sp_cell_add(iv.start, iv.end, iv.n, 1e9 * min_duration, c);
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
