/* charts_run.c - the charts and data files of -o DIR: figures read once, the
 * colour domain fixed for the run, then each chart chosen by --plots (drawn
 * by the charts in postproc/charts/) and the data files (export_data.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "gantt.h"
#include "palette.h"
#include "plots.h"
#include "rank_pick.h"

/* The selected region names of all files, distinct, in first-seen order. */
static int sp_charts_names(const sp_selection_t *sels, int nfiles, const char ***out, int *n) {
  size_t cap = 0;
  for (int f = 0; f < nfiles; f++) cap += (size_t)sels[f].nregions;
  const char **v = malloc((cap ? cap : 1) * sizeof *v);
  if (!v) return SP_EXIT_IO;
  int m = 0;
  for (int f = 0; f < nfiles; f++)
    for (int g = 0; g < sels[f].nregions; g++) {
      const char *name = sp_reader_region_name(sels[f].reader, sels[f].regions[g]);
      int seen = 0;
      /* Files after the first are compared by name (quadratic only then). */
      for (int i = 0; f > 0 && !seen && i < m; i++) seen = strcmp(v[i], name) == 0;
      if (!seen) v[m++] = name;
    }
  *out = v;
  *n = m;
  return 0;
}

/* --top-n: keeps the n common regions of largest self (exclusive) time in
 * the first file, ties by total time (aggregate files without self times),
 * in chart order: the kernels, not the wrappers around them. */
static int sp_charts_top(sp_charts_t *c, int n) {
  if (n <= 0 || n >= c->ncommon) return 0;
  int nc = c->ncommon;
  char *keep = calloc((size_t)nc, 1);
  double *self = malloc((size_t)nc * sizeof *self);
  int rc = keep && self ? sp_self_times(&c->sels[0], c->common, nc, self) : SP_EXIT_IO;
  for (int t = 0; rc == 0 && t < n; t++) {
    int best = -1;
    double bs = -1, bv = -1;
    for (int j = 0; j < nc; j++) {
      double v = sp_chart_stats_metric(&c->stats[0], c->common[j], SP_DUR_TOTAL);
      v = v != v ? 0.0 : v;
      if (!keep[j] && (self[j] > bs || (self[j] == bs && v > bv))) best = j, bs = self[j], bv = v;
    }
    keep[best] = 1;
  }
  free(self);
  if (rc) {
    free(keep);
    return rc;
  }
  int *rows = malloc((size_t)n * (size_t)c->nfiles * sizeof *rows);
  if (!rows) {
    free(keep);
    return SP_EXIT_IO;
  }
  int m = 0;
  for (int j = 0; j < nc; j++) {
    if (!keep[j]) continue;
    for (int f = 0; f < c->nfiles; f++) rows[(size_t)f * n + m] = c->common[(size_t)f * nc + j];
    memmove(c->common_rgb + 3 * m, c->common_rgb + 3 * j, 3);
    m++;
  }
  free(c->common);
  c->common = rows;
  c->ncommon = n;
  free(keep);
  sp_msg(SP_VERBOSE, "--top-n %d: the regions of largest self time in %s", n, c->sels[0].file);
  return 0;
}

static int sp_cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The common regions in the first file's call-tree order (bars, heat map
 * columns, panels). */
static int sp_charts_tree_order(sp_charts_t *c) {
  const sp_selection_t *sel = &c->sels[0];
  int n = c->ncommon, nr = sel->nregions, nf = c->nfiles;
  int *pos = malloc((size_t)(nr ? nr : 1) * sizeof *pos);
  int *depth = malloc((size_t)(nr ? nr : 1) * sizeof *depth);
  int *pair = malloc((size_t)(n ? n : 1) * 2 * sizeof *pair);
  int *rows = malloc((size_t)(n ? n : 1) * (size_t)nf * sizeof *rows);
  unsigned char *rgb = malloc((size_t)(n ? n : 1) * 3);
  int rc = pos && depth && pair && rows && rgb ? sp_tree_region_order(sel, pos, depth) : SP_EXIT_IO;
  if (rc == 0) {
    for (int j = 0; j < n; j++) pair[2 * j] = pos[c->common[j]], pair[2 * j + 1] = j;
    qsort(pair, (size_t)n, 2 * sizeof *pair, sp_cmp_pair);
    for (int k = 0; k < n; k++) {
      int j = pair[2 * k + 1];
      for (int f = 0; f < nf; f++) rows[(size_t)f * n + k] = c->common[(size_t)f * n + j];
      memcpy(rgb + 3 * k, c->common_rgb + 3 * j, 3);
    }
    memcpy(c->common, rows, (size_t)n * (size_t)nf * sizeof *rows);
    memcpy(c->common_rgb, rgb, (size_t)n * 3);
  }
  free(pos);
  free(depth);
  free(pair);
  free(rows);
  free(rgb);
  return rc;
}

