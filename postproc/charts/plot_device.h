/* plot_device.h - PLplot setup that never prompts and never exits behind our back. */
#ifndef SP_PLOT_DEVICE_H
#define SP_PLOT_DEVICE_H

#include "pproc.h"

/* Colour map 0 entries: background, text, separators, then one per region. */
enum { SP_COL_BG = 0, SP_COL_FG = 1, SP_COL_GRID = 2, SP_COL_REGION0 = 3 };

/* Checks the device and output, then calls plinit. path NULL = interactive.
 * exact_fills: fills cover exactly their area (no antialiasing, which in
 * PLplot's cairo devices also strokes each fill's outline); for charts
 * whose inked area is the measure. Returns 0 or SP_EXIT_IO after printing why. */
int sp_plot_open(const char *device, const char *path, int width, int height, int ncolors,
                 int exact_fills);
/* Finishes the page (plend1: the driver stays loaded for the next chart).
 * Returns 0 or SP_EXIT_IO if PLplot reported an error. */
int sp_plot_close(void);
/* PLplot device name for a format ("pngcairo"), or the interactive one. */
const char *sp_plot_device(sp_format_t f, int interactive);
const char *sp_plot_extension(sp_format_t f);

/* Sets colour map 0 entries SP_COL_REGION0 + i to the colour of region
 * sel->regions[i] under o->cmap (palette.c), sampled over o->colour_names
 * (all files) when set, else over the selection's regions. */
void sp_plot_region_colours(const sp_selection_t *sel, const sp_options_t *o);

/* Legend at the right, outside the plot: a coloured box per selected region
 * (colours as sp_plot_region_colours set them), at most 40, then "+N more". */
void sp_plot_region_legend(const sp_selection_t *sel);
/* The same with the entries in order[0..nregions-1] (indices into
 * sel->regions: the first 40 of that order are listed), each in its
 * region's colour; NULL: the selection's order. */
void sp_plot_region_legend_in(const sp_selection_t *sel, const int *order);

#endif
