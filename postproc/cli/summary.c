/* summary.c - --summary: per-region statistics over the selected ranks.
 *
 * Arrays are loaded one (region, rank) pair at a time, so memory follows
 * the largest pair; self time comes from the call tree (reader_tree.c),
 * which holds one rank at a time. With --by-thread a row per (region,
 * thread). The reference tool's aggregate files hold no stamps but store
 * per (region, rank) figures (sp_reader_aggregate): the rows show those
 * that every rank of the row stores, "-" for the rest. LIKWID counters, when the file has them,
 * follow as a second table in the same region order (summary_likwid.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "metric.h"
#include "pproc.h"
#include "summary_columns.h"
#include "values_stats.h"
#include "pct_stream.h"

typedef struct sp_row {
  int region;          /* reader region index */
  int thread;          /* thread id with --by-thread, else -1 */
  int64_t calls;       /* sum of num_calls over ranks (intervals with --by-thread) */
  int64_t n;           /* intervals measured */
  int64_t total;       /* ns, summed over ranks and threads, outermost calls only */
  double all;          /* ns, every call's duration (nested calls too): the mean */
  int64_t self;        /* ns, exclusive time from the call tree */
  int64_t min, max;    /* per call, ns */
  double mean;         /* per call, ns */
  double rank_mean;    /* ns: mean over selected ranks of per-rank totals */
  int64_t rank_max;    /* ns: largest per-rank total */
  int max_rank;        /* rank id holding rank_max */
  double imbalance;    /* (rank_max - rank_mean) / rank_max */
  double key;          /* sort key, ascending */
  const char *name;    /* set only when sorting by name */
  int64_t *rank_total; /* per selected rank, ns */
  sp_pct_t *pctx;      /* --columns pN: the durations, or their histogram (pct_stream.h) */
  double pct[8];       /* --columns percentiles, ns */
  uint64_t *hist;   /* --columns on profile-mode files: the summed histogram (reader_agg_hist.c) */
  int xhave;        /* pairs that had what they need (MPI bytes and peers) */
  int agg_pairs;    /* pairs with aggregate figures instead of stamps */
  unsigned agg;     /* SP_READER_AGG_* figures every one of those pairs stores */
  int64_t agg_self; /* ns, sum of their exclusive times */
  /* Clamping of a damaged file, reported once per row and kind as before:
   * a rank total saturated by durations that are not themselves overlong,
   * the row total (sum of rank totals) or the call count saturated. */
  int cur_rank; /* rank of cur_sat / cur_overlong, -1 before the first */
  int64_t cur_sat, cur_overlong, total_sat, calls_sat, self_sat;
  sp_sum_extra_t extra; /* --columns bytes, msgs, peak_rss_bytes (summary_columns.h) */
  double vmean[8];      /* --columns value:KEY: the mean of each key, vhave[q] 0 for "-" */
  int vhave[8];
} sp_row_t;

/* Sort key of a row: numbers descending (negated), ties in region order. */
static double sp_row_key(const sp_row_t *row, sp_sort_t sort) {
  switch (sort) {
  case SP_SORT_CALLS:
    return -(double)row->calls;
  case SP_SORT_TOTAL:
    return -(double)row->total;
  case SP_SORT_MEAN:
    return -row->mean;
  case SP_SORT_MIN:
    return -(double)row->min;
  case SP_SORT_MAX:
    return -(double)row->max;
  case SP_SORT_IMBALANCE:
    return -row->imbalance;
  case SP_SORT_SELF:
    return -(double)row->self;
  case SP_SORT_START:
  case SP_SORT_NAME:
    break;
  }
  return 0.0;
}

static int sp_row_cmp(const void *a, const void *b) {
  const sp_row_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  int c = x->name && y->name ? strcmp(x->name, y->name) : 0;
  if (c) return c;
  if (x->region != y->region) return (x->region > y->region) - (x->region < y->region);
  return (x->thread > y->thread) - (x->thread < y->thread);
}

/* What a damaged file made the summary clamp (see sp_summary_warn). */
typedef struct sp_clamped {
  int64_t intervals; /* durations beyond INT64_MAX ns, counted as INT64_MAX */
  int64_t sums;      /* rows' totals and call counts clamped at the int64 limits */
  int64_t calls;     /* (region, rank) pairs whose num_calls is below their intervals */
  int64_t untimed;   /* pairs with stamps whose num_calls is above their intervals */
  int64_t untimed_calls, untimed_n; /* the one with the most calls per interval */
} sp_clamped_t;

/* The rows being built: one per region, or per (region, thread). */
typedef struct sp_rows {
  sp_row_t *v;
  int n, cap;
  int nranks;
  int64_t sat;    /* saturations of sums */
  int64_t stream; /* pairs with more intervals are read in chunks when they can */
  int keep;       /* keep durations for percentiles */
  int mpi;        /* read MPI calls' bytes and peers (--columns bytes, msgs) */
  unsigned extra; /* --columns: bits 1 << SP_SUM_COL_* of the named columns */
} sp_rows_t;

