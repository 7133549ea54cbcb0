/* chart_speedup.c - speedup_plot and speedup_data over several files.
 *
 * The reference tool's rule: regions common to all files, the mean
 * duration per call over the selected ranks, files with the same x
 * averaged, baseline = the smallest x, speedup = baseline / mean. x is
 * --x-field: num_ranks (rank groups of the file) or any attribute of
 * /metadata (omp_num_threads, total_cores, ...). When every x is a number
 * the chart has an ideal line (x / smallest x); otherwise the values are
 * categories in command-line order (the first file's first) and there is
 * none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "charts.h"
#include "plot_device.h"

#define SP_X_CAP 128

static int sp_x_value(const sp_selection_t *sel, const char *field, char *out) {
  if (strcmp(field, "num_ranks") == 0) {
    snprintf(out, SP_X_CAP, "%d", sp_reader_num_ranks(sel->reader));
    return 0;
  }
  if (sp_reader_metadata(sel->reader, field, out, SP_X_CAP) == 0) return 0;
  sp_msg(SP_QUIET, "%s: --x-field %s: %s", sel->file, field, sp_reader_errmsg(sel->reader));
  return SP_EXIT_DATA;
}

static int sp_is_number(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*v);
}

int sp_speedup_compute(const sp_charts_t *c, sp_speedup_t *sp) {
  memset(sp, 0, sizeof *sp);
  const char *field = c->o->x_field ? c->o->x_field : "num_ranks";
  int nf = c->nfiles, n = c->ncommon;
  char(*xs)[SP_X_CAP] = calloc((size_t)nf, sizeof *xs);
  int *group = malloc((size_t)nf * sizeof *group);
  sp->label = malloc((size_t)nf * SP_X_CAP);
  sp->x = malloc((size_t)nf * sizeof *sp->x);
  sp->speedup = calloc((size_t)(n ? n : 1) * (size_t)nf, sizeof *sp->speedup);
  double *mean = calloc((size_t)(n ? n : 1) * (size_t)nf, sizeof *mean);
  int *cnt = calloc((size_t)nf, sizeof *cnt);
  int rc = xs && group && sp->label && sp->x && sp->speedup && mean && cnt ? 0 : SP_EXIT_IO;
  sp->numeric = 1;
  for (int f = 0; rc == 0 && f < nf; f++) {
    rc = sp_x_value(&c->sels[f], field, xs[f]);
    double v;
    if (rc == 0 && !sp_is_number(xs[f], &v)) sp->numeric = 0;
  }
  /* Groups of equal x, in command-line order, then sorted when numeric. */
  for (int f = 0; rc == 0 && f < nf; f++) {
    int g = 0;
    while (g < sp->ngroups && strcmp(sp->label + (size_t)g * SP_X_CAP, xs[f]) != 0) g++;
    if (g == sp->ngroups) {
      snprintf(sp->label + (size_t)g * SP_X_CAP, SP_X_CAP, "%s", xs[f]);
      sp->x[g] = sp->numeric ? strtod(xs[f], NULL) : g;
      sp->ngroups++;
    }
    group[f] = g;
  }
  for (int a = 0; rc == 0 && sp->numeric && a < sp->ngroups; a++) /* insertion sort by x */
    for (int b = a; b > 0 && sp->x[b] < sp->x[b - 1]; b--) {
      double t = sp->x[b];
      sp->x[b] = sp->x[b - 1];
      sp->x[b - 1] = t;
      char tmp[SP_X_CAP];
      memcpy(tmp, sp->label + (size_t)b * SP_X_CAP, SP_X_CAP);
      memcpy(sp->label + (size_t)b * SP_X_CAP, sp->label + (size_t)(b - 1) * SP_X_CAP, SP_X_CAP);
      memcpy(sp->label + (size_t)(b - 1) * SP_X_CAP, tmp, SP_X_CAP);
      for (int f = 0; f < nf; f++)
        group[f] = group[f] == b ? b - 1 : group[f] == b - 1 ? b : group[f];
    }
  for (int f = 0; rc == 0 && f < nf; f++) {
    cnt[group[f]]++;
    for (int j = 0; j < n; j++)
      mean[(size_t)j * nf + group[f]] +=
          sp_chart_stats_metric(&c->stats[f], c->common[(size_t)f * n + j], SP_DUR_AVG);
  }
  for (int j = 0; rc == 0 && j < n; j++)
    for (int g = 0; g < sp->ngroups; g++) {
      double base = mean[(size_t)j * nf] / cnt[0], m = mean[(size_t)j * nf + g] / cnt[g];
      sp->speedup[(size_t)j * sp->ngroups + g] = m > 0 && isfinite(base) ? base / m : NAN;
    }
  sp->field = field;
  free(xs);
  free(group);
  free(mean);
  free(cnt);
  if (rc) sp_speedup_free(sp);
  return rc;
}

