/* chart_flame.c - flame_plot: per rank (rank 0 unless --ranks), x = time,
 * y = call depth, a band per thread (the reference tool's chart, threads
 * kept apart); with several files one panel per file, stacked.
 *
 * Cost stays flat in the number of calls: at one depth of one thread the
 * calls are disjoint, so at most one per pixel column is a column or wider;
 * those are drawn as rectangles, and the narrower ones are binned per
 * column (their busy share, drawn as a bar that high in the colour of the
 * longest narrow call of the column), as the Gantt chart does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "flame_calls.h"
#include "plot_device.h"

#define SP_FLAME_MAX_RANKS 16

typedef struct sp_flame_job {
  const sp_charts_t *c;
  int file;             /* index of the file in c */
  sp_flame_calls_t *fc; /* one per flame rank, loaded */
  int nfr;
  const int *ranks;
  int rows;      /* depth rows over all panels and bands */
  double x0, x1; /* window, seconds since the file's first start */
  int64_t t0;    /* first start of the file, ns */
} sp_flame_job_t;

/* Narrow calls of one depth row, binned per column. */
typedef struct sp_flame_row {
  double *busy; /* ncols: busy columns */
  double *best; /* ncols: longest narrow call (columns) */
  int *colour;  /* ncols: its region row */
} sp_flame_row_t;

static void sp_flame_rect(double xa, double xb, double y0, double h, int colour) {
  PLFLT x[4] = {xa, xb, xb, xa}, y[4] = {y0, y0, y0 + h, y0 + h};
  plcol0(SP_COL_REGION0 + colour);
  plfill(4, x, y);
}

/* One band: the calls of one thread, depth rows from y0 upwards. */
static void sp_flame_band(const sp_flame_job_t *j, const sp_flame_call_t *call, int64_t n,
                          int depths, double y0, int ncols, sp_flame_row_t *r) {
  double span = j->x1 - j->x0, col_s = span / ncols;
  for (int d = 0; d < depths; d++) {
    memset(r->busy, 0, (size_t)ncols * sizeof *r->busy);
    memset(r->best, 0, (size_t)ncols * sizeof *r->best);
    for (int64_t i = 0; i < n; i++) {
      if (call[i].depth != d) continue;
      double a = 1e-9 * sp_ns_between(j->t0, call[i].start) - j->x0;
      double b = 1e-9 * sp_ns_between(j->t0, call[i].end) - j->x0;
      if (b <= 0 || a >= span) continue;
      a = a < 0 ? 0 : a;
      b = b > span ? span : b;
      if ((b - a) >= col_s) {
        sp_flame_rect(j->x0 + a, j->x0 + b, y0 + d + 0.05, 0.9, call[i].row);
        continue;
      }
      int col = (int)(a / col_s);
      if (col >= ncols) col = ncols - 1;
      double w = (b - a) / col_s;
      r->busy[col] += w;
      if (w > r->best[col]) {
        r->best[col] = w;
        r->colour[col] = call[i].row;
      }
    }
    for (int col = 0; col < ncols; col++)
      if (r->busy[col] > 0)
        sp_flame_rect(j->x0 + col * col_s, j->x0 + (col + 1) * col_s, y0 + d + 0.05,
                      0.9 * (r->busy[col] > 1 ? 1 : r->busy[col]), r->colour[col]);
  }
}

static void sp_flame_panels(const sp_flame_job_t *j, int ncols, sp_flame_row_t *r) {
  const sp_selection_t *sel = &j->c->sels[j->file];
  double y = j->rows;
  char text[64];
  plschr(2.8, 1.0);
  for (int p = 0; p < j->nfr; p++) {
    const sp_flame_calls_t *fc = &j->fc[p];
    int64_t at = 0;
    for (int t = 0; t < fc->nthreads; t++) {
      int depths = fc->max_depth[t] + 1;
      int64_t e = at;
      while (e < fc->n && fc->call[e].thread == fc->threads[t]) e++;
      y -= depths;
      sp_flame_band(j, fc->call + at, e - at, depths, y, ncols, r);
      plcol0(SP_COL_FG);
      snprintf(text, sizeof text, "r%d t%d", sp_reader_rank_id(sel->reader, j->ranks[p]),
               (int)fc->threads[t]);
      plmtex("lv", 0.5, (y + 0.5 * depths) / j->rows, 1.0, text);
      plcol0(SP_COL_GRID);
      if (y > 0) pljoin(j->x0, y, j->x1, y);
      at = e;
    }
  }
}