static sp_row_t *sp_row_get(sp_rows_t *rs, int region, int thread) {
  for (int i = rs->n - 1; i >= 0 && rs->v[i].region == region; i--)
    if (rs->v[i].thread == thread) return &rs->v[i];
  if (rs->n == rs->cap) {
    int cap = rs->cap ? rs->cap * 2 : 32;
    sp_row_t *v = realloc(rs->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    rs->v = v;
    rs->cap = cap;
  }
  sp_row_t *row = &rs->v[rs->n];
  memset(row, 0, sizeof *row);
  row->rank_total = calloc((size_t)(rs->nranks ? rs->nranks : 1), sizeof *row->rank_total);
  if (!row->rank_total) return NULL;
  row->region = region;
  row->thread = thread;
  row->min = INT64_MAX;
  row->cur_rank = -1;
  rs->n++;
  return row;
}

/* Adds one duration (ns) of rank j to the row; keeps it when percentiles
 * are asked for (returns -1 when out of memory). */
static int sp_row_add(sp_rows_t *rs, sp_row_t *row, int j, int64_t d, int outer) {
  if (rs->keep) {
    if (!row->pctx && !(row->pctx = sp_pct_new(rs->stream))) return -1;
    if (sp_pct_add(row->pctx, d) < 0) return -1;
  }
  if (row->cur_rank != j) {
    if (row->cur_sat && !row->cur_overlong) row->total_sat++;
    row->cur_rank = j;
    row->cur_sat = row->cur_overlong = 0;
  }
  row->n++;
  row->all += (double)d;
  /* A call inside another call of the region on its thread (recursion)
   * is in that call's time already. */
  row->cur_overlong += outer && d == INT64_MAX;
  if (outer) row->rank_total[j] = sp_add_sat(row->rank_total[j], d, &row->cur_sat);
  if (d < row->min) row->min = d;
  if (d > row->max) row->max = d;
  return 0;
}

/* The aggregate figures of the row's pair on rank j (no stamps). */
static void sp_row_aggregate(sp_row_t *row, int j, const sp_reader_aggregate_t *ag) {
  row->agg = row->agg_pairs++ ? row->agg & ag->have : ag->have;
  int64_t sat = 0;
  if (ag->have & SP_READER_AGG_TOTAL)
    row->rank_total[j] = sp_add_sat(row->rank_total[j], ag->total, &row->total_sat);
  if (ag->have & SP_READER_AGG_EXCLUSIVE)
    row->agg_self = sp_add_sat(row->agg_self, ag->exclusive, &sat);
  row->self_sat += sat;
  if (ag->calls == 0) return; /* no call: min and max say nothing */
  if ((ag->have & SP_READER_AGG_MIN) && ag->min < row->min) row->min = ag->min;
  if ((ag->have & SP_READER_AGG_MAX) && ag->max > row->max) row->max = ag->max;
}

/* Call k of an MPI call region into the row's bytes and msgs (msgs: calls
 * with a partner or a payload; bytes not known, -1, add nothing). */
static void sp_row_mpi(sp_row_t *row, const sp_reader_mpi_t *m, int64_t k) {
  if (!m->present || k >= m->n) return;
  if (m->bytes[k] > 0) row->extra.v[SP_SUM_COL_BYTES] += m->bytes[k];
  row->extra.v[SP_SUM_COL_MSGS] += m->peer[k] >= 0 || m->bytes[k] > 0;
}

/* Calls [0, n) of a pair of region g on rank j (thread ids t, NULL for
 * thread 0; outer NULL: every call outermost; m the MPI record, its calls
 * counted from k0) into *rowp, which follows the calls' threads with
 * --by-thread. Returns 0, or -1 without memory. */
static int sp_rows_calls(sp_rows_t *rs, sp_row_t **rowp, int g, int j, int by_thread,
                         sp_clamped_t *cl, const int64_t *st, const int64_t *en, const int32_t *t,
                         const unsigned char *outer, const sp_reader_mpi_t *m, int64_t k0,
                         int64_t n) {
  sp_row_t *row = *rowp;
  for (int64_t k = 0; k < n; k++) {
    uint64_t ud = (uint64_t)en[k] - (uint64_t)st[k];
    cl->intervals += ud > (uint64_t)INT64_MAX;
    int64_t d = ud > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ud;
    if (by_thread) {
      int tid = t ? t[k] : 0;
      if (row->thread != tid && !(row = sp_row_get(rs, g, tid))) return -1;
      *rowp = row;
      row->calls++;
      row->xhave += m->present && row->xhave == 0;
    }
    sp_row_mpi(row, m, k0 + k);
    if (sp_row_add(rs, row, j, d, outer ? outer[k] : 1) < 0) return -1;
  }
  return 0;
}

/* Calls per chunk of sp_rows_stream. */
enum { SP_SUM_CHUNK = 65536 };

/* A large pair whose calls are all outermost (sp_outer_all_read), or
 * whose outermost calls a backward pass finds (recursion,
 * sp_outer_bits_read: a bit a call), when no named column needs its calls
 * whole: the same figures as sp_rows_rank in the same order, in chunks
 * (memory flat in the pair's calls but for the bits). Returns 0, SP_EXIT_*
 * or 1 when the caller must load the pair whole. */
static int sp_rows_stream(const sp_selection_t *sel, sp_rows_t *rs, int i, int j, int by_thread,
                          sp_clamped_t *cl, sp_row_t *fixed) {
  int g = sel->regions[i], k = sel->ranks[j];
  sp_reader_info_t info;
  if (rs->extra || sp_reader_info(sel->reader, g, k, &info) != 0 || !info.present ||
      !info.has_times || info.num_intervals <= rs->stream)
    return 1;
  int all = sp_outer_all_read(sel->reader, g, k, info.num_intervals);
  unsigned char *bits = NULL, *oc = NULL;
  if (all == 0)
    all = sp_outer_bits_read(sel->reader, g, k, info.num_intervals, info.has_thread_ids, &bits);
  if (all != 1) return all == 0 ? 1 : all;
  int64_t *s = malloc(SP_SUM_CHUNK * sizeof *s), *e = malloc(SP_SUM_CHUNK * sizeof *e);
  int32_t *t = malloc(SP_SUM_CHUNK * sizeof *t);
  if (bits) oc = malloc(SP_SUM_CHUNK); /* the chunk's outermost flags */
  /* --columns bytes, msgs: the MPI record chunk by chunk beside the calls */
  int64_t *mb = rs->mpi ? malloc(SP_SUM_CHUNK * sizeof *mb) : NULL;
  int32_t *mp = rs->mpi ? malloc(SP_SUM_CHUNK * sizeof *mp) : NULL;
  sp_reader_mpi_t mpi = {0, 0, mb, mp, NULL, NULL};
  sp_row_t *row = NULL;
  int rc = s && e && t && (!rs->mpi || (mb && mp)) && (!bits || oc) ? 0 : SP_EXIT_IO;
  for (int64_t at = 0; rc == 0 && at < info.num_intervals;) {
    int64_t got = sp_reader_read_range(sel->reader, g, k, at, SP_SUM_CHUNK, s, e, t);
    int64_t mgot =
        got > 0 && rs->mpi ? sp_reader_mpi_read_range(sel->reader, g, k, at, got, mb, mp) : 0;
    if ((got <= 0 || mgot < 0) && at == 0) { /* the whole load says why */
      rc = 1;
      break;
    }
    if (got > 0 && (mgot < 0 || (at > 0 && mpi.present != (mgot == got)))) got = 0;
    if (got < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      rc = sp_exit_for_reader((int)got);
      break;
    }
    if (got == 0) {
      sp_msg(SP_QUIET, "%s: region '%s': the file changed while it was read", sel->file,
             sp_reader_region_name(sel->reader, g));
      rc = SP_EXIT_DATA;
      break;
    }
    mpi.present = mgot == got;
    mpi.n = got;
    if (at == 0) {
      row = fixed ? fixed : sp_row_get(rs, g, by_thread ? t[0] : -1);
      if (!row) {
        rc = SP_EXIT_IO;
        break;
      }
      if (mpi.present) row->xhave++;
      /* As sp_rows_rank: num_calls below the intervals is damage. */
      int64_t calls = info.num_calls;
      if (calls < info.num_intervals) {
        cl->calls++;
        calls = info.num_intervals;
      } else if (calls > info.num_intervals &&
                 (cl->untimed++ == 0 || (double)calls / (double)info.num_intervals >
                                            (double)cl->untimed_calls / (double)cl->untimed_n)) {
        cl->untimed_calls = calls;
        cl->untimed_n = info.num_intervals;
      }
      if (!by_thread) row->calls = sp_add_sat(row->calls, calls, &row->calls_sat);
    }
    for (int64_t q = 0; oc && q < got; q++) oc[q] = (bits[(at + q) >> 3] >> ((at + q) & 7)) & 1;
    if (sp_rows_calls(rs, &row, g, j, by_thread, cl, s, e, info.has_thread_ids ? t : NULL, oc, &mpi,
                      0, got) < 0)
      rc = SP_EXIT_IO;
    at += got;
  }
  free(bits);
  free(oc);
  free(s);
  free(e);
  free(t);
  free(mb);
  free(mp);
  return rc;
}

/* Region sel->regions[i] on the j-th selected rank; into the row fixed when
 * not NULL (sp_rows_blocked), else the region's row found or made. */
static int sp_rows_rank(const sp_selection_t *sel, sp_rows_t *rs, int i, int j, int by_thread,
                        sp_clamped_t *cl, sp_row_t *fixed) {
  int g = sel->regions[i];
  int streamed = sp_rows_stream(sel, rs, i, j, by_thread, cl, fixed);
  if (streamed != 1) return streamed;
  sp_reader_intervals_t iv;
  int err = sp_load_intervals(sel->reader, g, sel->ranks[j], &iv);
  if (err) return err;
  if (iv.n == 0 && iv.num_calls == 0) return 0; /* not on this rank */
  sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
  sp_reader_aggregate(sel->reader, g, sel->ranks[j], &ag);
  sp_row_t *row =
      fixed ? fixed
            : sp_row_get(rs, g, by_thread ? (iv.n && iv.thread_ids ? iv.thread_ids[0] : 0) : -1);
  unsigned char *outer = malloc(iv.n > 0 ? (size_t)iv.n : 1);
  sp_reader_mpi_t mpi = {0, 0, NULL, NULL, NULL, NULL};
  if (rs->mpi && sp_reader_mpi_load(sel->reader, g, sel->ranks[j], &mpi) < 0)
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader)); /* the columns show "-" */
  if (row && mpi.present) row->xhave++;
  if (!row || !outer || sp_outer_calls(&iv, outer) != 0) {
    sp_reader_mpi_free(&mpi);
    free(outer);
    sp_reader_intervals_free(&iv);
    return SP_EXIT_IO;
  }
  /* Every recorded interval is a call; calls past a trace cap are only
   * counted, so num_calls >= intervals. Fewer (or negative) is damage:
   * the intervals are the evidence. */
  int64_t calls = iv.num_calls;
  if (calls < iv.n) {
    cl->calls++;
    calls = iv.n;
  } else if (calls > iv.n && iv.n > 0) { /* said once: the durations are of the stamped ones */
    if (cl->untimed++ == 0 ||
        (double)calls / (double)iv.n > (double)cl->untimed_calls / (double)cl->untimed_n) {
      cl->untimed_calls = calls;
      cl->untimed_n = iv.n;
    }
  }
  if (!by_thread || iv.n == 0) row->calls = sp_add_sat(row->calls, calls, &row->calls_sat);
  if (iv.n == 0 && ag.present) sp_row_aggregate(row, j, &ag);
  if (iv.n == 0 && ag.present && rs->keep && !row->hist)
    row->hist = calloc(SP_READER_AGG_NBUCKETS, sizeof *row->hist);
  if (iv.n == 0 && ag.present && row->hist)
    sp_reader_aggregate_hist(sel->reader, g, sel->ranks[j], row->hist);
  if (sp_rows_calls(rs, &row, g, j, by_thread, cl, iv.start, iv.end, iv.thread_ids, outer, &mpi, 0,
                    iv.n) < 0)
    row = NULL;
  sp_reader_mpi_free(&mpi);
  /* The named columns, per row of this pair (one, or one per thread). */
  for (int r = rs->n - 1; row && rs->extra && r >= 0 && rs->v[r].region == g; r--)
    if (sp_sum_extra_pair(sel, rs->extra, j, &iv, rs->v[r].thread, &rs->v[r].extra) != 0)
      row = NULL;
  free(outer);
  sp_reader_intervals_free(&iv);
  return row ? 0 : SP_EXIT_IO;
}

