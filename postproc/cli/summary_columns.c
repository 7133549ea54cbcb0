/* summary_columns.c - the named --summary --columns (summary_columns.h):
 * their table, and the figures of the sampled ones; and the table of
 * --values, whose figures (common/values_stats.c) also make the columns
 * value:KEY.
 *
 * peak_rss_bytes: per region, the highest rss_bytes sample taken while
 * one of its calls ran (start <= time <= end), over the selected ranks
 * and their threads; "-" when no sample fell inside a call (calls shorter
 * than the period, or a file without samples). The samples of a rank are
 * read once and kept while the summary runs (24 bytes per sample). */
#include <stdlib.h>
#include <string.h>

#include "summary_columns.h"
#include "waits.h"
#include "values_stats.h"

static const struct {
  const char *name;
  sp_col_kind_t kind;
  int width;
  int place;
} sp_sum_cols_named[SP_SUM_NCOLS] = {
#define SP__XX(id, name, kind, width, place) {name, kind, width, place},
    SP_SUM_NAMED_COLUMNS(SP__XX)
#undef SP__XX
};

int sp_sum_col_find(const char *name) {
  for (int i = 0; i < SP_SUM_NCOLS; i++)
    if (strcmp(name, sp_sum_cols_named[i].name) == 0) return i;
  return -1;
}

sp_col_t sp_sum_col(int id) {
  return (sp_col_t){sp_sum_cols_named[id].name, sp_sum_cols_named[id].kind,
                    sp_sum_cols_named[id].width};
}

int sp_sum_col_place(int id) { return sp_sum_cols_named[id].place; }

/* The samples of each selected rank, loaded on first use. */
static struct {
  const sp_reader_t *reader;
  sp_reader_samples_t *by_rank; /* by selected rank j */
  unsigned char *loaded;
  int n;
} sp_samples_cache;

void sp_sum_extra_end(void) {
  for (int j = 0; j < sp_samples_cache.n; j++) sp_reader_samples_free(&sp_samples_cache.by_rank[j]);
  free(sp_samples_cache.by_rank);
  free(sp_samples_cache.loaded);
  memset(&sp_samples_cache, 0, sizeof sp_samples_cache);
}

static const sp_reader_samples_t *sp_samples_of(const sp_selection_t *sel, int j) {
  if (sp_samples_cache.reader != sel->reader || sp_samples_cache.n != sel->nranks) {
    sp_sum_extra_end();
    sp_samples_cache.by_rank = calloc((size_t)sel->nranks, sizeof *sp_samples_cache.by_rank);
    sp_samples_cache.loaded = calloc((size_t)sel->nranks, 1);
    if (!sp_samples_cache.by_rank || !sp_samples_cache.loaded) {
      sp_sum_extra_end();
      return NULL;
    }
    sp_samples_cache.reader = sel->reader;
    sp_samples_cache.n = sel->nranks;
  }
  sp_reader_samples_t *s = &sp_samples_cache.by_rank[j];
  if (!sp_samples_cache.loaded[j]) {
    sp_samples_cache.loaded[j] = 1;
    if (sp_reader_samples_load(sel->reader, sel->ranks[j], s) != 0) {
      sp_msg(SP_NORMAL, "warning: %s: %s; its samples are left out", sel->file,
             sp_reader_errmsg(sel->reader));
      memset(s, 0, sizeof *s);
    }
  }
  return s;
}

