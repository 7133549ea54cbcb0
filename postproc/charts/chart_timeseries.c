/* chart_timeseries.c - duration_timeseries_plot: each region's call
 * duration over the run, per step (the k-th call of a rank, in start
 * order), with the min-max band over the selected ranks and their mean as
 * a line: the chart that shows a time-stepping code slowing down. A panel
 * per region (the common regions, --top-n; at most 8: those called more
 * than once on a rank, largest self time first, chart_pick.h); with several files
 * one group of such panels per file, stacked, each titled with its label.
 * More steps than pixel columns are binned: a column's band spans the
 * min and max of its steps, its line the mean. The steps are binned as
 * they are read (timeseries_steps.c), a pair at a time: memory flat in
 * calls per rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "chart_pick.h"
#include "charts.h"
#include "plot_device.h"
#include "timeseries_steps.h"

#define SP_TS_PANELS 8
/* Pixels of a file's group of panels: the title and axis label margins, and
 * the least height of one region's panel (its title and tick labels take
 * 42 px, so at least 48 px of plot stay). */
#define SP_TS_MARGIN_PX 120
#define SP_TS_PANEL_MIN_PX 90

/* One panel: the band and mean line of a series binned per column. */
static void sp_ts_panel(const sp_ts_bins_t *s, int colour, const char *title) {
  int64_t n = s->n;
  int nb = s->nb;
  PLFLT *x = malloc((size_t)nb * 2 * sizeof *x), *y = malloc((size_t)nb * 2 * sizeof *y);
  PLFLT *m = malloc((size_t)nb * sizeof *m), *xm = malloc((size_t)nb * sizeof *xm);
  double ymax = 0;
  if (!x || !y || !m || !xm) nb = 0;
  for (int b = 0; b < nb; b++) {
    int64_t a = n * b / nb, e = n * (b + 1) / nb;
    double lo = s->lo[b], hi = s->hi[b], sum = s->sum[b];
    int64_t cnt = s->cnt[b];
    xm[b] = x[b] = x[2 * nb - 1 - b] = 0.5 * (a + e - 1);
    y[b] = isfinite(lo) ? lo : 0;
    y[2 * nb - 1 - b] = hi;
    m[b] = cnt ? sum / cnt : 0;
    if (hi > ymax) ymax = hi;
  }
  plwind(n > 1 ? 0 : -0.5, n > 1 ? n - 1 : 0.5, 0, ymax > 0 ? ymax * 1.08 : 1);
  if (nb > 1) {
    PLINT r, g, bl;
    PLFLT al;
    plgcol0a(SP_COL_REGION0 + colour, &r, &g, &bl, &al);
    plscol0a(SP_COL_REGION0 + colour, r, g, bl, 0.3);
    /* plscol0a changes the pen only when the entry is the current colour:
     * select it, or the band takes the previous pen (opaque black). */
    plcol0(SP_COL_REGION0 + colour);
    plfill(2 * nb, x, y);
    plscol0a(SP_COL_REGION0 + colour, r, g, bl, 1.0);
    plcol0(SP_COL_REGION0 + colour);
    plline(nb, xm, m);
  } else if (nb == 1) { /* one step: its range and mean as a bar and a point */
    plcol0(SP_COL_REGION0 + colour);
    pljoin(0, y[0], 0, y[1]);
    plpoin(1, xm, m, 17);
  }
  plcol0(SP_COL_FG);
  plschr(2.6, 1.0);
  plbox("bcnst", 0.0, 0, "bcnstv", 0.0, 0);
  plmtex("t", 0.6, 0.0, 0.0, title);
  free(x);
  free(y);
  free(m);
  free(xm);
}

typedef struct sp_ts_job {
  const sp_charts_t *c;
  sp_ts_bins_t *s; /* nfiles x np */
  int np;
  int ncols;              /* pixel columns of a panel: its bins */
  int pick[SP_TS_PANELS]; /* common region of each panel */
} sp_ts_job_t;