/* The tree's nodes by region, in node order: by[first[g] .. first[g + 1])
 * are region g's, so that a row's self time is a sum over its own nodes,
 * not a walk of every node per row (quadratic: 30,000 regions took 10 s).
 * by NULL without memory: then every row walks every node, as before. */
typedef struct sp_nodes_of {
  int *first, *by;
} sp_nodes_of_t;

static sp_nodes_of_t sp_nodes_of(const sp_selection_t *sel, const sp_reader_tree_t *t) {
  sp_nodes_of_t x = {NULL, NULL};
  int ng = sp_reader_num_regions(sel->reader), nn = sp_reader_tree_num_nodes(t);
  x.first = calloc((size_t)ng + 2, sizeof *x.first);
  x.by = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *x.by);
  for (int i = 0; x.first && x.by && i < nn; i++) {
    int g = sp_reader_tree_node(t, i)->region;
    if (g >= 0 && g < ng) x.first[g + 2]++;
  }
  for (int g = 0; x.first && x.by && g < ng; g++) x.first[g + 2] += x.first[g + 1];
  for (int i = 0; x.first && x.by && i < nn; i++) { /* first[g + 1]: region g's next slot */
    int g = sp_reader_tree_node(t, i)->region;
    if (g >= 0 && g < ng) x.by[x.first[g + 1]++] = i;
  }
  if (!x.first || !x.by) {
    free(x.first), free(x.by);
    x.first = x.by = NULL;
  }
  return x;
}