/* The panel of file f in the page's band [y0, y1] (normalized); ctx: one
 * job per file of the charts. */
static int sp_flame_panel(void *ctx, int f, int height, double y0, double y1) {
  const sp_flame_job_t *j = (const sp_flame_job_t *)ctx + f;
  const sp_options_t *o = j->c->o;
  const sp_selection_t *sel = &j->c->sels[j->file];
  int rc = 0;
  sp_plot_region_colours(sel, o);
  double vl = 0.08, vr = 0.84;
  plvpor(vl, vr, y0 + 60.0 / height, y1 - 50.0 / height);
  plwind(j->x0, j->x1, 0.0, j->rows);
  int ncols = (int)((vr - vl) * o->width);
  sp_flame_row_t r;
  r.busy = calloc((size_t)ncols, sizeof *r.busy);
  r.best = calloc((size_t)ncols, sizeof *r.best);
  r.colour = calloc((size_t)ncols, sizeof *r.colour);
  if (r.busy && r.best && r.colour)
    sp_flame_panels(j, ncols, &r);
  else
    rc = SP_EXIT_IO;
  free(r.busy);
  free(r.best);
  free(r.colour);
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox("bcnst", 0.0, 0, "bc", 0.0, 0);
  plschr(3.6, 1.0);
  const char *what =
      "flame chart: call depth over time, a band per rank and thread "
      "(depth 0 at the bottom of a band)";
  sp_charts_panel_caption(j->c, j->file, what, "time since first start [s]");
  sp_plot_region_legend(sel);
  return rc;
}

static int sp_flame_natural(void *ctx, int f) {
  return 140 + 22 * ((const sp_flame_job_t *)ctx)[f].rows;
}

/* Loads the flame ranks' calls of file f into j. */
static int sp_flame_load(const sp_charts_t *c, int f, sp_flame_job_t *j) {
  const sp_selection_t *sel = &c->sels[f];
  j->c = c;
  j->file = f;
  j->nfr = sp_flame_ranks(sel, c->o, &j->ranks);
  if (j->nfr > SP_FLAME_MAX_RANKS) {
    sp_msg(SP_NORMAL, "flame chart: the first %d of %d selected ranks", SP_FLAME_MAX_RANKS, j->nfr);
    j->nfr = SP_FLAME_MAX_RANKS;
  }
  j->fc = calloc((size_t)(j->nfr ? j->nfr : 1), sizeof *j->fc);
  int rc = j->fc ? 0 : SP_EXIT_IO;
  int64_t t1 = INT64_MIN;
  j->t0 = sel->t0;
  for (int p = 0; rc == 0 && p < j->nfr; p++) {
    rc = sp_flame_calls_load(sel, p, &j->fc[p]);
    for (int t = 0; rc == 0 && t < j->fc[p].nthreads; t++) j->rows += j->fc[p].max_depth[t] + 1;
    for (int64_t i = 0; rc == 0 && i < j->fc[p].n; i++)
      if (j->fc[p].call[i].end > t1) t1 = j->fc[p].call[i].end;
  }
  if (rc == 0 && j->rows == 0) {
    sp_msg(SP_QUIET, "%s: flame chart: no timed calls on the selected ranks", sel->file);
    rc = SP_EXIT_DATA;
  }
  if (rc == 0) {
    double span = t1 > j->t0 ? 1e-9 * sp_ns_between(j->t0, t1) : 1e-9;
    j->x0 = c->o->start_time;
    j->x1 = c->o->end_time > 0 ? c->o->end_time : span;
    if (j->x1 <= j->x0) j->x1 = j->x0 + 1e-9;
  }
  return rc;
}

int sp_flame_plot(const sp_charts_t *c) {
  sp_flame_job_t *jobs = calloc((size_t)c->nfiles, sizeof *jobs);
  int rc = jobs ? 0 : SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < c->nfiles; f++) rc = sp_flame_load(c, f, &jobs[f]);
  static const sp_charts_panels_t panels = {
      .natural = sp_flame_natural, .panel_min = 240, .exact_fills = 1, .draw_one = sp_flame_panel};
  if (rc == 0) rc = sp_charts_write_panels(c, "flame_plot", &panels, jobs);
  for (int f = 0; jobs && f < c->nfiles; f++) {
    for (int p = 0; jobs[f].fc && p < jobs[f].nfr; p++) sp_flame_calls_free(&jobs[f].fc[p]);
    free(jobs[f].fc);
  }
  free(jobs);
  return rc;
}