/* need_stats: build the duration statistics (a read of every pair), which
 * the Gantt chart alone does not need. */
static int sp_charts_prepare(sp_charts_t *c, sp_options_t *one, int need_stats) {
  const char **names = NULL;
  int nnames = 0;
  int rc = sp_charts_names(c->sels, c->nfiles, &names, &nnames);
  if (rc) return rc;
  one->colour_names = names;
  one->ncolour_names = nnames;
  c->stats = calloc(c->nfiles > 0 ? (size_t)c->nfiles : 1, sizeof *c->stats);
  c->rgb = malloc((size_t)(nnames ? nnames : 1) * 3);
  if (!c->stats || !c->rgb) return SP_EXIT_IO;
  sp_palette_for(one->cmap, names, nnames, names, nnames, c->rgb);
  for (int f = 0; need_stats && rc == 0 && f < c->nfiles; f++)
    rc = sp_chart_stats_build(&c->sels[f], one->min_duration, &c->stats[f]);
  if (rc == 0) rc = sp_common_regions(c->sels, c->nfiles, &c->common, &c->ncommon);
  if (rc) return rc;
  const char **cn = malloc((size_t)(c->ncommon ? c->ncommon : 1) * sizeof *cn);
  c->common_rgb = malloc((size_t)(c->ncommon ? c->ncommon : 1) * 3);
  if (!cn || !c->common_rgb) {
    free(cn);
    return SP_EXIT_IO;
  }
  for (int j = 0; j < c->ncommon; j++)
    cn[j] = sp_reader_region_name(c->sels[0].reader, c->sels[0].regions[c->common[j]]);
  sp_palette_for(one->cmap, names, nnames, cn, c->ncommon, c->common_rgb);
  free(cn);
  rc = c->ncommon > 1 ? sp_charts_tree_order(c) : 0;
  if (rc == 0) rc = sp_charts_top(c, one->top_n);
  return rc;
}

/* 1 when the selection's call tree has a timed path (an aggregate file:
 * profile mode's call paths; the reference tool's have none). */
static int sp_charts_has_paths(const sp_selection_t *sel) {
  sp_reader_tree_t *t = NULL;
  int timed = 0;
  if (sp_tree_build(sel, 0, &t) != 0) return 0;
  for (int i = 0; !timed && i < sp_reader_tree_num_nodes(t); i++)
    timed = sp_reader_tree_node(t, i)->timed;
  sp_reader_tree_free(t);
  return timed;
}

/* Aggregate files hold no stamps: the charts drawn from stamps (and, when
 * the file stores no call paths, those drawn from the call tree) are left
 * out, in one line per such file; returns plots without them (unchanged
 * when every file has stamps), *left 1 if so. */
static unsigned sp_charts_no_stamps(const sp_charts_t *c, unsigned plots, int *left) {
  unsigned out = plots, stamps = sp_plots_with(SP_CHART_STAMPS),
           paths = sp_plots_with(SP_CHART_PATHS);
  *left = 0;
  for (int f = 0; (plots & (stamps | paths)) && f < c->nfiles; f++) {
    if (!sp_selection_no_stamps(&c->sels[f])) continue;
    unsigned drop = stamps | (sp_charts_has_paths(&c->sels[f]) ? 0u : paths);
    char names[400] = "";
    size_t at = 0;
    for (int k = 0; k < sp_plot_nkinds && at < sizeof names; k++)
      if (drop & sp_plot_kinds[k].bit)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                               sp_plot_kinds[k].name);
    sp_msg(SP_QUIET,
           "%s: the file holds no stamps (an aggregate layout): %s left out; the duration "
           "bars, rank heat map and scaling charts use its stored figures%s",
           c->sels[f].file, names, (drop & paths) ? "" : ", the flame graph its call paths");
    out &= ~drop;
    *left = 1;
  }
  return out;
}

