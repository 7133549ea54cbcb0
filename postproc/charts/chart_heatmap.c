/* chart_heatmap.c - rank_heatmap_plot: ranks x regions, a panel per file.
 *
 * A cell is the rank's total time in the region divided by the region's
 * mean over the selected ranks (ranks without the region count as 0), on a
 * blue-white-red scale from 0 to 2 (white = the mean, values past 2 drawn
 * as 2, which the colour bar's top label "≥ 2" says; one fill per cell). A
 * rank with no timed call of the region is a neutral grey, not the blue of
 * "very fast" (the legend says so). Columns are the regions with timed
 * calls, the most time per rank first (with several files the common ones;
 * --top-n applies). A region's colours are faded toward white by its share
 * of the time of the largest column (the run, when the outermost region is
 * selected) under SP_HEAT_SHARE: a 3 us region 3x slower on one rank is
 * not the reddest cell of the map, the 10% region 1.5x slower is; with several files one panel per file, stacked, each titled
 * with the file's label (sp_charts_write_panels lays them out, as for the
 * other panel charts). The reference tool's aggregate files (no stamps)
 * give their stored totals; a region whose total is not stored is left
 * out, and said so. The picture that shows the slow rank among 1024,
 * where a Gantt chart would need a pixel row per lane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "plot_device.h"

#define SP_HEAT_ZMAX 2.0
/* Regions under this share of the largest column fade toward white. */
#define SP_HEAT_SHARE 0.01
/* A region absent on a rank (no timed call): neutral grey. */
static const unsigned char sp_heat_absent_rgb[3] = {170, 170, 170};
/* Margins of a panel, pixels: names under the plot, the title above. */
#define SP_HEAT_BOTTOM_PX 180.0
#define SP_HEAT_TOP_PX 50.0

/* Region rows of file f with timed calls (the common regions in chart
 * order) and their mean total over ranks (ns). */
static int sp_heat_columns(const sp_charts_t *c, int f, int *cols, double *mean) {
  const sp_chart_stats_t *st = &c->stats[f];
  int n = 0;
  for (int j = 0; j < c->ncommon; j++) {
    int g = c->common[(size_t)f * c->ncommon + j];
    double sum = 0;
    int64_t calls = 0;
    for (int k = 0; k < st->nranks; k++) {
      sum += st->cell[(size_t)g * st->nranks + k].total;
      calls += st->cell[(size_t)g * st->nranks + k].n;
    }
    if (calls == 0) continue;
    if (!sp_chart_stats_stored(st, g, SP_DUR_TOTAL)) { /* aggregate files: not 0, unknown */
      const sp_selection_t *sel = &c->sels[f];
      sp_msg(SP_NORMAL, "%s: rank heat map: region '%s' left out (its total time is not known)",
             sel->file, sp_reader_region_name(sel->reader, sel->regions[g]));
      continue;
    }
    if (sum <= 0) continue;
    cols[n] = g;
    /* Representative ranks: the mean over all the ranks they stand for. */
    mean[n++] = st->all_total ? st->all_total[g] / st->all_nranks : sum / st->nranks;
  }
  /* The most time first (insertion sort: stable, ties in chart order). */
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && mean[b] > mean[b - 1]; b--) {
      double tm = mean[b];
      int tg = cols[b];
      mean[b] = mean[b - 1], cols[b] = cols[b - 1];
      mean[b - 1] = tm, cols[b - 1] = tg;
    }
  return n;
}

static void sp_heat_labels(const sp_selection_t *sel, const int *cols, int ncols, double wpx,
                           double hpx) {
  char name[160], text[32];
  plschr(2.6, 1.0);
  int step = wpx / ncols >= 12.0 ? 1 : (int)(12.0 * ncols / wpx) + 1;
  for (int j = 0; j < ncols; j += step) {
    sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[cols[j]]), name, sizeof name, 24);
    plmtex("bv", 0.8, (j + 0.5) / ncols, 1.0, name);
  }
  int nr = sel->nranks;
  step = hpx / nr >= 12.0 ? 1 : (int)(12.0 * nr / hpx) + 1;
  for (int k = 0; k < nr; k += step) {
    snprintf(text, sizeof text, "r%d", sp_reader_rank_id(sel->reader, sel->ranks[k]));
    plmtex("lv", 0.5, 1.0 - (k + 0.5) / nr, 1.0, text);
  }
}

