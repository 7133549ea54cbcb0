/* chart_durations.c - durations_plot_<metric>: grouped bars per region, one
 * bar per file, over the regions common to all files (the reference tool's
 * rule: the metric over the calls of the selected ranks). One file: bars in
 * the region colours; several: one colour per file and a legend. The
 * reference tool's aggregate files (no stamps) give their stored figures; a
 * figure not stored is left out (no bar, never a bar of 0) and said so.
 * The total follows the rule of metric.h, a mean over the selected ranks
 * of each rank's time, so files of different rank counts compare, with a
 * rank's time taken on its busiest thread and over its outermost calls, so
 * that no bar is taller than the run (an OpenMP region summed over its
 * threads, or a recursive region summed over its nested calls, would be);
 * durations_data keeps the reference tool's sum and adds these bars as
 * total_per_rank.
 * Values that span more than SP_LOG_SPAN get a log axis, so a kernel is not
 * hidden behind the wrappers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "chart_scale.h"
#include "charts.h"
#include "palette.h"
#include "plot_device.h"

#define SP_DUR_WIDTH_MIN 640

typedef struct sp_dur_job {
  const sp_charts_t *c;
  int metric;
} sp_dur_job_t;

/* The bar of common region r in file f: the metric; total: per rank its
 * busiest thread's outermost calls, mean over the ranks (chart_stats.h). */
static double sp_dur_value(const sp_charts_t *c, int f, int r, int metric) {
  int g = c->common[(size_t)f * c->ncommon + r];
  return metric == SP_DUR_TOTAL ? sp_chart_stats_rank_total(&c->stats[f], g)
                                : sp_chart_stats_metric(&c->stats[f], g, metric);
}

/* Region names under the axis, vertical, thinned to stay 12 px apart. */
static void sp_dur_labels(const sp_charts_t *c, double plot_px) {
  int n = c->ncommon;
  int step = plot_px / n >= 12.0 ? 1 : (int)(12.0 * n / plot_px) + 1;
  char name[160];
  plschr(2.6, 1.0);
  for (int j = 0; j < n; j += step) {
    const sp_selection_t *s = &c->sels[0];
    sp_plot_text(sp_reader_region_name(s->reader, s->regions[c->common[j]]), name, sizeof name, 24);
    plmtex("bv", 0.8, (j + 0.5) / n, 1.0, name);
  }
}