/* Per-rank figures and self time of the finished rows. */
static void sp_rows_finish(const sp_selection_t *sel, sp_rows_t *rs, const sp_reader_tree_t *t) {
  sp_nodes_of_t of = sp_nodes_of(sel, t);
  int ng = sp_reader_num_regions(sel->reader);
  for (int r = 0; r < rs->n; r++) {
    sp_row_t *row = &rs->v[r];
    /* The total is the sum of the rank totals, each saturated on its own. */
    if (row->cur_sat && !row->cur_overlong) row->total_sat++;
    row->total = 0;
    for (int j = 0; j < sel->nranks; j++)
      row->total = sp_add_sat(row->total, row->rank_total[j], &row->total_sat);
    rs->sat += (row->calls_sat > 0) + (row->total_sat > 0);
    if (row->min == INT64_MAX) row->min = 0;
    row->mean = row->n ? row->all / (double)row->n : 0.0;
    if (row->n == 0 && row->agg_pairs && row->calls > 0)
      row->mean = (double)row->total / (double)row->calls;
    /* An aggregate file's exclusive time is stored: the call tree built from
     * its call paths holds the same figure again, so it is taken once. */
    int stored_self = row->n == 0 && row->agg_pairs && (row->agg & SP_READER_AGG_EXCLUSIVE);
    if (stored_self) row->self = row->agg_self;
    row->rank_max = 0;
    row->max_rank = sp_reader_rank_id(sel->reader, sel->ranks[0]);
    for (int j = 0; j < sel->nranks; j++) {
      if (row->rank_total[j] > row->rank_max) {
        row->rank_max = row->rank_total[j];
        row->max_rank = sp_reader_rank_id(sel->reader, sel->ranks[j]);
      }
      row->rank_mean += (double)row->rank_total[j] / sel->nranks;
    }
    row->imbalance =
        row->rank_max > 0 ? ((double)row->rank_max - row->rank_mean) / (double)row->rank_max : 0.0;
    int g = row->region, k0 = 0, k1 = sp_reader_tree_num_nodes(t);
    if (of.by) k0 = g >= 0 && g < ng ? of.first[g] : 0, k1 = g >= 0 && g < ng ? of.first[g + 1] : 0;
    for (int k = k0; !stored_self && k < k1; k++) {
      const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, of.by ? of.by[k] : k);
      if (nd->region == row->region && (row->thread < 0 || nd->thread == row->thread))
        row->self = sp_add_sat(row->self, nd->exclusive, &row->self_sat);
    }
  }
  free(of.first);
  free(of.by);
}

