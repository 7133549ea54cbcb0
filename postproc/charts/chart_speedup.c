/* chart_speedup.c - the scaling charts over several files: speedup_plot,
 * weak_scaling_plot and scaling_efficiency_plot, drawn from the figures of
 * common/scaling.c (which also gives their data files, cli/export_data.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "chart_scale.h"
#include "charts.h"
#include "plot_device.h"

typedef struct sp_speedup_job {
  const sp_charts_t *c;
  const sp_speedup_t *sp;
  sp_scaling_kind_t kind;
  double work; /* --work-per-rank, 0 = not given */
} sp_speedup_job_t;

/* The title of a scaling chart; names the baseline and, for weak scaling,
 * the checked work per rank. */
static void sp_scaling_title(const sp_speedup_job_t *j, char *t, size_t cap) {
  const sp_speedup_t *sp = j->sp;
  const char *f = sp->field, *base = sp->label;
  switch (j->kind) {
  case SP_SCALING_WEAK: {
    char work[64] = "";
    if (j->work > 0) snprintf(work, sizeof work, "; work per rank %.6g", j->work);
    snprintf(t, cap, "weak scaling: mean per call / at %s = %s (dashed: ideal)%s", f, base, work);
    break;
  }
  case SP_SCALING_EFFICIENCY:
    snprintf(t, cap, "scaling efficiency = speedup / (%s / %s) (baseline %s = %s; dashed: ideal)",
             f, base, f, base);
    break;
  case SP_SCALING_SPEEDUP:
    snprintf(t, cap, "speedup = mean duration per call at the smallest %s / at each %s%s", f, f,
             sp->numeric ? " (dashed: ideal)" : "");
    break;
  }
}

/* The y range of a scaling chart: 1 (the ideal's level) and every value,
 * the ideal's end for a numeric speedup; *ymax for a linear axis, *ylo and
 * *yhi for a log one. Returns 1 when the values span decades (log axis). */
static int sp_speedup_yrange(const sp_speedup_job_t *j, double *ymax, double *ylo, double *yhi) {
  const sp_charts_t *c = j->c;
  const sp_speedup_t *sp = j->sp;
  int ng = sp->ngroups;
  double xmin = sp->x[0], xmax = sp->x[ng - 1];
  *ymax = 1;
  double *all = malloc(((size_t)c->ncommon * (size_t)ng + 2) * sizeof *all);
  int nall = 0;
  if (all) all[nall++] = 1.0; /* the ideal's 1 */
  for (int r = 0; r < c->ncommon; r++)
    for (int g = 0; g < ng; g++) {
      double v = sp_scaling_value(sp, j->kind, r, g);
      if (isfinite(v) && v > *ymax) *ymax = v;
      if (all && isfinite(v)) all[nall++] = v;
    }
  if (j->kind == SP_SCALING_SPEEDUP && sp->numeric && xmax / xmin > *ymax) *ymax = xmax / xmin;
  if (all && j->kind == SP_SCALING_SPEEDUP && sp->numeric) all[nall++] = xmax / xmin;
  int logy = all && sp_axis_log_wanted(all, nall, ylo, yhi);
  free(all);
  /* Efficiencies are read against 1: keep 0..1.05 in view (the reference
   * tool's range), and any value above it (superlinear) too. */
  if (j->kind == SP_SCALING_EFFICIENCY && *ymax < 1.05 / 1.08) *ymax = 1.05 / 1.08;
  return logy;
}

/* One line per drawn region (colour slot[r]), each labelled at its end;
 * wy0..wy1: the window's y range. */
