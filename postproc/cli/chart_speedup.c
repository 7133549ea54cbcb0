/* chart_speedup.c - the scaling charts over several files: speedup_plot,
 * weak_scaling_plot and scaling_efficiency_plot (their data files are
 * written by export_data.c from the same figures).
 *
 * The reference tool's rule: regions common to all files, the mean
 * duration per call over the selected ranks, files with the same x
 * averaged, baseline = the smallest x. x is --x-field: num_ranks (rank
 * groups of the file) or any attribute of /metadata (omp_num_threads,
 * total_cores, ...). When every x is a number the groups are sorted;
 * otherwise they are categories in command-line order (the first file's
 * first, the baseline).
 *   speedup            = baseline mean / mean; ideal x / smallest x (numeric
 *                        x only), for a strong-scaling study (fixed problem)
 *   weak_scaling       = mean / baseline mean (normalized runtime); ideal a
 *                        flat 1, for a weak-scaling study (the same work per
 *                        rank in every run: --work-per-rank checks it)
 *   scaling_efficiency = speedup / (x / smallest x); ideal a flat 1; only for
 *                        x = num_ranks, omp_num_threads or total_cores
 * A file without a timed call of a region (mean NaN or 0) is left out of
 * that region's group mean, as the reference tool does: a group left with
 * no file has no point (the line joins its neighbours), and a region with
 * no point at the baseline has no line, nor has a region whose baseline mean
 * is under SP_SCALING_MIN_BASE_S (1 us a call: timer cost, not work; one
 * line on stderr names them). Values that span more than SP_LOG_SPAN get a
 * log y axis; every line is labelled at its end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "chart_output.h"
#include "chart_scale.h"
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

/* A file's mean counts in its group's mean when it is finite and above 0
 * (the reference tool's rule): NaN or 0 is a region without a timed call. */
static int sp_mean_known(double m) { return m > 0 && isfinite(m); }

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
  int *cnt = calloc((size_t)(n ? n : 1) * (size_t)nf, sizeof *cnt); /* files per (region, group) */
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
  for (int f = 0; rc == 0 && f < nf; f++)
    for (int j = 0; j < n; j++) {
      double m = sp_chart_stats_metric(&c->stats[f], c->common[(size_t)f * n + j], SP_DUR_AVG);
      if (!sp_mean_known(m)) continue;
      mean[(size_t)j * nf + group[f]] += m;
      cnt[(size_t)j * nf + group[f]]++;
    }
  sp->mean = rc == 0 ? malloc((size_t)(n ? n : 1) * (size_t)nf * sizeof *sp->mean) : NULL;
  if (rc == 0 && !sp->mean) rc = SP_EXIT_IO;
  for (int j = 0; rc == 0 && j < n; j++)
    for (int g = 0; g < sp->ngroups; g++) {
      const double *s = mean + (size_t)j * nf;
      const int *k = cnt + (size_t)j * nf;
      double base = k[0] ? s[0] / k[0] : NAN, m = k[g] ? s[g] / k[g] : NAN;
      sp->speedup[(size_t)j * sp->ngroups + g] = m > 0 && isfinite(base) ? base / m : NAN;
      sp->mean[(size_t)j * sp->ngroups + g] = m;
    }
  sp->field = field;
  free(xs);
  free(group);
  free(mean);
  free(cnt);
  if (rc) sp_speedup_free(sp);
  return rc;
}

void sp_scaling_note_missing(const sp_charts_t *c) {
  int n = c->ncommon;
  for (int f = 0; f < c->nfiles; f++)
    for (int j = 0; j < n; j++) {
      const sp_selection_t *sel = &c->sels[f];
      int g = c->common[(size_t)f * n + j];
      double m = sp_chart_stats_metric(&c->stats[f], g, SP_DUR_AVG);
      if (sp_mean_known(m)) continue;
      sp_msg(SP_NORMAL, "%s: region '%s' has %s: left out of its mean in the scaling charts",
             sel->file, sp_reader_region_name(sel->reader, sel->regions[g]),
             sp_chart_stats_stored(&c->stats[f], g, SP_DUR_AVG)
                 ? "no timed call on the selected ranks"
                 : "no known total time (no stamps, no stored total)");
    }
}

