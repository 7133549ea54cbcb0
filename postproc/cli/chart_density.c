/* chart_density.c - timeline_density_plot: binned occupancy per region over
 * time, for long runs. A row per region (the common regions, --top-n), a
 * cell per time bin of 2 pixel columns; colour = the share of the bin's
 * time the region is busy, averaged over the selected ranks (busy on a rank
 * = at least one of its threads in the region), white 0 to dark blue 1.
 * Each (region, rank) pair is binned as the Gantt chart bins a lane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_lanes.h"
#include "chart_output.h"
#include "charts.h"
#include "gantt_bins.h"
#include "plot_device.h"

typedef struct sp_density_job {
  const sp_charts_t *c;
  double *occ; /* ncommon x nbins mean busy share */
  int nbins;
  double x1; /* seconds from the first start to the last end */
} sp_density_job_t;

/* Busy share per bin, summed over ranks then divided by their number. */
static int sp_density_fill(const sp_charts_t *c, sp_bins_t *b, double *occ, int nbins) {
  const sp_selection_t *sel = &c->sels[0];
  for (int j = 0; j < c->ncommon; j++) {
    int g = c->common[j];
    for (int k = 0; k < sel->nranks; k++) {
      sp_reader_intervals_t iv;
      int err = sp_reader_load(sel->reader, sel->regions[g], sel->ranks[k], &iv);
      if (err < 0) {
        sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
        return sp_exit_for_reader(err);
      }
      sp_bins_reset(b);
      err = sp_bins_add(b, iv.start, iv.end, NULL, -1, iv.n);
      sp_reader_intervals_free(&iv);
      if (err) return SP_EXIT_IO;
      sp_bins_finish(b);
      for (int t = 0; t < nbins; t++) occ[(size_t)j * nbins + t] += b->frac[t] / sel->nranks;
    }
  }
  return 0;
}

static int sp_density_draw(void *ctx, const char *path) {
  sp_density_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const sp_options_t *o = c->o;
  const sp_selection_t *sel = &c->sels[0];
  int n = c->ncommon;
  int height = sp_chart_height(o, 140 + 20 * n);
  int rc = sp_plot_open(sp_plot_device(o->format, 0), path, o->width, height, 1, 1);
  if (rc) return rc;
  PLFLT pos[2] = {0, 1}, r[2] = {1, 0.03}, g[2] = {1, 0.19}, bl[2] = {1, 0.42};
  plscmap1l(1, 2, pos, r, g, bl, NULL);
  pladv(0);
  plvpor(0.17, 0.88, 60.0 / height, 1.0 - 50.0 / height);
  plwind(0.0, j->x1, 0.0, n);
  double w = j->x1 / j->nbins;
  for (int row = 0; row < n; row++)
    for (int t = 0; t < j->nbins;) {
      double v = j->occ[(size_t)row * j->nbins + t];
      long q = lround(v * 64);
      int e = t + 1;
      while (e < j->nbins && lround(j->occ[(size_t)row * j->nbins + e] * 64) == q) e++;
      if (q > 0) {
        PLFLT x[4] = {t * w, e * w, e * w, t * w};
        PLFLT y[4] = {n - row - 1, n - row - 1, n - row, n - row};
        plcol1(q / 64.0);
        plfill(4, x, y);
      }
      t = e;
    }
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox("bcnst", 0.0, 0, "bc", 0.0, 0);
  char name[160];
  int step = (height - 110.0) / n >= 12.0 ? 1 : (int)(12.0 * n / (height - 110.0)) + 1;
  for (int row = 0; row < n; row += step) {
    sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[c->common[row]]), name,
                 sizeof name, 24);
    plmtex("lv", 0.5, 1.0 - (row + 0.5) / n, 1.0, name);
  }
  plschr(3.6, 1.0);
  plmtex("t", 1.5, 0.5, 0.5,
         "timeline density: share of each time bin a region is busy, "
         "mean over the selected ranks");
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, "time since first start [s]");
  PLFLT values[11];
  for (int i = 0; i < 11; i++) values[i] = i / 10.0;
  const PLFLT *vals[1] = {values};
  PLINT nvals[1] = {11}, lopt[1] = {PL_COLORBAR_LABEL_RIGHT}, sub[1] = {0};
  PLFLT ticks[1] = {0.2};
  const char *labels[1] = {"busy share"}, *axis[1] = {"bcvtm"};
  PLFLT cw, ch;
  plschr(2.8, 1.0);
  plcolorbar(&cw, &ch, PL_COLORBAR_IMAGE, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.03,
             0.8, SP_COL_BG, SP_COL_FG, 1, 0, 0, 0, 0.0, 1, lopt, (PLCHAR_MATRIX)labels, 1,
             (PLCHAR_MATRIX)axis, ticks, sub, nvals, (PLFLT_MATRIX)vals);
  return sp_plot_close();
}

int sp_density_plot(const sp_charts_t *c) {
  const sp_selection_t *sel = &c->sels[0];
  sp_chart_lanes_t l;
  int rc = sp_chart_lanes_build(sel, &l);
  if (rc == 0 && !l.any) {
    sp_msg(SP_QUIET, "%s: timeline density: no intervals to bin", sel->file);
    rc = SP_EXIT_DATA;
  }
  if (rc || c->ncommon == 0) {
    sp_chart_lanes_free(&l);
    return rc ? rc : SP_EXIT_DATA;
  }
  sp_density_job_t j = {c, NULL, (int)(0.71 * c->o->width / 2), 0};
  if (j.nbins < 1) j.nbins = 1;
  j.x1 = l.t1 > l.t0 ? 1e-9 * sp_ns_between(l.t0, l.t1) : 1e-9;
  sp_bins_t b;
  memset(&b, 0, sizeof b);
  j.occ = calloc((size_t)c->ncommon * (size_t)j.nbins, sizeof *j.occ);
  rc =
      j.occ && sp_bins_init(&b, j.nbins, l.t0, l.t1 > l.t0 ? l.t1 : l.t0 + 1) == 0 ? 0 : SP_EXIT_IO;
  if (rc == 0) rc = sp_density_fill(c, &b, j.occ, j.nbins);
  if (rc == 0) rc = sp_chart_write(c->o, "timeline_density_plot", sp_density_draw, &j);
  sp_bins_free(&b);
  free(j.occ);
  sp_chart_lanes_free(&l);
  return rc;
}
