/* chart_flame_graph.c - flame_graph_plot: the call tree of each file (a
 * panel per file, stacked) aggregated by call path (the image beside --export folded): a path is a
 * box as wide as its inclusive time (summed over the selected ranks and
 * threads), above its parent, children from the parent's left edge by
 * inclusive time (the tree's order), roots side by side. Boxes narrower
 * than a pixel are left out (their time stays inside their parent's
 * width), as flamegraph.pl does; names are shown where they fit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "plot_device.h"

typedef struct sp_fg_job {
  const sp_charts_t *c;
  int file; /* index of the file in c */
  sp_reader_tree_t *t;
  double *x0;   /* per node: left edge, ns of inclusive time from the left */
  int depth;    /* deepest node + 1 */
  double total; /* sum of the roots' inclusive time, ns */
} sp_fg_job_t;

/* Left edges: children start at the parent's edge, siblings follow. */
static void sp_fg_layout(sp_fg_job_t *j) {
  int n = sp_reader_tree_num_nodes(j->t);
  double next_root = 0;
  for (int i = 0; i < n; i++) { /* depth-first order: a parent before its children */
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(j->t, i);
    if (nd->depth + 1 > j->depth) j->depth = nd->depth + 1;
    if (nd->parent < 0) {
      j->x0[i] = next_root;
      next_root += (double)(nd->inclusive > 0 ? nd->inclusive : 0);
    }
    double at = j->x0[i];
    for (int ch = nd->first_child; ch >= 0; ch = sp_reader_tree_node(j->t, ch)->next_sibling) {
      j->x0[ch] = at;
      int64_t inc = sp_reader_tree_node(j->t, ch)->inclusive;
      at += (double)(inc > 0 ? inc : 0);
    }
  }
  j->total = next_root > 0 ? next_root : 1;
}

/* Colour index of reader region g in the file's selection. */
static int sp_fg_colour(const sp_selection_t *sel, int g) {
  for (int i = 0; i < sel->nregions; i++)
    if (sel->regions[i] == g) return i;
  return 0;
}

/* The panel of file f in the page's band [y0, y1] (normalized); ctx: one
 * job per file of the charts. */
static int sp_fg_panel(void *ctx, int f, int height, double y0, double y1) {
  const sp_fg_job_t *j = (const sp_fg_job_t *)ctx + f;
  const sp_options_t *o = j->c->o;
  const sp_selection_t *sel = &j->c->sels[j->file];
  sp_plot_region_colours(sel, o);
  double vl = 0.04, vr = 0.84, vb = y0 + 60.0 / height, vt = y1 - 50.0 / height;
  plvpor(vl, vr, vb, vt);
  double secs = 1e-9 * j->total;
  plwind(0.0, secs, 0.0, j->depth);
  double px = secs / ((vr - vl) * o->width); /* seconds per pixel */
  double row_px = (vt - vb) * height / j->depth;
  char name[160], text[160];
  plschr(2.6, 1.0);
  int n = sp_reader_tree_num_nodes(j->t);
  for (int i = 0; i < n; i++) {
    const sp_reader_tree_node_t *nd = sp_reader_tree_node(j->t, i);
    double a = 1e-9 * j->x0[i], w = 1e-9 * (double)nd->inclusive;
    if (!nd->timed || w < px) continue;
    PLFLT x[4] = {a, a + w, a + w, a},
          y[4] = {nd->depth + 0.04, nd->depth + 0.04, nd->depth + 0.96, nd->depth + 0.96};
    plcol0(SP_COL_REGION0 + sp_fg_colour(sel, nd->region));
    plfill(4, x, y);
    int fit = (int)(w / px / 7.0); /* about 7 px per character */
    if (fit >= 4 && row_px >= 10) {
      sp_plot_text(sp_reader_region_name(sel->reader, nd->region), name, sizeof name,
                   fit < 40 ? fit : 40);
      snprintf(text, sizeof text, "%s", name);
      plcol0(SP_COL_FG);
      plptex(a + 3 * px, nd->depth + 0.5, 1.0, 0.0, 0.0, text);
    }
  }
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox("bcnst", 0.0, 0, "bc", 0.0, 0);
  plschr(3.4, 1.0);
  sp_charts_panel_caption(j->c, j->file,
                          "flame graph: call paths, width = inclusive time summed over the "
                          "selected ranks and threads, callers below",
                          "inclusive time [s]");
  sp_plot_region_legend(sel);
  return 0;
}

static int sp_fg_natural(void *ctx, int f) {
  return 140 + 24 * ((const sp_fg_job_t *)ctx)[f].depth;
}

/* File f's call tree and its layout into j. */
static int sp_fg_load(const sp_charts_t *c, int f, sp_fg_job_t *j) {
  j->c = c;
  j->file = f;
  int rc = sp_tree_build(&c->sels[f], 0, &j->t);
  if (rc) return rc;
  int n = sp_reader_tree_num_nodes(j->t);
  j->x0 = calloc((size_t)(n ? n : 1), sizeof *j->x0);
  if (!j->x0) return SP_EXIT_IO;
  if (n == 0) {
    sp_msg(SP_QUIET, "%s: flame graph: no calls", c->sels[f].file);
    return SP_EXIT_DATA;
  }
  sp_fg_layout(j);
  return 0;
}

int sp_flame_graph_plot(const sp_charts_t *c) {
  sp_fg_job_t *jobs = calloc((size_t)c->nfiles, sizeof *jobs);
  int rc = jobs ? 0 : SP_EXIT_IO;
  for (int f = 0; rc == 0 && f < c->nfiles; f++) rc = sp_fg_load(c, f, &jobs[f]);
  static const sp_charts_panels_t panels = {
      .natural = sp_fg_natural, .panel_min = 240, .exact_fills = 1, .draw_one = sp_fg_panel};
  if (rc == 0) rc = sp_charts_write_panels(c, "flame_graph_plot", &panels, jobs);
  for (int f = 0; jobs && f < c->nfiles; f++) {
    free(jobs[f].x0);
    if (jobs[f].t) sp_reader_tree_free(jobs[f].t);
  }
  free(jobs);
  return rc;
}