void sp_speedup_free(sp_speedup_t *sp) {
  free(sp->mean);
  free(sp->label);
  free(sp->x);
  free(sp->speedup);
  memset(sp, 0, sizeof *sp);
}

double sp_scaling_value(const sp_speedup_t *sp, sp_scaling_kind_t kind, int j, int g) {
  const double *m = sp->mean + (size_t)j * sp->ngroups;
  if (!sp_mean_known(m[0]) || !sp_mean_known(m[g])) return NAN;
  if (m[0] < SP_SCALING_MIN_BASE_S) return NAN; /* a near-zero baseline: no ratio */
  switch (kind) {
  case SP_SCALING_WEAK:
    return m[g] / m[0];
  case SP_SCALING_EFFICIENCY:
    return sp->x[0] > 0 && sp->x[g] > 0 ? (m[0] / m[g]) / (sp->x[g] / sp->x[0]) : NAN;
  case SP_SCALING_SPEEDUP:
    break;
  }
  return sp->speedup[(size_t)j * sp->ngroups + g];
}

int sp_scaling_has_line(const sp_speedup_t *sp, sp_scaling_kind_t kind, int j) {
  for (int g = 0; g < sp->ngroups; g++)
    if (isfinite(sp_scaling_value(sp, kind, j, g))) return 1;
  return 0;
}

int sp_scaling_any_line(const sp_charts_t *c, const sp_speedup_t *sp, sp_scaling_kind_t kind) {
  for (int j = 0; j < c->ncommon; j++)
    if (sp_scaling_has_line(sp, kind, j)) return 1;
  return 0;
}

const char *sp_scaling_column(sp_scaling_kind_t kind) {
  return kind == SP_SCALING_WEAK         ? "normalized_runtime"
         : kind == SP_SCALING_EFFICIENCY ? "efficiency"
                                         : "speedup";
}

int sp_scaling_field_ok(const char *field) {
  return !field || !strcmp(field, "num_ranks") || !strcmp(field, "omp_num_threads") ||
         !strcmp(field, "total_cores");
}

/* The values of --work-per-rank (words, each a comma list) into v (cap
 * entries); returns their count, or -1 after printing a bad one. */
static int sp_scaling_work_values(const sp_options_t *o, double *v, int cap) {
  int n = 0;
  for (size_t k = 0; k < o->nwork_per_rank; k++)
    for (const char *p = o->work_per_rank[k]; *p;) {
      size_t len = strcspn(p, ",");
      char word[64];
      snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), p);
      char *end;
      double x = strtod(word, &end);
      if (len == 0 || len > 63 || end == word || *end || !isfinite(x) || x <= 0) {
        sp_msg(SP_QUIET, "--work-per-rank: '%s' is not a positive number", word);
        return -1;
      }
      if (n < cap) v[n] = x;
      n++;
      p += len + (p[len] == ',');
    }
  return n;
}