static const sp_col_t sp_sum_cols[] = {
    {"calls", SP_COL_INT, 10},       {"total_s", SP_COL_SEC, 14},    {"self_s", SP_COL_SEC, 14},
    {"mean_s", SP_COL_SEC, 14},      {"min_s", SP_COL_SEC, 14},      {"max_s", SP_COL_SEC, 14},
    {"rank_mean_s", SP_COL_SEC, 14}, {"rank_max_s", SP_COL_SEC, 14}, {"max_rank", SP_COL_INT, 8},
    {"imbalance", SP_COL_RATIO, 9},  {"%", SP_COL_PCT, 7},           {"thread", SP_COL_INT, 6},
    {"region", SP_COL_STR, 0}};
enum { SP_SUM_MAXCOLS = 13 + 8 + SP_SUM_NCOLS + 8 };

/* The columns: the fixed ones, the --columns percentiles after max_s, the
 * thread with --by-thread, the named --columns before the region. */
static int sp_sum_columns(const sp_options_t *o, sp_col_t *cols) {
  int nc = 0;
  for (int k = 0; k < 13; k++) {
    if (k == 11 && !o->by_thread) continue;
    /* named columns just before the region or after the percentiles */
    for (int q = 0; k == 12 && q < o->nxcols; q++)
      if (sp_sum_col_place(o->xcols[q]) == SP_SUM_BEFORE_REGION)
        cols[nc++] = sp_sum_col(o->xcols[q]);
    for (int q = 0; k == 12 && q < o->nvcols; q++)
      cols[nc++] = (sp_col_t){o->vcols[q], SP_COL_NUM, 14};
    cols[nc++] = sp_sum_cols[k];
    for (int q = 0; k == 5 && q < o->npcts; q++)
      cols[nc++] = (sp_col_t){o->pct_names[q], SP_COL_SEC, 14};
    for (int q = 0; k == 5 && q < o->nxcols; q++)
      if (sp_sum_col_place(o->xcols[q]) == SP_SUM_AFTER_PCTS) cols[nc++] = sp_sum_col(o->xcols[q]);
  }
  return nc;
}

/* The row's cell of named column id: "-" where no pair of the row has its
 * values (bytes, msgs: no MPI calls' record; peak_rss_bytes: no sample
 * inside a call; source: unknown). source[cap] holds the text. */
static sp_cell_t sp_named_cell(sp_reader_t *r, const sp_row_t *row, int id, char *source,
                               size_t cap) {
  if (id == SP_SUM_COL_SOURCE)
    return sp_region_source_text(r, row->region, source, cap) ? (sp_cell_t){0, 0, 0, source}
                                                              : (sp_cell_t){1, 0, 0, NULL};
  int mpi = id == SP_SUM_COL_BYTES || id == SP_SUM_COL_MSGS;
  int have = mpi ? row->xhave > 0 : row->extra.have[id];
  return (sp_cell_t){!have, row->extra.v[id], (double)row->extra.v[id] / 1e9, NULL};
}

static void sp_row_print(sp_table_t *tb, sp_reader_t *r, const sp_row_t *row, double roots,
                         const sp_options_t *o) {
  sp_cell_t c[SP_SUM_MAXCOLS];
  char source[4200];
  memset(c, 0, sizeof c);
  int k = 0;
  /* Count-only or empty region: no durations were recorded ("-"); an
   * aggregate file's figures where every rank of the row stores them. */
  int none = row->n == 0;
  unsigned ag = none && row->agg_pairs ? row->agg : 0;
  int tot = none && !(ag & SP_READER_AGG_TOTAL);
  int mean = tot || (none && row->calls == 0);
  int mn = none && (!(ag & SP_READER_AGG_MIN) || row->calls == 0);
  int mx = none && (!(ag & SP_READER_AGG_MAX) || row->calls == 0);
  c[k++].i = row->calls;
  c[k++] = (sp_cell_t){tot, 0, 1e-9 * (double)row->total, NULL};
  c[k++] = (sp_cell_t){none && !(ag & SP_READER_AGG_EXCLUSIVE), 0, 1e-9 * (double)row->self, NULL};
  c[k++] = (sp_cell_t){mean, 0, 1e-9 * row->mean, NULL};
  c[k++] = (sp_cell_t){mn, 0, 1e-9 * (double)row->min, NULL};
  c[k++] = (sp_cell_t){mx, 0, 1e-9 * (double)row->max, NULL};
  for (int q = 0; q < o->npcts; q++)
    c[k++] = (sp_cell_t){none && !(row->hist && row->pct[q] >= 0), 0, 1e-9 * row->pct[q], NULL};
  for (int q = 0; q < o->nxcols; q++)
    if (sp_sum_col_place(o->xcols[q]) == SP_SUM_AFTER_PCTS)
      c[k++] = sp_named_cell(r, row, o->xcols[q], source, sizeof source);
  c[k++] = (sp_cell_t){tot, 0, 1e-9 * row->rank_mean, NULL};
  c[k++] = (sp_cell_t){tot, 0, 1e-9 * (double)row->rank_max, NULL};
  c[k++] = (sp_cell_t){tot, row->max_rank, 0, NULL};
  c[k++] = (sp_cell_t){tot, 0, row->imbalance, NULL};
  /* %: of the ranks' wall time on thread 0, the roots' time of the call
   * tree (stamps, or an aggregate file's call paths): "-" without a total
   * or without roots to share */
  c[k++] = (sp_cell_t){tot || (none && roots <= 0), 0,
                       roots > 0 ? 100.0 * (double)row->total / roots : 0.0, NULL};
  if (o->by_thread) c[k++].i = row->thread;
  for (int q = 0; q < o->nxcols; q++)
    if (sp_sum_col_place(o->xcols[q]) == SP_SUM_BEFORE_REGION)
      c[k++] = sp_named_cell(r, row, o->xcols[q], source, sizeof source);
  for (int q = 0; q < o->nvcols; q++) c[k++] = (sp_cell_t){!row->vhave[q], 0, row->vmean[q], NULL};
  c[k].s = sp_reader_region_name(r, row->region);
  sp_table_row(tb, c);
}

