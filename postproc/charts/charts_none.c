/* charts_none.c - the charts room of a build without PLplot
 * (SCOPE_PROFILER_ENABLE_PLPLOT=OFF), as the core's mpi_stub.c stands in
 * for MPI: the options refuse every chart request before a file is read
 * (sp_charts_built), and each entry point below refuses it too, naming
 * PLplot, should a caller reach it. */
#include "charts.h"
#include "gantt.h"

int sp_charts_built(void) { return 0; }

static int sp_charts_none(void) {
  sp_msg(SP_QUIET, "%s", SP_CHARTS_NO_PLPLOT);
  return SP_EXIT_USAGE;
}

int sp_gantt_render_timed(const sp_selection_t *sel, const sp_options_t *o, int interactive,
                          sp_gantt_timing_t *tm) {
  (void)sel, (void)o, (void)interactive, (void)tm;
  return sp_charts_none();
}

int sp_gantt_render_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                          const sp_options_t *o, int interactive, sp_gantt_timing_t *tm) {
  (void)sels, (void)labels, (void)nfiles, (void)o, (void)interactive, (void)tm;
  return sp_charts_none();
}

/* The charts of --plots, each refused. */
#define SP_CHART_NONE(fn)        \
  int fn(const sp_charts_t *c) { \
    (void)c;                     \
    return sp_charts_none();     \
  }
SP_CHART_NONE(sp_durations_plot)
SP_CHART_NONE(sp_heatmap_plot)
SP_CHART_NONE(sp_flame_plot)
SP_CHART_NONE(sp_speedup_plot)
SP_CHART_NONE(sp_weak_scaling_plot)
SP_CHART_NONE(sp_scaling_efficiency_plot)
SP_CHART_NONE(sp_flame_graph_plot)
SP_CHART_NONE(sp_timeseries_plot)
SP_CHART_NONE(sp_histogram_plot)
SP_CHART_NONE(sp_density_plot)