/* File f's panels in the page's band [y0, y1] (normalized). */
static int sp_ts_file(void *ctx, int f, int height, double y0, double y1) {
  const sp_ts_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const sp_selection_t *sel = &c->sels[f];
  double top = y1 - 50.0 / height, bottom = y0 + 60.0 / height, ph = (top - bottom) / j->np;
  char name[160], what[256], title[400];
  for (int p = 0; p < j->np; p++) {
    const sp_ts_bins_t *s = &j->s[(size_t)f * j->np + p];
    plvpor(0.10, 0.96, top - (p + 1) * ph + 28.0 / height, top - p * ph - 14.0 / height);
    int g = c->common[(size_t)f * c->ncommon + j->pick[p]];
    sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[g]), name, sizeof name, 40);
    snprintf(what, sizeof what,
             "%s: duration per call [s], band = min..max over ranks, "
             "line = mean",
             name);
    sp_charts_panel_title(c, f, what, title, sizeof title);
    sp_ts_panel(s, p, title);
  }
  plschr(3.0, 1.0);
  plmtex("b", 3.2, 0.5, 0.5, "step (k-th call of each rank, in start order)");
  return 0;
}

static void sp_ts_setup(void *ctx) {
  const sp_ts_job_t *j = ctx;
  for (int p = 0; p < j->np; p++) {
    const unsigned char *rgb = j->c->common_rgb + 3 * j->pick[p];
    plscol0(SP_COL_REGION0 + p, rgb[0], rgb[1], rgb[2]);
  }
}

static int sp_ts_natural(void *ctx, int f) {
  (void)f;
  return 120 + 200 * ((const sp_ts_job_t *)ctx)->np;
}

/* The page height: every region's panel keeps SP_TS_PANEL_MIN_PX whatever
 * --height says (the panel rule does so for several files; one file gets
 * its natural height, without the 480 floor, or --height, raised to that). */
static void sp_ts_height(const sp_ts_job_t *j, sp_charts_panels_t *panels) {
  const sp_charts_t *c = j->c;
  int need = c->nfiles * panels->panel_min, asked = c->o->height;
  if (c->nfiles == 1) {
    int natural = sp_ts_natural((void *)j, 0);
    int h = asked ? asked : natural > 2400 ? 2400 : natural;
    if (h < SP_CHART_MIN_HEIGHT) h = SP_CHART_MIN_HEIGHT;
    panels->height = h < need ? need : h;
  }
  if (asked && asked < need)
    sp_msg(SP_NORMAL,
           "duration timeseries: %d region panel%s need %d px, drawn that tall instead of "
           "--height %d (--top-n draws fewer)",
           j->np * c->nfiles, j->np * c->nfiles == 1 ? "" : "s", need, asked);
}

int sp_timeseries_plot(const sp_charts_t *c) {
  sp_ts_job_t j = {c, NULL, 0, (int)(0.86 * c->o->width), {0}};
  j.np = sp_charts_pick_per_call(c, SP_TS_PANELS, j.pick, "duration timeseries");
  if (j.np < 0) return -j.np;
  size_t ns = (size_t)c->nfiles * (size_t)(j.np ? j.np : 1);
  j.s = calloc(ns, sizeof *j.s);
  int rc = j.s ? 0 : SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < c->nfiles; f++) {
    const sp_selection_t *sel = &c->sels[f];
    for (int p = 0; rc == 0 && p < j.np; p++) {
      int g = c->common[(size_t)f * c->ncommon + j.pick[p]];
      rc = sp_ts_bins_build(sel, sel->regions[g], c->o->min_duration, j.ncols,
                            &j.s[(size_t)f * j.np + p]);
    }
    int any = 0;
    for (int p = 0; rc == 0 && p < j.np; p++) any |= j.s[(size_t)f * j.np + p].n > 0;
    if (rc == 0 && !any) {
      sp_msg(SP_QUIET, "%s: duration timeseries: no timed calls", sel->file);
      rc = SP_EXIT_DATA;
    }
  }
  sp_charts_panels_t panels = {.natural = sp_ts_natural,
                               .panel_min = SP_TS_MARGIN_PX + SP_TS_PANEL_MIN_PX * j.np,
                               .ncolors = j.np,
                               .setup = sp_ts_setup,
                               .draw_one = sp_ts_file};
  if (rc == 0) sp_ts_height(&j, &panels);
  if (rc == 0) rc = sp_charts_write_panels(c, "duration_timeseries_plot", &panels, &j);
  for (size_t i = 0; j.s && i < ns; i++) sp_ts_bins_free(&j.s[i]);
  free(j.s);
  return rc;
}