static void sp_charts_free(sp_charts_t *c, sp_options_t *one) {
  for (int f = 0; c->stats && f < c->nfiles; f++) sp_chart_stats_free(&c->stats[f]);
  free(c->stats);
  free(c->common);
  free(c->rgb);
  free(c->common_rgb);
  free((void *)one->colour_names);
}

int sp_charts_write(const sp_selection_t *sels, const char *const *labels, int nfiles,
                    const sp_options_t *o) {
  sp_options_t one = *o;
  sp_charts_t c;
  memset(&c, 0, sizeof c);
  c.sels = sels;
  c.labels = labels;
  c.nfiles = nfiles;
  c.o = &one;
  unsigned plots = o->skip_images ? 0 : o->plots ? o->plots : sp_plots_with(SP_CHART_DEFAULT);
  /* The charts over several files, by default and with "all", only when
   * there are several files (named in --plots: an error with one file). */
  for (int k = 0; nfiles < 2 && k < sp_plot_nkinds; k++)
    if ((sp_plot_kinds[k].needs & SP_CHART_FILES) && !(o->plots & sp_plot_kinds[k].asked))
      plots &= ~sp_plot_kinds[k].bit;
  /* "all" with an --x-field that is no scale (a category): no efficiency. */
  if (!(o->plots & SP_PLOT_EFFICIENCY_ASKED) && !sp_scaling_field_ok(o->x_field))
    plots &= ~(unsigned)SP_PLOT_SCALING_EFFICIENCY;
  /* More ranks than fit: the per-rank views draw representatives, chosen
   * from the per-(region, rank) figures. */
  int views = (plots & sp_plots_with(SP_CHART_PER_RANK)) && sp_rank_views_needed(sels, nfiles, o);
  sp_rank_views_t rv;
  memset(&rv, 0, sizeof rv);
  int rc = sp_charts_prepare(
      &c, &one, (plots & sp_plots_with(SP_CHART_STATS)) || o->top_n > 0 || o->export_data || views);
  if (rc == 0 && views) rc = sp_rank_views_build(&c, &rv);
  sp_charts_t per_rank = c; /* the charts with a lane or cell per rank */
  if (views) {
    per_rank.sels = rv.sels;
    per_rank.stats = rv.stats;
  }
  int nostamps = 0;
  if (rc == 0) plots = sp_charts_no_stamps(&c, plots, &nostamps);
  unsigned scaling = sp_plots_with(SP_CHART_FILES);
  if (rc == 0 && nfiles > 1 && ((plots & scaling) || o->export_data)) sp_scaling_note_missing(&c);
  /* The Gantt chart first: its "nothing to draw" ends the run as before. */
  if (rc == 0 && (plots & SP_PLOT_GANTT)) {
    sp_gantt_timing_t tm;
    rc = sp_gantt_render_files(per_rank.sels, labels, nfiles, &one, 0, &tm);
    if (rc == 0)
      sp_msg(SP_VERBOSE, "%lld intervals drawn as %lld bars; read %.3f s, render %.3f s",
             (long long)tm.intervals, (long long)tm.runs, tm.read_s, tm.render_s);
  }
  int drawn = 0;
  for (int k = 0; rc == 0 && k < sp_plot_nkinds; k++) {
    const sp_plot_kind_t *kind = &sp_plot_kinds[k];
    if (!kind->draw || !(plots & kind->bit)) continue;
    rc = kind->draw((kind->needs & SP_CHART_PER_RANK) ? &per_rank : &c);
    drawn += rc == 0;
    /* A chart of the default set with nothing to show (no timed calls,
     * only zero-length ones) is skipped; one named in --plots fails. */
    if (rc == SP_EXIT_DATA && !o->plots) {
      sp_msg(SP_NORMAL, "that chart is skipped (nothing to draw); the others are written");
      rc = 0;
    }
  }
  if (rc == 0 && o->export_data) rc = sp_export_data(&c);
  if (rc == 0 && nostamps && !drawn) { /* only stored figures, none drawn */
    sp_msg(SP_QUIET, "nothing to draw: no chart could be drawn from the stored figures");
    rc = SP_EXIT_DATA;
  }
  if (views) sp_rank_views_free(&rv);
  sp_charts_free(&c, &one);
  return rc;
}