static void sp_dur_legend(const sp_charts_t *c) {
  PLINT opt[16], col[16], pat[16], fg[16];
  PLFLT sc[16], wd[16];
  char store[16][128];
  const char *texts[16];
  int m = c->nfiles < 16 ? c->nfiles : 16;
  for (int f = 0; f < m; f++) {
    opt[f] = PL_LEGEND_COLOR_BOX;
    col[f] = SP_COL_REGION0 + f;
    pat[f] = 0;
    fg[f] = SP_COL_FG;
    sc[f] = 0.8;
    wd[f] = 1.0;
    sp_plot_text(c->labels[f], store[f], sizeof store[f], 30);
    texts[f] = store[f];
  }
  PLFLT lw, lh;
  pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_RIGHT | PL_POSITION_TOP | PL_POSITION_INSIDE, 0.01, 0.01, 0.05, SP_COL_BG,
           SP_COL_FG, 1, 0, 0, m, opt, 0.8, 0.9, 1.6, 0.0, fg, (PLCHAR_MATRIX)texts, col, pat, sc,
           wd, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

static int sp_dur_draw(void *ctx, const char *path) {
  sp_dur_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const sp_options_t *o = c->o;
  int n = c->ncommon, nf = c->nfiles;
  int width = o->width, height = o->height ? o->height : 720;
  if (height < SP_CHART_MIN_HEIGHT) height = SP_CHART_MIN_HEIGHT; /* room for the margins */
  int ncol = nf > 1 ? nf : n;
  int rc = sp_plot_open(sp_plot_device(o->format, 0), path, width, height, ncol, 0);
  if (rc) return rc;
  static const unsigned tab10[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
  for (int k = 0; k < ncol; k++) {
    if (nf > 1)
      plscol0(SP_COL_REGION0 + k, tab10[k % 10] >> 16, (tab10[k % 10] >> 8) & 255,
              tab10[k % 10] & 255);
    else
      plscol0(SP_COL_REGION0 + k, c->common_rgb[3 * k], c->common_rgb[3 * k + 1],
              c->common_rgb[3 * k + 2]);
  }
  double ymax = 0;
  double *all = malloc((size_t)(n ? n : 1) * (size_t)nf * sizeof *all);
  int nall = 0;
  for (int f = 0; f < nf; f++)
    for (int r = 0; r < n; r++) {
      double v = sp_dur_value(c, f, r, j->metric);
      if (isfinite(v) && v > ymax) ymax = v;
      if (all) all[nall++] = v;
    }
  if (ymax <= 0) ymax = 1e-9;
  double lo, hi;
  int logy = all && sp_axis_log_wanted(all, nall, &lo, &hi);
  free(all);
  const char *unit = "s";
  double factor = logy ? 1.0 : sp_seconds_unit(ymax, &unit); /* the log axis labels 10^k s */
  double wy0 = logy ? floor(log10(lo) - 0.3) : 0.0,
         wy1 = logy ? log10(hi) + 0.15 : factor * ymax * 1.08;
  pladv(0);
  double bottom = 140.0 / height, top = 1.0 - 50.0 / height;
  plvpor(0.08, 0.97, bottom, top);
  plwind(0.0, n, wy0, wy1);
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox("bc", 0.0, 0, logy ? "bcnstlv" : "bcnstv", 0.0, 0);
  double gw = 0.8 / nf; /* bar width: groups fill 80% of their slot */
  for (int f = 0; f < nf; f++)
    for (int r = 0; r < n; r++) {
      double v = sp_dur_value(c, f, r, j->metric);
      if (!isfinite(v) || v <= 0) continue;
      v = logy ? log10(v) : factor * v;
      PLFLT x0 = r + 0.1 + f * gw, x1 = x0 + gw;
      PLFLT x[4] = {x0, x1, x1, x0}, y[4] = {wy0, wy0, v, v};
      plcol0(SP_COL_REGION0 + (nf > 1 ? f : r));
      plfill(4, x, y);
    }
  plcol0(SP_COL_FG);
  char title[192];
  static const char *const what[] = {"mean duration per call", "shortest call", "longest call",
                                     "time per rank on its busiest thread (outermost calls), mean"};
  if (j->metric == SP_DUR_TOTAL)
    snprintf(title, sizeof title, "total: %s over the selected ranks [%s%s]", what[j->metric],
             unit, logy ? ", log scale" : "");
  else
    snprintf(title, sizeof title, "%s (%s) over the selected ranks [%s%s]", what[j->metric],
             sp_dur_metric_names[j->metric], unit, logy ? ", log scale" : "");
  plschr(3.6, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, title);
  sp_dur_labels(c, (0.97 - 0.08) * width);
  if (nf > 1) sp_dur_legend(c);
  return sp_plot_close();
}

/* Says which common regions of each file do not store the metric's figure
 * (aggregate files: left out of the chart, never drawn as 0); returns 1
 * when some bar has a value. */
static int sp_dur_check(const sp_charts_t *c, int metric, const char *name) {
  int n = c->ncommon, any = 0;
  for (int f = 0; f < c->nfiles; f++) {
    int missing = 0;
    for (int r = 0; r < n; r++) {
      int g = c->common[(size_t)f * n + r];
      missing += !sp_chart_stats_stored(&c->stats[f], g, metric);
      double v = sp_chart_stats_metric(&c->stats[f], g, metric);
      any |= isfinite(v) && v > 0;
    }
    if (missing)
      sp_msg(SP_NORMAL, "%s: %s: %d region%s left out: %s unknown (no stamps, not stored)",
             c->sels[f].file, name, missing, missing > 1 ? "s" : "",
             metric == SP_DUR_MIN   ? "the shortest call is"
             : metric == SP_DUR_MAX ? "the longest call is"
                                    : "the total time is");
  }
  return any;
}

int sp_durations_plot(const sp_charts_t *c) {
  unsigned m = c->o->metrics ? c->o->metrics : (1u << SP_DUR_NMETRICS) - 1;
  int one = (m & (m - 1)) == 0, drawn = 0, empty = 0, agg = 0;
  for (int f = 0; f < c->nfiles; f++) agg |= c->stats[f].aggregate;
  if (c->ncommon == 0) {
    sp_msg(SP_QUIET, "durations: no region is common to all %d files", c->nfiles);
    return SP_EXIT_DATA;
  }
  for (int k = 0; k < SP_DUR_NMETRICS; k++) {
    if (!(m & (1u << k))) continue;
    char name[64];
    snprintf(name, sizeof name, one ? "durations_plot" : "durations_plot_%s",
             sp_dur_metric_names[k]);
    /* Aggregate files without that figure at all: no chart of zeros. */
    if (!sp_dur_check(c, k, name) && agg) {
      sp_msg(SP_QUIET, "%s: not written: no region has a stored value", name);
      empty++;
      continue;
    }
    sp_dur_job_t job = {c, k};
    int rc = sp_chart_write(c->o, name, sp_dur_draw, &job);
    if (rc) return rc;
    drawn++;
  }
  return drawn || !empty ? 0 : SP_EXIT_DATA;
}
