/* scaling.h - the figures of the scaling charts over several files, per
 * common region and x group (--x-field): speedup, weak_scaling and
 * scaling_efficiency (scaling.c); drawn by charts/chart_speedup.c, written
 * as data by cli/export_data.c. */
#ifndef SP_SCALING_H
#define SP_SCALING_H

#include "chart_stats.h"

/* A region whose mean per call at the baseline is under this (s) has no
 * ratio in the scaling charts: a region that does nothing on a run (timer
 * cost, ~0.2 us a call) would otherwise read x6000 and flatten the rest. */
#define SP_SCALING_MIN_BASE_S 1e-6

/* Bytes of one x label of sp_speedup_t. */
#define SP_X_CAP 128

typedef enum sp_scaling_kind {
  SP_SCALING_SPEEDUP,   /* baseline mean / mean; ideal x / smallest x */
  SP_SCALING_WEAK,      /* mean / baseline mean (normalized runtime); ideal 1 */
  SP_SCALING_EFFICIENCY /* speedup / (x / smallest x); ideal 1; numeric x only */
} sp_scaling_kind_t;
typedef struct sp_speedup {
  const char *field; /* --x-field */
  int numeric;       /* every x a number: sorted, with an ideal line */
  int ngroups;       /* distinct x values */
  double *x;         /* ngroups: x (group index when not numeric) */
  char *label;       /* ngroups x 128 bytes: x as text */
  double *speedup;   /* ncommon x ngroups; NaN without a mean */
  double *mean;      /* ncommon x ngroups: mean duration per call of the group, s */
} sp_speedup_t;
int sp_speedup_compute(const sp_charts_t *c, sp_speedup_t *sp);
void sp_speedup_free(sp_speedup_t *sp);
/* One line on stderr per file and common region without a timed call (left
 * out of that region's group mean by sp_speedup_compute). */
void sp_scaling_note_missing(const sp_charts_t *c);
/* One line on stderr naming the common regions left out of the ratios for
 * a baseline mean under SP_SCALING_MIN_BASE_S; chart: the chart's name. */
void sp_scaling_note_small(const sp_charts_t *c, const sp_speedup_t *sp, const char *chart);
/* The value a chart of that kind shows for common region j at group g
 * (NaN where a mean is missing or not positive). */
double sp_scaling_value(const sp_speedup_t *sp, sp_scaling_kind_t kind, int j, int g);
/* 1 if common region j has a value at some group (a line in the chart, rows
 * in the data file); sp_scaling_any_line: for some common region. */
int sp_scaling_has_line(const sp_speedup_t *sp, sp_scaling_kind_t kind, int j);
int sp_scaling_any_line(const sp_charts_t *c, const sp_speedup_t *sp, sp_scaling_kind_t kind);
/* Name of the kind's value column in its data file ("speedup", ...). */
const char *sp_scaling_column(sp_scaling_kind_t kind);
/* Checks --work-per-rank against the files (one positive value each, all
 * equal); *work gets the value (0 without the option). Returns 0 or
 * SP_EXIT_USAGE after printing why. */
int sp_scaling_work(const sp_charts_t *c, double *work);
/* x fields scaling_efficiency accepts (the reference tool's scaling fields). */
int sp_scaling_field_ok(const char *field);

#endif