/* The colour bar, its top labelled "≥ 2" (ratios past 2 are drawn as 2),
 * and when some cell is grey a legend entry saying what grey means. */
static void sp_heat_colorbar(int any_absent) {
  PLFLT values[21];
  for (int i = 0; i < 21; i++) values[i] = SP_HEAT_ZMAX * i / 20.0;
  const PLFLT *vals[1] = {values};
  PLINT nvals[1] = {21}, sub_ticks[1] = {0};
  PLINT label_opts[2] = {PL_COLORBAR_LABEL_RIGHT, PL_COLORBAR_LABEL_TOP};
  PLFLT ticks[1] = {0.5};
  const char *labels[2] = {"rank total / mean over ranks", "\u2265 2"};
  const char *axis_opts[1] = {"bcvtm"};
  PLFLT w, h;
  plschr(2.8, 1.0);
  plcolorbar(&w, &h, PL_COLORBAR_IMAGE, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.03,
             0.7, SP_COL_BG, SP_COL_FG, 1, 0, 0, 0, 0.0, 2, label_opts, (PLCHAR_MATRIX)labels, 1,
             (PLCHAR_MATRIX)axis_opts, ticks, sub_ticks, nvals, (PLFLT_MATRIX)vals);
  if (!any_absent) return;
  PLINT opt[1] = {PL_LEGEND_COLOR_BOX}, colours[1] = {SP_COL_REGION0}, patterns[1] = {0};
  PLINT fg[1] = {SP_COL_FG};
  PLFLT scales[1] = {0.8}, widths[1] = {1.0};
  const char *texts[1] = {"no call"};
  plschr(2.8, 1.0);
  pllegend(&w, &h, 0, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_BOTTOM, 0.02, 0.0, 0.03,
           SP_COL_BG, SP_COL_FG, 1, 0, 0, 1, opt, 0.6, 1.0, 1.6, 0.0, fg, (PLCHAR_MATRIX)texts,
           colours, patterns, scales, widths, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

/* Panel of file f in the band [y0, y1] of the page (normalized). */
static void sp_heat_panel(const sp_charts_t *c, int f, const int *cols, const double *mean,
                          int ncols, int height, double y0, double y1) {
  const sp_selection_t *sel = &c->sels[f];
  const sp_chart_stats_t *st = &c->stats[f];
  int nr = st->nranks, absent = 0;
  double vb = y0 + SP_HEAT_BOTTOM_PX / height, vt = y1 - SP_HEAT_TOP_PX / height;
  plvpor(0.10, 0.86, vb, vt);
  plwind(0.0, ncols, 0.0, nr);
  double top = ncols > 0 ? mean[0] : 0; /* the largest column */
  int faded = 0;
  /* One fill per cell (plimage centres cells on grid points); rank 0 on top. */
  for (int j = 0; j < ncols; j++)
    for (int k = 0; k < nr; k++) {
      const sp_cell_stats_t *cell = &st->cell[(size_t)cols[j] * nr + k];
      double v = cell->total / mean[j];
      double w = top > 0 ? mean[j] / (top * SP_HEAT_SHARE) : 1.0;
      if (w < 1.0) { /* a small region: its deviation fades toward white */
        v = 1.0 + ((v > SP_HEAT_ZMAX ? SP_HEAT_ZMAX : v) - 1.0) * w;
        faded = 1;
      }
      PLFLT x[4] = {j, j + 1, j + 1, j}, y[4] = {nr - 1 - k, nr - 1 - k, nr - k, nr - k};
      if (cell->n == 0) {
        plcol0(SP_COL_REGION0);
        absent = 1;
      } else {
        plcol1((v > SP_HEAT_ZMAX ? SP_HEAT_ZMAX : v) / SP_HEAT_ZMAX);
      }
      plfill(4, x, y);
    }
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox("bc", 0.0, 0, "bc", 0.0, 0);
  plschr(3.6, 1.0);
  const char *what =
      absent ? "time per rank and region / the region's mean over ranks (white = mean, grey = "
               "no timed call on the rank)"
             : "time per rank and region relative to the region's mean over ranks (white = mean)";
  if (faded) /* shorter words, room for the fading rule */
    what = absent ? "rank time / region's mean over ranks (white = mean, grey = no call; "
                    "regions under 1% of the largest faded)"
                  : "rank time / region's mean over ranks (white = mean; regions under 1% "
                    "of the largest faded toward white)";
  char title[400];
  sp_charts_panel_title(c, f, what, title, sizeof title);
  plmtex("t", 1.5, 0.5, 0.5, title);
  if (sel->caption) { /* representative ranks drawn: which */
    plschr(3.0, 1.0);
    sp_plot_text(sel->caption, title, sizeof title, 200);
    plmtex("t", 0.4, 0.5, 0.5, title);
  }
  sp_heat_labels(sel, cols, ncols, 0.76 * c->o->width, (vt - vb) * height);
  sp_heat_colorbar(absent);
}

typedef struct sp_heat_job {
  const sp_charts_t *c;
  int **cols;    /* per file: the region rows drawn (sp_heat_columns) */
  double **mean; /* per file: their mean total over ranks, ns */
  int *ncols;
} sp_heat_job_t;

/* sp_charts_panels_t callbacks. */
static int sp_heat_natural(void *ctx, int f) {
  const sp_heat_job_t *jb = ctx;
  int px = 240 + 14 * jb->c->stats[f].nranks;
  return px < 600 ? 600 : px;
}

static void sp_heat_setup(void *ctx) {
  (void)ctx;
  PLFLT pos[3] = {0, 0.5, 1}, r[3] = {0.23, 1, 0.71}, g[3] = {0.30, 1, 0.02},
        b[3] = {0.75, 1, 0.15};
  plscmap1l(1, 3, pos, r, g, b, NULL);
  plscol0(SP_COL_REGION0, sp_heat_absent_rgb[0], sp_heat_absent_rgb[1], sp_heat_absent_rgb[2]);
}

static int sp_heat_draw_one(void *ctx, int f, int height, double y0, double y1) {
  const sp_heat_job_t *jb = ctx;
  sp_heat_panel(jb->c, f, jb->cols[f], jb->mean[f], jb->ncols[f], height, y0, y1);
  return 0;
}

int sp_heatmap_plot(const sp_charts_t *c) {
  int nf = c->nfiles, rc = 0;
  sp_heat_job_t jb = {c, calloc((size_t)nf, sizeof(int *)), calloc((size_t)nf, sizeof(double *)),
                      calloc((size_t)nf, sizeof(int))};
  if (!jb.cols || !jb.mean || !jb.ncols) rc = SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < nf; f++) {
    int nr = c->stats[f].nregions ? c->stats[f].nregions : 1;
    jb.cols[f] = malloc((size_t)nr * sizeof **jb.cols);
    jb.mean[f] = malloc((size_t)nr * sizeof **jb.mean);
    if (!jb.cols[f] || !jb.mean[f]) {
      rc = SP_EXIT_IO;
      break;
    }
    jb.ncols[f] = sp_heat_columns(c, f, jb.cols[f], jb.mean[f]);
    if (jb.ncols[f] == 0) {
      sp_msg(SP_QUIET, "%s: rank heat map: no selected region has %s", c->sels[f].file,
             c->stats[f].aggregate ? "a known total time (no stamps, no stored total)"
                                   : "timed calls");
      rc = SP_EXIT_DATA;
    }
  }
  /* One colour map 0 region entry (the grey), exact fills (one per cell). */
  const sp_charts_panels_t panels = {sp_heat_natural, 320, 1, 1, 0, sp_heat_setup,
                                     sp_heat_draw_one};
  if (rc == 0) rc = sp_charts_write_panels(c, "rank_heatmap_plot", &panels, &jb);
  for (int f = 0; f < nf && jb.cols && jb.mean; f++) {
    free(jb.cols[f]);
    free(jb.mean[f]);
  }
  free(jb.cols);
  free(jb.mean);
  free(jb.ncols);
  return rc;
}
