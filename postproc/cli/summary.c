/* summary.c - --summary: per-region statistics over the selected ranks.
 *
 * Arrays are loaded one (region, rank) pair at a time, so memory follows
 * the largest pair. LIKWID counters, when the file has them, follow as a
 * second table in the same region order (summary_likwid.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pproc.h"

typedef struct sp_row {
  int region;        /* reader region index */
  int64_t calls;     /* sum of num_calls over ranks */
  int64_t n;         /* intervals measured */
  int64_t total;     /* ns */
  int64_t min, max;  /* per call, ns */
  double mean;       /* per call, ns */
  double imbalance;  /* (max - mean) / max of per-rank totals */
  double key;        /* sort key, ascending */
  const char *name;  /* set only when sorting by name */
} sp_row_t;

/* Sort key of a row: numbers descending (negated), ties in region order. */
static double sp_row_key(const sp_row_t *row, sp_sort_t sort) {
  switch (sort) {
    case SP_SORT_CALLS: return -(double)row->calls;
    case SP_SORT_TOTAL: return -(double)row->total;
    case SP_SORT_MEAN: return -row->mean;
    case SP_SORT_MIN: return -(double)row->min;
    case SP_SORT_MAX: return -(double)row->max;
    case SP_SORT_IMBALANCE: return -row->imbalance;
    case SP_SORT_START:
    case SP_SORT_NAME: break;
  }
  return 0.0;
}

static int sp_row_cmp(const void *a, const void *b) {
  const sp_row_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  int c = x->name && y->name ? strcmp(x->name, y->name) : 0;
  return c ? c : (x->region > y->region) - (x->region < y->region);
}

/* What a damaged file made the summary clamp (see sp_summary_warn). */
typedef struct sp_clamped {
  int64_t intervals; /* durations beyond INT64_MAX ns, counted as INT64_MAX */
  int64_t sums;      /* rows' totals and call counts clamped at the int64 limits */
  int64_t calls;     /* (region, rank) pairs whose num_calls is below their intervals */
} sp_clamped_t;

/* Intervals of iv that last more than INT64_MAX ns (end >= start is checked
 * at load): only stamps near both ends of int64 are that far apart, and the
 * reader's statistics count such a duration as INT64_MAX. */
static int64_t sp_overlong(const sp_reader_intervals_t *iv) {
  int64_t n = 0;
  for (int64_t i = 0; i < iv->n; i++)
    n += (uint64_t)iv->end[i] - (uint64_t)iv->start[i] > (uint64_t)INT64_MAX;
  return n;
}

/* Accumulates region sel->regions[i] over the selected ranks into *row. */
static int sp_row_compute(const sp_selection_t *sel, int i, sp_row_t *row, int64_t *rank_total,
                          sp_clamped_t *cl) {
  memset(row, 0, sizeof *row);
  row->region = sel->regions[i];
  row->min = INT64_MAX;
  int64_t calls_sat = 0, total_sat = 0; /* saturations of this row's sums */
  for (int j = 0; j < sel->nranks; j++) {
    sp_reader_intervals_t iv;
    sp_reader_stats_t st;
    int err = sp_reader_load(sel->reader, row->region, sel->ranks[j], &iv);
    if (err < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      return sp_exit_for_reader(err);
    }
    sp_reader_stats_compute(&iv, &st);
    /* Every recorded interval is a call; calls past a trace cap are only
     * counted, so num_calls >= intervals. Fewer (or negative) is damage:
     * the intervals are the evidence. */
    if (st.num_calls < st.n) {
      cl->calls++;
      st.num_calls = st.n;
    }
    int64_t overlong = sp_overlong(&iv);
    sp_reader_intervals_free(&iv);
    cl->intervals += overlong;
    /* The reader saturates a rank's total; one overlong duration alone
     * already makes it INT64_MAX, which that warning explains. */
    if (st.total == INT64_MAX && overlong == 0) total_sat++;
    row->calls = sp_add_sat(row->calls, st.num_calls, &calls_sat);
    row->n += st.n; /* the lengths of arrays in memory: cannot overflow */
    row->total = sp_add_sat(row->total, st.total, &total_sat);
    if (st.n && st.min < row->min) row->min = st.min;
    if (st.n && st.max > row->max) row->max = st.max;
    rank_total[j] = st.total;
  }
  cl->sums += (calls_sat > 0) + (total_sat > 0);
  if (row->n == 0) row->min = 0;
  row->mean = row->n ? (double)row->total / (double)row->n : 0.0;
  int64_t tmax = 0;
  double tmean = 0;
  for (int j = 0; j < sel->nranks; j++) {
    if (rank_total[j] > tmax) tmax = rank_total[j];
    tmean += (double)rank_total[j] / sel->nranks;
  }
  row->imbalance = tmax > 0 ? ((double)tmax - tmean) / (double)tmax : 0.0;
  return 0;
}