int sp_scaling_work(const sp_charts_t *c, double *work) {
  *work = 0;
  if (c->o->nwork_per_rank == 0) return 0;
  double *v = malloc((size_t)c->nfiles * sizeof *v);
  int n = v ? sp_scaling_work_values(c->o, v, c->nfiles) : -1;
  int rc = n < 0 ? SP_EXIT_USAGE : 0;
  if (rc == 0 && n != c->nfiles) {
    sp_msg(SP_QUIET, "--work-per-rank has %d values for %d files (one per file, in order)", n,
           c->nfiles);
    rc = SP_EXIT_USAGE;
  }
  /* The reference tool's test: every value equal to the first to a relative 1e-9. */
  for (int k = 1; rc == 0 && k < n; k++)
    if (fabs(v[k] - v[0]) > 1e-9 * v[0]) {
      sp_msg(SP_QUIET,
             "--work-per-rank: %g (file %d, %s) differs from %g (file 1, %s): these runs are "
             "not a weak-scaling study (speedup and scaling_efficiency are for a fixed "
             "problem size)",
             v[k], k + 1, c->labels[k], v[0], c->labels[0]);
      rc = SP_EXIT_USAGE;
    }
  if (rc == 0) *work = v[0];
  free(v);
  return rc;
}

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
  double ymax = 1, xmin = sp->x[0], xmax = sp->x[ng - 1];
  double *all = malloc(((size_t)c->ncommon * (size_t)ng + 2) * sizeof *all);
  int nall = 0;
  if (all) all[nall++] = 1.0; /* the ideal's 1 */
  for (int r = 0; r < c->ncommon; r++)
    for (int g = 0; g < ng; g++) {
      double v = sp_scaling_value(sp, j->kind, r, g);
      if (isfinite(v) && v > ymax) ymax = v;
      if (all && isfinite(v)) all[nall++] = v;
    }
  if (j->kind == SP_SCALING_SPEEDUP && sp->numeric && xmax / xmin > ymax) ymax = xmax / xmin;
  if (all && j->kind == SP_SCALING_SPEEDUP && sp->numeric) all[nall++] = xmax / xmin;
  double ylo, yhi;
  int logy = all && sp_axis_log_wanted(all, nall, &ylo, &yhi);
  free(all);
  /* Efficiencies are read against 1: keep 0..1.05 in view (the reference
   * tool's range), and any value above it (superlinear) too. */
  if (j->kind == SP_SCALING_EFFICIENCY && ymax < 1.05 / 1.08) ymax = 1.05 / 1.08;
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
  plcol0(SP_COL_FG);
  char t[512];
  sp_scaling_title(j, t, sizeof t);
  plschr(3.4, 1.0);
  plmtex("t", 1.5, 0.5, 0.5, t);
  plschr(3.0, 1.0);
  plmtex("b", 3.0, 0.5, 0.5, sp->field);
  char ylab[64];
  snprintf(ylab, sizeof ylab, "%s%s",
           j->kind == SP_SCALING_WEAK         ? "normalized runtime"
           : j->kind == SP_SCALING_EFFICIENCY ? "efficiency"
                                              : "speedup",
           logy ? " (log scale)" : "");
  plmtex("l", 5.0, 0.5, 0.5, ylab);
  sp_charts_common_legend(c, drawn);
  free(drawn);
  free(slot);
  return sp_plot_close();
}

/* One line naming the regions left out for a near-zero baseline. */
static void sp_scaling_note_small(const sp_charts_t *c, const sp_speedup_t *sp, const char *name) {
  char list[512];
  size_t len = 0;
  int n = 0;
  list[0] = '\0';
  for (int j = 0; j < c->ncommon; j++) {
    double m0 = sp->mean[(size_t)j * sp->ngroups];
    if (!sp_mean_known(m0) || m0 >= SP_SCALING_MIN_BASE_S) continue;
    const char *nm = sp_reader_region_name(c->sels[0].reader, c->sels[0].regions[c->common[j]]);
    if (len < sizeof list - 1) {
      int w = snprintf(list + len, sizeof list - len, "%s%s", n ? ", " : "", nm);
      len += w > 0 ? (size_t)w : 0;
    }
    n++;
  }
  if (n)
    sp_msg(SP_NORMAL,
           "%s: %d region%s left out of the ratios (under %g us per call at the baseline %s = "
           "%s: timer cost, not work): %s",
           name, n, n == 1 ? "" : "s", SP_SCALING_MIN_BASE_S * 1e6, sp->field, sp->label,
           list);
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