/* Damaged stamps or counts are summarised, not refused: say what was
 * clamped, once per kind, so that nobody takes those rows at face value. */
static void sp_summary_warn(const sp_selection_t *sel, const sp_clamped_t *cl) {
  if (cl->intervals)
    sp_msg(SP_NORMAL,
           "warning: %s: %lld interval(s) last longer than INT64_MAX ns "
           "(damaged stamps?): their durations are counted as INT64_MAX ns",
           sel->file, (long long)cl->intervals);
  if (cl->sums)
    sp_msg(SP_NORMAL,
           "warning: %s: %lld total(s) or call count(s) exceed int64: "
           "clamped to the int64 limit",
           sel->file, (long long)cl->sums);
  if (cl->calls)
    sp_msg(SP_NORMAL,
           "warning: %s: %lld region(s) on a rank have num_calls below their "
           "number of intervals (damaged file?): calls counted as the intervals",
           sel->file, (long long)cl->calls);
  if (cl->untimed)
    sp_msg(SP_NORMAL,
           "note: %s: %lld region(s) on a rank count more calls than they have intervals "
           "(up to %lld calls with %lld intervals; calls past a trace cap or added with "
           "sp_region_add_calls have no stamps): total, self, mean, min, max and percentiles "
           "are of the stamped calls only",
           sel->file, (long long)cl->untimed, (long long)cl->untimed_calls,
           (long long)cl->untimed_n);
}

static void sp_summary_table(const sp_selection_t *sel, const sp_options_t *o, sp_rows_t *rs,
                             double roots) {
  sp_col_t cols[SP_SUM_MAXCOLS];
  int nc = sp_sum_columns(o, cols);
  char note[768];
  snprintf(
      note, sizeof note,
      "# %d rank%s; calls, total_s, self_s: summed over ranks and threads; total_s counts "
      "a\n# recursive region's outermost calls only (a call inside another call of the "
      "region on its\n# thread is in that call's time); mean/min/max_s: per call, every "
      "call;\n# rank_mean_s, rank_max_s, max_rank: per-rank totals (0 where a rank lacks "
      "the region);\n# imbalance = (rank_max - rank_mean) / rank_max; %%: total_s / the ranks' "
      "wall time on thread 0\n# (the outermost region is 100%%; threaded regions, summed "
      "over threads, can pass it)",
      sel->nranks, sel->nranks == 1 ? "" : "s");
  sp_table_t tb;
  if (o->table == SP_TABLE_TEXT) sp_run_meta_note(sel->reader, stdout);
  sp_table_begin(&tb, o->table, cols, nc, note);
  for (int i = 0; i < rs->n; i++) sp_row_print(&tb, sel->reader, &rs->v[i], roots, o);
  sp_table_end(&tb);
}

/* The rows of one row per region without percentiles or named columns,
 * rank block by rank block (sp_rank_block_end): region by region over
 * every rank read the whole file once per region (issue 47: 100,000 ranks
 * x 50 regions). Each row still sees its ranks in order: the same figures. */
static int sp_rows_blocked(const sp_selection_t *sel, sp_rows_t *rs, sp_clamped_t *cl) {
  for (int i = 0; i < sel->nregions; i++)
    if (!sp_row_get(rs, sel->regions[i], -1)) return SP_EXIT_IO;
  int rc = 0;
  for (int j0 = 0; rc == 0 && j0 < sel->nranks;) {
    sp_progress("summarising rank", j0, sel->nranks);
    int j1 = sp_rank_block_end(sel, j0);
    for (int i = 0; rc == 0 && i < sel->nregions; i++)
      for (int j = j0; rc == 0 && j < j1; j++) rc = sp_rows_rank(sel, rs, i, j, 0, cl, &rs->v[i]);
    j0 = j1;
  }
  sp_progress_done();
  return rc;
}

/* Durations [0, n) of region rows [before, rs->n) into a further pass of
 * their percentiles (the rows by thread with --by-thread). */
