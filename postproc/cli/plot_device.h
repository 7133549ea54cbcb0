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
/* Finishes the page (plend). Returns 0 or SP_EXIT_IO if PLplot reported an error. */
int sp_plot_close(void);
/* PLplot device name for a format ("pngcairo"), or the interactive one. */
const char *sp_plot_device(sp_format_t f, int interactive);
const char *sp_plot_extension(sp_format_t f);
/* Copies text into out with PLplot's escape character '#' doubled, cut
 * at max_chars characters (UTF-8 aware) with "..." appended; bytes that
 * are not UTF-8 become \xNN, controls a blank (text_safe.c). cap >= 8. */
void sp_plot_text(const char *text, char *out, size_t cap, int max_chars);

/* Sets colour map 0 entries SP_COL_REGION0 + i to the colour of region
 * sel->regions[i] under the named colour map (palette.c; NULL: default). */
void sp_plot_region_colours(const sp_selection_t *sel, const char *cmap);

#endif
