/* chart_density.c - timeline_density_plot: binned occupancy per region over
 * time, for long runs. A row per region (the common regions, --top-n), a
 * cell per time bin of 2 pixel columns; colour = the share of the bin's
 * time the region is busy, averaged over the selected ranks (busy on a rank
 * = at least one of its threads in the region), white 0 to dark blue 1.
 * Each (region, rank) pair is binned as the Gantt chart bins a lane. With
 * several files one panel per file (its own time axis), stacked. */
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
  int file;    /* index of the file in c */
  double *occ; /* ncommon x nbins mean busy share */
  int nbins;
  double x1; /* seconds from the first start to the last end */
} sp_density_job_t;

/* One pair's calls by start over all threads (sp_reader_merge_open_by_start:
 * the merge holds a chunk per sorted run, not the pair, whose threads' calls
 * the load sorted together) into the bins: the same union as
 * sp_bins_add's. Returns 0 or an sp_exit_t code after printing why. */
static int sp_density_pair(const sp_selection_t *sel, int g, int k, sp_bins_t *b) {
  enum { BATCH = 4096 };
  sp_reader_merge_t *m = NULL;
  int err = sp_reader_merge_open_by_start(sel->reader, k, &g, NULL, 1, &m);
  sp_reader_call_t *c = err ? NULL : malloc(BATCH * sizeof *c);
  int64_t s[BATCH], e[BATCH];
  sp_bins_feed_t st = SP_BINS_FEED;
  int64_t got = 0;
  while (c && (got = sp_reader_merge_next_n(m, c, BATCH)) > 0) {
    for (int64_t i = 0; i < got; i++) s[i] = c[i].start, e[i] = c[i].end;
    sp_bins_feed(b, &st, s, e, NULL, -1, got); /* in start order: never out of order */
  }
  sp_reader_merge_close(m);
  free(c);
  if (err || got < 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(sel->reader));
    return sp_exit_for_reader(err ? err : (int)got);
  }
  return c || err ? 0 : SP_EXIT_IO;
}

/* Busy share per bin, summed over ranks then divided by their number. */
static int sp_density_fill(const sp_charts_t *c, int f, sp_bins_t *b, double *occ, int nbins) {
  const sp_selection_t *sel = &c->sels[f];
  for (int j = 0; j < c->ncommon; j++) {
    int g = c->common[(size_t)f * c->ncommon + j];
    for (int k = 0; k < sel->nranks; k++) {
      sp_bins_reset(b);
      int err = sp_density_pair(sel, sel->regions[g], sel->ranks[k], b);
      if (err) return err;
      sp_bins_finish(b);
      for (int t = 0; t < nbins; t++) occ[(size_t)j * nbins + t] += b->frac[t] / sel->nranks;
    }
  }
  return 0;
}

/* The panel of file f in the page's band [y0, y1] (normalized); ctx: one
 * job per file of the charts. */
static int sp_density_panel(void *ctx, int f, int height, double y0, double y1) {
  const sp_density_job_t *j = (const sp_density_job_t *)ctx + f;
  const sp_charts_t *c = j->c;
  const sp_selection_t *sel = &c->sels[j->file];
  int n = c->ncommon;
  double vb = y0 + 60.0 / height, vt = y1 - 50.0 / height;
  plvpor(0.17, 0.88, vb, vt);
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
  double plot_px = (vt - vb) * height;
  int step = plot_px / n >= 12.0 ? 1 : (int)(12.0 * n / plot_px) + 1;
  for (int row = 0; row < n; row += step) {
    int g = c->common[(size_t)j->file * n + row];
    sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[g]), name, sizeof name, 24);
    plmtex("lv", 0.5, 1.0 - (row + 0.5) / n, 1.0, name);
  }
  plschr(3.6, 1.0);
  sp_charts_panel_caption(c, j->file,
                          "timeline density: share of each time bin a region is busy, "
                          "mean over the selected ranks",
                          "time since first start [s]");
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
  return 0;
}

/* Colour map 1: white (idle) to dark blue (busy). */
static void sp_density_setup(void *ctx) {
  (void)ctx;
  PLFLT pos[2] = {0, 1}, r[2] = {1, 0.03}, g[2] = {1, 0.19}, bl[2] = {1, 0.42};
  plscmap1l(1, 2, pos, r, g, bl, NULL);
}

static int sp_density_natural(void *ctx, int f) {
  return 140 + 20 * ((const sp_density_job_t *)ctx)[f].c->ncommon;
}

/* Bins file f into j (its own time span: first start to last end). */
static int sp_density_load(const sp_charts_t *c, int f, sp_density_job_t *j) {
  const sp_selection_t *sel = &c->sels[f];
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
  j->c = c;
  j->file = f;
  j->nbins = (int)(0.71 * c->o->width / 2);
  if (j->nbins < 1) j->nbins = 1;
  j->x1 = l.t1 > l.t0 ? 1e-9 * sp_ns_between(l.t0, l.t1) : 1e-9;
  sp_bins_t b;
  memset(&b, 0, sizeof b);
  j->occ = calloc((size_t)c->ncommon * (size_t)j->nbins, sizeof *j->occ);
  rc = j->occ && sp_bins_init(&b, j->nbins, l.t0, l.t1 > l.t0 ? l.t1 : l.t0 + 1) == 0 ? 0
                                                                                      : SP_EXIT_IO;
  if (rc == 0) rc = sp_density_fill(c, f, &b, j->occ, j->nbins);
  sp_bins_free(&b);
  sp_chart_lanes_free(&l);
  return rc;
}

int sp_density_plot(const sp_charts_t *c) {
  sp_density_job_t *jobs = calloc((size_t)c->nfiles, sizeof *jobs);
  int rc = jobs ? 0 : SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < c->nfiles; f++) rc = sp_density_load(c, f, &jobs[f]);
  static const sp_charts_panels_t panels = {.natural = sp_density_natural,
                                            .panel_min = 200,
                                            .ncolors = 1,
                                            .exact_fills = 1,
                                            .setup = sp_density_setup,
                                            .draw_one = sp_density_panel};
  if (rc == 0) rc = sp_charts_write_panels(c, "timeline_density_plot", &panels, jobs);
  for (int f = 0; jobs && f < c->nfiles; f++) free(jobs[f].occ);
  free(jobs);
  return rc;
}