void sp_speedup_free(sp_speedup_t *sp) {
  free(sp->label);
  free(sp->x);
  free(sp->speedup);
  memset(sp, 0, sizeof *sp);
}

typedef struct sp_speedup_job {
  const sp_charts_t *c;
  const sp_speedup_t *sp;
} sp_speedup_job_t;

static int sp_speedup_draw(void *ctx, const char *path) {
  sp_speedup_job_t *j = ctx;
  const sp_charts_t *c = j->c;
  const sp_speedup_t *sp = j->sp;
  const sp_options_t *o = c->o;
  int height = o->height ? o->height : 720;
  if (height < SP_CHART_MIN_HEIGHT) height = SP_CHART_MIN_HEIGHT;
  int rc = sp_plot_open(sp_plot_device(o->format, 0), path, o->width, height, c->ncommon, 0);
  if (rc) return rc;
  for (int r = 0; r < c->ncommon; r++)
    plscol0(SP_COL_REGION0 + r, c->common_rgb[3 * r], c->common_rgb[3 * r + 1],
            c->common_rgb[3 * r + 2]);
  int ng = sp->ngroups;
  double ymax = 1, xmin = sp->x[0], xmax = sp->x[ng - 1];
  for (int i = 0; i < c->ncommon * ng; i++)
    if (isfinite(sp->speedup[i]) && sp->speedup[i] > ymax) ymax = sp->speedup[i];
  if (sp->numeric && xmax / xmin > ymax) ymax = xmax / xmin;
  if (xmax <= xmin) xmax = xmin + 1;
  double pad = 0.05 * (xmax - xmin);
  pladv(0);
  plvpor(0.08, 0.80, 70.0 / height, 1.0 - 50.0 / height);
  plwind(xmin - pad, xmax + pad, 0.0, ymax * 1.08);
  plcol0(SP_COL_FG);
  plschr(3.0, 1.0);
  plbox(sp->numeric ? "bcnst" : "bc", 0.0, 0, "bcnstv", 0.0, 0);
  for (int g = 0; !sp->numeric && g < ng; g++)
    plmtex("b", 1.5, (sp->x[g] - xmin + pad) / (xmax - xmin + 2 * pad), 0.5,
           sp->label + (size_t)g * SP_X_CAP);
  if (sp->numeric) { /* ideal: speedup = x / smallest x */
    PLFLT ix[2] = {xmin, xmax}, iy[2] = {1.0, xmax / xmin};
    pllsty(2);
    plline(2, ix, iy);
    pllsty(1);
  }
  PLFLT *x = malloc((size_t)ng * sizeof *x), *y = malloc((size_t)ng * sizeof *y);
  plwidth(2.0);
  for (int r = 0; x && y && r < c->ncommon; r++) {
    for (int g = 0; g < ng; g++) {
      x[g] = sp->x[g];
      y[g] = sp->speedup[(size_t)r * ng + g];
    }
    plcol0(SP_COL_REGION0 + r);
    plline(ng, x, y);
    plpoin(ng, x, y, 17);
  }
  plwidth(1.0);
  free(x);
  free(y);
  plcol0(SP_COL_FG);
  char t[256];
  snprintf(t, sizeof t, "speedup = mean duration per call at the smallest %s / at each %s%s",
           sp->field, sp->field, sp->numeric ? " (dashed: ideal)" : "");
  plschr(3.4, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, t);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, sp->field);
  sp_charts_common_legend(c);
  return sp_plot_close();
}

int sp_speedup_plot(const sp_charts_t *c) {
  if (c->nfiles < 2) {
    sp_msg(SP_QUIET, "speedup_plot needs two or more files (%d given)", c->nfiles);
    return SP_EXIT_USAGE;
  }
  if (c->ncommon == 0) {
    sp_msg(SP_QUIET, "speedup: no region is common to all %d files", c->nfiles);
    return SP_EXIT_DATA;
  }
  sp_speedup_t sp;
  int rc = sp_speedup_compute(c, &sp);
  sp_speedup_job_t j = {c, &sp};
  if (rc == 0) rc = sp_chart_write(c->o, "speedup_plot", sp_speedup_draw, &j);
  if (rc == 0 || sp.x) sp_speedup_free(&sp);
  return rc;
}
