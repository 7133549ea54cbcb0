/* chart_flame.c - flame_plot: per rank (rank 0 unless --ranks), x = time,
 * y = call depth, a band per thread (the reference tool's chart, threads
 * kept apart); with several files one panel per file, stacked.
 *
 * Cost stays flat in the number of calls: at one depth of one thread the
 * calls are disjoint, so at most one per pixel column is a column or wider;
 * those are drawn as rectangles, and the narrower ones are binned per
 * column (their busy share, drawn as a bar that high in the colour of the
 * longest narrow call of the column), as the Gantt chart does. Memory too:
 * a rank's calls are streamed twice (flame_calls.h), once for the bands'
 * depths and once to draw, with the bins of every depth row at hand. */
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
  sp_flame_calls_t *fc; /* one per flame rank: its bands (a first pass) */
  int nfr;
  const int *ranks;
  int rows;      /* depth rows over all panels and bands */
  double x0, x1; /* window, seconds since the file's first start */
  int64_t t0;    /* first start of the file, ns */
} sp_flame_job_t;

/* Narrow calls binned per column, for a window of the depth rows of a
 * rank's bands (row = the band's first row + depth). */
typedef struct sp_flame_bins {
  double *busy; /* rows x ncols: busy columns */
  double *best; /* rows x ncols: longest narrow call (columns) */
  int *colour;  /* rows x ncols: its region row */
  int rows, ncols;
} sp_flame_bins_t;

/* Rows of bins a pass holds at most (20 bytes a column each): a rank
 * deeper than that is drawn in more passes over its calls. */
#define SP_FLAME_BIN_BYTES (16u << 20)

static void sp_flame_rect(double xa, double xb, double y0, double h, int colour) {
  PLFLT x[4] = {xa, xb, xb, xa}, y[4] = {y0, y0, y0 + h, y0 + h};
  plcol0(SP_COL_REGION0 + colour);
  plfill(4, x, y);
}

/* One call on band row `row` (y of the row: yrow); rows [w0, w0 + b->rows)
 * are this pass's. Wide calls are drawn, narrow ones binned. */
static void sp_flame_call(const sp_flame_job_t *j, const sp_flame_call_t *c, int row, int w0,
                          double yrow, sp_flame_bins_t *b) {
  double span = j->x1 - j->x0, col_s = span / b->ncols;
  double a = 1e-9 * sp_ns_between(j->t0, c->start) - j->x0;
  double e = 1e-9 * sp_ns_between(j->t0, c->end) - j->x0;
  if (e <= 0 || a >= span) return;
  a = a < 0 ? 0 : a;
  e = e > span ? span : e;
  if ((e - a) >= col_s) {
    sp_flame_rect(j->x0 + a, j->x0 + e, yrow + 0.05, 0.9, c->row);
    return;
  }
  int col = (int)(a / col_s);
  if (col >= b->ncols) col = b->ncols - 1;
  size_t at = (size_t)(row - w0) * (size_t)b->ncols + (size_t)col;
  double w = (e - a) / col_s;
  b->busy[at] += w;
  if (w > b->best[at]) {
    b->best[at] = w;
    b->colour[at] = c->row;
  }
}

/* One pass over rank p's calls (panel rows from ytop down): the calls on
 * rows [w0, w0 + b->rows) of its bands, then their bins. */
