/* chart_output.h - DIR/<name>.<ext> for every chart and data file of -o DIR. */
#ifndef SP_CHART_OUTPUT_H
#define SP_CHART_OUTPUT_H

#include <stddef.h>

#include "pproc.h"

/* Charts with names under the axis need this height whatever --height says
 * (it sizes the Gantt chart, whose margins are smaller). */
#define SP_CHART_MIN_HEIGHT 400

/* A chart's height in pixels: --height when given, else natural_px kept
 * within 480..2400; never below SP_CHART_MIN_HEIGHT. */
int sp_chart_height(const sp_options_t *o, int natural_px);

/* Bytes of an output path, NUL included. */
#define SP_PATH_MAX 4096

/* Creates DIR (mkdir -p) and puts DIR/<name>.<ext> into path (SP_PATH_MAX
 * bytes) without doubling the slashes DIR may end with. Returns 0, or
 * SP_EXIT_IO after printing why. */
int sp_chart_path(const char *dir, const char *name, const char *ext, char *path);

/* Draws one chart: path is the file to write, or NULL for a window. */
typedef int (*sp_chart_draw_fn)(void *ctx, const char *path);

/* Writes DIR/<name>.<format> through draw, drawn under a temporary name and
 * renamed when complete (output_file.c); prints "wrote PATH". Returns an
 * sp_exit_t code. */
int sp_chart_write(const sp_options_t *o, const char *name, sp_chart_draw_fn draw, void *ctx);

#endif
