/* charts.h - the charts and data files of -o DIR, over one or several files. */
#ifndef SP_CHARTS_H
#define SP_CHARTS_H

#include "chart_stats.h"
#include "pproc.h"

/* What every chart of a run shares: the files, their labels, their figures. */
typedef struct sp_charts {
  const sp_selection_t *sels; /* one per file */
  const char *const *labels;  /* one per file: the file column of the data */
  int nfiles;
  sp_chart_stats_t *stats; /* one per file */
  int *common;             /* rows of the regions common to all files (sp_common_regions) */
  int ncommon;
  unsigned char *rgb;        /* colour of each name of o->colour_names (3 bytes each) */
  unsigned char *common_rgb; /* colour of each common region */
  const sp_options_t *o;
} sp_charts_t;

/* Writes the charts chosen by --plots and, with --export-data, the data
 * files under o->outdir. Returns an sp_exit_t code. */
int sp_charts_write(const sp_selection_t *sels, const char *const *labels, int nfiles,
                    const sp_options_t *o);

/* Draws the legend of the regions common to all files, in the colours of
 * the first file's selection (charts drawn per common region). */
void sp_charts_common_legend(const sp_charts_t *c);

/* chart_durations.c: durations_plot_<metric> (durations_plot for one metric). */
int sp_durations_plot(const sp_charts_t *c);
/* chart_heatmap.c: rank_heatmap_plot of the first file. */
int sp_heatmap_plot(const sp_charts_t *c);
/* chart_flame.c: flame_plot of the first file. */
int sp_flame_plot(const sp_charts_t *c);
/* chart_speedup.c: speedup per common region and x group (--x-field). */
typedef struct sp_speedup {
  const char *field; /* --x-field */
  int numeric;       /* every x a number: sorted, with an ideal line */
  int ngroups;       /* distinct x values */
  double *x;         /* ngroups: x (group index when not numeric) */
  char *label;       /* ngroups x 128 bytes: x as text */
  double *speedup;   /* ncommon x ngroups; NaN without a mean */
} sp_speedup_t;
int sp_speedup_compute(const sp_charts_t *c, sp_speedup_t *sp);
void sp_speedup_free(sp_speedup_t *sp);
int sp_speedup_plot(const sp_charts_t *c);
/* chart_flame_graph.c: flame_graph_plot of the first file's call tree. */
int sp_flame_graph_plot(const sp_charts_t *c);
/* chart_timeseries.c, chart_histogram.c, chart_density.c: the "more views". */
int sp_timeseries_plot(const sp_charts_t *c);
int sp_histogram_plot(const sp_charts_t *c);
int sp_density_plot(const sp_charts_t *c);
/* export_data.c: gantt_data, flame_data and durations_data (.csv or .json). */
int sp_export_data(const sp_charts_t *c);

#endif