static int sp_flame_pass(const sp_flame_job_t *j, int p, double ytop, int w0, sp_flame_bins_t *b) {
  const sp_flame_calls_t *fc = &j->fc[p];
  size_t cells = (size_t)b->rows * (size_t)b->ncols;
  memset(b->busy, 0, cells * sizeof *b->busy);
  memset(b->best, 0, cells * sizeof *b->best);
  sp_flame_stream_t *s;
  int rc = sp_flame_stream_open(&j->c->sels[j->file], p, &s), got = 0, t = 0, base = 0;
  sp_flame_call_t c;
  while (rc == 0 && (got = sp_flame_stream_next(s, &c)) > 0) {
    while (t < fc->nthreads && fc->threads[t] != c.thread) base += fc->max_depth[t++] + 1;
    if (t == fc->nthreads) { /* the file changed between the passes */
      got = -SP_EXIT_DATA;
      break;
    }
    /* Band t's rows lie below ytop - base - depths; its row d at y + d. */
    int depths = fc->max_depth[t] + 1, row = base + c.depth;
    if (c.depth < depths && row >= w0 && row < w0 + b->rows)
      sp_flame_call(j, &c, row, w0, ytop - base - depths + c.depth, b);
  }
  sp_flame_stream_close(s);
  if (rc == 0 && got < 0) rc = -got;
  double col_s = (j->x1 - j->x0) / b->ncols;
  base = 0;
  for (t = 0; rc == 0 && t < fc->nthreads; base += fc->max_depth[t++] + 1) {
    int depths = fc->max_depth[t] + 1;
    for (int d = 0; d < depths; d++) {
      int row = base + d;
      if (row < w0 || row >= w0 + b->rows) continue;
      const size_t r0 = (size_t)(row - w0) * (size_t)b->ncols;
      for (int col = 0; col < b->ncols; col++)
        if (b->busy[r0 + col] > 0)
          sp_flame_rect(j->x0 + col * col_s, j->x0 + (col + 1) * col_s,
                        ytop - base - depths + d + 0.05,
                        0.9 * (b->busy[r0 + col] > 1 ? 1 : b->busy[r0 + col]), b->colour[r0 + col]);
    }
  }
  return rc;
}

/* The bands of every flame rank, each rank's calls streamed (a pass per
 * window of SP_FLAME_BIN_BYTES of bins), then the bands' labels and lines. */
static int sp_flame_panels(const sp_flame_job_t *j, int ncols) {
  const sp_selection_t *sel = &j->c->sels[j->file];
  size_t per_row = (size_t)ncols * (2 * sizeof(double) + sizeof(int));
  int most = (int)(SP_FLAME_BIN_BYTES / per_row) > 0 ? (int)(SP_FLAME_BIN_BYTES / per_row) : 1;
  double y = j->rows;
  char text[64];
  int rc = 0;
  for (int p = 0; rc == 0 && p < j->nfr; p++) {
    const sp_flame_calls_t *fc = &j->fc[p];
    int rows = 0;
    for (int t = 0; t < fc->nthreads; t++) rows += fc->max_depth[t] + 1;
    sp_flame_bins_t b = {NULL, NULL, NULL, rows < most ? rows : most, ncols};
    size_t cells = (size_t)(b.rows > 0 ? b.rows : 1) * (size_t)ncols;
    b.busy = malloc(cells * sizeof *b.busy);
    b.best = malloc(cells * sizeof *b.best);
    b.colour = calloc(cells, sizeof *b.colour);
    rc = b.busy && b.best && b.colour ? 0 : SP_EXIT_IO;
    for (int w0 = 0; rc == 0 && w0 < rows; w0 += b.rows) rc = sp_flame_pass(j, p, y, w0, &b);
    free(b.busy);
    free(b.best);
    free(b.colour);
    plschr(2.8, 1.0);
    for (int t = 0; rc == 0 && t < fc->nthreads; t++) {
      int depths = fc->max_depth[t] + 1;
      y -= depths;
      plcol0(SP_COL_FG);
      snprintf(text, sizeof text, "r%d t%d", sp_reader_rank_id(sel->reader, j->ranks[p]),
               (int)fc->threads[t]);
      plmtex("lv", 0.5, (y + 0.5 * depths) / j->rows, 1.0, text);
      plcol0(SP_COL_GRID);
      if (y > 0) pljoin(j->x0, y, j->x1, y);
    }
  }
  return rc;
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
  rc = sp_flame_panels(j, ncols > 0 ? ncols : 1);
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
    rc = sp_flame_calls_scan(sel, p, &j->fc[p]);
    for (int t = 0; rc == 0 && t < j->fc[p].nthreads; t++) j->rows += j->fc[p].max_depth[t] + 1;
    if (rc == 0 && j->fc[p].last_end > t1) t1 = j->fc[p].last_end;
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