/* First index of sorted t[0..n) with t[i] >= x. */
static int64_t sp_lower_bound(const int64_t *t, int64_t n, int64_t x) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (t[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int sp_peak_rss(const sp_selection_t *sel, int j, const sp_reader_intervals_t *iv,
                       int thread, sp_sum_extra_t *row) {
  const sp_reader_samples_t *s = sp_samples_of(sel, j);
  if (!s) return SP_EXIT_IO;
  if (!s->present || s->n == 0) return 0;
  int64_t *v = &row->v[SP_SUM_COL_PEAK_RSS];
  int *have = &row->have[SP_SUM_COL_PEAK_RSS];
  for (int64_t k = 0; k < iv->n; k++) {
    if (thread >= 0 && (iv->thread_ids ? iv->thread_ids[k] : 0) != thread) continue;
    for (int64_t i = sp_lower_bound(s->times, s->n, iv->start[k]);
         i < s->n && s->times[i] <= iv->end[k]; i++) {
      if (!*have || s->rss_bytes[i] > *v) *v = s->rss_bytes[i];
      *have = 1;
    }
  }
  return 0;
}

int sp_sum_extra_pair(const sp_selection_t *sel, unsigned wanted, int j,
                      const sp_reader_intervals_t *iv, int thread, sp_sum_extra_t *row) {
  int rc = 0;
  if (wanted & (1u << SP_SUM_COL_PEAK_RSS)) rc = sp_peak_rss(sel, j, iv, thread, row);
  return rc;
}

int sp_sum_extra_waits(const sp_selection_t *sel, const int *regions, const int *threads,
                       sp_sum_extra_t *const *rows, int nrows) {
  sp_waits_t w;
  int rc = sp_waits_build(sel->reader, &w);
  if (rc) {
    sp_msg(SP_QUIET, "%s: %s", sel->file, sp_reader_errmsg(sel->reader));
    sp_waits_free(&w);
    return sp_exit_for_reader(rc);
  }
  int ng = sp_reader_num_regions(sel->reader);
  int64_t *ns = calloc((size_t)(ng > 0 ? ng : 1), sizeof *ns);
  if (!ns) {
    sp_waits_free(&w);
    return SP_EXIT_IO;
  }
  for (int j = 0; j < sel->nranks; j++) {
    const sp_wrank_t *rk = &w.ranks[sel->ranks[j]];
    for (int64_t i = 0; i < rk->ncalls; i++)
      if (rk->calls[i].state >= 0) ns[rk->calls[i].region] += rk->calls[i].wait;
  }
  int known = w.mpi_calls > 0 && w.has_tags;
  for (int i = 0; i < nrows; i++) {
    const char *name = sp_reader_region_name(sel->reader, regions[i]);
    int mpi = name && strncmp(name, "MPI_", 4) == 0 && threads[i] <= 0;
    rows[i]->have[SP_SUM_COL_WAIT] = known && mpi;
    rows[i]->v[SP_SUM_COL_WAIT] = ns[regions[i]];
  }
  free(ns);
  sp_waits_free(&w);
  return 0;
}

/* --values: the rows of values_stats.c, the table begun at the first. */
typedef struct sp_vout {
  sp_table_t t;
  const sp_options_t *o;
  int begun;
} sp_vout_t;

static void sp_vout_row(void *ctx, const sp_cell_t *cells) {
  sp_vout_t *out = ctx;
  if (!out->begun)
    sp_table_begin(&out->t, out->o->table, sp_values_cols, SP_VALUES_NCOLS,
                   "# values per call over the selected ranks and threads: calls that set the "
                   "key; numbers: sum, mean, min, max;\n# strings: each distinct value's count "
                   "(the 20 most frequent, then the rest as \"(N more)\")");
  out->begun = 1;
  sp_table_row(&out->t, cells);
}

int sp_values_print(const sp_selection_t *sel, const sp_options_t *o) {
  sp_vout_t out = {.o = o};
  int64_t n = 0;
  int rc = sp_values_rows(sel, sp_vout_row, &out, &n);
  if (rc == 0 && n == 0) {
    sp_msg(SP_QUIET,
           "%s holds no values per call for the selected regions and ranks (values are "
           "recorded with sp_call_set_int, sp_call_set_real or sp_call_set; docs/values.md)",
           sel->file);
    return SP_EXIT_DATA;
  }
  if (out.begun) sp_table_end(&out.t);
  return rc;
}
