/* plot_device.c - choosing, checking and opening PLplot devices.
 *
 * PLplot asks on stdin for a device it does not know and calls exit() on
 * fatal errors. A job script has no terminal, so the device is checked
 * against PLplot's list before plinit, the output file is checked to be
 * writable, and PLplot's exit goes through a handler that reports in our
 * format and exits with SP_EXIT_IO. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "charts.h"
#include "palette.h"
#include "plot_device.h"

/* Set by PLplot's abort handler, which gets no user pointer. */
static int sp_plot_failed;

static int sp_plot_exit_handler(PLCHAR_VECTOR msg) {
  fprintf(stderr, SP_PROG ": plotting failed: %s\n", msg ? msg : "PLplot error");
  return SP_EXIT_IO;
}

static void sp_plot_abort_handler(PLCHAR_VECTOR msg) {
  sp_plot_failed = 1;
  sp_msg(SP_QUIET, "plotting error: %s", msg ? msg : "PLplot error");
}

const char *sp_plot_device(sp_format_t f, int interactive) {
  if (interactive) return "xcairo";
  switch (f) {
  case SP_FORMAT_PDF:
    return "pdfcairo";
  case SP_FORMAT_SVG:
    return "svgcairo";
  case SP_FORMAT_PNG:
    break;
  }
  return "pngcairo";
}

const char *sp_plot_extension(sp_format_t f) {
  switch (f) {
  case SP_FORMAT_PDF:
    return "pdf";
  case SP_FORMAT_SVG:
    return "svg";
  case SP_FORMAT_PNG:
    break;
  }
  return "png";
}

static int sp_device_available(const char *device) {
  PLCHAR_VECTOR *menus = NULL, *names = NULL;
  int n = 0;
  /* plgDevs fills caller arrays of up to n entries; PLplot has < 100 devices. */
  menus = calloc(128, sizeof *menus);
  names = calloc(128, sizeof *names);
  if (!menus || !names) {
    free(menus);
    free(names);
    return 0;
  }
  n = 128;
  plgDevs(&menus, &names, &n);
  int found = 0;
  for (int i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], device) == 0) found = 1;
  free(menus);
  free(names);
  return found;
}

int sp_plot_open(const char *device, const char *path, int width, int height, int ncolors,
                 int exact_fills) {
  if (!path) {
    const char *d = getenv("DISPLAY");
    if (!d || !*d) {
      sp_msg(SP_QUIET,
             "--show needs a display, but DISPLAY is not set (use -o DIR to write a "
             "file instead)");
      return SP_EXIT_IO;
    }
  }
  if (!sp_device_available(device)) {
    sp_msg(SP_QUIET, "PLplot device '%s' is not available (Debian: install plplot-driver-cairo)",
           device);
    return SP_EXIT_IO;
  }
  if (path) {
    FILE *f = fopen(path, "wb");
    if (!f) {
      sp_msg(SP_QUIET, "cannot write %s: %s", path, strerror(errno));
      return SP_EXIT_IO;
    }
    fclose(f);
  }
  sp_plot_failed = 0;
  plsexit(sp_plot_exit_handler);
  plsabort(sp_plot_abort_handler);
  plsdev(device);
  /* PLplot's cairo devices outline every antialiased fill with a 1-px line,
   * which widens a one-column bar to two columns: exact fills are drawn
   * without antialiasing (pixel-aligned, nothing added). */
  if (exact_fills) plsetopt("drvopt", "graphics_anti_aliasing=1");
  if (path) plsfnam(path);
  /* 90 dpi: PLplot's cairo default, so 1 mm of character height = 3.5 px. */
  plspage(90.0, 90.0, width, height, 0, 0);
  plscolbg(255, 255, 255); /* white background, set before plinit as PLplot requires */
  plscmap0n(SP_COL_REGION0 + (ncolors > 0 ? ncolors : 1));
  plspause(path ? 0 : 1);
  plinit();
  plscol0(SP_COL_BG, 255, 255, 255);
  plscol0(SP_COL_FG, 0, 0, 0);
  plscol0(SP_COL_GRID, 200, 200, 200);
  return sp_plot_failed ? SP_EXIT_IO : 0;
}

int sp_plot_close(void) {
  /* plend1, not plend: plend ends the library, and the next plinit loads
   * the device driver again through libltdl, whose handle of the previous
   * load is never freed (a definite leak per chart under valgrind, 9 for
   * -o with every chart). plend1 ends this chart's stream alone (stream 0
   * is cleared for the next chart); the driver stays loaded, reachable, for
   * the process's life. */
  plend1();
  return sp_plot_failed ? SP_EXIT_IO : 0;
}

void sp_plot_region_colours(const sp_selection_t *sel, const sp_options_t *o) {
  int n = sel->nregions;
  const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
  unsigned char *rgb = malloc((size_t)(n ? n : 1) * 3);
  if (names && rgb) {
    for (int i = 0; i < n; i++) names[i] = sp_reader_region_name(sel->reader, sel->regions[i]);
    sp_palette_for(o->cmap, o->colour_names, o->ncolour_names, names, n, rgb);
    for (int i = 0; i < n; i++)
      plscol0(SP_COL_REGION0 + i, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
  }
  free(names);
  free(rgb);
}

/* Legend entries before "+N more". */
#define SP_LEGEND_MAX 40

void sp_plot_region_legend(const sp_selection_t *sel) { sp_plot_region_legend_in(sel, NULL); }

/* Legend at the right, outside the plot: one coloured box per region. */
void sp_plot_region_legend_in(const sp_selection_t *sel, const int *order) {
  int n = sel->nregions < SP_LEGEND_MAX ? sel->nregions : SP_LEGEND_MAX;
  int extra = sel->nregions > n;
  int m = n + extra;
  PLINT *opt = calloc((size_t)m, sizeof *opt), *colours = calloc((size_t)m, sizeof *colours);
  PLINT *patterns = calloc((size_t)m, sizeof *patterns);
  PLFLT *scales = calloc((size_t)m, sizeof *scales), *widths = calloc((size_t)m, sizeof *widths);
  char **texts = calloc((size_t)m, sizeof *texts);
  char *store = calloc((size_t)m, 128);
  if (opt && colours && patterns && scales && widths && texts && store) {
    for (int i = 0; i < m; i++) {
      texts[i] = store + 128 * i;
      int g = order && i < n ? order[i] : i; /* the region's colour follows it */
      colours[i] = SP_COL_REGION0 + g;
      scales[i] = 0.8;
      widths[i] = 1.0;
      opt[i] = PL_LEGEND_COLOR_BOX;
      if (i < n) {
        sp_plot_text(sp_reader_region_name(sel->reader, sel->regions[g]), texts[i], 128, 24);
      } else {
        opt[i] = PL_LEGEND_NONE;
        snprintf(texts[i], 128, "+%d more", sel->nregions - n);
      }
    }
    PLFLT lw, lh;
    PLINT fg[SP_LEGEND_MAX + 1];
    for (int i = 0; i < m; i++) fg[i] = SP_COL_FG;
    plschr(3.0, 1.0);
    pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.05, SP_COL_BG, SP_COL_FG, 1, 0,
             0, m, opt, 0.8, 0.9, 1.6, 0.0, fg, (PLCHAR_MATRIX)texts, colours, patterns, scales,
             widths, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  free(opt);
  free(colours);
  free(patterns);
  free(scales);
  free(widths);
  free(texts);
  free(store);
}

int sp_charts_built(void) { return 1; }
