/* chart_output.h - DIR/<name>.<ext> for every chart and data file of -o DIR. */
#ifndef SP_CHART_OUTPUT_H
#define SP_CHART_OUTPUT_H

#include <stddef.h>

#include "output_file.h"
#include "pproc.h"

/* Charts with names under the axis need this height whatever --height says
 * (it sizes the Gantt chart, whose margins are smaller). */
#define SP_CHART_MIN_HEIGHT 400

/* A chart's height in pixels: --height when given, else natural_px kept
 * within 480..2400; never below SP_CHART_MIN_HEIGHT. */
int sp_chart_height(const sp_options_t *o, int natural_px);
/* The same rule with another floor (the Gantt chart's margins are smaller). */
int sp_chart_height_min(const sp_options_t *o, int natural_px, int min_px);

/* One panel per file, stacked top to bottom in one image (charts that show
 * files separately). The page height is the height rule (floor min_px)
 * over the sum of the panels' natural heights (with several panels each
 * counted as at least 480, the height of a chart alone), raised to n * panel_min_px
 * so that every panel keeps room for its margins; each panel gets a band
 * in proportion to its natural height: band[2 * f] and band[2 * f + 1] are
 * the bottom and top of panel f in normalized page coordinates (one panel:
 * 0 and 1, the single-file chart as before). Returns the page height. */
int sp_chart_panels(const sp_options_t *o, const int *natural_px, int n, int min_px,
                    int panel_min_px, double *band);


/* Draws one chart: path is the file to write, or NULL for a window. */
typedef int (*sp_chart_draw_fn)(void *ctx, const char *path);

/* Writes DIR/<name>.<format> through draw, drawn under a temporary name and
 * renamed when complete (output_file.c); prints "wrote PATH". Returns an
 * sp_exit_t code. */
int sp_chart_write(const sp_options_t *o, const char *name, sp_chart_draw_fn draw, void *ctx);

#endif