static void sp_speedup_lines(const sp_speedup_job_t *j, const unsigned char *drawn, const int *slot,
                             int logy, double wy0, double wy1) {
  const sp_charts_t *c = j->c;
  const sp_speedup_t *sp = j->sp;
  int ng = sp->ngroups;
  PLFLT *x = malloc((size_t)ng * sizeof *x), *y = malloc((size_t)ng * sizeof *y);
  size_t nc = (size_t)(c->ncommon ? c->ncommon : 1);
  double *ex = malloc(nc * sizeof *ex), *ey = malloc(nc * sizeof *ey); /* line ends */
  const char **names = malloc(nc * sizeof *names);
  int *cols = malloc(nc * sizeof *cols), nl = 0;
  plwidth(2.0);
  for (int r = 0; x && y && r < c->ncommon; r++) {
    if (!drawn[r]) continue;
    int np = 0; /* the points with a value: the line joins them */
    for (int g = 0; g < ng; g++) {
      x[np] = sp->x[g];
      y[np] = sp_scaling_value(sp, j->kind, r, g);
      if (logy) y[np] = y[np] > 0 ? log10(y[np]) : NAN;
      np += isfinite(y[np]) != 0;
    }
    plcol0(SP_COL_REGION0 + slot[r]);
    if (np > 1) plline(np, x, y);
    if (np > 0) plpoin(np, x, y, 17);
    if (np > 0 && ex && ey && names && cols) {
      ex[nl] = x[np - 1];
      ey[nl] = y[np - 1];
      names[nl] = sp_reader_region_name(c->sels[0].reader, c->sels[0].regions[c->common[r]]);
      cols[nl++] = SP_COL_REGION0 + slot[r];
    }
  }
  plwidth(1.0);
  if (ex && ey && names && cols) sp_line_labels(nl, ex, ey, names, cols, wy0, wy1);
  free(ex);
  free(ey);
  free(names);
  free(cols);
  free(x);
  free(y);
}

/* The title, the x field under the axis and the y label. */
static void sp_speedup_labels(const sp_speedup_job_t *j, int logy) {
  plcol0(SP_COL_FG);
  char t[512];
  sp_scaling_title(j, t, sizeof t);
  plschr(3.4, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, t);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, j->sp->field);
  char ylab[64];
  snprintf(ylab, sizeof ylab, "%s%s",
           j->kind == SP_SCALING_WEAK         ? "normalized runtime"
           : j->kind == SP_SCALING_EFFICIENCY ? "efficiency"
                                              : "speedup",
           logy ? " (log scale)" : "");
  plmtex("l", 5.0, 0.5, 0.5, ylab);
}

static int sp_speedup_draw(void *ctx, const char *path) {
  sp_speedup_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const sp_speedup_t *sp = j->sp;
  const sp_options_t *o = c->o;
  int height = o->height ? o->height : 720;
  if (height < SP_CHART_MIN_HEIGHT) height = SP_CHART_MIN_HEIGHT;
  int ng = sp->ngroups;
  /* The regions with a line (a value somewhere): the legend lists only
   * those, as the reference tool does, each in colour slot k of its order. */
  unsigned char *drawn = calloc((size_t)(c->ncommon ? c->ncommon : 1), 1);
  int *slot = malloc((size_t)(c->ncommon ? c->ncommon : 1) * sizeof *slot);
  if (!drawn || !slot) {
    free(drawn);
    free(slot);
    return SP_EXIT_IO;
  }
  int nslots = 0;
  for (int r = 0; r < c->ncommon; r++) {
    drawn[r] = (unsigned char)sp_scaling_has_line(sp, j->kind, r);
    slot[r] = drawn[r] ? nslots++ : -1;
  }
  int rc = sp_plot_open(sp_plot_device(o->format, 0), path, o->width, height, nslots, 0);
  if (rc) {
    free(drawn);
    free(slot);
    return rc;
  }
  for (int r = 0; r < c->ncommon; r++)
    if (drawn[r])
      plscol0(SP_COL_REGION0 + slot[r], c->common_rgb[3 * r], c->common_rgb[3 * r + 1],
              c->common_rgb[3 * r + 2]);
  double xmin = sp->x[0], xmax = sp->x[ng - 1];
  double ymax, ylo, yhi;
  int logy = sp_speedup_yrange(j, &ymax, &ylo, &yhi);
  if (xmax <= xmin) xmax = xmin + 1;
  double pad = 0.05 * (xmax - xmin);
  /* Room on the right for the labels at the line ends. */
  double rpad = 0.22 * (xmax - xmin);
  double wy0 = logy ? log10(ylo) - 0.1 : 0.0, wy1 = logy ? log10(yhi) + 0.1 : ymax * 1.08;
  pladv(0);
  plvpor(0.11, 0.80, 70.0 / height, 1.0 - 50.0 / height);
  plwind(xmin - pad, xmax + rpad, wy0, wy1);
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox(sp->numeric ? "bcnst" : "bc", 0.0, 0, logy ? "bcnstlv" : "bcnstv", 0.0, 0);
  for (int g = 0; !sp->numeric && g < ng; g++)
    plmtex("b", 1.5, (sp->x[g] - xmin + pad) / (xmax - xmin + pad + rpad), 0.5,
           sp->label + (size_t)g * SP_X_CAP);
  PLFLT ix[2] = {xmin, sp->x[ng - 1]}, iy[2] = {1.0, 1.0};
  if (j->kind == SP_SCALING_SPEEDUP) iy[1] = xmax / xmin; /* ideal: speedup = x / smallest x */
  if (logy) {
    iy[0] = log10(iy[0]);
    iy[1] = log10(iy[1]);
  }
  if (j->kind != SP_SCALING_SPEEDUP || sp->numeric) {
    pllsty(2);
    plline(2, ix, iy);
    pllsty(1);
  }
  sp_speedup_lines(j, drawn, slot, logy, wy0, wy1);
  sp_speedup_labels(j, logy);
  sp_charts_common_legend(c, drawn);
  free(drawn);
  free(slot);
  return sp_plot_close();
}

