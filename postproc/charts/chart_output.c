/* chart_output.c - where charts go: DIR/<name>.<ext>, complete or not at all. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chart_output.h"
#include "output_file.h"
#include "plot_device.h"

int sp_chart_write(const sp_options_t *o, const char *name, sp_chart_draw_fn draw, void *ctx) {
  char path[SP_PATH_MAX];
  int rc = sp_chart_path(o->outdir, name, sp_plot_extension(o->format), path);
  if (rc) return rc;
  char tmp[SP_PATH_MAX + 32];
  if (sp_output_temp(path, tmp, sizeof tmp) != 0) {
    sp_msg(SP_QUIET, "cannot write %s: %s", path, strerror(errno));
    return SP_EXIT_IO;
  }
  rc = draw(ctx, tmp);
  if (rc != 0) remove(tmp);
  if (rc == 0) rc = sp_output_commit(tmp, path, o->format);
  if (rc == 0) sp_msg(SP_NORMAL, "wrote %s", path);
  return rc;
}

int sp_chart_height_min(const sp_options_t *o, int natural_px, int min_px) {
  int height = o->height;
  if (!height) height = natural_px < 480 ? 480 : natural_px > 2400 ? 2400 : natural_px;
  return height < min_px ? min_px : height;
}

int sp_chart_height(const sp_options_t *o, int natural_px) {
  return sp_chart_height_min(o, natural_px, SP_CHART_MIN_HEIGHT);
}

int sp_chart_panels(const sp_options_t *o, const int *natural_px, int n, int min_px,
                    int panel_min_px, double *band) {
  /* Several panels: each as tall as its chart alone would be (480 at
   * least), the whole within the rule's 2400. */
  double sum = 0;
  for (int f = 0; f < n; f++) sum += n > 1 && natural_px[f] < 480 ? 480 : natural_px[f];
  int height = sp_chart_height_min(o, sum > 1e6 ? 1000000 : (int)sum, min_px);
  if (n > 1 && height < n * panel_min_px) height = n * panel_min_px;
  /* Bands in proportion to the natural heights, each at least panel_min_px
   * when there are several (the rest shared in proportion). */
  double top = 1.0, floor_px = n > 1 ? panel_min_px : 0;
  double spare = height - n * floor_px;
  for (int f = 0; f < n; f++) {
    double nat = n > 1 && natural_px[f] < 480 ? 480 : natural_px[f];
    double px = floor_px + (sum > 0 ? spare * nat / sum : spare / n);
    band[2 * f + 1] = top;
    top = f == n - 1 ? 0.0 : top - px / height;
    band[2 * f] = top;
  }
  return height;
}
