/* figures.c - one number set per selected region for --compare, check and
 * the HTML report's Change section:
 * calls, total and mean duration from the intervals (the total over the
 * outermost calls, so recursion is not counted twice; the mean over every
 * call), self time from the call tree. The reference
 * tool's aggregate files (no stamps) give their stored totals and
 * exclusive times instead, where every rank with the region stores both. */
#include <stdlib.h>
#include <string.h>

#include "chart_stats.h"
#include "pproc.h"

/* The pair's total over its outermost calls (a recursive region's nested
 * calls are in their callers' time), ns; -1 when out of memory. */
static double sp_figures_outer(const sp_reader_intervals_t *iv, const sp_reader_stats_t *st) {
  if (iv->n == 0) return (double)st->total;
  unsigned char *outer = malloc((size_t)iv->n);
  if (!outer || sp_outer_calls(iv, outer) != 0) {
    free(outer);
    return -1;
  }
  double sum = 0;
  for (int64_t k = 0; k < iv->n; k++)
    if (outer[k]) sum += sp_ns_between(iv->start[k], iv->end[k]);
  free(outer);
  return sum;
}

double sp_metric_wall(const sp_reader_tree_t *t) {
  double main = 0, all = 0;
  int n = sp_reader_tree_num_nodes(t);
  for (int i = 0; i < n && n > 0; i = sp_reader_tree_node(t, i)->next_sibling) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, i);
    if (nd->timed) {
      all += (double)nd->inclusive;
      if (nd->thread <= 0 && nd->worker_calls == 0) main += (double)nd->inclusive;
    }
    if (nd->next_sibling < 0) break;
  }
  return main > 0 ? main : all;
}

int sp_figures_compute(const sp_selection_t *sel, sp_figure_t **out, int *n) {
  return sp_figures_compute_wall(sel, out, n, NULL);
}

/* What a region's figures add up over ranks before they are final. */
typedef struct sp_fig_acc {
  int agg_pairs, agg_all; /* pairs with stored figures, all of them with both */
  double agg_total, agg_self, agg_max, all;
} sp_fig_acc_t;

enum { SP_FIG_CHUNK = 65536 };

/* The figures of a pair with more calls than the stream bound, all
 * outermost (no recursion: sp_outer_all_read), read in chunks instead of
 * loaded whole (a whole pair took 20 bytes a call: --compare and check
 * grew 7x from 1e6 to 1e7 calls): the same sums in the same order as
 * sp_reader_stats_compute and sp_figures_outer. 0 when done, -1 when the
 * caller loads the pair (small, recursive, or the first read failed: the
 * load says why), or an SP_EXIT_* code. */
static int sp_figures_stream(const sp_selection_t *sel, int g, int k, sp_reader_stats_t *st,
                             double *outer) {
  sp_reader_info_t info;
  if (sp_reader_info(sel->reader, g, k, &info) != 0 || !info.present || !info.has_times ||
      info.num_intervals <= sp_reader_stream_calls())
    return -1;
  int all = sp_outer_all_read(sel->reader, g, k, info.num_intervals);
  if (all != 1) return all == 0 ? -1 : all;
  int64_t *s = malloc(SP_FIG_CHUNK * sizeof *s), *e = malloc(SP_FIG_CHUNK * sizeof *e);
  int rc = s && e ? 0 : SP_EXIT_IO;
  int64_t total = 0;
  double sum = 0;
  for (int64_t at = 0; rc == 0 && at < info.num_intervals;) {
    int64_t got = sp_reader_read_range(sel->reader, g, k, at, SP_FIG_CHUNK, s, e, NULL);
    if (got <= 0 && at == 0) {
      rc = -1;
    } else if (got < 0) {
      sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
      rc = sp_exit_for_reader((int)got);
    } else if (got == 0) {
      sp_msg(SP_QUIET, "%s: region '%s': the file changed while it was read", sel->file,
             sp_reader_region_name(sel->reader, g));
      rc = SP_EXIT_DATA;
    }
    for (int64_t i = 0; rc == 0 && i < got; i++) {
      uint64_t ud = (uint64_t)e[i] - (uint64_t)s[i]; /* saturated as sp_reader_stats_compute */
      int64_t d = ud > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ud;
      total = total > INT64_MAX - d ? INT64_MAX : total + d;
      sum += sp_ns_between(s[i], e[i]);
    }
    at += got > 0 ? got : 0;
  }
  free(s);
  free(e);
  if (rc == 0) {
    *st = (sp_reader_stats_t){info.num_calls, info.num_intervals, total, 0, 0, 0};
    *outer = sum;
  }
  return rc;
}