static int sp_scaling_plot(const sp_charts_t *c, sp_scaling_kind_t kind, const char *name) {
  if (c->nfiles < 2) {
    sp_msg(SP_QUIET, "%s needs two or more files (%d given)", name, c->nfiles);
    return SP_EXIT_USAGE;
  }
  sp_speedup_job_t j = {c, NULL, kind, 0};
  if (kind == SP_SCALING_EFFICIENCY && !sp_scaling_field_ok(c->o->x_field)) {
    sp_msg(SP_QUIET, "%s needs --x-field num_ranks, omp_num_threads or total_cores (not %s)", name,
           c->o->x_field);
    return SP_EXIT_USAGE;
  }
  int rc = kind == SP_SCALING_WEAK ? sp_scaling_work(c, &j.work) : 0;
  if (rc) return rc;
  if (c->ncommon == 0) {
    sp_msg(SP_QUIET, "%s: no region is common to all %d files", name, c->nfiles);
    return SP_EXIT_DATA;
  }
  sp_speedup_t sp;
  rc = sp_speedup_compute(c, &sp);
  if (rc == 0 && kind == SP_SCALING_EFFICIENCY && !sp.numeric) {
    sp_msg(SP_QUIET, "%s: --x-field %s is not a number in every file", name, sp.field);
    rc = SP_EXIT_DATA;
  }
  if (rc == 0 && !sp_scaling_any_line(c, &sp, kind)) {
    sp_msg(SP_QUIET, "%s: no common region has a timed call at the baseline %s = %s", name,
           sp.field, sp.label);
    rc = SP_EXIT_DATA;
  }
  j.sp = &sp;
  if (rc == 0) sp_scaling_note_small(c, &sp, name);
  if (rc == 0) rc = sp_chart_write(c->o, name, sp_speedup_draw, &j);
  if (rc == 0 || sp.x) sp_speedup_free(&sp);
  return rc;
}

int sp_speedup_plot(const sp_charts_t *c) {
  return sp_scaling_plot(c, SP_SCALING_SPEEDUP, "speedup_plot");
}

int sp_weak_scaling_plot(const sp_charts_t *c) {
  return sp_scaling_plot(c, SP_SCALING_WEAK, "weak_scaling_plot");
}

int sp_scaling_efficiency_plot(const sp_charts_t *c) {
  return sp_scaling_plot(c, SP_SCALING_EFFICIENCY, "scaling_efficiency_plot");
}
