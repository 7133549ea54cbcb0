/* scaling.c - the figures of the scaling charts over several files (speedup,
 * weak_scaling and scaling_efficiency), shared by the charts
 * (charts/chart_speedup.c) and their data files (cli/export_data.c).
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
 * line on stderr names them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaling.h"

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

/* Without --work-per-rank: the files' /metadata work_per_rank (the
 * program's sp_metadata_set) where every file has it as a positive number
 * and all are equal; said once on stderr either way. */
static void sp_scaling_work_meta(const sp_charts_t *c, double *work) {
  static int said;
  int have = 0;
  double first = 0;
  const char *why = NULL;
  for (int k = 0; k < c->nfiles; k++) {
    char v[64], *end;
    if (sp_reader_metadata(c->sels[k].reader, "work_per_rank", v, sizeof v) != 0) continue;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x <= 0) {
      why = "is not a positive number in every file";
      continue;
    }
    if (have++ == 0) first = x;
    if (fabs(x - first) > 1e-9 * first)
      why = "differs between the files (not a weak-scaling study)";
  }
  if (have == 0 && !why) return;
  if (!why && have < c->nfiles) why = "is not in every file";
  if (!why) *work = first;
  if (said++) return;
  if (why)
    sp_msg(SP_NORMAL,
           "weak_scaling: /metadata work_per_rank %s: the work per rank is not shown "
           "(give it with --work-per-rank)",
           why);
  else
    sp_msg(SP_NORMAL, "weak_scaling: work per rank %.6g from the files' /metadata work_per_rank",
           first);
}

int sp_scaling_work(const sp_charts_t *c, double *work) {
  *work = 0;
  if (c->o->nwork_per_rank == 0) {
    sp_scaling_work_meta(c, work);
    return 0;
  }
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

/* One line naming the regions left out for a near-zero baseline. */
void sp_scaling_note_small(const sp_charts_t *c, const sp_speedup_t *sp, const char *name) {
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