/* Region g on the j-th selected rank into fg and a. */
static int sp_figures_pair(const sp_selection_t *sel, int g, int j, sp_figure_t *fg,
                           sp_fig_acc_t *a) {
  const unsigned both = SP_READER_AGG_TOTAL | SP_READER_AGG_EXCLUSIVE;
  sp_reader_intervals_t iv;
  sp_reader_stats_t st;
  double outer;
  int rc = sp_figures_stream(sel, g, sel->ranks[j], &st, &outer);
  if (rc > 0) return rc;
  if (rc < 0) {
    if ((rc = sp_load_intervals(sel->reader, g, sel->ranks[j], &iv)) != 0) return rc;
    sp_reader_stats_compute(&iv, &st);
    outer = sp_figures_outer(&iv, &st);
    sp_reader_intervals_free(&iv);
  }
  if (outer < 0) return SP_EXIT_IO;
  sp_reader_aggregate_t ag = {0, 0, 0, 0, 0, 0, 0};
  if (st.n == 0) sp_reader_aggregate(sel->reader, g, sel->ranks[j], &ag);
  if (ag.present) {
    a->agg_pairs++;
    a->agg_all &= (ag.have & both) == both;
    a->agg_total += (double)ag.total;
    a->agg_self += (double)ag.exclusive;
    if ((double)ag.total > a->agg_max) a->agg_max = (double)ag.total;
  }
  fg->calls += st.num_calls;
  fg->n += st.n;
  fg->total += outer;
  a->all += (double)st.total;
  if (outer > fg->rank_max) fg->rank_max = outer;
  return 0;
}

/* Region i's figures once every rank is in. */
static void sp_figures_finish(const sp_selection_t *sel, const sp_reader_tree_t *t, int i,
                              sp_figure_t *fg, const sp_fig_acc_t *a) {
  int g = sel->regions[i];
  fg->nranks = sel->nranks;
  fg->timed = fg->n > 0;
  fg->mean = fg->n ? a->all / (double)fg->n : 0.0; /* every call, nested ones too */
  for (int k = 0; k < sp_reader_tree_num_nodes(t); k++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(t, k);
    if (nd->region == g) fg->self += (double)nd->exclusive;
  }
  if (fg->n == 0 && a->agg_pairs && a->agg_all) { /* no stamps: the stored figures */
    fg->timed = 1;
    fg->total = a->agg_total;
    fg->self = a->agg_self;
    fg->mean = fg->calls ? a->agg_total / (double)fg->calls : 0.0;
    fg->rank_max = a->agg_max;
  }
  fg->rank_mean = sel->nranks ? fg->total / sel->nranks : 0.0;
}

/* Ranks go in blocks (sp_rank_block_end), each block region by region;
 * every region still sees its ranks in order. */
int sp_figures_compute_wall(const sp_selection_t *sel, sp_figure_t **out, int *n, double *wall) {
  *out = calloc((size_t)(sel->nregions ? sel->nregions : 1), sizeof **out);
  sp_fig_acc_t *acc = calloc((size_t)(sel->nregions ? sel->nregions : 1), sizeof *acc);
  *n = 0;
  if (!*out || !acc) {
    free(*out);
    free(acc);
    *out = NULL;
    return SP_EXIT_IO;
  }
  sp_reader_tree_t *t;
  int rc = sp_tree_build(sel, 0, &t);
  for (int i = 0; i < sel->nregions; i++) {
    (*out)[i].name = sp_reader_region_name(sel->reader, sel->regions[i]);
    acc[i].agg_all = 1;
  }
  for (int j0 = 0; rc == 0 && j0 < sel->nranks;) {
    int j1 = sp_rank_block_end(sel, j0);
    for (int i = 0; rc == 0 && i < sel->nregions; i++)
      for (int j = j0; rc == 0 && j < j1; j++)
        rc = sp_figures_pair(sel, sel->regions[i], j, &(*out)[i], &acc[i]);
    j0 = j1;
  }
  for (int i = 0; rc == 0 && i < sel->nregions; i++)
    sp_figures_finish(sel, t, i, &(*out)[i], &acc[i]);
  if (rc == 0) *n = sel->nregions;
  free(acc);
  if (wall) *wall = rc == 0 ? sp_metric_wall(t) : 0.0;
  sp_reader_tree_free(t);
  if (rc) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}
