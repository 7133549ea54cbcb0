/* chart_panels.c - what the charts over several files share: one image of
 * stacked panels (one per file), panel titles, the common regions' legend
 * and colours. */
#include <stdio.h>
#include <stdlib.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "plot_device.h"

void sp_charts_common_legend(const sp_charts_t *c, const unsigned char *drawn) {
  sp_selection_t shown = c->sels[0];
  int *rows = malloc((size_t)(c->ncommon ? c->ncommon : 1) * sizeof *rows);
  if (!rows) return;
  int m = 0;
  for (int r = 0; r < c->ncommon; r++)
    if (!drawn || drawn[r]) rows[m++] = c->sels[0].regions[c->common[r]];
  shown.regions = rows;
  shown.nregions = m;
  sp_plot_region_legend(&shown);
  free(rows);
}

void sp_charts_panel_title(const sp_charts_t *c, int f, const char *what, char *out, size_t cap) {
  char label[160];
  if (c->nfiles < 2) {
    snprintf(out, cap, "%s", what);
    return;
  }
  sp_plot_text(c->labels[f], label, sizeof label, 40);
  snprintf(out, cap, "%s: %s", label, what);
}

void sp_charts_panel_caption(const sp_charts_t *c, int f, const char *what, const char *xlabel) {
  char title[400];
  sp_charts_panel_title(c, f, what, title, sizeof title);
  plmtex("t", 1.5, 0.5, 0.5, title);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, xlabel);
}

typedef struct sp_charts_panels_job {
  const sp_charts_t *c;
  const sp_charts_panels_t *p;
  void *ctx;
} sp_charts_panels_job_t;

/* sp_chart_draw_fn of sp_charts_write_panels. */
static int sp_charts_draw_panels(void *job, const char *path) {
  const sp_charts_panels_job_t *jb = job;
  const sp_charts_t *c = jb->c;
  const sp_charts_panels_t *p = jb->p;
  void *ctx = jb->ctx;
  const sp_options_t *o = c->o;
  int nf = c->nfiles;
  double *band = malloc(2 * (size_t)(nf > 0 ? nf : 1) * sizeof *band);
  int *natural = calloc((size_t)(nf > 0 ? nf : 1), sizeof *natural);
  if (!band || !natural) {
    free(band);
    free(natural);
    return SP_EXIT_IO;
  }
  int ncolors = p->ncolors;
  for (int f = 0; f < nf; f++) {
    natural[f] = p->natural(ctx, f);
    if (p->ncolors <= 0 && c->sels[f].nregions > ncolors) ncolors = c->sels[f].nregions;
  }
  if (ncolors < 1) ncolors = 1;
  int height = p->height;
  if (height > 0) { /* one file, its height given: one band over the page */
    band[0] = 0.0;
    band[1] = 1.0;
  } else {
    height = sp_chart_panels(o, natural, nf, SP_CHART_MIN_HEIGHT, p->panel_min, band);
  }
  int rc =
      sp_plot_open(sp_plot_device(o->format, 0), path, o->width, height, ncolors, p->exact_fills);
  if (rc == 0) {
    if (p->setup) p->setup(ctx);
    pladv(0);
    for (int f = 0; f < nf; f++) {
      int rf = p->draw_one(ctx, f, height, band[2 * f], band[2 * f + 1]);
      if (rc == 0) rc = rf;
    }
    int rc2 = sp_plot_close();
    if (rc == 0) rc = rc2;
  }
  free(band);
  free(natural);
  return rc;
}

int sp_charts_write_panels(const sp_charts_t *c, const char *name, const sp_charts_panels_t *p,
                           void *ctx) {
  sp_charts_panels_job_t job = {c, p, ctx};
  return sp_chart_write(c->o, name, sp_charts_draw_panels, &job);
}

void sp_charts_common_colours(const sp_charts_t *c, int n) {
  for (int r = 0; r < n; r++)
    plscol0(SP_COL_REGION0 + r, c->common_rgb[3 * r], c->common_rgb[3 * r + 1],
            c->common_rgb[3 * r + 2]);
}