static void sp_pct_feed(sp_rows_t *rs, int before, int by_thread, const int64_t *st,
                        const int64_t *en, const int32_t *t, int64_t n) {
  sp_row_t *row = &rs->v[before];
  for (int64_t k = 0; k < n; k++) {
    uint64_t ud = (uint64_t)en[k] - (uint64_t)st[k];
    int64_t d = ud > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ud;
    int tid = t ? t[k] : 0;
    if (by_thread && row->thread != tid) {
      row = NULL;
      for (int r = before; !row && r < rs->n; r++)
        if (rs->v[r].thread == tid) row = &rs->v[r];
      if (!row) { /* not in the first pass: the file changed; step says so */
        row = &rs->v[before];
        continue;
      }
    }
    if (row->pctx) sp_pct_visit(row->pctx, d);
  }
}

/* One further pass over every timed pair of region sel->regions[i], read
 * in chunks (a pair that cannot be, whole). Returns 0 or SP_EXIT_*. */
static int sp_rows_pct_pass(const sp_selection_t *sel, sp_rows_t *rs, int i, int before,
                            int by_thread) {
  int g = sel->regions[i];
  int64_t *s = malloc(SP_SUM_CHUNK * sizeof *s), *e = malloc(SP_SUM_CHUNK * sizeof *e);
  int32_t *t = malloc(SP_SUM_CHUNK * sizeof *t);
  int rc = s && e && t ? 0 : SP_EXIT_IO;
  for (int j = 0; rc == 0 && j < sel->nranks; j++) {
    int k = sel->ranks[j];
    sp_reader_info_t info;
    if (sp_reader_info(sel->reader, g, k, &info) != 0 || !info.present || !info.has_times) continue;
    for (int64_t at = 0; rc == 0 && at < info.num_intervals;) {
      int64_t got = sp_reader_read_range(sel->reader, g, k, at, SP_SUM_CHUNK, s, e, t);
      if (got == SP_READER_EINVAL && at == 0) { /* delta-encoded columns: whole */
        sp_reader_intervals_t iv;
        rc = sp_load_intervals(sel->reader, g, k, &iv);
        if (rc == 0) sp_pct_feed(rs, before, by_thread, iv.start, iv.end, iv.thread_ids, iv.n);
        if (rc == 0) sp_reader_intervals_free(&iv);
        break;
      }
      if (got <= 0) {
        if (got < 0) sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        rc = got < 0 ? sp_exit_for_reader((int)got) : SP_EXIT_DATA;
        break;
      }
      sp_pct_feed(rs, before, by_thread, s, e, info.has_thread_ids ? t : NULL, got);
      at += got;
    }
  }
  free(s);
  free(e);
  free(t);
  return rc;
}

/* The percentiles of region rows [before, rs->n): at once for rows that
 * kept their durations, else with further passes over the region. */
static int sp_rows_pct(const sp_selection_t *sel, const sp_options_t *o, sp_rows_t *rs, int i,
                       int before) {
  int pending = 0;
  for (int r = before; r < rs->n; r++) {
    if (!rs->v[r].pctx) continue;
    int got = sp_pct_plan(rs->v[r].pctx, o->pcts, o->npcts);
    if (got < 0) return SP_EXIT_IO;
    pending += got == 0;
  }
  while (pending > 0) {
    int rc = sp_rows_pct_pass(sel, rs, i, before, o->by_thread);
    if (rc) return rc;
    pending = 0;
    for (int r = before; r < rs->n; r++) {
      int got = rs->v[r].pctx ? sp_pct_step(rs->v[r].pctx) : 1;
      if (got == -1) return SP_EXIT_IO;
      if (got == -2) {
        sp_msg(SP_QUIET, "%s: region '%s': the file changed while it was read", sel->file,
               sp_reader_region_name(sel->reader, sel->regions[i]));
        return SP_EXIT_DATA;
      }
      pending += got == 0;
    }
  }
  return 0;
}

static int sp_rows_compute(const sp_selection_t *sel, const sp_options_t *o, sp_rows_t *rs,
                           sp_clamped_t *cl) {
  int rc = 0;
  for (int i = 0; rc == 0 && i < sel->nregions; i++) {
    sp_progress("summarising region", i, sel->nregions);
    int before = rs->n;
    for (int j = 0; rc == 0 && j < sel->nranks; j++)
      rc = sp_rows_rank(sel, rs, i, j, o->by_thread, cl, NULL);
    if (rc == 0 && rs->n == before && !sp_row_get(rs, sel->regions[i], o->by_thread ? 0 : -1))
      rc = SP_EXIT_IO;
    if (rc == 0) rc = sp_rows_pct(sel, o, rs, i, before);
    for (int r = before; r < rs->n; r++) {
      sp_row_t *row = &rs->v[r];
      int64_t ndurs = row->pctx ? sp_pct_count(row->pctx) : 0;
      if (ndurs > 0) sp_pct_result(row->pctx, row->pct);
      for (int q = 0; row->hist && ndurs == 0 && q < o->npcts; q++) { /* profile mode */
        row->pct[q] = (double)sp_reader_aggregate_percentile(row->hist, o->pcts[q]);
        /* A bucket's midpoint may lie outside the calls' range: clamped to
         * [min, max] (docs/profile-mode.md), so one call's p50 is its time. */
        if (row->pct[q] >= 0 && row->min <= row->max) {
          if (row->pct[q] < (double)row->min) row->pct[q] = (double)row->min;
          if (row->pct[q] > (double)row->max) row->pct[q] = (double)row->max;
        }
      }
      sp_pct_free(row->pctx);
      row->pctx = NULL;
    }
  }
  sp_progress_done();
  return rc;
}

