/* gantt.h - Gantt rendering with timings, for the CLI and the benchmark. */
#ifndef SP_GANTT_H
#define SP_GANTT_H

#include "pproc.h"

typedef struct sp_gantt_timing {
  double read_s;     /* reading datasets: span scan plus lane loads, seconds */
  double extent_s;   /* the span scan alone, seconds */
  double render_s;   /* binning and PLplot, seconds */
  double bin_s;      /* binning alone (merging intervals per pixel column), seconds */
  int64_t intervals; /* intervals read */
  int64_t runs;      /* bars drawn after merging per pixel column */
} sp_gantt_timing_t;

/* Draws the chart of sel to o->outdir/gantt_plot.<format>, or to a window
 * when interactive. Returns an sp_exit_t code; fills *tm. */
int sp_gantt_render_timed(const sp_selection_t *sel, const sp_options_t *o, int interactive,
                          sp_gantt_timing_t *tm);
/* The same over nfiles selections: one panel per file, stacked top to
 * bottom, each titled with labels[f] (one file: its name, as above). */
int sp_gantt_render_files(const sp_selection_t *sels, const char *const *labels, int nfiles,
                          const sp_options_t *o, int interactive, sp_gantt_timing_t *tm);

#endif
