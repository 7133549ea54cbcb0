/* charts.h - the charts and data files of -o DIR, over one or several files. */
#ifndef SP_CHARTS_H
#define SP_CHARTS_H

#include "chart_stats.h"
#include "pproc.h"
#include "scaling.h"

/* 1 when the charts are built (PLplot), 0 in a build without PLplot
 * (SCOPE_PROFILER_ENABLE_PLPLOT=OFF: charts_none.c), where every chart
 * request is a usage error naming PLplot. */
int sp_charts_built(void);
#define SP_CHARTS_NO_PLPLOT                                                              \
  "this scope-profiler-pproc was built without PLplot (SCOPE_PROFILER_ENABLE_PLPLOT=OFF): " \
  "the charts of -o DIR, --show and --plots need it; use --backend html for the report, " \
  "or --export-data --skip-plot-images for the data files"

/* Writes the charts chosen by --plots and, with --export-data, the data
 * files under o->outdir. Returns an sp_exit_t code. */
int sp_charts_write(const sp_selection_t *sels, const char *const *labels, int nfiles,
                    const sp_options_t *o);

/* Draws the legend of the regions common to all files (drawn NULL), or of
 * those with drawn[j] set (one byte per common region), in the order of the
 * first file's selection; entry i in colour map 0's SP_COL_REGION0 + i
 * (charts drawn per common region). */
void sp_charts_common_legend(const sp_charts_t *c, const unsigned char *drawn);

/* The title of file f's panel: what, after "LABEL: " with several files
 * (one file: what alone, as the single-file chart always had). */
void sp_charts_panel_title(const sp_charts_t *c, int f, const char *what, char *out, size_t cap);

/* Draws file f's panel title (sp_charts_panel_title of what) above the
 * viewport, in the character height set by the caller, and xlabel below it
 * at height 3.0 (the height left set): the caption the charts of a time or
 * inclusive-time axis share. */
void sp_charts_panel_caption(const sp_charts_t *c, int f, const char *what, const char *xlabel);

/* One image of stacked panels, one per file (the charts that show files
 * apart): how tall each panel wants to be and how the page is opened. */
typedef struct sp_charts_panels {
  int (*natural)(void *ctx, int f); /* natural height of file f's panel, px */
  int panel_min;                    /* least height of a panel when there are several, px */
  int ncolors;                      /* colour map 0 region entries (sp_plot_open); 0: the most
                                       regions a file selects */
  int exact_fills;                  /* sp_plot_open's exact_fills */
  int height;                       /* > 0: the page height (one file), instead of the panel rule */
  /* After the page is opened, before the panels: colour maps (NULL: none). */
  void (*setup)(void *ctx);
  /* Draws file f's panel in the page's band [y0, y1] (normalized); height
   * is the page height in pixels. Returns 0 or an sp_exit_t code. */
  int (*draw_one)(void *ctx, int f, int height, double y0, double y1);
} sp_charts_panels_t;

/* Writes DIR/<name>.<format> (sp_chart_write) with the panels of p, laid out
 * by sp_chart_panels: opens the device, runs p->setup, draws every file's
 * panel, closes. ctx goes to p's callbacks. Returns the first failure of a
 * panel or of PLplot as an sp_exit_t code. */
int sp_charts_write_panels(const sp_charts_t *c, const char *name, const sp_charts_panels_t *p,
                           void *ctx);

/* Sets colour map 0's region entries to the common regions' colours (the
 * first n of them). */
void sp_charts_common_colours(const sp_charts_t *c, int n);

/* chart_durations.c: durations_plot_<metric> (durations_plot for one metric). */
int sp_durations_plot(const sp_charts_t *c);
/* chart_heatmap.c: rank_heatmap_plot, a panel per file. */
int sp_heatmap_plot(const sp_charts_t *c);
/* chart_flame.c: flame_plot, a panel per file. */
int sp_flame_plot(const sp_charts_t *c);
/* chart_speedup.c: the scaling charts over several files (figures: scaling.h). */
int sp_speedup_plot(const sp_charts_t *c);
int sp_weak_scaling_plot(const sp_charts_t *c);
int sp_scaling_efficiency_plot(const sp_charts_t *c);
/* chart_flame_graph.c: flame_graph_plot, a panel per file's call tree. */
int sp_flame_graph_plot(const sp_charts_t *c);
/* chart_timeseries.c, chart_histogram.c, chart_density.c: the "more views". */
int sp_timeseries_plot(const sp_charts_t *c);
int sp_histogram_plot(const sp_charts_t *c);
int sp_density_plot(const sp_charts_t *c);
/* export_data.c: gantt_data, flame_data and durations_data (.csv or .json). */
int sp_export_data(const sp_charts_t *c);

#endif
