/* chart_histogram.c - histogram_plot: the call-duration distribution per
 * region (the common regions, --top-n), over the calls of the selected
 * ranks; with several files one panel per file, stacked, on the same bins.
 * Durations span decades, so the bins are 40 log-spaced bins between the
 * shortest and the longest call of all shown regions (of all files); a
 * region's bars give the share of its calls in each bin, so regions with
 * few and many calls compare. Small multiples: a sub-panel per region
 * (up to 4 across, its name above it), all on the same bins and the same
 * share axis, instead of 20 step lines drawn over each other. A 0-ns call
 * (back-to-back stamps) counts as 1 ns: it lies in the lowest bin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "pair_chunks.h"
#include "plot_device.h"

#define SP_HIST_BINS 40
#define SP_HIST_MIN_BAR 0.04 /* the least height of a bin with calls, share of the axis */

typedef struct sp_hist_job {
  const sp_charts_t *c;
  double *share; /* nfiles x ncommon x SP_HIST_BINS */
  double lo, hi; /* log10 seconds of the edges */
} sp_hist_job_t;

/* One region's bins over the calls of a pair, a slice at a time. */
typedef struct sp_hist_pass {
  double *h, n; /* counts per bin, calls counted */
  double lo, w, min_duration;
} sp_hist_pass_t;

static int sp_hist_slice(void *ctx, const int64_t *s, const int64_t *e, const int32_t *t,
                         int64_t at, int64_t n) {
  sp_hist_pass_t *p = ctx;
  (void)t, (void)at;
  for (int64_t i = 0; i < n; i++) {
    double d = 1e-9 * sp_ns_between(s[i], e[i]);
    if (d < p->min_duration) continue;
    int b = d > 0 ? (int)((log10(d) - p->lo) / p->w) : 0;
    p->h[b < 0 ? 0 : b >= SP_HIST_BINS ? SP_HIST_BINS - 1 : b] += 1;
    p->n += 1;
  }
  return 0;
}

/* The bins of file f: every pair read in slices (pair_chunks.h), so memory
 * stays flat in calls per rank. */
static int sp_hist_fill(sp_hist_job_t *j, int f) {
  const sp_charts_t *c = j->c;
  const sp_selection_t *sel = &c->sels[f];
  double w = (j->hi - j->lo) / SP_HIST_BINS;
  for (int r = 0; r < c->ncommon; r++) {
    sp_hist_pass_t p = {j->share + ((size_t)f * c->ncommon + r) * SP_HIST_BINS, 0, j->lo, w,
                        c->o->min_duration};
    int g = c->common[(size_t)f * c->ncommon + r];
    for (int k = 0; k < sel->nranks; k++) {
      int err =
          sp_pair_chunks(sel->reader, sel->file, sel->regions[g], sel->ranks[k], sp_hist_slice, &p);
      if (err) return err;
    }
    for (int b = 0; p.n > 0 && b < SP_HIST_BINS; b++) p.h[b] /= p.n;
  }
  return 0;
}

/* Columns of the grid of sub-panels for n regions. */
static int sp_hist_across(int n) { return n <= 1 ? 1 : n <= 4 ? 2 : n <= 9 ? 3 : 4; }

/* The panel of file f in the page's band [y0, y1] (normalized): a grid of
 * sub-panels, one per region. */