static void sp_row_print(const sp_reader_t *r, const sp_row_t *row) {
  printf("%10lld ", (long long)row->calls);
  if (row->n == 0) {
    /* Count-only or empty region: no durations were recorded. */
    printf("%14s %14s %14s %14s %9s ", "-", "-", "-", "-", "-");
  } else {
    printf("%14.9f %14.9f %14.9f %14.9f %9.4f ", 1e-9 * (double)row->total, 1e-9 * row->mean,
           1e-9 * (double)row->min, 1e-9 * (double)row->max, row->imbalance);
  }
  sp_text_put(stdout, sp_reader_region_name(r, row->region), SP_TEXT_PLAIN);
  putchar('\n');
}

/* Damaged stamps or counts are summarised, not refused: say what was
 * clamped, once per kind, so that nobody takes those rows at face value. */
static void sp_summary_warn(const sp_selection_t *sel, const sp_clamped_t *cl) {
  if (cl->intervals)
    sp_msg(SP_NORMAL, "warning: %s: %lld interval(s) last longer than INT64_MAX ns "
                      "(damaged stamps?): their durations are counted as INT64_MAX ns",
           sel->file, (long long)cl->intervals);
  if (cl->sums)
    sp_msg(SP_NORMAL, "warning: %s: %lld total(s) or call count(s) exceed int64: "
                      "clamped to the int64 limit", sel->file, (long long)cl->sums);
  if (cl->calls)
    sp_msg(SP_NORMAL, "warning: %s: %lld region(s) on a rank have num_calls below their "
                      "number of intervals (damaged file?): calls counted as the intervals",
           sel->file, (long long)cl->calls);
}

int sp_summary_print(const sp_selection_t *sel, sp_sort_t sort) {
  sp_row_t *rows = calloc((size_t)sel->nregions, sizeof *rows);
  int64_t *rank_total = calloc((size_t)sel->nranks, sizeof *rank_total);
  int rc = rows && rank_total ? 0 : SP_EXIT_IO;
  sp_clamped_t clamped = {0, 0, 0};
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    sp_progress("summarising region", i, sel->nregions);
    rc = sp_row_compute(sel, i, &rows[i], rank_total, &clamped);
  }
  sp_progress_done();
  if (rc == 0) sp_summary_warn(sel, &clamped);
  if (rc == 0) {
    for (int i = 0; i < sel->nregions; i++) {
      rows[i].key = sp_row_key(&rows[i], sort);
      rows[i].name = sort == SP_SORT_NAME ? sp_reader_region_name(sel->reader, rows[i].region) : NULL;
    }
    qsort(rows, (size_t)sel->nregions, sizeof *rows, sp_row_cmp);
    printf("%10s %14s %14s %14s %14s %9s %s\n", "calls", "total_s", "mean_s", "min_s", "max_s",
           "imbalance", "region");
    for (int i = 0; i < sel->nregions; i++) sp_row_print(sel->reader, &rows[i]);
    /* The LIKWID table follows the rows' order (the --sort-by order). */
    int *order = malloc((size_t)(sel->nregions ? sel->nregions : 1) * sizeof *order);
    if (!order) rc = SP_EXIT_IO;
    for (int i = 0; order && i < sel->nregions; i++) order[i] = rows[i].region;
    if (rc == 0) rc = sp_summary_likwid_print(sel, order, sel->nregions);
    free(order);
  }
  free(rows);
  free(rank_total);
  return rc;
}
