/* chart_heatmap.c - rank_heatmap_plot: ranks x regions of the first file.
 *
 * A cell is the rank's total time in the region divided by the region's
 * mean over the selected ranks (ranks without the region count as 0), on a
 * blue-white-red scale from 0 to 2 (white = the mean, values past 2 drawn
 * as 2, one fill per cell). Columns are the regions with timed calls in
 * call-tree order (with several files the common ones; --top-n applies); the
 * picture that shows the slow rank among 1024, where a Gantt chart would
 * need a pixel row per lane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "plot_device.h"

#define SP_HEAT_ZMAX 2.0

/* Region rows with timed calls (the common regions in chart order) and
 * their mean total over ranks (ns). */
static int sp_heat_columns(const sp_charts_t *c, int *cols, double *mean) {
  const sp_chart_stats_t *st = &c->stats[0];
  int n = 0;
  for (int j = 0; j < c->ncommon; j++) {
    int g = c->common[j];
    double sum = 0;
    int64_t calls = 0;
    for (int k = 0; k < st->nranks; k++) {
      sum += st->cell[(size_t)g * st->nranks + k].total;
      calls += st->cell[(size_t)g * st->nranks + k].n;
    }
    if (calls == 0 || sum <= 0) continue;
    cols[n] = g;
    mean[n++] = sum / st->nranks;
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

static void sp_heat_colorbar(void) {
  PLFLT values[21];
  for (int i = 0; i < 21; i++) values[i] = SP_HEAT_ZMAX * i / 20.0;
  const PLFLT *vals[1] = {values};
  PLINT nvals[1] = {21}, label_opts[1] = {PL_COLORBAR_LABEL_RIGHT}, sub_ticks[1] = {0};
  PLFLT ticks[1] = {0.5};
  const char *labels[1] = {"rank total / mean over ranks"};
  const char *axis_opts[1] = {"bcvtm"};
  PLFLT w, h;
  plschr(2.8, 1.0);
  plcolorbar(&w, &h, PL_COLORBAR_IMAGE, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.03,
             0.8, SP_COL_BG, SP_COL_FG, 1, 0, 0, 0, 0.0, 1, label_opts, (PLCHAR_MATRIX)labels, 1,
             (PLCHAR_MATRIX)axis_opts, ticks, sub_ticks, nvals, (PLFLT_MATRIX)vals);
}

static int sp_heat_draw(void *ctx, const char *path) {
  const sp_charts_t *c = ctx;
  const sp_selection_t *sel = &c->sels[0];
  const sp_chart_stats_t *st = &c->stats[0];
  const sp_options_t *o = c->o;
  int *cols = malloc((size_t)(st->nregions ? st->nregions : 1) * sizeof *cols);
  double *mean = malloc((size_t)(st->nregions ? st->nregions : 1) * sizeof *mean);
  PLFLT **z = NULL;
  int ncols = cols && mean ? sp_heat_columns(c, cols, mean) : -1;
  int nr = st->nranks, rc = ncols < 0 ? SP_EXIT_IO : 0;
  if (rc == 0 && ncols == 0) {
    sp_msg(SP_QUIET, "%s: rank heat map: no selected region has timed calls", sel->file);
    rc = SP_EXIT_DATA;
  }
  if (rc == 0) {
    plAlloc2dGrid(&z, ncols, nr);
    for (int j = 0; j < ncols; j++)
      for (int k = 0; k < nr; k++) {
        double v = st->cell[(size_t)cols[j] * nr + k].total / mean[j];
        z[j][nr - 1 - k] = v > SP_HEAT_ZMAX ? SP_HEAT_ZMAX : v;
      }
    int height = o->height ? o->height : 240 + 14 * nr;
    if (!o->height) height = height < 600 ? 600 : height > 2400 ? 2400 : height;
    if (height < SP_CHART_MIN_HEIGHT) height = SP_CHART_MIN_HEIGHT; /* room for the margins */
    rc = sp_plot_open(sp_plot_device(o->format, 0), path, o->width, height, 1, 1);
    if (rc == 0) {
      PLFLT pos[3] = {0, 0.5, 1}, r[3] = {0.23, 1, 0.71}, g[3] = {0.30, 1, 0.02},
            b[3] = {0.75, 1, 0.15};
      plscmap1l(1, 3, pos, r, g, b, NULL);
      pladv(0);
      double vb = 180.0 / height, vt = 1.0 - 50.0 / height;
      plvpor(0.10, 0.86, vb, vt);
      plwind(0.0, ncols, 0.0, nr);
      /* One fill per cell (plimage centres cells on grid points). */
      for (int j = 0; j < ncols; j++)
        for (int k = 0; k < nr; k++) {
          PLFLT x[4] = {j, j + 1, j + 1, j}, y[4] = {k, k, k + 1, k + 1};
          plcol1(z[j][k] / SP_HEAT_ZMAX);
          plfill(4, x, y);
        }
      plcol0(SP_COL_FG);
      plschr(3.0, 1.0);
      plbox("bc", 0.0, 0, "bc", 0.0, 0);
      plschr(3.6, 1.0);
      plmtex("t", 1.5, 0.5, 0.5,
             "time per rank and region relative to the region's mean over ranks (white = mean)");
      sp_heat_labels(sel, cols, ncols, 0.76 * o->width, (vt - vb) * height);
      sp_heat_colorbar();
      rc = sp_plot_close();
    }
    plFree2dGrid(z, ncols, nr);
  }
  free(cols);
  free(mean);
  return rc;
}

int sp_heatmap_plot(const sp_charts_t *c) {
  return sp_chart_write(c->o, "rank_heatmap_plot", sp_heat_draw, (void *)c);
}