static int sp_hist_panel(void *ctx, int f, int height, double y0, double y1) {
  const sp_hist_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const double *share = j->share + (size_t)f * c->ncommon * SP_HIST_BINS;
  double ymax = 0;
  for (int i = 0; i < c->ncommon * SP_HIST_BINS; i++)
    if (share[i] > ymax) ymax = share[i];
  int across = sp_hist_across(c->ncommon), rows = (c->ncommon + across - 1) / across;
  double top = y1 - 50.0 / height, bottom = y0 + 60.0 / height;
  double ch = (top - bottom) / (rows > 0 ? rows : 1), cw = 0.90 / across;
  double w = (j->hi - j->lo) / SP_HIST_BINS;
  char name[160];
  for (int r = 0; r < c->ncommon; r++) {
    int row = r / across, col = r % across;
    double vx0 = 0.07 + col * cw, vy1 = top - row * ch;
    plvpor(vx0, vx0 + cw - 0.03, vy1 - ch + 34.0 / height, vy1 - 16.0 / height);
    double ytop = (ymax > 0 ? ymax : 1) * 1.05;
    plwind(j->lo, j->hi, 0.0, ytop);
    for (int b = 0; b < SP_HIST_BINS; b++) {
      double v = share[(size_t)r * SP_HIST_BINS + b];
      if (!(v > 0)) continue;
      /* A bin with calls is never thinner than SP_HIST_MIN_BAR of the axis:
       * a share of 0.01 in a small panel would be a pixel (the caption says so). */
      double vh = v > SP_HIST_MIN_BAR * ytop ? v : SP_HIST_MIN_BAR * ytop;
      PLFLT x[4] = {j->lo + b * w, j->lo + (b + 1) * w, j->lo + (b + 1) * w, j->lo + b * w};
      PLFLT y[4] = {0, 0, vh, vh};
      plcol0(SP_COL_REGION0 + r);
      plfill(4, x, y);
    }
    plcol0(SP_COL_FG);
    plschr(2.4, 1.0);
    /* The x ticks point out of the panel ("i") and the top edge has none:
     * ticks drawn inward at the bottom made a comb about 8 % of the panel
     * high that hid the bars of small shares (issue 52). */
    plsmaj(0.0, 0.5); /* short, so that the outward ticks stay clear of the labels */
    plsmin(0.0, 0.5);
    plbox("bnstil", 0.0, 0, "bcnstv", 0.0, 0);
    plbox("c", 0.0, 0, "", 0.0, 0);
    plsmaj(0.0, 1.0);
    plsmin(0.0, 1.0);
    const sp_selection_t *sel = &c->sels[f];
    sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[c->common[(size_t)f * c->ncommon + r]]),
                 name, sizeof name, 40);
    plmtex("t", 0.9, 0.5, 0.5, name);
  }
  plvpor(0.07, 0.97, bottom, top);
  plcol0(SP_COL_FG);
  plschr(3.6, 1.0);
  char title[400];
  sp_charts_panel_title(c, f, "call durations: share of each region's calls per bin", title,
                        sizeof title);
  plmtex("t", 1.8, 0.5, 0.5, title);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5,
         "call duration [s] (log scale); a bin with any call at least 4 % of the axis tall");
  return 0;
}

static int sp_hist_natural(void *ctx, int f) {
  (void)f;
  int n = ((const sp_hist_job_t *)ctx)->c->ncommon, across = sp_hist_across(n);
  int px = 120 + 170 * ((n + across - 1) / across);
  return px < 480 ? 480 : px > 2400 ? 2400 : px;
}

static void sp_hist_setup(void *ctx) {
  const sp_charts_t *c = ((const sp_hist_job_t *)ctx)->c;
  sp_charts_common_colours(c, c->ncommon);
}

int sp_histogram_plot(const sp_charts_t *c) {
  sp_hist_job_t j = {c, NULL, 0, 0};
  double mn = INFINITY, mx = 0;
  for (int f = 0; f < c->nfiles; f++)
    for (int r = 0; r < c->ncommon; r++) {
      int g = c->common[(size_t)f * c->ncommon + r];
      double a = sp_chart_stats_metric(&c->stats[f], g, SP_DUR_MIN);
      double b = sp_chart_stats_metric(&c->stats[f], g, SP_DUR_MAX);
      if (isfinite(a) && a > 0 && a < mn) mn = a;
      if (isfinite(a) && a == 0 && 1e-9 < mn) mn = 1e-9; /* a 0-ns call: in the 1 ns bin */
      if (isfinite(b) && b > mx) mx = b;
      if (isfinite(b) && b == 0 && mx < 1e-9) mx = 1e-9;
    }
  if (c->o->min_duration > 0 && c->o->min_duration > mn) mn = c->o->min_duration;
  if (!(mx > 0) || !isfinite(mn)) {
    sp_msg(SP_QUIET, "%s: histogram: no timed calls", c->sels[0].file);
    return SP_EXIT_DATA;
  }
  j.lo = floor(log10(mn) * 4) / 4;
  j.hi = ceil(log10(mx) * 4) / 4;
  if (j.hi <= j.lo) j.hi = j.lo + 0.25;
  size_t cells = (size_t)c->nfiles * (size_t)(c->ncommon ? c->ncommon : 1) * SP_HIST_BINS;
  j.share = calloc(cells, sizeof *j.share);
  int rc = j.share ? 0 : SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < c->nfiles; f++) rc = sp_hist_fill(&j, f);
  sp_charts_panels_t panels = {.natural = sp_hist_natural,
                               .panel_min = 300,
                               .ncolors = c->ncommon,
                               .setup = sp_hist_setup,
                               .draw_one = sp_hist_panel};
  if (rc == 0) rc = sp_charts_write_panels(c, "histogram_plot", &panels, &j);
  free(j.share);
  return rc;
}