/* --columns wait_s: the rows' wait-state time (summary_columns.c). */
static int sp_summary_waits(const sp_selection_t *sel, sp_rows_t *rs) {
  int *regions = malloc((size_t)(rs->n + 1) * sizeof *regions);
  int *threads = malloc((size_t)(rs->n + 1) * sizeof *threads);
  sp_sum_extra_t **rows = malloc((size_t)(rs->n + 1) * sizeof *rows);
  int rc = regions && threads && rows ? 0 : SP_EXIT_IO;
  for (int i = 0; rc == 0 && i < rs->n; i++) {
    regions[i] = rs->v[i].region;
    threads[i] = rs->v[i].thread;
    rows[i] = &rs->v[i].extra;
  }
  if (rc == 0) rc = sp_sum_extra_waits(sel, regions, threads, rows, rs->n);
  free(regions);
  free(threads);
  free(rows);
  return rc;
}

int sp_summary_print(const sp_selection_t *sel, const sp_options_t *o) {
  int red = o->table == SP_TABLE_TEXT ? sp_reduced_print(sel, o, 0) : -1;
  if (red >= 0) return red; /* reduced across ranks: its own table */
  sp_rows_t rs = {NULL, 0, 0, sel->nranks, 0, sp_reader_stream_calls(), o->npcts > 0, 0, 0};
  for (int q = 0; q < o->nxcols; q++) {
    rs.mpi |= o->xcols[q] == SP_SUM_COL_BYTES || o->xcols[q] == SP_SUM_COL_MSGS;
    if (o->xcols[q] == SP_SUM_COL_PEAK_RSS) rs.extra |= 1u << SP_SUM_COL_PEAK_RSS;
    if (o->xcols[q] == SP_SUM_COL_WAIT) rs.extra |= 1u << SP_SUM_COL_WAIT;
  }
  sp_clamped_t clamped = {0};
  sp_reader_tree_t *t = NULL;
  /* By thread always: the % needs thread 0's roots; rows without --by-thread
   * add the self time of every thread's node. */
  int rc = sp_tree_build(sel, SP_READER_TREE_BY_THREAD, &t);
  if (rc == 0)
    rc = o->by_thread || rs.keep || rs.mpi || rs.extra || o->nxcols
             ? sp_rows_compute(sel, o, &rs, &clamped)
             : sp_rows_blocked(sel, &rs, &clamped);
  if (rc == 0) sp_rows_finish(sel, &rs, t);
  if (rc == 0 && (rs.extra & (1u << SP_SUM_COL_WAIT))) rc = sp_summary_waits(sel, &rs);
  int io_cols = 0; /* 1: io_s, 2: io_bytes */
  for (int q = 0; q < o->nxcols; q++)
    io_cols |= o->xcols[q] == SP_SUM_COL_IO_S ? 1 : o->xcols[q] == SP_SUM_COL_IO_BYTES ? 2 : 0;
  sp_io_attrib_t *io = NULL;
  if (rc == 0 && io_cols) rc = sp_io_attrib_build(sel, t, o->by_thread, io_cols & 2, &io);
  for (int i = 0; rc == 0 && io && i < rs.n; i++) {
    sp_sum_extra_t *x = &rs.v[i].extra;
    int have = sp_io_attrib_get(io, rs.v[i].region, rs.v[i].thread, &x->v[SP_SUM_COL_IO_BYTES],
                                &x->v[SP_SUM_COL_IO_S]);
    x->have[SP_SUM_COL_IO_BYTES] = have & 1;
    x->have[SP_SUM_COL_IO_S] = (have & 2) != 0;
  }
  sp_io_attrib_free(io);
  const char *keys[8];
  for (int q = 0; q < o->nvcols; q++) keys[q] = o->vcols[q] + 6; /* after "value:" */
  for (int i = 0; rc == 0 && o->nvcols && i < rs.n; i++)
    rc = sp_values_means(sel, keys, o->nvcols, rs.v[i].region, rs.v[i].thread, rs.v[i].vmean,
                         rs.v[i].vhave);
  if (rc == 0) {
    clamped.sums += rs.sat;
    sp_summary_warn(sel, &clamped);
    for (int i = 0; i < rs.n; i++) {
      rs.v[i].key = sp_row_key(&rs.v[i], o->sort);
      rs.v[i].name =
          o->sort == SP_SORT_NAME ? sp_reader_region_name(sel->reader, rs.v[i].region) : NULL;
    }
    qsort(rs.v, (size_t)rs.n, sizeof *rs.v, sp_row_cmp);
    sp_summary_table(sel, o, &rs, sp_metric_wall(t));
    /* The LIKWID table follows the rows' order (the --sort-by order). */
    int *order = malloc((rs.n > 0 ? (size_t)rs.n : 1) * sizeof *order);
    int n = 0;
    if (!order) rc = SP_EXIT_IO;
    for (int i = 0; order && i < rs.n; i++)
      if (n == 0 || order[n - 1] != rs.v[i].region) order[n++] = rs.v[i].region;
    if (rc == 0 && o->table == SP_TABLE_TEXT) rc = sp_summary_likwid_print(sel, order, n);
    free(order);
  }
  for (int i = 0; i < rs.n; i++) {
    free(rs.v[i].rank_total);
    sp_pct_free(rs.v[i].pctx);
    free(rs.v[i].hist);
  }
  free(rs.v);
  sp_sum_extra_end();
  sp_reader_tree_free(t);
  return rc;
}
