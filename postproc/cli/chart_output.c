/* chart_output.c - where charts go: DIR/<name>.<ext>, complete or not at all. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chart_output.h"
#include "output_file.h"
#include "plot_device.h"

int sp_chart_path(const char *dir, const char *name, const char *ext, char *path) {
  /* Room for DIR, '/', NAME, '.' and EXT: a longer name would be cut. */
  size_t room = strlen(name) + strlen(ext) + 3;
  if (strlen(dir) + room > SP_PATH_MAX) {
    sp_msg(SP_QUIET, "output directory name too long (%zu bytes, at most %zu)", strlen(dir),
           (size_t)SP_PATH_MAX - room);
    return SP_EXIT_IO;
  }
  if (sp_output_mkdirs(dir) != 0) {
    sp_msg(SP_QUIET, "cannot create output directory %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  snprintf(path, SP_PATH_MAX, "%.*s%s%s.%s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", name, ext);
  return 0;
}

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

int sp_chart_height(const sp_options_t *o, int natural_px) {
  int height = o->height;
  if (!height) height = natural_px < 480 ? 480 : natural_px > 2400 ? 2400 : natural_px;
  return height < SP_CHART_MIN_HEIGHT ? SP_CHART_MIN_HEIGHT : height;
}
